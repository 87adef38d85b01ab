"""Files the decoder refuses: listed with their problems, opened as raw JSON, saved once they decode.

A refused file is left out of the designer's Open list (it cannot be a draft), so the designer
shows it apart, with every problem, and lets the person fix its text. The fixed text is checked
as the library reads a file (the strict decoder, and an id that matches the file's name) and
written only when it decodes, through the library's guarded, atomic save.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from trackerkit._pieces import read_piece_file
from trackerkit.errors import Problem, StaleRevisionError, TrackerkitError
from trackerkit.library import Library, Verdict, piece_verdict
from trackerkit.tracker import Tracker

__all__ = ["Repair", "check_raw", "raw_text", "refused_files", "save_raw"]


def refused_files(library: Library) -> list[Verdict]:
    """The verdicts of the library's files the decoder refuses, sorted by file name."""
    return [v for v in library.verdicts() if v.tracker is None]


def raw_text(library: Library, piece_id: str) -> str:
    """The text of the piece file `piece_id`, for fixing by hand.

    Raises:
        TrackerkitError: the file cannot be read as text (the message says why).
    """
    path = library.path / f"{piece_id}.json"
    raw, unread = read_piece_file(path, library.path)
    if raw is None:
        raise TrackerkitError(f"{path.name} {unread or 'is not there'}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TrackerkitError(f"{path.name} is not UTF-8 text (byte {error.start})") from None


@dataclass(frozen=True, slots=True)
class Repair:
    """What the fixed text of a refused file makes: the tracker, or every problem found.

    Attributes:
        tracker: the decoded tracker, or None.
        problems: every reason the text is refused (empty when it decodes).
        message: one sentence for the page about the text or the save.
    """

    tracker: Tracker | None
    problems: tuple[Problem, ...]
    message: str

    @property
    def ok(self) -> bool:
        """True when the text decodes."""
        return not self.problems


def check_raw(piece_id: str, text: str) -> Repair:
    """Check the text of file `piece_id` as the library reads it (decoder and file name)."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        problem = Problem((), f"is not valid JSON: {error}", "not_json")
        return Repair(None, (problem,), f"The text is not valid JSON: {error}")
    verdict = piece_verdict(data, Path(f"{piece_id}.json"))
    if verdict.problems:
        count = len(verdict.problems)
        return Repair(None, verdict.problems, f"Still refused: {count} problem{'s' * (count > 1)}.")
    return Repair(verdict.tracker, (), "The text decodes.")


def save_raw(library: Library, piece_id: str, text: str) -> Repair:
    """Write the fixed text of `piece_id` when it decodes; nothing is written otherwise."""
    checked = check_raw(piece_id, text)
    if checked.tracker is None:
        return checked
    try:
        stored = orjson.loads(raw_text(library, piece_id))
    except (TrackerkitError, orjson.JSONDecodeError):
        stored = None
    revision = stored.get("revision") if isinstance(stored, dict) else 0
    base = revision if type(revision) is int else 0
    try:
        saved = library.save(checked.tracker, base_revision=base, replace_unreadable=True)
    except StaleRevisionError as error:
        return Repair(None, (), f"Not saved: {error}")
    except TrackerkitError as error:
        return Repair(None, (), f"Not saved: {error}")
    return Repair(saved, (), f"Saved {piece_id}.json at revision {saved.revision}; it now opens.")
