"""Writing trace days the way the contract says (TC-1..TC-7, TC-20, TC-21).

`TraceWriter.write(...)` appends one line per event to `<data_dir>/trace/YYYY-MM-DD.jsonl`
(the day in the installation's time zone, TC-2) with the seven fields in order (TC-4).

What happens to `data` on the way (`encode_event` does it, a pure function):

* Content fields (`CONTENT_FIELDS`: text, context, message, details, args, result, error,
  output, reasoning, input; top-level keys of `data` only) are cut at 4,096 characters
  with `…[truncated]`; a string content field also gets its size as `<key>Chars` (the
  caller's own `<key>Chars` wins). With `captureContent` off the content is dropped and
  the sizes stay (TC-6). Everything else (names, timings, sizes) is never cut.
* `result` is one JSON line: an object or list is serialised; an object (or a string
  holding one) puts `ok`, `error`, `message`, `isError`, `code`, `exitCode` first so cutting
  from the end never loses them. A bash result that does not fit keeps the end of `stdout`
  and the last 1,000 characters of `stderr`, marked by a leading `…[truncated]` (TC-7).
  `error` is dropped when it equals `result`.
* A list cut short ends with the item `"…[truncated]"`; an object cut short keeps its first
  keys and gains `"…[keys]": <how many keys it had>`; a container nested deeper than four
  levels becomes `"…[deep]"`; a value that cannot be serialised becomes `"…[unreadable]"`
  (an object that is not JSON, an integer outside 64 bits, a string holding a lone
  surrogate; a key holding one keeps its text with the surrogate as `\\udXXX`), and a `data`
  that is not a mapping becomes `{"traceUnreadable": true}` (TC-7).
* A line longer than 16 KB in UTF-8 bytes (newline included) is rebuilt with every content
  field cut to 2,000 characters from the end; if it still does not fit, the content goes
  and `traceTrimmed: true` is set (TC-5).
* The five key fields (`turn`, `session`, `source`, `kind`, `name`) stay whole while the
  line can fit (TC-5). When they alone are too long for it (a 20 KB `turn`), each one longer
  than `KEY_LIMIT` characters is cut to that many and ends in `…[truncated]`, and the event
  is written flagged `traceTrimmed: true` (with its content when that still fits). A reader
  then sees the cut key as written: a cut `turn` or `session` is a key of its own, so the
  event no longer joins the turn it came from (it stands alone, or with others cut alike),
  and `markers()` lists it as `traceTrimmed`. A lone surrogate in a key field is written as
  `\\udXXX`; a key field that is not a string is written as its `str()`.

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
from trackerkit.trace.read import day_of

__all__ = [
    "CONTENT_FIELDS",
    "CONTENT_LIMIT",
    "KEY_LIMIT",
    "LINE_LIMIT",
    "REBUILD_LIMIT",
    "RETENTION_DAYS",
    "TraceWriter",
    "capture_content_setting",
    "encode_event",
    "format_ts",
]

CONTENT_FIELDS: frozenset[str] = frozenset(
    {
        "text",
        "context",
        "message",
        "details",
        "args",
        "result",
        "error",
        "output",
        "reasoning",
        "input",
    }
)
"""Top-level `data` keys that hold content: cut, sized and dropped by the toggle (TC-6)."""

LINE_LIMIT = 16 * 1024
"""The most UTF-8 bytes a line may take, its newline included (TC-5)."""

CONTENT_LIMIT = 4096
"""Characters kept of each content field (TC-6)."""

REBUILD_LIMIT = 2000
"""Characters kept of each content field when an event is rebuilt to fit the line (TC-5)."""

KEY_LIMIT = 400
"""Characters kept of a key field too long for the line (TC-5): `ts` and the five key fields
cut to this, each character escaped at worst to six bytes, still fit in `LINE_LIMIT`."""

RETENTION_DAYS = 30
"""Days kept: today's file and the 29 before (TC-3)."""

MAX_DEPTH = 4
BASH_STDERR_TAIL = 1000
TRUNCATED = "…[truncated]"
DEEP = "…[deep]"
KEYS = "…[keys]"
UNREADABLE = "…[unreadable]"
_RESULT_FIRST = ("ok", "error", "message", "isError", "code", "exitCode")
_INT_RANGE = range(-(1 << 63), 1 << 64)  # what JSON numbers orjson writes: i64 and u64
_KEY_FIELDS = ("turn", "session", "source", "kind", "name")
_LOG = logging.getLogger("trackerkit.trace")


def _real_now() -> dt.datetime:
    """The system clock, in UTC."""
    return dt.datetime.now(dt.UTC)


def _side(moment: dt.datetime) -> str:
    """Which end of the years 1 to 9999 a moment that overflowed went past."""
    return "before 0001-01-01" if moment.year < 5000 else "after 9999-12-31"


