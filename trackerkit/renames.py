"""Field renames the library records per tracker revision, so history follows a rename (TR-44).

A tracker file holds only its fields' names as they are now, so a step written against an older
revision (a person's turn in the simulator) would name a field that is gone. The library keeps,
beside the pieces, what each save renamed: `.renames/<id>.json` in the tracker folder, a sidecar
it owns (the folder's `*.json` pieces are as they were, so every reader of a piece reads it as
before). A step written at revision 2 is then read through every rename saved since: `hp_max`,
renamed to `hp_top` by the save that made revision 3, is `hp_top` for it.

The record, each save's renames (old name -> new name) under the revision it made:

    {"kind": "field-renames", "id": "health",
     "revisions": [{"revision": 3, "renames": {"hp_max": "hp_top"}}]}

Only renames are recorded: a field deleted since keeps its name in an old step (and is refused,
as it should be), and a layout change is not followed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from trackerkit._pieces import check_tracker_id, read_piece_file, write_atomically

__all__ = ["RECORDS", "FieldRenames", "read_renames", "record_renames"]

_log = logging.getLogger(__name__)

#: The folder, inside the tracker folder, that holds each tracker's record of field renames.
RECORDS = ".renames"
_KIND = "field-renames"


@dataclass(frozen=True, slots=True)
class FieldRenames:
    """One tracker's recorded field renames: for each revision a save made, old name -> new name."""

    revisions: tuple[tuple[int, Mapping[str, str]], ...] = ()

    def name_now(self, name: str, since: int, until: int) -> str:
        """`name` as written at revision `since`, carried through each rename saved after it, up
        to revision `until` (the tracker's revision now)."""
        for revision, renames in self.revisions:
            if since < revision <= until:
                name = renames.get(name, name)
        return name

    def values_now(self, values: object, since: int, until: int) -> object:
        """An item's `set` (field name -> value) with each name as it is now (see `name_now`);
        anything else, and a `set` with nothing renamed, is given back as it is."""
        if not isinstance(values, Mapping):
            return values
        renamed = {self.name_now(str(k), since, until): v for k, v in values.items()}
        return values if list(renamed) == list(values) else renamed


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


def _decoded(data: object, path: Path) -> FieldRenames:
    entries = data.get("revisions") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        _log.warning("field renames not read: %s holds no list of revisions", path)
        return FieldRenames()
    revisions: list[tuple[int, Mapping[str, str]]] = []
    for entry in entries:
        revision = entry.get("revision") if isinstance(entry, dict) else None
        renames = entry.get("renames") if isinstance(entry, dict) else None
        if type(revision) is not int or not isinstance(renames, dict):
            _log.warning("field renames: %s holds an entry out of shape, skipped", path)
            continue
        pairs = {k: v for k, v in renames.items() if isinstance(v, str)}
        revisions.append((revision, pairs))
    return FieldRenames(tuple(sorted(revisions, key=lambda e: e[0])))


def record_renames(
    folder: Path, tracker_id: str, revision: int, renames: Mapping[str, str]
) -> None:
    """Record the field renames (old name -> new name) of the save that makes `revision`.

    Called by the library under its lock, before it writes the piece. The entries of `revision`
    and later are dropped first: they were a save that never finished, or a piece of that id
    deleted since (a new piece starts at revision 0 with no history). Nothing is written when
    the record would not change.

    Raises:
        OSError: the record could not be written (the caller then writes no piece).
    """
    path = _record_path(folder, tracker_id)
    held = read_renames(folder, tracker_id).revisions
    kept: list[tuple[int, Mapping[str, str]]] = [e for e in held if e[0] < revision]
    if renames:
        kept.append((revision, dict(renames)))
    if kept == list(held):
        return
    if not kept:
        path.unlink(missing_ok=True)
        return
    record: dict[str, Any] = {
        "kind": _KIND,
        "id": tracker_id,
        "revisions": [{"revision": r, "renames": dict(n)} for r, n in kept],
    }
    path.parent.mkdir(exist_ok=True)
    write_atomically(path, orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n")
