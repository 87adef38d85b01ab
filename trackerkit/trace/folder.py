"""What a folder of trace days holds: its day files, and every other entry with why it is skipped.

A folder read takes only files named `YYYY-MM-DD.jsonl` with a real date (TC-3); anything
else in the folder is left alone. `folder_days` says what was left and why, so a person who
dropped `notes.txt` or `2026-02-30.jsonl` beside the days is told instead of left guessing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from trackerkit.errors import NotFoundError
from trackerkit.trace.read import day_of

__all__ = ["SkippedFile", "folder_days"]

# A day file's shape without the date check (`day_of` does that): tells "no date" from "bad date".
_DAY_SHAPED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl")


@dataclass(frozen=True)
class SkippedFile:
    """An entry of a trace folder that is not read, and why.

    Attributes:
        path: the entry.
        reason: why it is skipped, in words.
    """

    path: Path
    reason: str

    @property
    def name(self) -> str:
        """The entry's file name."""
        return self.path.name


def _reason(path: Path) -> str:
    """Why an entry that is not a day file is skipped."""
    if path.is_dir():
        return "a folder, not a day file"
    if _DAY_SHAPED.fullmatch(path.name):
        if day_of(path) is None:
            return f"{path.stem} is not a real date"
        return "not a regular file"
    return "not named YYYY-MM-DD.jsonl"


def folder_days(directory: str | os.PathLike[str]) -> tuple[list[Path], list[SkippedFile]]:
    """The day files of a folder, oldest first, and every other entry with why it is skipped.

    Args:
        directory: a folder of trace days.

    Returns:
        The day files (those a folder read takes, TC-3) and the skipped entries by name.

    Raises:
        NotFoundError: the folder is missing, or the path is not a folder.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for name in ("2026-11-28.jsonl", "2026-02-30.jsonl", "notes.txt"):
    ...         _ = (Path(folder) / name).write_text("")
    ...     days, skipped = folder_days(folder)
    >>> [p.name for p in days], [(s.name, s.reason) for s in skipped]
    (['2026-11-28.jsonl'], [('2026-02-30.jsonl', '2026-02-30 is not a real date'), \
('notes.txt', 'not named YYYY-MM-DD.jsonl')])
    """
    folder = Path(directory)
    if not folder.exists():
        raise NotFoundError(
            f"{folder} does not exist; give the folder that holds the YYYY-MM-DD.jsonl day files."
        )
    if not folder.is_dir():
        raise NotFoundError(
            f"{folder} is a file, not a folder; give the folder that holds the day files."
        )
    days: dict[str, Path] = {}
    skipped: list[SkippedFile] = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        day = day_of(entry)
        if day is not None and entry.is_file():
            days[day] = entry
        else:
            skipped.append(SkippedFile(entry, _reason(entry)))
    return [days[d] for d in sorted(days)], skipped
