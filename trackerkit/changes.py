"""What each reply changed: one forward pass over a take's live messages (TR-42..TR-45).

The answer has the shape the Messenger reads::

    {"messages": [{"messageId": "m7", "trackers": [
        {"trackerId": "health", "name": "Health", "style": "chips", "icon"?: ..., "fieldIcons"?: {...},
         "bars"?: {"hp": {"min": 0, "top": 30}},
         "changes": [{"field": "hp", "before": 25, "after": 18}]}]}]}

A list's change is `{"row", "before", "after", "added"?, "removed"?}` with whole rows (no name) and
null on the absent side. Past lines are read through today's piece, so a rename, a new default or
a new top applies to history too; a piece that cannot be read is reported by its id with the values
as stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trackerkit.chat import Chat
from trackerkit.errors import BadRequestError, TrackerDecodeError
from trackerkit.fields import NumberField
from trackerkit.scene import PieceSource, source_for
from trackerkit.state import LIST_PREFIX, RECORD_PREFIX, Delta, State, apply_deltas, is_message_id
from trackerkit.tracker import Tracker, decode_tracker
from trackerkit.values import read_values, same_value

__all__ = ["slot_parts", "tracker_changes_between"]


def slot_parts(slot: str) -> tuple[str, str] | None:
    """`("record" | "list", piece id)` for a tracker slot, None for any other slot."""
    if slot.startswith(RECORD_PREFIX):
        return "record", slot[len(RECORD_PREFIX) :]
    if slot.startswith(LIST_PREFIX):
        return "list", slot[len(LIST_PREFIX) :]
    return None


@dataclass(frozen=True, slots=True)
class _Piece:
    tracker_id: str
    tracker: Tracker | None  # None: the piece cannot be read any more

    def readable_as(self, layout: str) -> bool:
        return self.tracker is not None and self.tracker.layout == layout


def tracker_changes_between(
    chat: Chat,
    take: str | None,
    from_id: str,
    to_id: str | None = None,
    library: PieceSource | Mapping[str, object] | None = None,
) -> dict[str, Any]:
    """What each live message from `from_id` through `to_id` changed in the trackers (TR-42).

    Args:
        chat: the chat.
        take: the take (branch) id; None for the take being shown.
        from_id: the first message of the range.
        to_id: the last message of the range; None or "" for the tip.
        library: where today's pieces are read from (the chat's own source when None).
    Returns:
        `{"messages": [...]}`; a message that changed no tracker is left out.
    Raises:
        NotFoundError: the take or a message is not there (a 404).
        BadRequestError: `to_id` (or `from_id`) is not a well-formed message id (a 400).
    """
    branch = chat.get_take(take)
    if to_id not in (None, "") and not is_message_id(to_id):
        raise BadRequestError(f"to must be a message id such as m12; found {to_id!r}")
    start = branch.index_of(from_id)
    end = len(branch.messages) - 1 if not to_id else branch.index_of(to_id)
    if end < start:
        return {"messages": []}
    source = source_for(library) if library is not None else chat.source
    pieces: dict[str, _Piece] = {}
    state = branch.state_before(start)  # a fresh copy: the read writes nothing
    out: list[dict[str, Any]] = []
    for message in branch.messages[start : end + 1]:
        deltas = [d for d in message.deltas() if d.is_tracker]
        if not deltas:
            continue
        entries = _message_changes(deltas, state, pieces, source)
        if entries:
            out.append({"messageId": message.id, "trackers": entries})
    return {"messages": out}


def _piece(tracker_id: str, pieces: dict[str, _Piece], source: PieceSource) -> _Piece:
    piece = pieces.get(tracker_id)
    if piece is None:
        raw = source.raw(tracker_id)
        tracker = None
        if raw is not None:
            try:
                tracker = decode_tracker(raw)
            except TrackerDecodeError:
                tracker = None
        piece = pieces[tracker_id] = _Piece(tracker_id, tracker)
    return piece


def _message_changes(
    deltas: list[Delta], state: State, pieces: dict[str, _Piece], source: PieceSource
) -> list[dict[str, Any]]:
    """Fold one message's deltas into `state`, returning its entry per tracker changed."""
    touched: dict[str, set[str]] = {}
    for delta in deltas:
        touched.setdefault(delta.slot, set()).add(delta.key)
    before = {slot: dict(state.get(slot, {})) for slot in touched}
    apply_deltas(state, deltas)
    entries = []
    for slot, keys in touched.items():
        parts = slot_parts(slot)
        assert parts is not None
        layout, tracker_id = parts
        piece = _piece(tracker_id, pieces, source)
        old, new = before[slot], state.get(slot, {})
        if piece.readable_as(layout):
            assert piece.tracker is not None
            if layout == "record":
                changes, bars = _record_changes(piece.tracker, old, new)
            else:
                changes, bars = _list_changes(piece.tracker, old, new, keys)
        else:
            changes, bars = _stored_changes(layout, old, new, keys), {}
        if changes:
            entries.append(_entry(piece, changes, bars))
    return entries


