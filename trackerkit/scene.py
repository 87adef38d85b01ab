"""Scenes: which trackers a chat links, and what a turn loads of them (TR-24, TR-25).

A scene links tracker pieces by id, in order, without duplicates, and keeps the `trackerChanges`
switch (on unless the scene says false; only false is stored). When a turn loads, each linked piece
is read through the strict decoder; one that is gone, refused, or whose name an earlier linked
tracker already has is left out, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import orjson
import pydantic
from pydantic import BaseModel, ConfigDict, Field

from trackerkit._json import loads, repeated_key_problems, utf16_words
from trackerkit._pieces import check_tracker_id, read_piece_file
from trackerkit.errors import (
    BadRequestError,
    NotFoundError,
    Problem,
    SceneDecodeError,
    TrackerDecodeError,
)
from trackerkit.fields import MAX_SAFE_INTEGER, describe_value
from trackerkit.steps import plain_problems, problem_sentence, step_problems
from trackerkit.tracker import Tracker, decode_tracker

__all__ = [
    "FolderSource",
    "LeftOut",
    "Linked",
    "MappingSource",
    "PieceSource",
    "Prompting",
    "Scene",
    "SceneFile",
    "Unread",
    "load_linked",
    "load_scene",
    "read_scene",
    "scene_trackers",
    "source_for",
]


def _boolean(value: object) -> object:
    """`value` when it is true, false or null; else a ValueError (a Literal would take 0 for false)."""
    if value is None or isinstance(value, bool):
        return value
    raise ValueError(f"must be true or false; found {describe_value(value)}")


_LEAST = {"window": 1, "reserve": 0}
"""The least each whole-number setting of a scene may be."""


class Prompting(BaseModel):
    """A scene's prompting settings: the linked trackers and the change-visuals switch."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    trackers: list[str] = Field(default_factory=list)
    tracker_changes: Literal[False] | None = Field(default=None, alias="trackerChanges")

    @pydantic.field_validator("tracker_changes", mode="before")
    @classmethod
    def _only_false_is_kept(cls, value: object) -> object:
        # TR-24: on unless the scene says otherwise, so true or null clears the switch.
        return None if value is True else _boolean(value)

    @pydantic.field_validator("trackers")
    @classmethod
    def _no_duplicates(cls, ids: list[str]) -> list[str]:
        seen: set[str] = set()
        for tracker_id in ids:
            if tracker_id in seen:
                raise ValueError(
                    f"links tracker {tracker_id!r} twice; a scene links each tracker once"
                )
            seen.add(tracker_id)
        return ids


class Scene(BaseModel):
    """A scene as saved in `data/scenes/<id>.json`."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    id: str = Field(min_length=1)
    title: str
    card: str = ""
    user: str = "User"
    char: str = "Assistant"
    builtin: str | None = None
    prompting: Prompting = Field(default_factory=Prompting)
    #: The model's context window in tokens, and the part of it kept for the reply.
    window: int = 8192
    reserve: int = 1024
    tool_access: bool = Field(default=True, alias="toolAccess", strict=True)
    turns: list[dict[str, Any]] = Field(default_factory=list)
    #: A deleted scene stays on disk but counts in no "where linked" (TR-46); only true is kept.
    deleted: Literal[True] | None = None

    @pydantic.field_validator("window", "reserve", mode="plain")
    @classmethod
    def _whole_number(cls, value: object, info: pydantic.ValidationInfo) -> int:
        # Strict as a tracker file's numbers: no text, no boolean, no fraction (TR-11's ceiling).
        least = _LEAST[info.field_name or ""]
        if type(value) is not int or value < least:
            raise ValueError(
                f"must be a whole number, {least} or more; found {describe_value(value)}"
            )
        if value > MAX_SAFE_INTEGER:
            raise ValueError(
                f"is unusually large: {describe_value(value)} passes the ceiling of 2^53-1"
            )
        return value

    @pydantic.field_validator("reserve")
    @classmethod
    def _within_window(cls, reserve: int, info: pydantic.ValidationInfo) -> int:
        # Refused here, as every turn would be: the reply's reserve is taken out of the window.
        window = info.data.get("window")  # absent when the window itself was refused
        if window is not None and reserve >= window:
            raise ValueError(
                f"must be less than the window ({window} tokens), which it is taken from; "
                f"found {reserve}"
            )
        return reserve

    @pydantic.field_validator("deleted", mode="before")
    @classmethod
    def _only_true_is_kept(cls, value: object) -> object:
        return None if value is False else _boolean(value)

    @property
    def trackers(self) -> list[str]:
        """The linked tracker ids, in order."""
        return list(self.prompting.trackers)

    @property
    def changes_on(self) -> bool:
        """Whether replies draw their change visuals (the `trackerChanges` switch, TR-24)."""
        return self.prompting.tracker_changes is not False

    def link(self, tracker_id: str) -> Scene:
        """This scene with `tracker_id` linked at the end (unchanged when it is linked already)."""
        if tracker_id in self.prompting.trackers:
            return self
        prompting = self.prompting.model_copy(
            update={"trackers": [*self.prompting.trackers, tracker_id]}
        )
        return self.model_copy(update={"prompting": prompting})

    def unlink(self, tracker_id: str) -> Scene:
        """This scene without `tracker_id`."""
        ids = [t for t in self.prompting.trackers if t != tracker_id]
        return self.model_copy(
            update={"prompting": self.prompting.model_copy(update={"trackers": ids})}
        )

    def with_changes(self, on: bool | None) -> Scene:
        """This scene with the `trackerChanges` switch set; only False is kept (TR-24)."""
        value = False if on is False else None
        prompting = self.prompting.model_copy(update={"tracker_changes": value})
        return self.model_copy(update={"prompting": prompting})

    def to_json(self) -> dict[str, Any]:
        """The scene as stored (only a False switch is written)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass(frozen=True, slots=True)
