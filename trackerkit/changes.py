"""What each reply changed: one forward pass over a take's live messages (TR-42..TR-45).

The answer is typed: `Changes` holds a `MessageChanges` per message that changed a tracker, each
holding a `TrackerChanges` per tracker, each holding its `FieldChange`s (a record) or `RowChange`s
(a list). `to_json()` gives the shape the Messenger reads::

    {"messages": [{"messageId": "m7", "trackers": [
        {"trackerId": "health", "name": "Health", "style": "chips", "icon"?: ..., "fieldIcons"?: {...},
         "bars"?: {"hp": {"min": 0, "top": 30}},
         "changes": [{"field": "hp", "before": 25, "after": 18}]}]}]}

A list's change is `{"row", "before", "after", "added"?, "removed"?}` with whole rows (no name) and
null on the absent side. Past lines are read through today's piece, so a rename, a new default or
a new top applies to history too; a piece that cannot be read is reported by its id with the values
as stored. The history frame (`views.frames`) walks the same `ForwardPass`.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeAlias

from trackerkit._slots import slot_of, slot_parts
from trackerkit.chat import Chat
from trackerkit.errors import BadRequestError, TrackerDecodeError
from trackerkit.fields import NumberField, is_number
from trackerkit.library import Library
from trackerkit.scene import FolderSource, PieceSource, source_for
from trackerkit.state import Delta, Message, State, apply_deltas, is_message_id
from trackerkit.tracker import ChangesStyle, Tracker, decode_tracker
from trackerkit.values import AnyField, Value, read_values, same_value

__all__ = [
    "Bar",
    "Change",
    "Changes",
    "FieldChange",
    "ForwardPass",
    "MessageChanges",
    "RowChange",
    "TrackerChanges",
    "number_bar",
    "tracker_changes_between",
]


def _plain(value: Any) -> Any:
    """A fresh copy of a JSON-like value, so what `to_json` returns shares nothing with the read."""
    if isinstance(value, str | int | float) or value is None:
        return value  # most values: nothing to copy
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Bar:
    """A number's bar as a message left it: its bottom (`min`, 0 when unset) and its top (TR-42)."""

    min: int | float
    top: int | float

    def to_json(self) -> dict[str, int | float]:
        return {"min": self.min, "top": self.top}


@dataclass(frozen=True, slots=True)
class FieldChange:
    """A record field's net change in one message: the value before and after it.

    Values are read as a turn reads them; for a piece that cannot be read they are as stored
    (None where nothing was).
    """

    field: str
    before: Any
    after: Any

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "before": _plain(self.before), "after": _plain(self.after)}


@dataclass(frozen=True, slots=True)
class RowChange:
    """A list row's net change in one message: the whole row (no name) before and after it.

    `before` is None for a row the message added, `after` None for one it removed. Rows are read
    as a turn reads them; for a piece that cannot be read they are as stored, whatever they hold.
    """

    row: str
    before: Any
    after: Any

    @property
    def added(self) -> bool:
        return self.before is None

    @property
    def removed(self) -> bool:
        return self.after is None

    def changed_fields(self) -> tuple[str, ...]:
        """The fields whose value the message changed, in the row's order: every field of an
        added row, none of a removed one (nor of a row stored as something other than a row)."""
        after = self.after
        if not isinstance(after, Mapping):
            return ()
        before = self.before
        if before is None:
            return tuple(after)
        if not isinstance(before, Mapping):
            return ()
        return tuple(k for k, v in after.items() if k not in before or not same_value(before[k], v))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "row": self.row,
            "before": _plain(self.before),
            "after": _plain(self.after),
        }
        if self.before is None:
            out["added"] = True
        if self.after is None:
            out["removed"] = True
        return out


#: One change: a record field's or a list row's.
Change: TypeAlias = FieldChange | RowChange


@dataclass(frozen=True, slots=True)
class TrackerChanges:
    """What one message changed in one tracker, with what the views need to draw it (TR-42).

    `name`, `style`, `icon` and `field_icons` are today's piece's (the id, chips and none for a
    piece that cannot be read); `bars` holds each changed topped number's bar, by field name.
    """

    tracker_id: str
    name: str
    style: ChangesStyle
    changes: tuple[Change, ...]
    icon: str | None = None
    field_icons: Mapping[str, str] = field(default_factory=dict)
    bars: Mapping[str, Bar] = field(default_factory=dict)

    def icon_of(self, change: Change) -> str | None:
        """The icon to draw beside a change: its field's own, else the tracker's."""
        own = self.field_icons.get(change.field) if isinstance(change, FieldChange) else None
        return own or self.icon

    def changed_cells(self) -> set[tuple[str | None, str]]:
        """`(row, field)` for each value the message changed (row None for a record's fields)."""
        cells: set[tuple[str | None, str]] = set()
        for change in self.changes:
            if isinstance(change, FieldChange):
                cells.add((None, change.field))
            else:
                cells.update((change.row, name) for name in change.changed_fields())
        return cells

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"trackerId": self.tracker_id, "name": self.name, "style": self.style}
        if self.icon:
            out["icon"] = self.icon
        if self.field_icons:
            out["fieldIcons"] = dict(self.field_icons)
        if self.bars:
            out["bars"] = {name: bar.to_json() for name, bar in self.bars.items()}
        out["changes"] = [change.to_json() for change in self.changes]
        return out


