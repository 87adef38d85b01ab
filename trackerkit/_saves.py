"""Saving tracker pieces (TR-50): a whole piece, a patch of its edited keys, a new blank one.

Every save is guarded by revision under the folder's lock, so a save on a piece that moved since
it was opened is refused and nothing is lost; the file is written atomically
(`trackerkit._pieces.write_atomically`), and the field renames and deletions a save names are
recorded (`trackerkit.renames`). These are `Library`'s writing methods (`trackerkit.library`).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from trackerkit._pieces import write_atomically
from trackerkit._stored import _decoded_or_none, _load_json, _revision_of
from trackerkit.errors import (
    BadRequestError,
    Problem,
    StaleRevisionError,
    TrackerDecodeError,
)
from trackerkit.fields import describe_value
from trackerkit.renames import record_renames
from trackerkit.tracker import Tracker, blank_tracker, decode_tracker, encode_tracker

__all__: list[str] = []  # its parts serve `Library` (`trackerkit.library`) only

#: Keys a patch may not touch: the id names the file, the revision is the library's to move.
_FIXED_KEYS = frozenset({"id", "revision"})


class _Saves:
    """The part of a `Library` that writes: saves guarded by revision, under the folder's lock."""

    # What the saves use of the library (`Library.__init__` sets `path`; it reads the pieces).
    path: Path
    get: Callable[[str], Tracker]
    _file: Callable[[str], Path]
    _existing: Callable[[str], Path]

    def save(
        self, tracker: Tracker, base_revision: int, *, replace_unreadable: bool = False
    ) -> Tracker:
        """Write `tracker` on the revision it was opened at; returns it at the next revision.

        The piece is checked by the strict decoder first, then written atomically. A new piece
        (no file yet) is created at `base_revision + 1`; `-1` says the piece must be new (it is
        created at revision 0, and a file already there is a stale revision). A file that holds no readable piece
        (not JSON, not an object, a hand edit gone wrong) has no revision to check, so it is
        not written over unless `replace_unreadable` says the caller read it and means to
        replace it (the designer's repair view). A whole piece saved names no field renames;
        the record of them (`trackerkit.renames`) keeps only the revisions before this one.

        Raises:
            TrackerDecodeError: the tracker breaks a rule; nothing was written.
            StaleRevisionError: the file's revision moved since `base_revision`; nothing was written.
            BadRequestError: `base_revision` is not a whole number of -1 or more, or the file
                holds no readable piece; nothing was written.
        """
        if type(base_revision) is not int or base_revision < -1:
            raise BadRequestError(
                "base_revision must be a whole number: the revision the piece was opened at "
                f"(0 or more), or -1 for a new piece; found {describe_value(base_revision)}"
            )
        data = encode_tracker(tracker)
        with self._locked():
            path = self._file(tracker.id)
            if path.exists() or path.is_symlink():
                current = self._stored_revision(path)
                if current is None and not replace_unreadable:
                    raise BadRequestError(
                        f"{path} holds no readable tracker piece, so saving over it would lose "
                        "what it holds; fix it (the designer's repair view shows why it is "
                        "refused) or move it away first"
                    )
                if current is not None and current != base_revision:
                    raise StaleRevisionError(tracker.id, base_revision, current)
            saved = decode_tracker({**data, "revision": base_revision + 1}, source=path.name)
            record_renames(self.path, tracker.id, saved.revision, {})
            self._write(path, saved)
        return saved

    def patch(
        self,
        tracker_id: str,
        base_revision: int,
        changes: Mapping[str, Any],
        *,
        renames: Mapping[str, str] | None = None,
        deleted: Collection[str] = (),
    ) -> Tracker:
        """Apply only the edited keys to a piece, on the revision it was opened at (TR-50).

        Args:
            tracker_id: the piece to edit.
            base_revision: the revision the edits were made on.
            changes: top-level keys (`name`, `description`, ...) and/or `body` holding only the
                edited body keys (`{"body": {"note": "..."}}`). A `null` clears an optional key.
            renames: the fields the edits rename (old name -> new), recorded for history to
                follow (`trackerkit.renames`).
            deleted: the fields the edits delete (their names before), recorded likewise.
        Returns:
            The piece as saved, at the next revision; with nothing edited (an empty patch, or one
            that sets every key to what is stored) nothing is written and the piece is returned
            as it is.
        Raises:
            NotFoundError: no such piece.
            BadRequestError: a patch of `id` or `revision`, or a `body` that is not an object.
            StaleRevisionError: the piece moved since `base_revision`; nothing was written.
            TrackerDecodeError: the patched piece would be refused; nothing was written.
        """
        fixed = sorted(_FIXED_KEYS & set(changes))
        if fixed:
            raise BadRequestError(
                f"a patch cannot change {' or '.join(fixed)}; the library keeps them"
            )
        body_changes = changes.get("body", {})
        if not isinstance(body_changes, Mapping):
            raise BadRequestError(
                f"a patch's body must be an object of edited keys; found {describe_value(body_changes)}"
            )
        if not changes or (set(changes) == {"body"} and not body_changes):
            return self.get(tracker_id)  # nothing edited, nothing sent
        with self._locked():
            path = self._existing(tracker_id)
            stored, unreadable = _load_json(path, self.path)
            if unreadable is not None or not isinstance(stored, dict):
                problem = unreadable or Problem((), "must be a JSON object", "not_object")
                raise TrackerDecodeError([problem], path.name)
            current = _revision_of(stored)
            if current != base_revision:
                raise StaleRevisionError(tracker_id, base_revision, current)
            body = stored.get("body")
            merged: dict[str, Any] = {**stored, **changes}
            if isinstance(body, dict):
                merged["body"] = {**body, **body_changes}
            edited = decode_tracker(merged, source=path.name)
            before = _decoded_or_none(stored)
            if before is not None and before == edited:
                return before
            saved = decode_tracker(
                {**encode_tracker(edited), "revision": current + 1}, source=path.name
            )
            record_renames(self.path, tracker_id, saved.revision, renames or {}, deleted)
            self._write(path, saved)
        return saved

    def new_blank(self, name: str = "Tracker") -> Tracker:
        """Save the blank tracker (TR-10) under a fresh id made from `name`; returns it.

        The id is the name in lowercase words joined by `-` (`tracker`, then `tracker-2`, ...).
        The new piece is at revision 0.
        """
        stem = _slug(name)
        with self._locked():
            self.path.mkdir(parents=True, exist_ok=True)
            n = 1
            while self._file(stem if n == 1 else f"{stem}-{n}").exists():
                n += 1
            tracker = blank_tracker(stem if n == 1 else f"{stem}-{n}", name=name)
            record_renames(self.path, tracker.id, tracker.revision, {})
            self._write(self._file(tracker.id), tracker)
        return tracker

    def _stored_revision(self, path: Path) -> int | None:
        """The stored piece's revision; None when the file holds no readable JSON object."""
        stored, _ = _load_json(path, self.path)
        return _revision_of(stored) if isinstance(stored, dict) else None

    def _write(self, path: Path, tracker: Tracker) -> None:
        payload = orjson.dumps(encode_tracker(tracker), option=orjson.OPT_INDENT_2) + b"\n"
        write_atomically(path, payload)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the folder's lock so a revision check and its write are one step."""
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: the check and write are still close
            yield
            return
        fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _slug(name: str) -> str:
    words = re.findall(r"[a-z0-9]+", name.lower())
    return "-".join(words)[:100].strip("-") or "tracker"