def _entry(piece: _Piece, changes: list[dict[str, Any]], bars: dict[str, Any]) -> dict[str, Any]:
    tracker = piece.tracker
    if tracker is None:
        return {"trackerId": piece.tracker_id, "name": piece.tracker_id, "style": "chips", "changes": changes}
    entry: dict[str, Any] = {"trackerId": piece.tracker_id, "name": tracker.name, "style": tracker.style}
    if tracker.body.icon:
        entry["icon"] = tracker.body.icon
    icons = tracker.field_icons()
    if icons:
        entry["fieldIcons"] = icons
    if bars:
        entry["bars"] = bars
    entry["changes"] = changes
    return entry


def _bar(tracker: Tracker, field_name: str, values: Mapping[str, object]) -> dict[str, Any] | None:
    """`{min, top}` for a number with a top (its own max, or its maxField's value as left), else None."""
    field = tracker.field(field_name)
    if not isinstance(field, NumberField):
        return None
    top = values.get(field.max_field) if field.max_field is not None else field.max
    if top is None or isinstance(top, bool) or not isinstance(top, int | float):
        return None
    return {"min": field.min if field.min is not None else 0, "top": top}


def _record_changes(
    tracker: Tracker, old: Mapping[str, object], new: Mapping[str, object]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    was = read_values(tracker.fields, old, tracker.order)
    now = read_values(tracker.fields, new, tracker.order)
    changes: list[dict[str, Any]] = []
    bars: dict[str, Any] = {}
    for field in tracker.fields:
        name = field.name
        if same_value(was[name], now[name]):
            continue
        changes.append({"field": name, "before": was[name], "after": now[name]})
        bar = _bar(tracker, name, now)
        if bar is not None:
            bars[name] = bar
    return changes, bars


def _list_changes(
    tracker: Tracker, old: Mapping[str, object], new: Mapping[str, object], keys: set[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    changes: list[dict[str, Any]] = []
    bars: dict[str, Any] = {}
    ordered = [k for k in old if k in keys] + [k for k in new if k in keys and k not in old]
    for row in ordered:
        raw_was, raw_now = old.get(row), new.get(row)
        was = read_values(tracker.fields, raw_was, tracker.order) if isinstance(raw_was, Mapping) else None
        now = read_values(tracker.fields, raw_now, tracker.order) if isinstance(raw_now, Mapping) else None
        if was is not None and now is not None and all(same_value(was[k], now[k]) for k in was):
            continue
        if was is None and now is None:
            continue
        change: dict[str, Any] = {"row": row, "before": was, "after": now}
        if was is None:
            change["added"] = True
        if now is None:
            change["removed"] = True
        changes.append(change)
        if now is not None:
            for field in tracker.fields:
                if was is None or not same_value(was[field.name], now[field.name]):
                    bar = _bar(tracker, field.name, now)
                    if bar is not None:
                        bars[field.name] = bar
    return changes, bars


def _stored_changes(
    layout: str, old: Mapping[str, object], new: Mapping[str, object], keys: set[str]
) -> list[dict[str, Any]]:
    """Changes with the values as stored, for a piece that cannot be read (or changed layout)."""
    changes: list[dict[str, Any]] = []
    for key in [k for k in old if k in keys] + [k for k in new if k in keys and k not in old]:
        was, now = old.get(key), new.get(key)
        if was is not None and now is not None and _same_stored(was, now):
            continue
        if layout == "record":
            changes.append({"field": key, "before": was, "after": now})
            continue
        change: dict[str, Any] = {"row": key, "before": was, "after": now}
        if was is None:
            change["added"] = True
        if now is None:
            change["removed"] = True
        changes.append(change)
    return changes


def _same_stored(a: object, b: object) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return same_value(a, b)