def _found(value: Any) -> str:
    """A value that is not a datetime, named for a sentence (`the date 2026-11-27`)."""
    shown = value.isoformat() if isinstance(value, dt.date) else repr(value)
    if len(shown) > 60:
        shown = shown[:60] + "…"
    return f"the {'date' if isinstance(value, dt.date) else type(value).__name__} {shown}"


def _utc(moment: dt.datetime) -> dt.datetime:
    """`moment` in UTC (a naive time taken as UTC); raises `format_ts`'s BadRequestError."""
    if not isinstance(moment, dt.datetime):  # a date has no tzinfo: say what ts must be
        raise BadRequestError(
            f"the event's ts must be a datetime (aware, or naive and taken as UTC); found "
            f"{_found(moment)}, and the event is not written; give a datetime such as "
            "datetime(2026, 11, 27, 10, tzinfo=UTC), or no ts to stamp the writer's clock"
        )
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    try:
        return moment.astimezone(dt.UTC)
    except OverflowError:
        raise BadRequestError(
            f"the event's ts {moment.isoformat()} falls {_side(moment)} in UTC, which no trace "
            "timestamp can name, and the event is not written; give a ts between 0001-01-01 and "
            "9999-12-31 UTC"
        ) from None


def format_ts(moment: dt.datetime) -> str:
    """ISO-8601 UTC with milliseconds and `Z` (a naive time is taken as UTC).

    Raises:
        BadRequestError: `moment` is not a datetime (a date, a string, a number), or it is
            outside the years 1 to 9999 in UTC (an aware time near either end), which Python's
            dates, and so the stamp, cannot hold.
    """
    return _utc(moment).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _utf8(text: str) -> bool:
    """Whether `text` can be written as UTF-8 (it holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text(value: Any) -> str:
    """A key or key field as writable text: `str()` of it, lone surrogates as `\\udXXX`."""
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:  # a caller's object whose __str__ fails: the event is still written
        return UNREADABLE
    if _utf8(text):
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _clean(value: Any, level: int) -> Any:
    """A JSON-ready copy: deep containers become `…[deep]`, odd values `…[unreadable]`."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value if _utf8(value) else UNREADABLE
    if isinstance(value, int):
        return value if value in _INT_RANGE else UNREADABLE
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, Mapping | list | tuple):
        if level > MAX_DEPTH:
            return DEEP
        if isinstance(value, Mapping):
            return {_text(k): _clean(v, level + 1) for k, v in value.items()}
        return [_clean(v, level + 1) for v in value]
    return UNREADABLE


def _cut(value: Any, budget: int) -> tuple[Any, int]:
    """`value` cut to about `budget` characters of content; returns (value, characters used)."""
    if isinstance(value, str):
        if len(value) <= budget:
            return value, len(value)
        return value[:budget] + TRUNCATED, budget
    if isinstance(value, list):
        kept: list[Any] = []
        used = 0
        for item in value:
            if used >= budget:
                kept.append(TRUNCATED)
                break
            item, cost = _cut(item, budget - used)
            kept.append(item)
            used += cost
        return kept, used
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        used = 0
        for key, item in value.items():
            if used >= budget:
                out[KEYS] = len(value)
                break
            item, cost = _cut(item, budget - used)
            out[key] = item
            used += cost + len(key)
        return out, used
    return value, len(orjson.dumps(value))


def _first_keys(answer: dict[str, Any]) -> dict[str, Any]:
    head = {k: answer[k] for k in _RESULT_FIRST if k in answer}
    return head | {k: v for k, v in answer.items() if k not in head}


def _result_text(result: Any, is_bash: bool) -> str:
    """`result` as one JSON line; a non-bash object (or string holding one) puts status keys first."""
    if isinstance(result, str):
        if is_bash or not result.startswith("{"):
            return result
        try:
            parsed = orjson.loads(result)
            return (
                orjson.dumps(_first_keys(parsed)).decode() if isinstance(parsed, dict) else result
            )
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # too deep to write back: as is
            return result
    if isinstance(result, dict) and not is_bash:
        result = _first_keys(result)
    return orjson.dumps(result).decode()


def _bash_tail(result: str, limit: int) -> str:
    """A bash result that does not fit: the end of stdout, the last 1,000 chars of stderr."""
    try:
        answer = orjson.loads(result)
        if isinstance(answer, dict) and isinstance(answer.get("stdout"), str):
            stderr = answer.get("stderr")
            if isinstance(stderr, str):
                answer["stderr"] = stderr[-BASH_STDERR_TAIL:]
            stdout: str = answer["stdout"]
            answer["stdout"] = ""
            room = limit - len(TRUNCATED) - len(orjson.dumps(answer).decode())
            answer["stdout"] = stdout[-room:] if room > 0 else ""
            return TRUNCATED + orjson.dumps(answer).decode()
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # not JSON, or too deep to write
        pass
    return TRUNCATED + result[-limit:]


