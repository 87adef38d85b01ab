"""Applying `update_trackers` items: clamps and tops, all or nothing, and the answer (TR-13..TR-20, TR-35..TR-38).

Items apply in order, each on what the earlier ones left; if any item is refused nothing is
written and the answer lists every item's error. A number outside its range is clamped, and one
past a top taken from another field is brought down to that field's value; tops are settled
before their dependents. An update is judged against what is stored, so writing the stored value
is no change.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackerkit._arguments import unicode_problem, valid_text
from trackerkit._slots import slot_of
from trackerkit.fields import (
    MAX_SAFE_INTEGER,
    BooleanField,
    ChoiceField,
    NumberField,
    describe_value,
    is_number,
)
from trackerkit.line import fields_line, line_of, quoted_line
from trackerkit.state import Delta, State, copy_state
from trackerkit.tracker import Tracker
from trackerkit.values import (
    AnyField,
    Value,
    clamp_to_range,
    hold_to_top,
    initial_value,
    read_values,
    refusal,
    same_value,
)

__all__ = [
    "ItemRefusal",
    "UpdateItem",
    "UpdateResult",
    "apply_tracker_updates",
    "name_key",
    "read_updates",
    "slot_of",
    "tracker_value",
    "tracker_values",
]

_ITEM_KEYS = frozenset({"tracker", "row", "remove", "set"})


def name_key(name: str) -> str:
    """What a row or tracker name is matched by (TR-20): its case folded, and its Unicode
    normalization, so names that print the same are one name.

    `"Café"` written precomposed and `"Cafe\u0301"` (an `e` and a combining accent) give one key,
    as do `"ROPE"` and `"rope"`. It is Unicode's canonical caseless match (NFD, case fold, NFD);
    compatibility forms stay apart (`"²"` is not `"2"`, `"Ａ"` is not `"A"`): they print
    differently. The name itself is kept as first written; only the match folds.
    """
    if name.isascii():
        return name.casefold()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def tracker_value(
    tracker: Tracker, state: Mapping[str, Mapping[str, object]]
) -> dict[str, Value] | dict[str, dict[str, Value]]:
    """A tracker's value as a turn reads it (TR-22): initial values filled, misfits read as initial, tops applied.

    A record reads as `{field: value}`; a list as `{row name: {field: value}}` in row order.
    """
    stored = state.get(slot_of(tracker), {})
    if tracker.layout == "record":
        return read_values(tracker.fields, stored, tracker.order)
    fields, order = tracker.fields, tracker.order
    rows: dict[str, dict[str, Value]] = {}
    for name, row in stored.items():
        if isinstance(row, Mapping):
            rows[name] = read_values(fields, row, order)
    return rows


def tracker_values(
    trackers: Iterable[Tracker], state: Mapping[str, Mapping[str, object]]
) -> dict[str, Any]:
    """Each tracker's value as a turn reads it (`tracker_value`), by tracker name."""
    return {t.name: tracker_value(t, state) for t in trackers}


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


@dataclass(frozen=True, slots=True)
class Change:
    """The net change of one tracker key in a batch: a record field or a list row."""

    tracker: str
    key: str
    before: object
    after: object


@dataclass(frozen=True, slots=True)
class UpdateResult:
    """The outcome of a batch: `ok`, the deltas to keep, the answer for the model, and any errors."""

    ok: bool
    deltas: tuple[Delta, ...] = ()
    answer: str = ""
    errors: tuple[ItemRefusal, ...] = ()
    changes: tuple[Change, ...] = field(default=())

    @property
    def change_count(self) -> int:
        """How many keys the batch changed, as read (what the trace keeps instead of the answer,
        TR-39): a key stored anew that reads as before is no change, as in the answer."""
        return len(self.changes)


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


