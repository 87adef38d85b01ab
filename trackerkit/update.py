"""Applying `update_trackers` items: clamps and tops, all or nothing, and the answer (TR-13..TR-20, TR-35..TR-38).

Items apply in order, each on what the earlier ones left; if any item is refused nothing is
written and the answer lists every item's error. A number outside its range is clamped, and one
past a top taken from another field is brought down to that field's value; tops are settled
before their dependents. An update is judged against what is stored, so writing the stored value
is no change.

The parts live in their own modules, and every public name is importable from here:
`trackerkit._items` (`UpdateItem`, `ItemRefusal`, `read_updates`: the call's shape),
`._names` (`name_key`: names matched folded), `._readings` (`tracker_value`, `tracker_values`),
`._writes` (what one item writes: values checked, tops, clamps) and `._results` (`UpdateResult`,
`Change`: the net deltas and the answer); this module applies a batch (`apply_tracker_updates`),
each item to a record or a list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trackerkit._items import ItemRefusal, UpdateItem, read_updates
from trackerkit._names import _RowIndex, name_key
from trackerkit._readings import tracker_value, tracker_values
from trackerkit._results import Change as Change
from trackerkit._results import UpdateResult, _answer, _net, _refused
from trackerkit._slots import slot_of
from trackerkit._writes import _Shape, _write_fields
from trackerkit.line import line_of
from trackerkit.state import State, copy_state
from trackerkit.tracker import Tracker
from trackerkit.values import read_values

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
