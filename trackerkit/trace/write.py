"""Writing trace days the way the contract says (TC-1..TC-7, TC-20, TC-21).

`TraceWriter.write(...)` appends one line per event to `<data_dir>/trace/YYYY-MM-DD.jsonl`
(the day in the installation's time zone, TC-2) with the seven fields in order (TC-4).

The line itself is made by `encode_event` (`trackerkit.trace._event_line`, whose docstring says
what happens to `data` on the way: content cut and sized, values that cannot be written marked,
the line kept within 16 KB), with `ts` written by `format_ts`; the content fields are cut in
`trackerkit.trace._content`. Both are importable from here. This module writes the lines: the
day files, their retention, and the errors of writing.

Retention (TC-3) deletes day files older than `keep_days` (30: today's file and the 29 before)
by the date in their name, never by mtime, and only files named `YYYY-MM-DD.jsonl`. What
"today" is, and when a writer may delete at all, is fixed so that a writer of simulated or
generated days never deletes a real journal:

* Today is the real one, `wall_clock()` (the system clock) in the writer's time zone; the clock
  that stamps events (`clock`, `ts=`) never counts, so a simulated clock a month ahead deletes
  nothing it would not delete anyway.
* The clean-up runs only when the writer opens the real today's day file (its first write of
  the day in the process, and each change of day file while it writes live). A writer writing
  another day (a simulated clock, generated past days, a back-dated event) deletes nothing.
* It never deletes a file newer than the kept window, the day file being opened, or any day
  file this writer has written to.
* `keep_days=None` turns it off: generators of synthetic days leave every other file alone.
* A writer with retention on refuses, when made, the repository's bundled `data/`, whose
  sample days retention would delete a month after their date (the commands' own check).
* Nothing goes unsaid: each removed file is logged as a warning on the `trackerkit.trace`
  logger (Python prints it to stderr when no handler is set) and listed in `writer.removed`.

So every event is written: `encode_event` always returns a line within the cap, and
`TraceWriter.write` returns False only when the file cannot be written, or when the event's
moment has no day file (before 0001-01-01 or after 9999-12-31 in the writer's time zone or in
UTC: `datetime(1, 1, 1, 4)` in New York is still year 0; the log names the ts, the zone and
the fix), or when `ts` is not a datetime (a date, a string, `0`: the log says what `ts` must
be; only `ts=None` stamps the clock's time). Writing never raises into the caller: an error
goes to the `trackerkit.trace` logger at most once a minute (TC-20).
Each line is one `os.write` on a file opened with `O_APPEND`, so two processes appending to
one file never interleave within a line (TC-1, TC-21).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import stat
import threading
import time
import zoneinfo
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from trackerkit.errors import BadRequestError
from trackerkit.trace._content import BASH_STDERR_TAIL as BASH_STDERR_TAIL
from trackerkit.trace._content import CONTENT_FIELDS, CONTENT_LIMIT, REBUILD_LIMIT
from trackerkit.trace._content import KEYS as KEYS
from trackerkit.trace._content import TRUNCATED as TRUNCATED
from trackerkit.trace._event_line import DEEP as DEEP
from trackerkit.trace._event_line import KEY_LIMIT, LINE_LIMIT, _side, _utc, encode_event, format_ts
from trackerkit.trace._event_line import MAX_DEPTH as MAX_DEPTH
from trackerkit.trace._event_line import UNREADABLE as UNREADABLE
from trackerkit.trace.read import day_of
from trackerkit.workspace import check_trace_root

__all__ = [
    "CONTENT_FIELDS",
    "CONTENT_LIMIT",
    "KEY_LIMIT",
    "KINDS",
    "LINE_LIMIT",
    "REBUILD_LIMIT",
    "RETENTION_DAYS",
    "SOURCES",
    "TraceWriter",
    "capture_content_setting",
    "encode_event",
    "format_ts",
]

RETENTION_DAYS = 30
"""Days kept: today's file and the 29 before (TC-3)."""

_LOG = logging.getLogger("trackerkit.trace")
#: How a refused writer's caller names another data folder.
_OTHER_FOLDER = (
    "Give TraceWriter another data folder, such as trackerkit.workspace.trace_root() (the one "
    "the commands use)"
)


def _real_now() -> dt.datetime:
    """The system clock, in UTC."""
    return dt.datetime.now(dt.UTC)