class SceneFile:
    """One scene file as read: the scene, and every problem found in it, each with its location.

    `scene` is None when the file cannot be read, is not a JSON object, or its settings (every
    key but `turns`) do not read. A scene whose settings read but whose steps do not decode is
    kept with no steps, so its links still count; its step problems are listed all the same.
    """

    path: Path
    scene: Scene | None
    problems: tuple[Problem, ...] = ()

    @property
    def missing(self) -> bool:
        """True when there is no file at `path`."""
        return any(p.code == "missing" for p in self.problems)


def read_scene(path: str | Path, *, within: Path | None = None) -> SceneFile:
    """Read a scene file, reporting every problem: unreadable, not JSON, its settings, its steps.

    Never raises for a bad file. Each problem's location is from the file's root
    (`turns[3].set`, `window`); its `code` says what kind it is (`missing`, `unreadable`,
    `not_json`, `not_object`, or the decoder's). With `within`, a file (or a link) out of that
    folder is refused unread.
    """
    path = Path(path)
    data, unread = read_piece_file(path, within)
    if data is None:
        if unread is None:
            return SceneFile(path, None, (Problem((), "is not there", "missing"),))
        return SceneFile(path, None, (Problem((), unread, "unreadable"),))
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        said = utf16_words(data) or f"not valid JSON ({exc})"
        return SceneFile(path, None, (Problem((), said, "not_json"),))
    if not isinstance(parsed, dict):
        found = f"must be an object; found {describe_value(parsed)}"
        return SceneFile(path, None, (Problem((), found, "not_object"),))
    turns = parsed.get("turns", [])
    # The settings and the steps are read apart, so a problem in one never hides the other's.
    problems = step_problems(turns) if isinstance(turns, list) else []
    settings = _as_written(data, {**parsed, "turns": []} if isinstance(turns, list) else parsed)
    try:
        scene: Scene | None = Scene.model_validate(settings)
    except pydantic.ValidationError as exc:
        scene = None
        problems = [*plain_problems(exc), *problems]
    # A key written twice in one object reads last-wins: an expectation or a call's value would
    # vanish without a word (the same rule as a tracker file's).
    problems += repeated_key_problems(data)
    if scene is not None and not problems:
        scene = scene.model_copy(update={"turns": turns})
    return SceneFile(path, scene, tuple(problems))


