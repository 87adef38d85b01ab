"""Tracker pieces on disk: a folder of `<id>.json` files, revisions, patch saves, where linked.

The only module of the tracker side that touches files (through `pieces`, which holds the id rule
and the safe reads and writes). Reads never let one bad file hide the others: each file gets a
`Verdict` naming it and every problem, and a file that is not a regular file of bounded size in
the folder is refused unread. Saves are atomic (a temp file in the same folder, fsync,
`os.replace`, the piece's file mode kept) and guarded by revision (TR-50), so a save on a piece
that moved since it was opened is refused and nothing is lost; opening a library removes the
temporaries of saves that were killed. `linked_in` says where a tracker is
linked from the scenes' settings alone (TR-46).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from trackerkit._json import repeated_key_problems
from trackerkit._pieces import (
    check_tracker_id,
    read_piece_file,
    sweep_temporaries,
    write_atomically,
)
from trackerkit.errors import (
    BadRequestError,
    NotFoundError,
    Problem,
    StaleRevisionError,
    TrackerDecodeError,
)
from trackerkit.fields import describe_value
from trackerkit.line import shown_path
from trackerkit.renames import RECORDS, record_renames
from trackerkit.scene import Scene, read_scene
from trackerkit.tracker import Tracker, blank_tracker, decode_tracker, encode_tracker

__all__ = [
    "Library",
    "Links",
    "Verdict",
    "check_paths",
    "linked_in",
    "load_scenes",
    "piece_verdict",
    "read_piece",
]

_log = logging.getLogger(__name__)

#: Keys a patch may not touch: the id names the file, the revision is the library's to move.
_FIXED_KEYS = frozenset({"id", "revision"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the strict decoder made of one file: the tracker, or every problem it found.

    Attributes:
        file: the file as it was named (a path).
        id: the piece's id as the library knows it: the file name's stem.
        tracker: the decoded tracker, or None when the file was refused.
        problems: every reason the file was refused (empty when it decodes).
    """

    file: str
    id: str
    tracker: Tracker | None
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the file decodes."""
        return not self.problems

    def lines(self) -> list[str]:
        """One `file: path: message` line per problem."""
        return [f"{shown_path(self.file)}: {problem}" for problem in self.problems]

    def to_json(self) -> dict[str, Any]:
        """Plain data: `{file, ok, id, problems: [{path, message}]}`."""
        return {
            "file": self.file,
            "ok": self.ok,
            "id": self.id,
            "problems": [{"path": p.path, "message": p.message} for p in self.problems],
        }


def _load_json(path: Path, within: Path | None = None) -> tuple[object, Problem | None]:
    data, problem, _raw = _load_raw(path, within)
    return data, problem


def _load_raw(path: Path, within: Path | None) -> tuple[object, Problem | None, bytes]:
    """The file's JSON, the problem that stops it being read, and its bytes."""
    raw, unread = read_piece_file(path, within)
    if raw is None:
        return None, Problem((), unread or "is not there", "unreadable"), b""
    try:
        return orjson.loads(raw), None, raw
    except orjson.JSONDecodeError as exc:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in raw[:64]:
            # orjson's words for UTF-16 ("surrogates not allowed") do not say what to do.
            said = "is UTF-16 text, not UTF-8; save it as UTF-8 (JSON files are UTF-8, RFC 8259)"
            return None, Problem((), said, "not_json"), raw
        return None, Problem((), f"is not valid JSON: {exc}", "not_json"), raw


def read_piece(path: str | Path, *, within: str | Path | None = None) -> Verdict:
    """Read one tracker file through the strict decoder; never raises for a bad file.

    Besides the decoder's problems, a piece whose id does not match its file name is refused
    (the library finds a piece by its file name). A file that is not a regular file of at most
    `MAX_PIECE_BYTES` (a FIFO, a device, a folder), or with `within` a link out of that folder,
    is refused unread.
    """
    path = Path(path)
    data, unreadable, raw = _load_raw(path, None if within is None else Path(within))
    if unreadable is not None:
        return Verdict(str(path), path.stem, None, (unreadable,))
    verdict = piece_verdict(data, path)
    # A key written twice in one object reads last-wins: the first value would vanish unsaid.
    repeated = tuple(repeated_key_problems(raw))
    if repeated:
        return Verdict(str(path), path.stem, None, (*repeated, *verdict.problems))
    return verdict


