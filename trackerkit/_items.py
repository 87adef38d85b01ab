"""The items of an `update_trackers` call: their shape read (TR-37), and why one was refused.

`read_updates` checks only the call's shape, `{"updates": [{tracker, row?, remove?, set?}, ...]}`,
into `UpdateItem`s; their contents are checked as each item runs. An `ItemRefusal` says which item
was refused, where, and why, in a sentence the model is answered with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from trackerkit._arguments import unicode_problem, valid_text
from trackerkit.fields import describe_value
from trackerkit.line import line_of

__all__ = ["ItemRefusal", "UpdateItem", "read_updates"]


_ITEM_KEYS = frozenset({"tracker", "row", "remove", "set"})


@dataclass(frozen=True, slots=True)
class UpdateItem:
    """One item of an `update_trackers` call, as its shape was read (contents not yet checked)."""

    tracker: str
    row: str | None = None
    remove: bool = False
    set: Mapping[str, object] | None = None


@dataclass(frozen=True, slots=True)
class ItemRefusal:
    """Why one item was refused: its index (0-based), tracker, field or row, and a plain reason."""

    index: int
    tracker: str | None
    message: str
    field: str | None = None
    row: str | None = None

    def __str__(self) -> str:
        # Valid Unicode whatever the model sent: a lone surrogate is shown as its escape.
        if self.index < 0:
            return valid_text(f"the call: {self.message}")
        where = f"item {self.index + 1}"
        if self.tracker:
            where += f" ({self.tracker}"
            where += f", row {line_of(self.row)!r}" if self.row is not None else ""
            where += f", {self.field}" if self.field else ""
            where += ")"
        return valid_text(f"{where}: {self.message}")


def read_updates(
    arguments: object, *, null_is_absent: bool = False
) -> tuple[list[UpdateItem], list[ItemRefusal]]:
    """Check only the call's shape (TR-37): `{"updates": [{tracker, row?, remove?, set?}, ...]}`.

    Accepts the arguments object or the bare `updates` list. Contents (trackers, fields, values,
    rows) are checked later, as each item runs.

    Args:
        arguments: the call's arguments.
        null_is_absent: only for a call made through a strict export, which must send every field
            of `set`: a null field value is a field not given, and a `set` of nulls alone is no
            `set`. Elsewhere a null value is refused as the wrong type (TR-37).
    """
    updates = _updates_list(arguments)
    if isinstance(updates, ItemRefusal):
        return [], [updates]
    items: list[UpdateItem] = []
    errors: list[ItemRefusal] = []
    for i, raw in enumerate(updates):
        read = _read_item(i, raw, null_is_absent)
        if isinstance(read, UpdateItem):
            items.append(read)
        else:
            errors.extend(read)
    return items, errors


def _updates_list(arguments: object) -> list[object] | ItemRefusal:
    """The call's list of items (the arguments object's `updates`, or the bare list), else why not."""
    if isinstance(arguments, str):  # the whole call is text, so `updates` is not the problem
        decode = (
            " (JSON written as text: decode it, e.g. with json.loads, and send the object)"
            if arguments.lstrip().startswith(("{", "["))
            else ""
        )
        return ItemRefusal(
            -1,
            None,
            f'the arguments must be an object {{"updates": [...]}}; found {_describe(arguments)}'
            + decode,
        )
    updates = arguments.get("updates") if isinstance(arguments, Mapping) else arguments
    if isinstance(arguments, Mapping) and set(arguments) - {"updates"}:
        extra = ", ".join(sorted(str(k) for k in set(arguments) - {"updates"}))
        return ItemRefusal(-1, None, f"the call takes only updates; found {extra}")
    if isinstance(arguments, Mapping) and "updates" not in arguments:
        return ItemRefusal(
            -1, None, 'updates is missing; it is required: send {"updates": [...]}, a list of items'
        )
    if not isinstance(updates, list):
        return ItemRefusal(-1, None, f"updates must be a list of items; found {_describe(updates)}")
    return updates


def _read_item(i: int, raw: object, null_is_absent: bool) -> UpdateItem | list[ItemRefusal]:
    """Item `i` of the call in shape, or every problem of its shape (each its own refusal)."""
    if not isinstance(raw, Mapping):
        return [ItemRefusal(i, None, f"must be an object; found {_describe(raw)}")]
    name = raw.get("tracker")
    problems = []
    unknown = [] if raw.keys() <= _ITEM_KEYS else sorted(str(k) for k in set(raw) - _ITEM_KEYS)
    if unknown:
        problems.append(
            f"has unknown keys {', '.join(unknown)} (an item takes tracker, row, remove, set)"
        )
    if not isinstance(name, str):
        problems.append(f"tracker must be a tracker's name; found {_describe(name)}")
    row = raw.get("row")
    if row is not None and not isinstance(row, str):
        problems.append(f"row must be text; found {_describe(row)}")
    elif isinstance(row, str) and (bad := unicode_problem(row)) is not None:
        problems.append(f"row {bad}")
    remove = raw.get("remove", False)
    if remove is None:
        remove = False
    if not isinstance(remove, bool):
        problems.append(f"remove must be true or false; found {_describe(remove)}")
    values = raw.get("set")
    if null_is_absent and isinstance(values, Mapping):
        values = {k: v for k, v in values.items() if v is not None} or None
    if values is not None and not isinstance(values, Mapping):
        problems.append(f"set must be an object of field values; found {_describe(values)}")
    if problems:
        return [ItemRefusal(i, name if isinstance(name, str) else None, p) for p in problems]
    assert isinstance(name, str)
    return UpdateItem(name, row if isinstance(row, str) else None, bool(remove), values)


def _describe(value: object) -> str:
    """`describe_value`, except an infinity: the arguments reader's stand-in for an integer past
    the digit limit (`read_arguments`), so the model is told what it wrote was too large, not "inf"."""
    if type(value) is float and math.isinf(value):
        return f"a{' negative' if value < 0 else ''} number too large to hold"
    return describe_value(value)