def _as_written(data: bytes, settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with each whole-number setting that orjson read as a float read again exactly.

    orjson reads a whole number past 64 bits as a float (10**30 as 1e+30), so its refusal would
    show a number the file does not hold; `trackerkit._json.loads` keeps it whole.
    """
    if not any(isinstance(settings.get(key), float) for key in _LEAST):
        return settings
    try:
        exact = loads(data)
    except (ValueError, RecursionError):  # nested past what it reads: orjson's float is shown
        return settings
    return {**settings, **{key: exact[key] for key in _LEAST if key in settings}}


def load_scene(path: str | Path) -> Scene:
    """Read a scene file, its scripted steps decoded strictly (`trackerkit.steps`).

    Raises:
        NotFoundError: no such file.
        SceneDecodeError: the file cannot be read (not a regular file, too large), is not JSON,
            or is not a scene (a `TrackerkitError`; `.problems` holds each); one line naming the
            file and every problem with its path: `fight.json: window: must be a whole number,
            1 or more; found 0; turns[3].set: is not a known key`.
    """
    read = read_scene(path)
    if read.missing:
        raise NotFoundError(f"no scene file at {read.path}")
    if read.scene is None or read.problems:
        message = f"{read.path}: {problem_sentence(read.problems)}"
        raise SceneDecodeError(message, list(read.problems), read.path)
    return read.scene


def scene_trackers(path: str | Path, given: str | Path | None = None) -> Path:
    """The tracker folder a scene file reads: `given` when there is one, else `trackers/` in the
    scene's data folder (`<data>/scenes/fight.json` reads `<data>/trackers`).

    The scene's path is resolved first, so a relative path, `..` or a link to the file all find
    the same folder (and a message names it absolutely). Every reader of a scene file (the
    session, `trackerkit prompt` and `export`, the evaluation and its noisy model) asks here.
    """
    if given is not None:
        return Path(given)
    return Path(path).resolve().parent.parent / "trackers"


class PieceSource(Protocol):
    """Where a turn reads tracker pieces from: `raw(id)` gives the stored JSON, or None when gone.

    A source never raises for a bad piece: what it could not read is an `Unread` with the reason.
    """

    def raw(self, tracker_id: str) -> object | None: ...


@dataclass(frozen=True, slots=True)
class Unread:
    """A piece a source would not read, and why (a whole clause: "its file x.json is a FIFO, ...")."""

    reason: str


@dataclass(frozen=True)
class FolderSource:
    """Pieces stored as `<folder>/<id>.json` (the library folder).

    Only a regular file of at most `MAX_PIECE_BYTES` in the folder is read; anything else (a
    FIFO, a device, a folder, a link out of the folder) is refused unopened.
    """

    folder: Path

    def raw(self, tracker_id: str) -> object | None:
        """The piece's JSON, None when the file is gone; bad JSON reads as the bytes' text.

        An id that breaks the id rule (`check_tracker_id`), or a file that is not one to read,
        gives an `Unread` saying why; nothing outside the folder is ever opened.
        """
        try:
            name = f"{check_tracker_id(tracker_id)}.json"
        except BadRequestError as exc:
            return Unread(f"it was not read: {exc}")
        data, unread = read_piece_file(self.folder / name, within=self.folder)
        if data is None:
            return None if unread is None else Unread(f"its file {name} {unread}")
        try:
            parsed: object = orjson.loads(data)
        except orjson.JSONDecodeError:
            return data.decode("utf-8", "replace")
        return parsed


@dataclass(frozen=True)
class MappingSource:
    """Pieces held in memory: id -> raw JSON or a decoded `Tracker`."""

    pieces: Mapping[str, object]

    def raw(self, tracker_id: str) -> object | None:
        """The piece's JSON (a `Tracker` is encoded), or None when there is none."""
        piece = self.pieces.get(tracker_id)
        if isinstance(piece, Tracker):
            from trackerkit.tracker import encode_tracker

            return encode_tracker(piece)
        return piece


def source_for(
    pieces: PieceSource | Mapping[str, object] | Sequence[Tracker] | str | Path,
) -> PieceSource:
    """Make a `PieceSource` from a folder path, a mapping of pieces, a list of trackers, or a source."""
    if isinstance(pieces, str | Path):
        return FolderSource(Path(pieces))
    if isinstance(pieces, Mapping):
        return MappingSource(pieces)
    if isinstance(pieces, Sequence):
        return MappingSource({t.id: t for t in pieces if isinstance(t, Tracker)})
    return pieces


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A linked tracker a turn left out, and why (TR-25)."""

    tracker_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Linked:
    """What a turn loaded: the usable trackers in link order and the ones left out."""

    trackers: tuple[Tracker, ...]
    left_out: tuple[LeftOut, ...] = ()

    def by_name(self, name: str) -> Tracker | None:
        """The loaded tracker called `name` (exact), or None."""
        return next((t for t in self.trackers if t.name == name), None)

    def by_id(self, tracker_id: str) -> Tracker | None:
        """The loaded tracker with that id, or None."""
        return next((t for t in self.trackers if t.id == tracker_id), None)


def load_linked(scene: Scene, source: PieceSource) -> Linked:
    """Read each linked tracker through the strict decoder, leaving out what cannot serve (TR-25).

    A linked id that breaks the id rule (`check_tracker_id`) is left out before any source sees
    it; so is a piece whose file is not one to read (`FolderSource`), with the reason.
    """
    trackers: list[Tracker] = []
    left_out: list[LeftOut] = []
    names: dict[str, str] = {}
    for tracker_id in scene.prompting.trackers:
        try:
            raw = source.raw(check_tracker_id(tracker_id))
        except BadRequestError as exc:
            raw = Unread(f"it was not read: {exc}")
        if isinstance(raw, Unread):
            left_out.append(LeftOut(tracker_id, raw.reason))
            continue
        if raw is None:
            left_out.append(LeftOut(tracker_id, "the piece is gone from the library"))
            continue
        try:
            tracker = decode_tracker(raw, source=f"{tracker_id}.json")
        except TrackerDecodeError as exc:
            left_out.append(
                LeftOut(tracker_id, f"the decoder refused it: {'; '.join(map(str, exc.problems))}")
            )
            continue
        if tracker.id != tracker_id:
            left_out.append(LeftOut(tracker_id, f"the piece says its id is {tracker.id!r}"))
            continue
        if tracker.name in names:
            left_out.append(
                LeftOut(
                    tracker_id,
                    f"its name {tracker.name!r} is already taken by {names[tracker.name]!r}",
                )
            )
            continue
        names[tracker.name] = tracker_id
        trackers.append(tracker)
    return Linked(tuple(trackers), tuple(left_out))
