"""The folder of day files a `trackerkit trace` command reads, and why one is refused.

`trace_folder` takes the folder given, else `default_folder()` (the data folder's trace, where
simulate writes), and refuses in one line a path that is missing, a file, a symbolic link that
loops, or a folder with no day file (naming what it skipped and why, a few per reason). The
entries of a folder that are not read are noted on standard error.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace.folder import SkippedFile, folder_days
from trackerkit.trace.read import trace_subfolder_hint

__all__ = ["default_folder", "trace_folder"]


_SKIPPED_SHOWN = 3
"""Skipped entries named per reason in the no-day-files message; the rest are counted."""


_A_FOLDER = "the folder that holds the YYYY-MM-DD.jsonl day files"


def default_folder() -> Path:
    """The trace folder read when none is given: `<data folder>/trace`, where simulate writes.

    The data folder's rule is `trackerkit.workspace`'s (a core module, as this one is).
    """
    from trackerkit.workspace import trace_root

    return trace_root() / "trace"


def _skipped(skipped: list[SkippedFile]) -> str:
    """The skipped entries grouped by reason: `a.json, b.json and 7 more: not named ...`."""
    by_reason: dict[str, list[str]] = {}
    for entry in skipped:
        by_reason.setdefault(entry.reason, []).append(entry.name)
    groups = []
    for reason, names in by_reason.items():
        shown = ", ".join(names[:_SKIPPED_SHOWN])
        if len(names) > _SKIPPED_SHOWN:
            shown += f" and {len(names) - _SKIPPED_SHOWN} more"
        groups.append(f"{shown}: {reason}")
    return "; ".join(groups)


def _refuse_loop(path: Path, give: str) -> None:
    """Refuse `path` when it (or a link on the way to it) is a symbolic link that loops: it is
    there, so "does not exist" would mislead.

    Raises:
        BadRequestError: the link loops (the message says `give`, what to pass instead).
    """
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadRequestError(
                f"{path} is a symbolic link that loops (it leads back to itself); give {give}."
            ) from None


def trace_folder(given: str | None) -> Path:
    """The folder of day files a trace command reads: `given`, else `default_folder()`.

    Raises:
        NotFoundError: the folder is missing, is a file, or holds no day file (the message
            names what was skipped and why).
        BadRequestError: the folder is a symbolic link that loops.
    """
    if given is None:
        folder = default_folder()
        _refuse_loop(folder, _A_FOLDER)
        if not folder.is_dir():
            raise NotFoundError(
                f"no trace folder at {folder} (the data folder's trace, where simulate writes); "
                "pass --dir DIR, the folder holding the YYYY-MM-DD.jsonl day files"
            )
    else:
        folder = Path(given)
        _refuse_loop(folder, _A_FOLDER)
    days, skipped = folder_days(folder)
    if not days:
        what = f"; skipped {_skipped(skipped)}" if skipped else " (it is empty)"
        hint = trace_subfolder_hint(folder)
        raise NotFoundError(
            f"no trace day files (YYYY-MM-DD.jsonl) in {folder}{what}"
            + (f"; {hint}" if hint else "")
        )
    _note_skipped(folder, skipped)
    return folder


def _note_skipped(folder: Path, skipped: list[SkippedFile] | None = None) -> None:
    """Say on standard error which entries of a folder of days are not read, and why."""
    if skipped is None:
        _days, skipped = folder_days(folder)
    if skipped:
        print(f"note: not read in {folder}: {_skipped(skipped)}", file=sys.stderr)
