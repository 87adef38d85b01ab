"""An MVU variable's leaf forms, and the marks that make an object or array something else.

A leaf is a plain value (or a list of them), a `[value, "meaning"]` pair or a
`{value, description}` object; its meaning may carry a range (see `formats.leaves`). A start
written `NaN` or `Infinity` (JSON5's words, which YAML, read first as MVU reads it, takes for
text) makes a text field on a guessed line that says so. An object
with `$meta.extensible` or an array holding `"$__META_EXTENSIBLE__$"` is a list that takes new
rows; a `$meta` object's other flags have no trackerkit field and are reported as such.
"""

from __future__ import annotations

from typing import Any

from trackerkit.formats.imported import Builder, TrackerDraft
from trackerkit.formats.leaves import leaf, quoted

__all__ = [
    "EXTENSIBLE_MARK",
    "is_extensible",
    "is_leaf",
    "is_pair",
    "is_value_form",
    "leaf_field",
    "report_meta",
    "split_leaf",
]

EXTENSIBLE_MARK = "$__META_EXTENSIBLE__$"
#: JSON5's words for numbers that are not finite, which YAML reads as text.
_NUMBER_WORDS = frozenset({"NaN", "Infinity"})


def is_leaf(value: object) -> bool:
    """Whether a variable is one field's value: a plain value, a list of them (not extensible),
    a `[value, meaning]` pair or a `{value, description}` object."""
    if isinstance(value, list):
        if EXTENSIBLE_MARK in value:
            return False
        if is_pair(value):
            return True
        return not any(isinstance(v, dict | list) for v in value)
    if isinstance(value, dict):
        return is_value_form(value)
    return True


def is_value_form(value: dict[str, Any]) -> bool:
    """Whether an object is a `{value, description}` leaf rather than an object of variables."""
    return (
        "value" in value
        and set(value) <= {"value", "description"}
        and isinstance(value.get("description", ""), str)
    )


def is_pair(value: object) -> bool:
    """Whether `value` is a `[value, "meaning"]` pair."""
    return isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)


def split_leaf(value: object) -> tuple[object, str]:
    """A leaf's start value and its meaning."""
    if isinstance(value, list) and is_pair(value):
        return value[0], value[1]
    if isinstance(value, dict) and is_value_form(value):
        return value.get("value"), str(value.get("description", ""))
    return value, ""


def is_extensible(value: object) -> bool:
    """Whether a variable is a list that takes new rows: `$meta.extensible`, or an array holding
    the extensible mark."""
    if isinstance(value, dict):
        meta = value.get("$meta")
        return isinstance(meta, dict) and meta.get("extensible") is True
    return isinstance(value, list) and EXTENSIBLE_MARK in value


def report_meta(builder: Builder, where: str, meta: object, what: str) -> None:
    """The unmapped line for a `$meta` object of `what`: its schema flags have no field."""
    if not isinstance(meta, dict):
        builder.unmapped(where, f"a $meta that is {type(meta).__name__}, not an object")
        return
    flags = ", ".join(f"{k}={v}" for k, v in meta.items() if k != "template") or "no flags"
    builder.unmapped(
        where,
        f"schema flags of {what} ({flags}): trackerkit fields are fixed by the tracker, and a "
        "keyed list takes new rows without a flag",
    )


def leaf_field(
    builder: Builder,
    draft: TrackerDraft,
    where: str,
    key: str,
    value: object,
    how: str,
    *,
    guessed: bool = False,
) -> None:
    """One leaf as the field `key` of `draft` (`how` added to its line), or an unmapped line
    saying why it makes none; `guessed` when the caller read its place from a shape (a nested
    object flattened into a dotted name), whatever the leaf itself was."""
    start, text = split_leaf(value)
    found = leaf(start, text)
    if isinstance(found, str):
        if is_pair(value):
            found = "a [value, meaning] pair (a list of two, the second a text) whose " + (
                found.removeprefix("its ")
            )
        builder.unmapped(where, found)
        return
    detail = found.detail + how
    written = start.strip() if isinstance(start, str) else ""
    if written.lstrip("+-") in _NUMBER_WORDS and found.spec["type"] == "text":
        detail = (
            f"text, guessed: the start value {written} is JSON5's word for a number that "
            f"is not finite, which YAML (read first, as MVU reads it) takes for the text "
            f"{quoted(written)}; no number field holds it{how}"
        )
        guessed = True
    if text and isinstance(value, list):
        detail += "; start and meaning from a [value, meaning] pair"
    draft.add(where, key, found.spec, text=text, detail=detail, guessed=found.guessed or guessed)
