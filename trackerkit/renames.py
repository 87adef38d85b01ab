"""Field renames and deletions the library records per tracker revision, so history follows them
(TR-44).

A tracker file holds only its fields' names as they are now, so a step written against an older
revision (a person's turn in the simulator) would name a field that is gone. The library keeps,
beside the pieces, what each save renamed: `.renames/<id>.json` in the tracker folder, a sidecar
it owns (the folder's `*.json` pieces are as they were, so every reader of a piece reads it as
before). A step written at revision 2 is then read through every rename saved since: `hp_max`,
renamed to `hp_top` by the save that made revision 3, is `hp_top` for it.

The record, each save's renames (old name -> new name) and the fields it deleted (by their names
before it; `deleted` is left out when none were) under the revision it made:

    {"kind": "field-renames", "id": "health",
     "revisions": [{"revision": 3, "renames": {"hp_max": "hp_top"}},
                   {"revision": 4, "renames": {}, "deleted": ["mood"]}]}

A step written before revision 4 then drops its writes to `mood` (the rest of it is kept). In one
save the deletions apply first: a field deleted and its name given to another field are two
fields. A record written before deletions were recorded reads as renames only. A layout change
is not followed.

A chat's stored values follow the record too (`follow_renames`). A delta names its field as the
tracker named it when it was written and records no revision, so a chat remembers, per tracker,
the revision whose names its deltas hold (the one it last read). When a read finds a newer
revision, every take's deltas of that tracker are rewritten by revision, not by name (a swap of
`hp` and `mp` comes out right): a record's key, and each key of a list row, named as now; a
deleted field's delta or row key dropped. Messages that takes share (a fork) stay shared.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from trackerkit._pieces import check_tracker_id, read_piece_file, write_atomically
from trackerkit._slots import LIST_PREFIX, RECORD_PREFIX
from trackerkit.scene import FolderSource, PieceSource
from trackerkit.state import Delta, Message, Take, Version
from trackerkit.tracker import Tracker

__all__ = [
    "RECORDS",
    "FieldRenames",
    "follow_renames",
    "histories",
    "read_renames",
    "record_renames",
]

_log = logging.getLogger(__name__)

#: The folder, inside the tracker folder, that holds each tracker's record of field renames.
RECORDS = ".renames"
_KIND = "field-renames"


@dataclass(frozen=True, slots=True)
class FieldRenames:
    """One tracker's recorded field history: for each revision a save made, its renames (old name
    -> new name, in `revisions`) and the fields it deleted (their names before it, in `deleted`)."""

    revisions: tuple[tuple[int, Mapping[str, str]], ...] = ()
    deleted: tuple[tuple[int, frozenset[str]], ...] = ()

    def name_now(self, name: str, since: int, until: int) -> str | None:
        """`name` as written at revision `since`, carried through each rename saved after it, up
        to revision `until` (the tracker's revision now); None when a save in between deleted
        the field."""
        renames = dict(self.revisions)
        deleted = dict(self.deleted)
        for revision in sorted(renames.keys() | deleted.keys()):
            if since < revision <= until:
                if name in deleted.get(revision, ()):
                    return None
                name = renames.get(revision, {}).get(name, name)
        return name

    def changed_between(self, since: int, until: int) -> bool:
        """True when a save after revision `since`, up to `until`, renamed or deleted a field."""
        saved = [r for r, renames in self.revisions if renames] + [r for r, _ in self.deleted]
        return any(since < revision <= until for revision in saved)

    def values_now(self, values: object, since: int, until: int) -> object:
        """An item's `set` (field name -> value) with each name as it is now (see `name_now`) and
        each field deleted since left out; anything else, and a `set` with nothing renamed or
        deleted, is given back as it is."""
        if not isinstance(values, Mapping):
            return values
        named = ((self.name_now(str(k), since, until), v) for k, v in values.items())
        now = {k: v for k, v in named if k is not None}
        return values if list(now) == list(values) else now


def _record_path(folder: Path, tracker_id: str) -> Path:
    return folder / RECORDS / f"{check_tracker_id(tracker_id)}.json"


def read_renames(folder: str | Path, tracker_id: str) -> FieldRenames:
    """The field renames recorded for `tracker_id` in the tracker folder `folder`.

    Never raises: a record that is missing, unreadable or not in shape gives no renames (history
    is then read by the names as written, as before there was a record), and is logged.
    """
    path = _record_path(Path(folder), tracker_id)
    raw, unread = read_piece_file(path, path.parent)
    if raw is None:
        if unread is not None:
            _log.warning("field renames of %s not read: %s %s", tracker_id, path, unread)
        return FieldRenames()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        _log.warning("field renames of %s not read: %s is not JSON: %s", tracker_id, path, exc)
        return FieldRenames()
    return _decoded(data, path)


def histories(folder: str | Path) -> Callable[[str], FieldRenames]:
    """`read_renames` for the tracker folder `folder`, each tracker's record read once (what
    `trackerkit.simulate.outdated.outdated_names` takes as `history`)."""
    read: dict[str, FieldRenames] = {}

    def history(tracker_id: str) -> FieldRenames:
        if tracker_id not in read:
            read[tracker_id] = read_renames(folder, tracker_id)
        return read[tracker_id]

    return history


def _decoded(data: object, path: Path) -> FieldRenames:
    entries = data.get("revisions") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        _log.warning("field renames not read: %s holds no list of revisions", path)
        return FieldRenames()
    revisions: list[tuple[int, Mapping[str, str]]] = []
    deletions: list[tuple[int, frozenset[str]]] = []
    for entry in entries:
        revision = entry.get("revision") if isinstance(entry, dict) else None
        renames = entry.get("renames") if isinstance(entry, dict) else None
        deleted = entry.get("deleted", []) if isinstance(entry, dict) else None
        if type(revision) is not int or not isinstance(renames, dict):
            _log.warning("field renames: %s holds an entry out of shape, skipped", path)
            continue
        gone = (
            frozenset(n for n in deleted if isinstance(n, str))
            if isinstance(deleted, list)
            else None
        )
        if gone is None:
            _log.warning("field renames: %s holds a deleted list out of shape, skipped", path)
            gone = frozenset()
        pairs = {k: v for k, v in renames.items() if isinstance(v, str)}
        if pairs or not gone:
            revisions.append((revision, pairs))
        if gone:
            deletions.append((revision, gone))
    return FieldRenames(
        tuple(sorted(revisions, key=lambda e: e[0])), tuple(sorted(deletions, key=lambda e: e[0]))
    )


def record_renames(
    folder: Path,
    tracker_id: str,
    revision: int,
    renames: Mapping[str, str],
    deleted: Collection[str] = (),
) -> None:
    """Record the field renames (old name -> new name) and the fields deleted (by their names
    before it) of the save that makes `revision`.

    Called by the library under its lock, before it writes the piece. The entries of `revision`
    and later are dropped first: they were a save that never finished, or a piece of that id
    deleted since (a new piece starts at revision 0 with no history). Nothing is written when
    the record would not change.

    Raises:
        OSError: the record could not be written (the caller then writes no piece).
    """
    path = _record_path(folder, tracker_id)
    history = read_renames(folder, tracker_id)
    held = _entries(history)
    kept = [e for e in held if e[0] < revision]
    if renames or deleted:
        kept.append((revision, dict(renames), frozenset(deleted)))
    if kept == held:
        return
    if not kept:
        path.unlink(missing_ok=True)
        return
    record: dict[str, Any] = {
        "kind": _KIND,
        "id": tracker_id,
        "revisions": [
            {"revision": r, "renames": dict(n), **({"deleted": sorted(d)} if d else {})}
            for r, n, d in kept
        ],
    }
    path.parent.mkdir(exist_ok=True)
    write_atomically(path, orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n")


def _entries(history: FieldRenames) -> list[tuple[int, dict[str, str], frozenset[str]]]:
    """The record's entries, one per revision: (revision, renames, deleted)."""
    renames = {r: dict(n) for r, n in history.revisions}
    deleted = dict(history.deleted)
    return [
        (r, renames.get(r, {}), deleted.get(r, frozenset()))
        for r in sorted(renames.keys() | deleted.keys())
    ]