def apply_tracker_updates(
    trackers: Sequence[Tracker],
    state: Mapping[str, Mapping[str, object]],
    updates: object,
    *,
    null_is_absent: bool = False,
) -> UpdateResult:
    """Apply a batch of update items to `state`, all or nothing (TR-37).

    Args:
        trackers: the linked trackers the turn loaded (names are unique among them).
        state: the state the items see (not changed).
        updates: the call's arguments (`{"updates": [...]}`), the bare list, or `UpdateItem`s.
        null_is_absent: True only for a call made through a strict export (every field listed,
            null when not given; see `read_updates`).
    Returns:
        An `UpdateResult`: on success the net deltas and an answer naming only what changed, per
        tracker (TR-38); on refusal no deltas and an answer listing every item's error.
    """
    if (
        isinstance(updates, list | tuple)
        and updates
        and all(isinstance(u, UpdateItem) for u in updates)
    ):
        items: list[UpdateItem] = list(updates)
        shape_errors: list[ItemRefusal] = []
    else:
        items, shape_errors = read_updates(updates, null_is_absent=null_is_absent)
    if shape_errors:
        return _refused(shape_errors)
    by_name = {t.name: t for t in trackers}
    folded = {name_key(t.name): t for t in reversed(trackers)}
    work = copy_state(state)
    errors: list[ItemRefusal] = []
    # Keyed by identity: `Tracker.__eq__` compares whole encoded pieces, too slow per item.
    touched: dict[int, _Shape] = {}
    rows: dict[str, _RowIndex] = {}
    for index, item in enumerate(items):
        tracker = by_name.get(item.tracker) or folded.get(name_key(item.tracker))
        if tracker is None:
            known = ", ".join(t.name for t in trackers) or "none"
            errors.append(
                ItemRefusal(
                    index,
                    item.tracker,
                    f"no linked tracker is called {line_of(item.tracker)!r} (linked: {known})",
                )
            )
            continue
        shape = touched.get(id(tracker))
        if shape is None:
            shape = touched[id(tracker)] = _Shape.of(tracker)
        if tracker.layout == "record":
            errors.extend(_apply_record(shape, item, index, work))
        else:
            errors.extend(_apply_list(shape, item, index, work, rows))
    if errors:
        return _refused(errors)
    done = [shape.tracker for shape in touched.values()]
    deltas, changes = _net(done, state, work)
    return UpdateResult(True, tuple(deltas), _answer(done, changes), (), tuple(changes))


@dataclass(frozen=True, slots=True)
class _Shape:
    """What one batch needs of a tracker, read once: its fields, their top order, by name, initial values."""

    tracker: Tracker
    fields: Sequence[AnyField]
    order: tuple[int, ...]
    by_name: Mapping[str, AnyField]
    initial: Mapping[str, Value]
    has_tops: bool

    @classmethod
    def of(cls, tracker: Tracker) -> _Shape:
        fields = tracker.fields
        return cls(
            tracker,
            fields,
            tracker.order,
            {f.name: f for f in fields},
            {f.name: initial_value(f) for f in fields},
            any(isinstance(f, NumberField) and f.max_field is not None for f in fields),
        )


class _RowIndex:
    """A list slot's row keys by folded name (`name_key`), so a row is found without a scan (TR-20)."""

    def __init__(self, slot: Mapping[str, object]) -> None:
        self.keys: dict[str, list[str]] = {}
        for key in slot:
            self.keys.setdefault(name_key(key), []).append(key)

    def find(self, slot: Mapping[str, object], name: str) -> str | None:
        """The stored key of a row, found whatever the case or normalization; the first spelling is kept."""
        if name in slot:
            return name
        spellings = self.keys.get(name_key(name))
        return spellings[0] if spellings else None

    def add(self, key: str) -> None:
        self.keys.setdefault(name_key(key), []).append(key)

    def drop(self, key: str) -> None:
        spellings = self.keys.get(name_key(key), [])
        if key in spellings:
            spellings.remove(key)


# --- one item ------------------------------------------------------------------------------


def _apply_record(shape: _Shape, item: UpdateItem, index: int, work: State) -> list[ItemRefusal]:
    tracker = shape.tracker
    if item.row is not None:
        return [
            ItemRefusal(
                index,
                tracker.name,
                f"row is only for list trackers; {tracker.name} is a record",
                row=item.row,
            )
        ]
    if item.remove:
        return [
            ItemRefusal(
                index, tracker.name, f"remove is only for list trackers; {tracker.name} is a record"
            )
        ]
    if item.set is None:
        return [ItemRefusal(index, tracker.name, "needs set: the field values to write")]
    slot = work.setdefault(slot_of(tracker), {})
    written, errors = _write_fields(shape, item.set, slot, index, None)
    if not errors:
        slot.update(written)
    return errors


def _apply_list(
    shape: _Shape, item: UpdateItem, index: int, work: State, rows: dict[str, _RowIndex]
) -> list[ItemRefusal]:
    tracker = shape.tracker
    if item.row is None:
        return [
            ItemRefusal(
                index,
                tracker.name,
                f"needs row: {tracker.name} is a list, so name the row to change",
            )
        ]
    if not item.row.strip():
        return [ItemRefusal(index, tracker.name, "row must not be blank", row=item.row)]
    if item.remove and item.set is not None:
        return [
            ItemRefusal(
                index,
                tracker.name,
                "remove cannot come with set: remove the row or set its fields",
                row=item.row,
            )
        ]
    slot = work.setdefault(slot_of(tracker), {})
    found = rows.get(slot_of(tracker))
    if found is None:
        found = rows[slot_of(tracker)] = _RowIndex(slot)
    key = found.find(slot, item.row)
    if item.remove:
        if key is None:
            return [
                ItemRefusal(
                    index, tracker.name, f"no row is called {line_of(item.row)!r}", row=item.row
                )
            ]
        del slot[key]
        found.drop(key)
        return []
    if item.set is None:
        return [
            ItemRefusal(
                index,
                tracker.name,
                "needs set (the row's field values) or remove: true",
                row=item.row,
            )
        ]
    stored = slot.get(key) if key is not None else None
    row = stored if isinstance(stored, Mapping) else {}
    written, errors = _write_fields(shape, item.set, row, index, item.row)
    if errors:
        return errors
    if key is None:
        found.add(item.row)
    if key is None or written:
        slot[key if key is not None else item.row] = read_values(
            shape.fields, {**row, **written}, shape.order
        )
    return []