def piece_verdict(data: object, path: Path) -> Verdict:
    """The verdict on a piece's parsed JSON as stored at `path`: the decoder's problems, and an
    id that does not match the file name (the library finds a piece by its file name).
    """
    problems: list[Problem] = []
    tracker: Tracker | None = None
    try:
        tracker = decode_tracker(data)
    except TrackerDecodeError as exc:
        problems += exc.problems
    piece_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(piece_id, str) and piece_id != path.stem:
        problems.append(
            Problem(
                ("id",),
                f'is "{piece_id[:60]}" but the file is named {path.name}; a piece\'s id must '
                "match its file name",
                "id_not_file_name",
            )
        )
    if problems:
        return Verdict(str(path), path.stem, None, tuple(problems))
    return Verdict(str(path), path.stem, tracker)


def check_paths(paths: Iterable[str | Path]) -> list[tuple[str, list[Verdict]]]:
    """Read tracker files and folders (each folder's `*.json`), with a verdict per file.

    A path that is there but is no regular file (a FIFO, a device) gets a refusing verdict,
    unopened.

    Returns:
        For each path given, in order, the path and the verdicts of its files.
    Raises:
        NotFoundError: a path that is not there.
    """
    out: list[tuple[str, list[Verdict]]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            # Every `*.json` entry but a folder: a dangling link or a FIFO is refused in words
            # (unopened), not skipped as if the folder held nothing.
            entries = sorted(p for p in path.glob("*.json") if not p.is_dir())
            out.append((str(given), [read_piece(p, within=path) for p in entries]))
        elif path.exists() or path.is_symlink():
            # A file, or something that is no file (a FIFO, a device): its verdict says which.
            out.append((str(given), [read_piece(path)]))
        else:
            raise NotFoundError(f"{given}: no such file or folder")
    return out


def _piece_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.is_file())


class Library:
    """A folder of tracker pieces, one `<id>.json` per tracker (default `data/trackers`).

    Opening a library removes the `.<id>.<random>.tmp` files that killed saves left in it.

    Example:
        >>> lib = Library("data/trackers")          # doctest: +SKIP
        >>> health = lib.get("health")               # doctest: +SKIP
        >>> lib.patch("health", health.revision, {"name": "Vitals"})  # doctest: +SKIP
    """

    def __init__(self, path: str | Path = "data/trackers") -> None:
        self.path = Path(path)
        if self.path.is_dir():
            with self._locked():  # a save in progress holds the lock, so its temporary is safe
                for name in sweep_temporaries(self.path):
                    _log.info("removed %s, left by a save that did not finish", self.path / name)
                sweep_temporaries(self.path / RECORDS)

    def __repr__(self) -> str:
        return f"Library({str(self.path)!r})"

    # --- reading ---------------------------------------------------------------------------

    def ids(self) -> list[str]:
        """The ids of every `<id>.json` file, sorted (whether or not the file decodes)."""
        return [p.stem for p in self._files()]

    def verdicts(self) -> list[Verdict]:
        """Every file's verdict, sorted by file name; a bad file never hides the others."""
        return [read_piece(p, within=self.path) for p in self._files()]

    def trackers(self) -> list[Tracker]:
        """Every piece that decodes, sorted by id; the refused ones are in `verdicts()`."""
        return [v.tracker for v in self.verdicts() if v.tracker is not None]

    def __iter__(self) -> Iterator[Tracker]:
        return iter(self.trackers())

    def __contains__(self, tracker_id: object) -> bool:
        try:
            return self._file(check_tracker_id(tracker_id)).is_file()
        except BadRequestError:  # an id that cannot name a file names no piece
            return False

    def read(self, tracker_id: str) -> Verdict:
        """The verdict of one piece.

        Raises:
            NotFoundError: no `<id>.json` in the folder.
        """
        return read_piece(self._existing(tracker_id), within=self.path)

    def get(self, tracker_id: str) -> Tracker:
        """The piece `tracker_id`, through the strict decoder.

        Raises:
            NotFoundError: no `<id>.json` in the folder.
            TrackerDecodeError: the file is refused (its problems say why).
        """
        verdict = self.read(tracker_id)
        if verdict.tracker is None:
            raise TrackerDecodeError(list(verdict.problems), verdict.file)
        return verdict.tracker

    # --- writing (TR-50) ----------------------------------------------------------------------

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

    # --- helpers ------------------------------------------------------------------------------

    def _files(self) -> list[Path]:
        if not self.path.is_dir():
            return []
        return _piece_files(self.path)

    def _file(self, tracker_id: str) -> Path:
        return self.path / f"{check_tracker_id(tracker_id)}.json"

    def _existing(self, tracker_id: str) -> Path:
        path = self._file(tracker_id)
        if not path.is_file():
            raise NotFoundError(f"no tracker {tracker_id!r} in {self.path}")
        return path

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


