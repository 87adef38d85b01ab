"""Piece files on disk: the one id rule, reads that never hang, saves that keep the file's mode.

Every way a tracker id reaches the file system (the library's `get`, a scene's
`prompting.trackers`, a save) goes through `check_tracker_id`, so an id never names a path
outside its folder. A piece is read only when it is a regular file of at most
`MAX_PIECE_BYTES` inside its folder (a link may point elsewhere in the folder): a FIFO, a
device, a directory or a link out of the folder is refused with a reason and never opened.
Saves write a temporary `.<id>.<random>.tmp` beside the piece and rename it over the piece;
`sweep_temporaries` removes the ones a killed save left behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from trackerkit.errors import BadRequestError
from trackerkit.fields import describe_value

__all__ = [
    "MAX_PIECE_BYTES",
    "check_tracker_id",
    "read_piece_file",
    "regular_target",
    "replace_atomically",
    "sweep_temporaries",
    "write_atomically",
]

#: The largest piece file read: far past the decoder's ceilings (TR-11) for any real tracker.
MAX_PIECE_BYTES = 16 * 1024 * 1024

#: The UTF-8 byte order mark a piece or scene file may open with.
_BOM = b"\xef\xbb\xbf"
_LOOP = "is a symbolic link that loops (it leads back to itself); it was not read"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
#: A save's temporary: this module's `.<id>.<8 of [a-z0-9_]>.tmp` (mkstemp's names match too).
_TEMPORARY = re.compile(r"\.[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.[a-z0-9_]{8}\.tmp")
_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_tracker_id(tracker_id: object) -> str:
    """Return `tracker_id` when it can name a piece file; the one id rule of the package.

    An id is 1 to 128 letters, digits, `-` and `_`, starting with a letter or digit, so it
    never holds a slash, a dot-dot, a NUL or a space.

    Raises:
        BadRequestError: the id breaks the rule (the message shows at most 60 characters of it).
    """
    if isinstance(tracker_id, str) and _ID.fullmatch(tracker_id):
        return tracker_id
    if isinstance(tracker_id, str):
        shown = repr(tracker_id[:60]) + ("…" if len(tracker_id) > 60 else "")
    else:
        shown = describe_value(tracker_id)
    raise BadRequestError(
        f"{shown} is not a tracker id (1 to 128 letters, digits, - and _, starting with a "
        "letter or digit)"
    )


def read_piece_file(path: Path, within: Path | None = None) -> tuple[bytes | None, str | None]:
    """Read a piece file only when it is a regular file of bounded size; never blocks.

    Args:
        path: the file.
        within: the folder the file (and, for a link, its target) must be in; None for a file
            named directly by a person.
    Returns:
        `(bytes, None)`, without one leading UTF-8 byte order mark; `(None, reason)` when it
        was not read (the reason completes the sentence "the file ..."); `(None, None)` when
        there is no such file.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        try:
            target = path.resolve(strict=True)
            info = os.stat(target)
        except (OSError, RuntimeError) as exc:  # dangling, a loop, or a target we may not see
            return None, _unreadable_link(exc)
        if within is not None and not target.is_relative_to(within.resolve()):
            return None, f"is a link to {_kind(info.st_mode)} outside {within}; it was not read"
    if not stat.S_ISREG(info.st_mode):
        return None, f"is {_kind(info.st_mode)}, not a regular file; it was not read"
    if info.st_size > MAX_PIECE_BYTES:
        return None, _too_large(info.st_size)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        # Non-blocking: should a FIFO be swapped in after the check, opening it cannot hang.
        fd = os.open(path, flags)
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode):
            return None, f"is {_kind(opened.st_mode)}, not a regular file; it was not read"
        data = handle.read(MAX_PIECE_BYTES + 1)
    if len(data) > MAX_PIECE_BYTES:
        return None, _too_large(len(data))
    # One leading UTF-8 byte order mark is skipped (RFC 8259 section 8.1 lets a reader ignore
    # it; editors on Windows write it), as the trace reader and the importers skip it.
    return data.removeprefix(_BOM), None


def _unreadable_link(exc: OSError | RuntimeError) -> str:
    """Why a link was not followed: Python 3.11 and 3.12 raise RuntimeError for a loop, 3.13
    an OSError with ELOOP; anything else is dangling or unreadable."""
    if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
        return _LOOP
    return "is a link to nothing readable; it was not read"


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a file"
    return next((name for test, name in _NOT_REGULAR if test(mode)), "a special file")


def _too_large(size: int) -> str:
    return (
        f"is {size:,} bytes, past the {MAX_PIECE_BYTES:,}-byte limit of a piece file; "
        "it was not read"
    )


def write_atomically(path: Path, payload: bytes) -> Path:
    """Replace `path` with `payload` through a temporary in the same folder, fsynced, renamed.

    See `replace_atomically`; returns the file written.
    """
    return replace_atomically(path, lambda out: out.write(payload))


def replace_atomically(path: Path, write: Callable[[BinaryIO], object]) -> Path:
    """Replace `path` with what `write` writes to a temporary in the same folder, fsynced, renamed.

    Nothing is lost on failure: until the rename the old file is whole, and a failed write
    leaves it as it was (the temporary is removed). A link is written through (the file it
    names is replaced; the link stays); a directory, FIFO, device or socket at the path is
    refused (replacing `/dev/null` with a file would break the system; opening a FIFO would
    hang). The file keeps its mode; a new file gets the mode the umask gives (as `open`
    would), never the 0600 of a private temporary file.

    Returns:
        The file written (the link's target when `path` is a link).
    Raises:
        BadRequestError: something other than a regular file is at the path; nothing written.
        OSError: the write failed (a full disk); the old file is as it was.
    """
    path = regular_target(path)
    folder = path.parent
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    temp, fd = _new_temporary(folder, path.stem)
    try:
        with os.fdopen(fd, "wb") as out:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), mode)
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(folder)
    return path


def regular_target(path: Path) -> Path:
    """The file a write to `path` replaces: `path`, or the file its link names.

    Raises:
        BadRequestError: a directory, FIFO, device or socket is there.
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        found = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return target
    if not stat.S_ISREG(found):
        raise BadRequestError(
            f"{path} is {_kind(found)}, not a regular file; nothing was written to it"
        )
    return target


def _new_temporary(folder: Path, stem: str) -> tuple[Path, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        temp = folder / f".{stem}.{secrets.token_hex(4)}.tmp"
        try:
            # 0o666: the umask alone decides a new file's mode, as it does for any new file.
            return temp, os.open(temp, flags, 0o666)
        except FileExistsError:  # pragma: no cover - 2^32 names; another save holds this one
            continue


def sweep_temporaries(folder: Path) -> list[str]:
    """Delete the temporaries killed saves left in `folder`; returns the names deleted.

    Only regular files named as a save names its temporary (`.<id>.<8 chars>.tmp`) are touched.
    The caller holds the folder's lock, so no save in progress loses its temporary.
    """
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMPORARY.fullmatch(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.name)
        except OSError:  # gone already, or not ours to remove; the next open tries again
            continue
    return removed


def _fsync_folder(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - folders cannot be opened on some platforms
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
