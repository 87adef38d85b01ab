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

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trackerkit.chat import Chat
from trackerkit.errors import BadRequestError, TrackerDecodeError
from trackerkit.fields import NumberField, is_number
from trackerkit.library import Library
from trackerkit.scene import FolderSource, PieceSource, source_for
from trackerkit.state import LIST_PREFIX, RECORD_PREFIX, Delta, State, apply_deltas, is_message_id
from trackerkit.tracker import Tracker, decode_tracker
from trackerkit.values import AnyField, Value, read_values, same_value

__all__ = ["number_bar", "slot_parts", "tracker_changes_between"]


def slot_parts(slot: str) -> tuple[str, str] | None:
    """`("record" | "list", piece id)` for a tracker slot, None for any other slot."""
    if slot.startswith(RECORD_PREFIX):
        return "record", slot[len(RECORD_PREFIX) :]
    if slot.startswith(LIST_PREFIX):
        return "list", slot[len(LIST_PREFIX) :]
    return None


_ABSENT: Any = object()  # a key the slot did not hold


def number_bar(field: AnyField, values: Mapping[str, object]) -> dict[str, int | float] | None:
    """A number's bar, `{"min", "top"}`, as `values` leave it; None when it has no top (TR-42).

    The top is the field's own max, or the value of the field its maxField names; the bottom is
    its min, 0 when it sets none. The changes read, the history frame and the panel all use this.
    """
    if not isinstance(field, NumberField):
        return None
    top = values.get(field.max_field) if field.max_field is not None else field.max
    if not is_number(top):
        return None
    assert isinstance(top, int | float)
    return {"min": field.min if field.min is not None else 0, "top": top}


@dataclass(slots=True)
class _Piece:
    """Today's piece for one tracker id, read once per call with what the pass needs of it."""

    tracker_id: str
    tracker: Tracker | None  # None: the piece cannot be read any more
    fields: Sequence[AnyField] = ()
    order: tuple[int, ...] = ()
    tops: tuple[NumberField, ...] = ()
    head: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, tracker_id: str, source: PieceSource) -> _Piece:
        raw = source.raw(tracker_id)
        tracker = None
        if raw is not None:
            try:
                tracker = decode_tracker(raw)
            except TrackerDecodeError:
                tracker = None
        if tracker is None:
            # TR-44: reported by its id, drawn as chips (the style a piece has when it says none).
            return cls(
                tracker_id,
                None,
                head={"trackerId": tracker_id, "name": tracker_id, "style": "chips"},
            )
        head: dict[str, Any] = {
            "trackerId": tracker_id,
            "name": tracker.name,
            "style": tracker.style,
        }
        if tracker.body.icon:
            head["icon"] = tracker.body.icon
        icons = tracker.field_icons()
        if icons:
            head["fieldIcons"] = icons
        tops = tuple(
            f
            for f in tracker.fields
            if isinstance(f, NumberField) and (f.max is not None or f.max_field is not None)
        )
        return cls(tracker_id, tracker, tracker.fields, tracker.order, tops, head)

    def readable_as(self, layout: str) -> bool:
        return self.tracker is not None and self.tracker.layout == layout

    def read_row(self, stored: object) -> dict[str, Value] | None:
        """A record or row read as a turn reads it; None when the slot holds no row there."""
        if not isinstance(stored, Mapping):
            return None
        return read_values(self.fields, stored, self.order)

    def bars(self, was: Mapping[str, Value] | None, now: Mapping[str, Value]) -> dict[str, Any]:
        """`{field: {min, top}}` for each changed number with a top, the top as `now` leaves it."""
        bars: dict[str, Any] = {}
        for number in self.tops:
            if was is not None and same_value(was[number.name], now[number.name]):
                continue
            bar = number_bar(number, now)
            if bar is not None:
                bars[number.name] = bar
        return bars


def _source(library: PieceSource | Library | Mapping[str, object] | str | Path) -> PieceSource:
    if isinstance(library, Library):
        return FolderSource(library.path)
    return source_for(library)


