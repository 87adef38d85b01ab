"""One event as the line the writer appends: seven fields in order, within every limit (TC-4..TC-7).

`encode_event` makes the line of an event (`TraceWriter.write` appends it), and `format_ts`
writes its `ts`: ISO-8601 UTC with milliseconds and `Z`.

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

So every event gets a line: `encode_event` always returns one within the cap. The content fields
are cut by `trackerkit.trace._content`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import orjson

from trackerkit.errors import BadRequestError
from trackerkit.trace._content import (
    CONTENT_FIELDS,
    CONTENT_LIMIT,
    REBUILD_LIMIT,
    TRUNCATED,
    _content,
    _result_text,
)

__all__ = ["KEY_LIMIT", "LINE_LIMIT", "encode_event", "format_ts"]

LINE_LIMIT = 16 * 1024
"""The most UTF-8 bytes a line may take, its newline included (TC-5)."""

KEY_LIMIT = 400
"""Characters kept of a key field too long for the line (TC-5): `ts` and the five key fields
cut to this, each character escaped at worst to six bytes, still fit in `LINE_LIMIT`."""

MAX_DEPTH = 4
DEEP = "…[deep]"
UNREADABLE = "…[unreadable]"
_INT_RANGE = range(-(1 << 63), 1 << 64)  # what JSON numbers orjson writes: i64 and u64
_KEY_FIELDS = ("turn", "session", "source", "kind", "name")


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