#: A tracker's record of renames and the revisions to carry its stored names between.
_Span = tuple[FieldRenames, int, int]


def follow_renames(
    seen: dict[str, int], trackers: Iterable[Tracker], source: PieceSource, takes: Iterable[Take]
) -> None:
    """Carry the stored deltas of each of `trackers` (read just now) from the revision in `seen`
    to the tracker's revision, and record that revision in `seen`.

    A tracker not in `seen` starts there at its revision (the chat's first read of it). Only a
    folder of pieces (`FolderSource`) keeps a record of renames; pieces given in memory have
    none, so their deltas stay as written. Calling it again with nothing saved since does nothing.
    """
    takes = list(takes)
    for tracker in trackers:
        was = seen.setdefault(tracker.id, tracker.revision)
        if tracker.revision > was and isinstance(source, FolderSource):
            history = read_renames(source.folder, tracker.id)
            if history.changed_between(was, tracker.revision):
                _rename_stored(takes, tracker.id, (history, was, tracker.revision))
        # A piece deleted and made again starts at revision 0: its names are read from there on.
        seen[tracker.id] = tracker.revision


def _rename_stored(takes: list[Take], tracker_id: str, span: _Span) -> None:
    """Rewrite the tracker's slots in every take, each message shared by takes rewritten once."""
    slots = {RECORD_PREFIX + tracker_id, LIST_PREFIX + tracker_id}
    # Keyed by the message object (kept alive beside its rewrite, so no id is reused meanwhile).
    done: dict[int, tuple[Message, Message]] = {}

    def change(message: Message) -> Message:
        if id(message) not in done:
            done[id(message)] = (message, _message_renamed(message, slots, span))
        return done[id(message)][1]

    for take in takes:
        take.rewrite(change)


