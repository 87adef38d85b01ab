"""A tracker piece as stored: its file's JSON (or the problem that stops it being read), its revision.

A piece file is read through `trackerkit._pieces` (a regular file of bounded size, in its folder
when one is given); its bytes are parsed here, and a file that does not parse gets one `Problem`
that says why (UTF-16 text is named as such). A save is checked against the stored revision
(TR-50), and a patch that leaves the stored piece as it decodes writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from trackerkit._json import utf16_words
from trackerkit._pieces import read_piece_file
from trackerkit.errors import Problem, TrackerDecodeError
from trackerkit.tracker import Tracker, decode_tracker

__all__: list[str] = []  # its parts serve `trackerkit.library` only


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
        said = utf16_words(raw) or f"is not valid JSON: {exc}"
        return None, Problem((), said, "not_json"), raw


def _revision_of(stored: dict[str, Any]) -> int:
    revision = stored.get("revision", 0)
    return revision if type(revision) is int else 0


def _decoded_or_none(data: object) -> Tracker | None:
    try:
        return decode_tracker(data)
    except TrackerDecodeError:
        return None