def capture_content_setting(data_dir: str | os.PathLike[str]) -> bool:
    """`captureContent` of `<data_dir>/settings.json`; true when the file or field is missing."""
    try:
        settings = orjson.loads(Path(data_dir, "settings.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return True
    value = settings.get("captureContent", True) if isinstance(settings, dict) else True
    return value if isinstance(value, bool) else True


def _zone(timezone: str | dt.tzinfo) -> dt.tzinfo:
    """The writer's time zone: `timezone` itself, or the IANA zone it names.

    Raises:
        BadRequestError: the name is not a time zone this machine knows.
    """
    if not isinstance(timezone, str):
        return timezone
    try:
        return zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise BadRequestError(
            f"timezone {timezone!r} is not a time zone this machine knows; use an IANA name such "
            "as Europe/Moscow or UTC (zoneinfo.available_timezones() lists them all)"
        ) from None


def _not_regular(path: Path, mode: int) -> str:
    """Why a day file path cannot take events: what it is instead of a regular file."""
    if stat.S_ISFIFO(mode):
        kind = "a named pipe (FIFO)"
    elif stat.S_ISDIR(mode):
        kind = "a folder"
    elif stat.S_ISSOCK(mode):
        kind = "a socket"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        kind = "a device"
    else:
        kind = "not a regular file"
    return (
        f"the trace day file {path} is {kind}, not a regular file; nothing is written to it "
        "(move it away and the next write makes the file)"
    )


#: The event kinds and sources the contract names (TC-4), `digest` among the sources as the
#: journals of 0.4.11 and older hold it (the sample days write one such line).
KINDS = frozenset({"bridge", "inbound", "gate", "context", "turn", "eve", "outbox", "stop"})
SOURCES = frozenset(
    {"telegram", "bridge", "web", "http", "rollup", "watch", "brief", "insight", "cron", "unknown"}
    | {"digest"}
)


def _check_names(kind: object, source: object) -> None:
    """Refuse a kind or source the contract does not name (BadRequestError, with the list)."""
    for what, value, known in (("kind", kind, KINDS), ("source", source, SOURCES)):
        if not isinstance(value, str) or value not in known:
            raise BadRequestError(
                f"the event's {what} {value!r} is not one of the contract's ("
                f"{', '.join(sorted(known))}); the event was not written"
            )


class TraceWriter:
    """Appends trace events to `<data_dir>/trace/YYYY-MM-DD.jsonl`; never raises while writing.

    Args:
        data_dir: the data directory (`ASSISTANT_DATA_DIR`); files go to its `trace/` folder.
        timezone: the installation's time zone (`ASSISTANT_TIMEZONE`), which names the day file.
        capture_content: keep content fields; None reads `captureContent` of `settings.json`.
        clock: returns the time events are stamped with (aware); defaults to the system clock in
            UTC. A simulated clock goes here; retention never reads it.
        keep_days: how many days retention keeps (today's file and the days before it); None
            never deletes anything (for generated or simulated days). Must be 1 or more.
        wall_clock: the real time retention counts from; defaults to the system clock. Only
            tests should set it.

    Raises:
        BadRequestError: `keep_days` is not a whole number of 1 or more, nor None; `timezone` is
            not a time zone this machine knows; or, with retention on, `data_dir` is the
            repository's bundled `data/` (whose sample days retention would delete) or a
            symbolic link that loops (`trackerkit.workspace.check_trace_root`, the commands'
            check). Only a writer of generated days (`keep_days=None`, as `write_sample`
            regenerating the samples) may write into the bundled folder.

    Example:
        >>> from trackerkit.workspace import trace_root
        >>> writer = TraceWriter(trace_root(), timezone="Europe/Moscow")  # doctest: +SKIP
        >>> writer.write(turn="turn_0", session="wrun_1", source="telegram",
        ...              kind="eve", name="step.completed", data={"stepIndex": 0})  # doctest: +SKIP
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        timezone: str | dt.tzinfo = "UTC",
        capture_content: bool | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        *,
        keep_days: int | None = RETENTION_DAYS,
        wall_clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        if keep_days is not None and (
            isinstance(keep_days, bool) or not isinstance(keep_days, int) or keep_days < 1
        ):
            raise BadRequestError(
                f"keep_days must be a whole number of days, 1 or more (0 would delete today's "
                f"file), or None to never delete; found {keep_days!r}"
            )
        if keep_days is not None:
            check_trace_root(Path(data_dir), _OTHER_FOLDER)
        self.directory = Path(data_dir, "trace")
        self.timezone = _zone(timezone)
        self.capture_content = (
            capture_content_setting(data_dir) if capture_content is None else capture_content
        )
        self._clock = clock or _real_now
        self.keep_days = keep_days
        self._wall_clock = wall_clock
        self._written: set[str] = set()
        #: Day files retention removed so far, oldest sweep first (each one also logged).
        self.removed: list[Path] = []
        self._lock = threading.Lock()
        self._day: str | None = None
        self._fd: int | None = None
        self._last_report = float("-inf")
        self._suppressed = 0
        #: How many writes (or cleanups) failed so far; each is logged, a burst in one warning.
        self.failures = 0

    def path_for(self, moment: dt.datetime) -> Path:
        """The day file an event written at `moment` goes to (installation time zone, TC-2).

        Raises:
            BadRequestError: the moment's day in the writer's time zone is before 0001-01-01 or
                after 9999-12-31 (such as 0001-01-01 04:00 UTC in New York), which no
                `YYYY-MM-DD.jsonl` can name; or `format_ts` refuses it (not a datetime, or
                outside the years 1 to 9999 in UTC).
        """
        # From UTC, not from `moment`: in a writer of the moment's own zone `astimezone`
        # converts nothing, and a moment before year 1 in UTC would get a day file.
        utc = _utc(moment)
        try:
            day = utc.astimezone(self.timezone).date()
        except OverflowError:
            raise BadRequestError(
                f"the event's ts {format_ts(utc)} falls {_side(utc)} in the writer's time "
                f"zone ({self.timezone}), so no day file (YYYY-MM-DD.jsonl) can name its day and "
                "the event is not written; give a ts between 0001-01-01 and 9999-12-31 in that zone"
            ) from None
        return self.directory / f"{day.isoformat()}.jsonl"

    def write(
        self,
        *,
        turn: str = "",
        session: str = "",
        source: str = "unknown",
        kind: str,
        name: str,
        data: Mapping[str, Any] | None = None,
        ts: dt.datetime | None = None,
    ) -> bool:
        """Append one event; True when it was written, False when it was not (logged, TC-20).

        False means the file could not be written, `kind` or `source` is none of the contract's
        (`KINDS`, `SOURCES`, TC-4: a reader would class the turn wrongly), or `ts` (or the clock)
        names a moment no day
        file can hold: its day in the writer's time zone, or the moment in UTC, is outside the
        years 1 to 9999 (`path_for` and `format_ts` say which, and the log gives their sentence);
        or `ts` is not a datetime (only None stamps the clock's time).
        Every event fits a line (`encode_event`): none is dropped for its values.
        """
        try:
            _check_names(kind, source)
            moment = self._clock() if ts is None else ts  # ts=0 is a (refused) ts
            encoded = encode_event(
                format_ts(moment),
                turn,
                session,
                source,
                kind,
                name,
                {} if data is None else data,
                capture_content=self.capture_content,
            )
            with self._lock:
                fd = self._open(self.path_for(moment))
                written = os.write(fd, encoded)
                if written != len(encoded):
                    raise OSError(f"short write: {written} of {len(encoded)} bytes")
            return True
        except Exception as exc:  # TC-20: a write error never breaks the caller
            if isinstance(exc, OSError):
                self.close()
            self._report(exc)
            return False

    def _open(self, path: Path) -> int:
        day = path.stem
        if self._fd is not None and day == self._day:
            return self._fd
        self.close()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._written.add(day)
        self._sweep(day)  # TC-3: first write and every change of day, when writing live
        self._fd = self._open_regular(path)
        self._day = day
        return self._fd

    @staticmethod
    def _open_regular(path: Path) -> int:
        """The day file opened for appending; a named pipe, folder, device or socket is refused.

        Opened without blocking, then checked on the open descriptor (no race with a swap of the
        path): a FIFO with no reader would otherwise block the write, and so the turn, forever.

        Raises:
            OSError: the path is not a regular file (the sentence names it and what it is), or
                any error opening it.
        """
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:  # ENXIO (a FIFO with no reader, a socket), EISDIR, ...
            try:
                mode = os.stat(path).st_mode
            except OSError:
                raise exc from None
            if stat.S_ISREG(mode):
                raise
            raise OSError(_not_regular(path, mode)) from exc
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise OSError(_not_regular(path, mode))
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def real_today(self) -> dt.date:
        """The real today in the writer's time zone (`wall_clock`), the day retention counts from."""
        now = (self._wall_clock or _real_now)()
        if now.tzinfo is None:
            now = now.replace(tzinfo=dt.UTC)
        return now.astimezone(self.timezone).date()

    def _sweep(self, opening: str) -> None:
        """Delete day files older than the retention, by the date in their name only (TC-3).

        Runs only when `opening` (the day file about to be written) is the real today's; never
        deletes that file, a newer one, or one this writer wrote (see the module's docstring).
        """
        if self.keep_days is None:
            return
        today = self.real_today()
        if opening != today.isoformat():
            return  # not writing live (a simulated or generated day): nothing is deleted
        oldest = today - dt.timedelta(days=self.keep_days - 1)
        for path in sorted(self.directory.iterdir()):
            day = day_of(path)
            if (
                day is None
                or day in self._written
                or dt.date.fromisoformat(day) >= oldest
                or not path.is_file()
            ):
                continue
            try:
                path.unlink()
            except OSError as exc:
                self._report(exc)
                continue
            self.removed.append(path)
            _LOG.warning(
                "trace retention removed %s: older than the %d days kept (today, %s, and the %d "
                "before, by the real clock)",
                path,
                self.keep_days,
                today.isoformat(),
                self.keep_days - 1,
            )

    def _report(self, exc: BaseException) -> None:
        self.failures += 1
        now = time.monotonic()
        if now - self._last_report < 60:
            self._suppressed += 1
            return
        extra = f" ({self._suppressed} more since the last report)" if self._suppressed else ""
        # The record carries its reason as `trace_write_failure`: a program that tells the
        # failure itself (the command line's one line) can hold the record back by it.
        _LOG.warning(
            "trace write failed: %s%s", exc, extra, extra={"trace_write_failure": str(exc)}
        )
        self._last_report = now
        self._suppressed = 0

    def close(self) -> None:
        """Close the open day file; the next write opens it again."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError as exc:
                self._report(exc)

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            self.close()