def _write_fields(
    shape: _Shape,
    values: Mapping[str, object],
    stored: Mapping[str, object],
    index: int,
    row: str | None,
) -> tuple[dict[str, object], list[ItemRefusal]]:
    """What one item writes into one record or row: tops first, dependents clamped (TR-14..TR-17)."""
    checked, errors = _checked_values(shape, values, index, row)
    if errors:
        return {}, errors
    after = _settled(shape, checked, stored)
    # TR-17: judged against what is stored. A key never stored holds its initial value, which a
    # read holds to its top only while the top lasts, so it is the baseline, not the value shown.
    written = {
        name: value
        for name, value in after.items()
        if not same_value(stored[name] if name in stored else shape.initial[name], value)
    }
    return written, []


def _checked_values(
    shape: _Shape, values: Mapping[str, object], index: int, row: str | None
) -> tuple[dict[str, object], list[ItemRefusal]]:
    """The item's values with a huge number held where its field allows, or every refusal."""
    tracker = shape.tracker
    errors: list[ItemRefusal] = []
    checked = dict(values)
    for name, value in values.items():
        field_ = shape.by_name.get(name)
        if field_ is None:
            known = ", ".join(f.name for f in shape.fields)
            errors.append(
                ItemRefusal(
                    index,
                    tracker.name,
                    f"{tracker.name} has no field {line_of(name)!r} (fields: {known})",
                    field=name,
                    row=row,
                )
            )
            continue
        if isinstance(field_, NumberField) and is_number(value):
            continue  # the common case, taken as it is (clamped when settled)
        reason, held = _value_refusal(field_, value)
        if held is not None:
            checked[name] = held
        if reason is not None:
            errors.append(ItemRefusal(index, tracker.name, reason, field=name, row=row))
    return checked, errors


def _value_refusal(field_: AnyField, value: object) -> tuple[str | None, int | float | None]:
    """Why a field refuses `value` (None when it takes it), and a huge number as it is held."""
    # TR-13: a number out of its range is clamped, never refused; only its kind is checked.
    if isinstance(field_, NumberField):
        if is_number(value):
            return None, None
        held = _held(field_, value)
        if held is not None:
            return None, held
        return (_huge_refusal(field_, value) if _huge(value) else refusal(field_, value)), None
    if _huge(value):
        return f"{_expects(field_)}; found {_describe(value)}", None
    if isinstance(value, str) and (bad := unicode_problem(value)) is not None:
        return f"{bad}; send text without it", None
    return refusal(field_, value), None


def _settled(
    shape: _Shape, values: Mapping[str, object], stored: Mapping[str, object]
) -> dict[str, object]:
    """Every field the item settles, tops first: the named ones and their dependents, clamped."""
    # What the model was shown matters only for a top and its dependents (TR-16).
    shown = read_values(shape.fields, stored, shape.order) if shape.has_tops else {}
    after: dict[str, object] = {}
    for position in shape.order:
        field_ = shape.fields[position]
        name = field_.name
        top_name = field_.max_field if isinstance(field_, NumberField) else None
        if name in values:
            value = values[name]
        elif top_name is not None and top_name in after:
            value = shown[name]  # TR-16: from the value the model was shown
        else:
            continue
        if isinstance(field_, NumberField):
            assert isinstance(value, int | float)
            value = clamp_to_range(field_, value)
            if top_name is not None:
                top = after.get(top_name, shown.get(top_name))
                if is_number(top):
                    assert isinstance(top, int | float)
                    value = hold_to_top(field_, value, top)  # TR-14: the top as it stands now
        after[name] = value
    return after


# --- numbers past the safe range -----------------------------------------------------------


def _huge(value: object) -> bool:
    """An int or float (not a bool, not NaN) past the safe range of 2^53-1 in magnitude, or infinite."""
    if type(value) is int:
        return abs(value) > MAX_SAFE_INTEGER
    return type(value) is float and not math.isnan(value) and not is_number(value)