@dataclass(frozen=True, slots=True)
class MessageChanges:
    """What one message changed, tracker by tracker, in the order it first wrote them."""

    message_id: str
    trackers: tuple[TrackerChanges, ...]

    def to_json(self) -> dict[str, Any]:
        return {"messageId": self.message_id, "trackers": [t.to_json() for t in self.trackers]}


@dataclass(frozen=True, slots=True)
class Changes:
    """The changes read: each message of the range that changed a tracker, in take order."""

    messages: tuple[MessageChanges, ...] = ()

    def of(self, message_id: str) -> MessageChanges | None:
        """The changes of one message; None when it changed no tracker (or is not in the range)."""
        return next((m for m in self.messages if m.message_id == message_id), None)

    def to_json(self) -> dict[str, Any]:
        """The seed's exact shape: `{"messages": [{"messageId", "trackers": [...]}]}` (TR-42)."""
        return {"messages": [m.to_json() for m in self.messages]}


def number_bar(field: AnyField, values: Mapping[str, object]) -> Bar | None:
    """A number's bar as `values` leave it; None when it has no top (TR-42).

    The top is the field's own max, or the value of the field its maxField names; the bottom is
    its min, 0 when it sets none. The changes read, the history frame and the panel all use this.
    """
    if not isinstance(field, NumberField):
        return None
    top = values.get(field.max_field) if field.max_field is not None else field.max
    if not is_number(top):
        return None
    assert isinstance(top, int | float)
    return Bar(field.min if field.min is not None else 0, top)


_ABSENT: Any = object()  # a key the slot did not hold