def tracker_changes_between(
    chat: Chat,
    take: str | None,
    from_id: str,
    to_id: str | None = None,
    library: PieceSource | Library | Mapping[str, object] | str | Path | None = None,
) -> dict[str, Any]:
    """What each live message from `from_id` through `to_id` changed in the trackers (TR-42).

    One forward pass (TR-43): the state before `from_id`, then each live message's deltas (its
    shown version's, then its own) folded in; a message's entry is the net difference, read the
    way a turn reads it, in each tracker slot it touched. Cost is linear in the range.

    Args:
        chat: the chat.
        take: the take (branch) id; None for the take being shown.
        from_id: the first message of the range.
        to_id: the last message of the range; None or "" for the tip.
        library: where today's pieces are read from: a `Library`, a folder, a mapping of pieces
            or a `PieceSource` (the chat's own source when None).
    Returns:
        `{"messages": [...]}`; a message that changed no tracker is left out. Nothing returned
        shares a mutable object with the take.
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
    source = chat.source if library is None else _source(library)
    pass_ = _Pass(branch.state_before(start), source)  # a fresh copy: the read writes nothing
    out: list[dict[str, Any]] = []
    for message in branch.messages[start : end + 1]:
        deltas = [d for d in message.deltas() if d.is_tracker]
        if not deltas:
            continue
        entries = pass_.step(deltas)
        if entries:
            out.append({"messageId": message.id, "trackers": entries})
    return {"messages": out}


class _Pass:
    """The forward pass: the folded state, today's pieces, and each record's last read."""

    def __init__(self, state: State, source: PieceSource) -> None:
        self.state = state
        self.source = source
        self.pieces: dict[str, _Piece] = {}
        # A readable record slot's value as read after the last message that touched it: only
        # this pass writes `state`, so it stays true and each record is read once per message.
        self.records: dict[str, dict[str, Value]] = {}

    def piece(self, tracker_id: str) -> _Piece:
        piece = self.pieces.get(tracker_id)
        if piece is None:
            piece = self.pieces[tracker_id] = _Piece.read(tracker_id, self.source)
        return piece

    def step(self, deltas: list[Delta]) -> list[dict[str, Any]]:
        """Fold one message's tracker deltas in; its entry per tracker whose read value changed."""
        state = self.state
        # slot -> key -> the raw value before this message (first write wins), in write order.
        touched: dict[str, dict[str, object]] = {}
        for delta in deltas:
            keys = touched.get(delta.slot)
            if keys is None:
                keys = touched[delta.slot] = {}
                if delta.slot.startswith(RECORD_PREFIX) and delta.slot not in self.records:
                    piece = self.piece(delta.slot[len(RECORD_PREFIX) :])
                    if piece.readable_as("record"):
                        self.records[delta.slot] = read_values(
                            piece.fields, state.get(delta.slot, {}), piece.order
                        )
            if delta.key not in keys:
                keys[delta.key] = state.get(delta.slot, {}).get(delta.key, _ABSENT)
        apply_deltas(state, deltas)
        entries = []
        for slot, olds in touched.items():
            parts = slot_parts(slot)
            assert parts is not None
            layout, tracker_id = parts
            piece = self.piece(tracker_id)
            new = state.get(slot, {})
            bars: dict[str, Any] = {}
            if not piece.readable_as(layout):
                changes = _stored_changes(layout, olds, new)
            elif layout == "record":
                changes, bars = self._record(slot, piece, new)
            else:
                changes, bars = _list_changes(piece, olds, new)
            if changes:
                entry = dict(piece.head)
                if "fieldIcons" in entry:
                    entry["fieldIcons"] = dict(entry["fieldIcons"])
                if bars:
                    entry["bars"] = bars
                entry["changes"] = changes
                entries.append(entry)
        return entries

    def _record(
        self, slot: str, piece: _Piece, new: Mapping[str, object]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        was = self.records[slot]
        now = self.records[slot] = read_values(piece.fields, new, piece.order)
        changes = [
            {"field": name, "before": was[name], "after": value}
            for name, value in now.items()
            if not same_value(was[name], value)
        ]
        return changes, piece.bars(was, now) if changes else {}


def _list_changes(
    piece: _Piece, olds: Mapping[str, object], new: Mapping[str, object]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each touched row's net change, in the order the message first wrote them."""
    changes: list[dict[str, Any]] = []
    bars: dict[str, Any] = {}
    for row, old in olds.items():
        was = piece.read_row(old)
        now = piece.read_row(new.get(row))
        if was is None and now is None:
            continue  # added and removed in the same message
        if was is not None and now is not None and all(same_value(was[k], now[k]) for k in was):
            continue
        if now is not None:
            bars.update(piece.bars(was, now))
        changes.append(_row_change(row, was, now))
    return changes, bars


def _stored_changes(
    layout: str, olds: Mapping[str, object], new: Mapping[str, object]
) -> list[dict[str, Any]]:
    """Changes with the values as stored, for a piece that cannot be read (or changed layout)."""
    changes: list[dict[str, Any]] = []
    for key, old in olds.items():
        was = None if old is _ABSENT else old
        now = new.get(key)
        if _same_stored(was, now):
            continue
        # Copies: the values as stored are the take's own objects and the caller may change these.
        was, now = copy.deepcopy(was), copy.deepcopy(now)
        if layout == "record":
            changes.append({"field": key, "before": was, "after": now})
            continue
        changes.append(_row_change(key, was, now))
    return changes


def _row_change(row: str, was: object, now: object) -> dict[str, Any]:
    """A list change: whole rows, null on the absent side, and `added` / `removed` flags."""
    change: dict[str, Any] = {"row": row, "before": was, "after": now}
    if was is None:
        change["added"] = True
    if now is None:
        change["removed"] = True
    return change


def _same_stored(a: object, b: object) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same_stored(a[k], b[k]) for k in a)
    return same_value(a, b)