def _content(data: dict[str, Any], is_bash: bool, limit: int, rebuild: bool) -> dict[str, Any]:
    """`data` with every content field cut to `limit` characters (from the end on a rebuild)."""
    out = dict(data)
    for key in CONTENT_FIELDS.intersection(out):
        value = out[key]
        if (
            key == "result"
            and isinstance(value, str)
            and is_bash
            and not rebuild
            and len(value) > limit
        ):
            out[key] = _bash_tail(value, limit)
        else:
            out[key] = _cut(value, limit)[0]
    return out


def encode_event(
    ts: str,
    turn: str,
    session: str,
    source: str,
    kind: str,
    name: str,
    data: Any,
    *,
    capture_content: bool = True,
) -> bytes:
    """The line (newline included) for one event, within every limit (see the module's docstring).

    Every event gets a line: values that cannot be written are marked (TC-7), content is cut
    or dropped to fit (TC-5), and key fields too long for any line are cut to `KEY_LIMIT`
    characters with the event flagged `traceTrimmed`.
    """
    if not isinstance(data, Mapping):
        base: dict[str, Any] = {"traceUnreadable": True}
    else:
        base = _clean(data, 0)
    content = {k: base.pop(k) for k in list(base) if k in CONTENT_FIELDS}
    is_bash = base.get("toolName") == "bash" or base.get("name") == "bash"
    if "result" in content and content["result"] is not None:
        content["result"] = _result_text(content["result"], is_bash)
    if "error" in content and "result" in content and content["error"] == content["result"]:
        del content["error"]
    for key, value in content.items():
        if isinstance(value, str):
            base.setdefault(f"{key}Chars", len(value))
    keys = (turn, session, source, kind, name)
    head = {"ts": _text(ts)} | {
        f: "" if v is None else _text(v) for f, v in zip(_KEY_FIELDS, keys, strict=True)
    }
    is_bash = base.get("toolName") == "bash" or base.get("name") == "bash"
    encoded = _fit(head, base, content, is_bash, capture_content)
    if encoded is not None:
        return encoded
    # The key fields alone are too long for a line: cut them and say so.
    cut = {f: v if len(v) <= KEY_LIMIT else v[:KEY_LIMIT] + TRUNCATED for f, v in head.items()}
    trimmed = base | {"traceTrimmed": True}
    # Six fields of at most KEY_LIMIT characters and `{"traceTrimmed":true}` always fit.
    return _fit(cut, trimmed, content, is_bash, capture_content) or (
        orjson.dumps(cut | {"data": {"traceTrimmed": True}}) + b"\n"
    )


def _fit(
    head: dict[str, str],
    base: dict[str, Any],
    content: dict[str, Any],
    is_bash: bool,
    capture_content: bool,
) -> bytes | None:
    """The first line that fits: content whole, cut to 2,000, dropped, then only short sizes."""

    def line(payload: dict[str, Any]) -> bytes | None:
        encoded = orjson.dumps(head | {"data": payload}) + b"\n"
        return encoded if len(encoded) <= LINE_LIMIT else None

    if capture_content:
        encoded = line(base | _content(content, is_bash, CONTENT_LIMIT, rebuild=False))
        encoded = encoded or line(base | _content(content, is_bash, REBUILD_LIMIT, rebuild=True))
        encoded = encoded or line(base | {"traceTrimmed": True})
    else:
        encoded = line(base)
    if encoded is not None:
        return encoded
    # Only names, timings and sizes left and still too long: keep the short ones.
    small = {k: v for k, v in base.items() if not isinstance(v, list | dict) and len(str(v)) <= 200}
    return line(small | {"traceTrimmed": True}) or line({"traceTrimmed": True})


def capture_content_setting(data_dir: str | os.PathLike[str]) -> bool:
    """`captureContent` of `<data_dir>/settings.json`; true when the file or field is missing."""
    try:
        settings = orjson.loads(Path(data_dir, "settings.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return True
    value = settings.get("captureContent", True) if isinstance(settings, dict) else True
    return value if isinstance(value, bool) else True


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
        BadRequestError: `keep_days` is not a whole number of 1 or more, nor None.

    Example:
        >>> writer = TraceWriter("data", timezone="Europe/Moscow")  # doctest: +SKIP
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
        self.directory = Path(data_dir, "trace")
        self.timezone = zoneinfo.ZoneInfo(timezone) if isinstance(timezone, str) else timezone
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

        False means the file could not be written, or `ts` (or the clock) names a moment no day
        file can hold: its day in the writer's time zone, or the moment in UTC, is outside the
        years 1 to 9999 (`path_for` and `format_ts` say which, and the log gives their sentence);
        or `ts` is not a datetime (only None stamps the clock's time).
        Every event fits a line (`encode_event`): none is dropped for its values.
        """
        try:
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
        _LOG.warning("trace write failed: %s%s", exc, extra)
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