def _held(field_: NumberField, value: object) -> int | float | None:
    """A huge number as the clamps start from it (TR-13), or None when the field has no bound on its side.

    The number becomes the safe-range end of its sign, which the field's max, top or min then
    brings inside its range; the huge value itself is never stored or shown.
    """
    if not _huge(value):
        return None
    assert isinstance(value, int | float)
    if value > 0 and (field_.max is not None or field_.max_field is not None):
        return MAX_SAFE_INTEGER
    if value < 0 and field_.min is not None:
        return -MAX_SAFE_INTEGER
    return None


def _describe(value: object) -> str:
    """`describe_value`, except an infinity: the arguments reader's stand-in for an integer past
    the digit limit (`read_arguments`), so the model is told what it wrote was too large, not "inf"."""
    if type(value) is float and math.isinf(value):
        return f"a{' negative' if value < 0 else ''} number too large to hold"
    return describe_value(value)


def _huge_refusal(field_: NumberField, value: object) -> str:
    assert isinstance(value, int | float)
    side = "max" if value > 0 else "min"
    return (
        f"is past the safe range of ±{MAX_SAFE_INTEGER} and has no {side} to hold it to; "
        f"found {_describe(value)}"
    )


def _expects(field_: AnyField) -> str:
    if isinstance(field_, BooleanField):
        return "must be true or false"
    if isinstance(field_, ChoiceField):
        return "must be one of " + "|".join(field_.choices)
    return "must be text"


# --- the net result and the answer ---------------------------------------------------------


def _net(
    touched: Sequence[Tracker], before: Mapping[str, Mapping[str, object]], after: State
) -> tuple[list[Delta], list[Change]]:
    """The net deltas of a batch, and each changed key read the way a turn reads it."""
    deltas: list[Delta] = []
    changes: list[Change] = []
    for tracker in touched:
        slot = slot_of(tracker)
        old = before.get(slot, {})
        new = after.get(slot, {})
        keys = [k for k, v in new.items() if k not in old or not same_value(old[k], v)]
        if tracker.layout == "list":
            keys += [k for k in old if k not in new]
        if not keys:
            continue
        deltas.extend(Delta(slot, k, new.get(k)) for k in keys)
        # A key stored anew that reads as it did (a field's initial value written where none was
        # stored, a row set back as it was) is no change: the answer leaves it out, as the
        # changes read of the history does. Its delta stays, so a batch stores what its items
        # one by one would (and a later top keeps the value shown).
        if tracker.layout == "record":
            read_before, read_after = tracker_value(tracker, before), tracker_value(tracker, after)
            written = set(keys)
            changes.extend(
                Change(tracker.name, f.name, read_before[f.name], read_after[f.name])
                for f in tracker.fields  # answer in field order
                if f.name in written and not same_value(read_before[f.name], read_after[f.name])
            )
        else:
            # Only the changed rows are read, so the cost follows the change, not the list.
            fields, order = tracker.fields, tracker.order
            for k in keys:
                was = _read_row(fields, order, old.get(k))
                now = _read_row(fields, order, new.get(k))
                if was is None or now is None or not same_value(was, now):
                    changes.append(Change(tracker.name, k, was, now))
    return deltas, changes


def _read_row(
    fields: Sequence[AnyField], order: tuple[int, ...], row: object
) -> dict[str, Value] | None:
    """A list row read as `tracker_value` reads it; None when there is no row."""
    return read_values(fields, row, order) if isinstance(row, Mapping) else None


def _answer(touched: Sequence[Tracker], changes: Sequence[Change]) -> str:
    if not touched:
        return "No change: the call held no updates."
    lines = []
    for tracker in touched:
        mine = [c for c in changes if c.tracker == tracker.name]
        if not mine:
            lines.append(f"{tracker.name}: no change")
        elif tracker.layout == "record":
            parts = [f"{c.key} {quoted_line(c.before)} -> {quoted_line(c.after)}" for c in mine]
            lines.append(f"{tracker.name}: " + ", ".join(parts))
        else:
            rows = []
            for change in mine:
                if change.after is None:
                    rows.append(f"removed row {quoted_line(change.key)}")
                    continue
                row = change.after if isinstance(change.after, Mapping) else {}
                verb = "added" if change.before is None else "set"
                row_text = fields_line(row, quoted_line)
                rows.append(f"{verb} row {quoted_line(change.key)} ({row_text})")
            lines.append(f"{tracker.name}: " + "; ".join(rows))
    return "\n".join(lines)


def _refused(errors: Sequence[ItemRefusal]) -> UpdateResult:
    count = len(errors)
    head = (
        f"Nothing was written: {count} {'error' if count == 1 else 'errors'}. "
        f"Fix {'it' if count == 1 else 'them'} and send the whole call again."
    )
    return UpdateResult(False, (), "\n".join([head, *(f"- {e}" for e in errors)]), tuple(errors))