def _message_renamed(message: Message, slots: set[str], span: _Span) -> Message:
    """`message` with its deltas in `slots` renamed; the message itself when none changed."""
    versions = tuple(_version_renamed(v, slots, span) for v in message.versions)
    edits = _deltas_renamed(message.edits, slots, span)
    if edits is message.edits and all(
        a is b for a, b in zip(versions, message.versions, strict=True)
    ):
        return message
    return replace(message, versions=versions, edits=edits)


def _version_renamed(version: Version, slots: set[str], span: _Span) -> Version:
    deltas = _deltas_renamed(version.deltas, slots, span)
    return version if deltas is version.deltas else Version(version.text, tuple(deltas))


def _deltas_renamed(deltas: Sequence[Delta], slots: set[str], span: _Span) -> Sequence[Delta]:
    """`deltas` with those in `slots` renamed, a deleted field's record delta dropped; the same
    sequence when none changed."""
    out = [_delta_renamed(d, span) if d.slot in slots else d for d in deltas]
    if all(a is b for a, b in zip(out, deltas, strict=True)):
        return deltas
    return tuple(d for d in out if d is not None)


def _delta_renamed(delta: Delta, span: _Span) -> Delta | None:
    """A record delta under its field's name now (None when deleted); a list delta's row with
    each field named as now and the deleted ones left out (`values_now`; a removal, None, as it
    is)."""
    history, since, until = span
    if delta.slot.startswith(RECORD_PREFIX):
        key = history.name_now(delta.key, since, until)
        if key is None or key == delta.key:
            return None if key is None else delta
        return Delta(delta.slot, key, delta.value)
    row = history.values_now(delta.value, since, until)
    return delta if row is delta.value else Delta(delta.slot, delta.key, row)
