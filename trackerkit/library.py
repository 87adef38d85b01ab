"""Tracker pieces on disk: a folder of `<id>.json` files, revisions, patch saves, where linked.

The only module of the tracker side that touches files (through `pieces`, which holds the id rule
and the safe reads and writes). Reads never let one bad file hide the others: each file gets a
`Verdict` naming it and every problem, and a file that is not a regular file of bounded size in
the folder is refused unread. Saves are atomic (a temp file in the same folder, fsync,
`os.replace`, the piece's file mode kept) and guarded by revision (TR-50), so a save on a piece
that moved since it was opened is refused and nothing is lost; opening a library removes the
temporaries of saves that were killed. `linked_in` says where a tracker is
linked from the scenes' settings alone (TR-46).

The parts live in their own modules, and every public name is importable from here:
`trackerkit._stored` (a piece file's JSON or the problem that stops it being read, its revision)
and `._saves` (`Library`'s writing methods: save, patch, new_blank, under the folder's lock);
this module reads pieces (`Verdict`, `read_piece`, `check_paths`), opens the folder (`Library`)
and says where a tracker is linked.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trackerkit._json import repeated_key_problems
from trackerkit._pieces import check_tracker_id, sweep_temporaries
from trackerkit._saves import _Saves
from trackerkit._stored import _load_raw
from trackerkit.errors import (
    BadRequestError,
    NotFoundError,
    Problem,
    TrackerDecodeError,
)
from trackerkit.line import shown_path
from trackerkit.renames import RECORDS
from trackerkit.scene import Scene, read_scene
from trackerkit.tracker import Tracker, decode_tracker

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


class Library(_Saves):
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
