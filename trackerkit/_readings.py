"""A tracker's value as a turn reads it (TR-22): initial values filled, misfits read as initial, tops applied.

A record reads as `{field: value}`, a list as `{row name: {field: value}}` in row order;
`_read_row` reads one list row the same way, for a batch's changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trackerkit._slots import slot_of
from trackerkit.tracker import Tracker
from trackerkit.values import AnyField, Value, read_values

__all__ = ["tracker_value", "tracker_values"]


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


def _read_row(
    fields: Sequence[AnyField], order: tuple[int, ...], row: object
) -> dict[str, Value] | None:
    """A list row read as `tracker_value` reads it; None when there is no row."""
    return read_values(fields, row, order) if isinstance(row, Mapping) else None