@dataclass(slots=True)
class _Piece:
    """Today's piece for one tracker id, read once per pass with what the pass needs of it."""

    tracker_id: str
    tracker: Tracker | None  # None: the piece cannot be read any more
    name: str
    style: ChangesStyle = "chips"  # TR-44: a piece that cannot be read is drawn as chips
    icon: str | None = None
    field_icons: Mapping[str, str] = field(default_factory=dict)
    fields: Sequence[AnyField] = ()
    order: tuple[int, ...] = ()
    tops: tuple[NumberField, ...] = ()

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
            return cls(tracker_id, None, tracker_id)  # TR-44: reported by its id
        return cls.of(tracker)

    @classmethod
    def of(cls, tracker: Tracker) -> _Piece:
        tops = tuple(
            f
            for f in tracker.fields
            if isinstance(f, NumberField) and (f.max is not None or f.max_field is not None)
        )
        return cls(
            tracker.id,
            tracker,
            tracker.name,
            tracker.style,
            tracker.body.icon or None,
            MappingProxyType(tracker.field_icons()),
            tracker.fields,
            tracker.order,
            tops,
        )

    def readable_as(self, layout: str) -> bool:
        return self.tracker is not None and self.tracker.layout == layout

    def read_row(self, stored: object) -> dict[str, Value] | None:
        """A record or row read as a turn reads it; None when the slot holds no row there."""
        if not isinstance(stored, Mapping):
            return None
        return read_values(self.fields, stored, self.order)

    def bars(self, was: Mapping[str, Value] | None, now: Mapping[str, Value]) -> dict[str, Bar]:
        """The bar of each changed number with a top, the top as `now` leaves it."""
        bars: dict[str, Bar] = {}
        for number in self.tops:
            if was is not None and same_value(was[number.name], now[number.name]):
                continue
            bar = number_bar(number, now)
            if bar is not None:
                bars[number.name] = bar
        return bars

    def entry(self, changes: list[Change], bars: dict[str, Bar]) -> TrackerChanges:
        # The icons are a read-only view, so every entry of the piece can share them.
        return TrackerChanges(
            self.tracker_id,
            self.name,
            self.style,
            tuple(changes),
            self.icon,
            self.field_icons,
            bars,
        )


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
) -> Changes:
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
        The `Changes` (`to_json()` for the seed's shape); a message that changed no tracker is
        left out. Nothing returned shares a mutable object with the take.
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
        return Changes()
    source = chat.source if library is None else _source(library)
    pass_ = ForwardPass(branch.state_before(start), source)  # a fresh copy: the read writes nothing
    out: list[MessageChanges] = []
    for message in branch.messages[start : end + 1]:
        entries = pass_.step(message)
        if entries:
            out.append(MessageChanges(message.id, tuple(entries.values())))
    return Changes(tuple(out))


class ForwardPass:
    """The forward pass: the folded state, today's pieces, and each record's last read (TR-43).

    `step` folds one message in and answers what it changed, tracker slot by tracker slot. The
    changes read and the history frame both walk a take with it, so "changed" means one thing.

    Args:
        state: the state before the first message to step; the pass folds into it, so pass a
            copy the caller does not keep.
        source: where today's pieces are read, each once per pass.
        trackers: pieces already read (the frame's linked trackers), used instead of reading
            their ids again.
    """

    def __init__(self, state: State, source: PieceSource, trackers: Iterable[Tracker] = ()) -> None:
        self._state = state
        self.source = source
        self.pieces: dict[str, _Piece] = {t.id: _Piece.of(t) for t in trackers}
        self.slots: dict[str, tuple[str, _Piece] | None] = {}
        # A readable record slot's value as read after the last message that touched it: only
        # this pass writes `state`, so it stays true and each record is read once per message.
        self.records: dict[str, dict[str, Value]] = {}
        #: The tracker slots the last message stepped wrote, changed or not, each with the keys
        #: (fields or rows) it wrote.
        self.written: Mapping[str, Collection[str]] = {}

    @property
    def state(self) -> Mapping[str, Mapping[str, object]]:
        """The state as folded through the last message stepped (not to be changed)."""
        return self._state

    def record(self, tracker: Tracker) -> dict[str, Value] | None:
        """A record's value as read after the last message that changed it; None when no
        message stepped so far touched it. The dict is the pass's own: read, never change it."""
        return self.records.get(slot_of(tracker))

    def _slot(self, slot: str) -> tuple[str, _Piece] | None:
        """A tracker slot's layout and today's piece, read once per pass; None for another slot."""
        try:
            return self.slots[slot]
        except KeyError:
            parts = slot_parts(slot)
            found = None if parts is None else (parts[0], self.piece(parts[1]))
            self.slots[slot] = found
            return found

    def piece(self, tracker_id: str) -> _Piece:
        piece = self.pieces.get(tracker_id)
        if piece is None:
            piece = self.pieces[tracker_id] = _Piece.read(tracker_id, self.source)
        return piece

    def step(self, message: Message) -> dict[str, TrackerChanges]:
        """Fold one message's deltas in; what it changed, by tracker slot, in first-write order.

        A slot whose writes read the same afterwards (or ended where they began) is left out.
        """
        state = self._state
        deltas: list[Delta] = []  # the tracker deltas: the only ones the read counts
        # slot -> key -> the raw value before this message (first write wins), in write order.
        touched: dict[str, dict[str, object]] = {}
        for delta in message.deltas():
            slot = delta.slot
            keys = touched.get(slot)
            if keys is None:
                known = self._slot(slot)
                if known is None:
                    continue
                keys = touched[slot] = {}
                layout, piece = known
                if layout == "record" and slot not in self.records and piece.readable_as(layout):
                    self.records[slot] = read_values(piece.fields, state.get(slot, {}), piece.order)
            deltas.append(delta)
            if delta.key not in keys:
                keys[delta.key] = state.get(slot, {}).get(delta.key, _ABSENT)
        self.written = touched
        if not deltas:
            return {}
        apply_deltas(state, deltas)
        entries: dict[str, TrackerChanges] = {}
        for slot, olds in touched.items():
            known = self.slots[slot]
            assert known is not None  # only tracker slots are touched
            layout, piece = known
            new = state.get(slot, {})
            bars: dict[str, Bar] = {}
            changes: list[Change]
            if not piece.readable_as(layout):
                changes = _stored_changes(layout, olds, new)
            elif layout == "record":
                changes, bars = self._record(slot, piece, new)
            else:
                changes, bars = _list_changes(piece, olds, new)
            if changes:
                entries[slot] = piece.entry(changes, bars)
        return entries

    def _record(
        self, slot: str, piece: _Piece, new: Mapping[str, object]
    ) -> tuple[list[Change], dict[str, Bar]]:
        was = self.records[slot]
        now = self.records[slot] = read_values(piece.fields, new, piece.order)
        changes: list[Change] = [
            FieldChange(name, was[name], value)
            for name, value in now.items()
            if not same_value(was[name], value)
        ]
        return changes, piece.bars(was, now) if changes else {}


def _list_changes(
    piece: _Piece, olds: Mapping[str, object], new: Mapping[str, object]
) -> tuple[list[Change], dict[str, Bar]]:
    """Each touched row's net change, in the order the message first wrote them."""
    changes: list[Change] = []
    bars: dict[str, Bar] = {}
    for row, old in olds.items():
        was = piece.read_row(old)
        now = piece.read_row(new.get(row))
        if was is None and now is None:
            continue  # added and removed in the same message
        if was is not None and now is not None and same_value(was, now):
            continue
        if now is not None:
            bars.update(piece.bars(was, now))
        changes.append(RowChange(row, was, now))
    return changes, bars


def _stored_changes(
    layout: str, olds: Mapping[str, object], new: Mapping[str, object]
) -> list[Change]:
    """Changes with the values as stored, for a piece that cannot be read (or changed layout)."""
    changes: list[Change] = []
    for key, old in olds.items():
        was = None if old is _ABSENT else old
        now = new.get(key)
        if same_value(was, now):
            continue
        # Copies: the values as stored are the take's own objects and the caller may change these.
        was, now = copy.deepcopy(was), copy.deepcopy(now)
        changes.append(
            FieldChange(key, was, now) if layout == "record" else RowChange(key, was, now)
        )
    return changes