def _revision_of(stored: dict[str, Any]) -> int:
    revision = stored.get("revision", 0)
    return revision if type(revision) is int else 0


def _decoded_or_none(data: object) -> Tracker | None:
    try:
        return decode_tracker(data)
    except TrackerDecodeError:
        return None


# --- where a tracker is linked (TR-46) ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Links:
    """The live scenes that link a tracker, as `(scene_id, title)`, in the scenes' order.

    `str(links)` is the editor header's words: "linked in 2 scenes", "linked in 1 scene" or
    "not linked to a scene".
    """

    scenes: tuple[tuple[str, str], ...] = ()

    def __len__(self) -> int:
        return len(self.scenes)

    def __str__(self) -> str:
        count = len(self.scenes)
        if count == 0:
            return "not linked to a scene"
        return f"linked in {count} scene{'' if count == 1 else 's'}"


def _scene_parts(scene: object) -> tuple[str, str, list[object], bool] | None:
    """A scene's id, title, linked tracker ids and deleted mark, or None when it has no id."""
    if isinstance(scene, Mapping):
        scene_id = scene.get("id")
        title = scene.get("title")
        prompting = scene.get("prompting")
        trackers = prompting.get("trackers") if isinstance(prompting, Mapping) else None
        deleted = scene.get("deleted") is True
    else:
        scene_id = getattr(scene, "id", None)
        title = getattr(scene, "title", None)
        trackers = getattr(scene, "trackers", None)
        deleted = getattr(scene, "deleted", False) is True
    if not isinstance(scene_id, str):
        return None
    linked = list(trackers) if isinstance(trackers, list | tuple) else []
    return scene_id, title if isinstance(title, str) else "", linked, deleted


def linked_in(tracker_id: str, scenes: Iterable[object]) -> Links:
    """Where `tracker_id` is linked, read from the scenes' settings alone (TR-46).

    Args:
        tracker_id: the tracker piece's id.
        scenes: scenes as stored in `data/scenes/<id>.json` (dicts with `id`, `title` and
            `prompting.trackers`), or objects with `.id`, `.title` and `.trackers`. A scene
            marked `deleted` is left out; no message is read and there is no cap.
    """
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for scene in scenes:
        parts = _scene_parts(scene)
        if parts is None:
            continue
        scene_id, title, trackers, deleted = parts
        if deleted or scene_id in seen or tracker_id not in trackers:
            continue
        seen.add(scene_id)
        found.append((scene_id, title))
    return Links(tuple(found))


def load_scenes(
    folder: str | Path = "data/scenes", *, skipped: list[Problem] | None = None
) -> list[Scene]:
    """Read every scene file (`*.json`) in `folder` with `read_scene`, sorted by file name.

    Every problem of every file is reported: logged as a warning, and added to `skipped` when
    given, located from the file (`<folder>/fight.json`, then `turns[3].set`). A file that cannot
    be read, is not JSON, or whose settings do not read is left out; a scene whose steps do not
    decode is kept without them, so its links still count (TR-46). A folder that is not there
    holds no scenes.
    """
    folder = Path(folder)
    scenes: list[Scene] = []
    if not folder.is_dir():
        return scenes
    for path in _piece_files(folder):
        read = read_scene(path, within=folder)
        for found in read.problems:
            problem = Problem((str(path), *found.where), found.message, found.code)
            _log.warning("scene file problem %s", problem)
            if skipped is not None:
                skipped.append(problem)
        if read.scene is not None:
            scenes.append(read.scene)
    return scenes
