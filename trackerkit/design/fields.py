"""The designer's field list and field editor, as data: entries by identity, tops without loops.

The notebook shows what these functions return and calls them from its buttons; a selection is a
field's key (its identity in the draft, TR-47), never its label or its position.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import fields as _attributes

from trackerkit.design.draft import Draft, DraftField
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.fields import shown_text
from trackerkit.values import Value

__all__ = [
    "dropped_tops",
    "field_labels",
    "move_field",
    "parse_number",
    "parse_start",
    "redraws",
    "selected_key",
    "start_placeholder",
    "start_text",
    "top_candidates",
    "top_labels",
]


_LABEL_NAME = 32
"""The most characters of a field's name a label shows (a name may have 64: it would overflow)."""


def field_labels(fields: Iterable[DraftField]) -> dict[str, str]:
    """One entry per field, `label -> key`, in list order: `1. hp (number)`.

    Two fields with the same name are two entries (the position tells them apart), and a field
    without a name still has one. A long name is cut (`shown_text`), so the list keeps its width.
    """
    return {
        f"{i}. {shown_text(f.name, _LABEL_NAME) if f.name else '(no name)'} ({f.type})": f.key
        for i, f in enumerate(fields, 1)
    }


def selected_key(draft: Draft, key: str | None) -> str:
    """`key` when the draft still has that field, else the first field's key."""
    keys = [f.key for f in draft.fields]
    return key if key in keys else keys[0]


def move_field(draft: Draft, key: str, step: int) -> Draft:
    """The draft with field `key` moved `step` places (negative: up), kept within the list.

    Raises:
        NotFoundError: no field of the draft has that key.
    """
    keys = [f.key for f in draft.fields]
    if key not in keys:
        raise NotFoundError(f"no field of the draft has the key {key!r}")
    return draft.move_field(key, max(0, keys.index(key) + step))


def top_candidates(draft: Draft, key: str) -> list[DraftField]:
    """The number fields that may be field `key`'s top without a loop of tops (TR-5).

    A field is offered when it is a number field other than `key` and following its own chain of
    tops never comes back to `key` (a -> b -> a, a -> b -> c -> a are refused by the decoder).
    """
    by_key = {f.key: f for f in draft.fields}
    out: list[DraftField] = []
    for field in draft.fields:
        if field.key == key or field.type != "number":
            continue
        seen: set[str] = set()
        step: str | None = field.key
        while step is not None and step not in seen and step != key:
            seen.add(step)
            nxt = by_key.get(step)
            step = nxt.top if nxt is not None else None
        if step != key:
            out.append(field)
    return out


def top_labels(draft: Draft, key: str) -> dict[str, str]:
    """The "To (another field)" entries for field `key`, `label -> key`: the loop-free candidates.

    A candidate is shown by name, or by name and position when two fields share the name.
    """
    names = [f.name for f in draft.fields]
    position = {f.key: i for i, f in enumerate(draft.fields, 1)}
    return {
        (f.name if names.count(f.name) == 1 else f"{f.name} (number {position[f.key]})"): f.key
        for f in top_candidates(draft, key)
    }


def redraws(before: DraftField, after: DraftField, edited: Iterable[str]) -> bool:
    """True when an edit of the `edited` settings changed another setting of the field too.

    A fixed top ("To (a number)") and a top field ("To (another field)") exclude each other
    (`Draft.set_field`), so typing one clears the other; the field's form is then drawn anew,
    or the other box would still show what the draft no longer holds. `edited` names settings
    as `Draft.set_field` does (`max_field` is the field's `top`).
    """
    given = {_SETTING.get(name, name) for name in edited}
    return any(
        getattr(before, a.name) != getattr(after, a.name)
        for a in _attributes(DraftField)
        if a.name not in given and a.name != "top_name"
    )


_SETTING = {"max_field": "top"}


def parse_number(text: str) -> int | float | None:
    """A typed number: empty is None, `30` is an int, `2.5` a float.

    Raises:
        BadRequestError: the text is not a number (the message quotes it).
    """
    text = text.strip()
    if not text:
        return None
    shown = text if len(text) <= 40 else text[:40] + "…"
    if _WHOLE.fullmatch(text):  # read exactly, not through a float (9007199254740993 stays itself)
        if len(text.lstrip("+-")) > 40:
            raise BadRequestError(f'"{shown}" is unusually large: past the ceiling of 2^53-1')
        return int(text)
    try:
        value = float(text)
    except ValueError:
        raise BadRequestError(f'"{shown}" is not a number; type digits such as 30 or 2.5') from None
    if value != value or text.lower().lstrip("+-") in ("inf", "infinity"):
        raise BadRequestError(f'"{shown}" is not a finite number')
    if value in (float("inf"), float("-inf")):  # 1e400: a number, past what a float holds
        raise BadRequestError(f'"{shown}" is unusually large: past the ceiling of 2^53-1')
    return int(value) if value.is_integer() else value


_WHOLE = re.compile(r"[+-]?[0-9]+")


def parse_start(field: DraftField, text: str) -> Value | None:
    """What a field's "Starts at" box means for its type; empty is no start.

    Raises:
        BadRequestError: a number field given something that is not a number, or a yes/no field
            given something other than true or false.
    """
    if field.type == "number":
        return parse_number(text)
    if field.type == "boolean":
        word = text.strip().lower()
        if not word:
            return None
        if word in ("true", "false"):
            return word == "true"
        raise BadRequestError(f'"{text[:40]}" is not true or false')
    return text or None


def start_placeholder(field: DraftField) -> str:
    """What an empty "Starts at" box means, as its placeholder: the type's own start (TR-8), so
    an empty box never reads as "no value" while the rail shows one (`hp=0`)."""
    if field.type == "number":
        start: int | float = 0
        if field.min is not None:
            start = max(start, field.min)
        if field.max is not None:
            start = min(start, field.max)
        return f"empty: starts at {start}"
    if field.type == "boolean":
        return "empty: starts false"
    if field.type == "choice":
        return (
            f"empty: starts at {field.choices[0]}" if field.choices else "empty: the first choice"
        )
    return "empty: starts empty"


def start_text(field: DraftField) -> str:
    """The "Starts at" box's text for the field's start (`true`/`false` for a yes/no field)."""
    if field.default is None:
        return ""
    if isinstance(field.default, bool):
        return str(field.default).lower()
    return str(field.default)


def dropped_tops(before: Draft, after: Draft) -> list[str]:
    """The tops an edit dropped (TR-48), one sentence each, naming fields by name.

    A field whose top was deleted, or stopped being a number, loses that top; a field that stops
    being a number loses its own top.
    """
    names: Mapping[str, str] = {f.key: f.name for f in before.fields}
    now = {f.key: f for f in after.fields}
    out: list[str] = []
    for old in before.fields:
        new = now.get(old.key)
        if old.top is None or new is None or new.top is not None:
            continue
        top = names.get(old.top, old.top)
        gone = now.get(old.top)
        if new.type != old.type:
            out.append(f'"{new.name}" is now a {new.type} field, so its top "{top}" was dropped.')
        elif gone is None:
            out.append(f'"{new.name}" no longer has a top: "{top}" was deleted.')
        elif gone.type != "number":
            out.append(f'"{new.name}" no longer has a top: "{top}" is now a {gone.type} field.')
    return out
