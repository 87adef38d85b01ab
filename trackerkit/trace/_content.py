"""The content fields of an event's `data`, and how each is cut to fit a trace line (TC-6, TC-7).

`encode_event` (`trackerkit.trace._event_line`, whose docstring gives the rules in words) sizes
and drops these fields; the cutting lives here: a field cut to `CONTENT_LIMIT` characters (to
`REBUILD_LIMIT` when the line is rebuilt to fit), `result` written as one JSON line
with its status keys first, and a bash result that does not fit kept by the end of `stdout` and
of `stderr`.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["CONTENT_FIELDS", "CONTENT_LIMIT", "REBUILD_LIMIT"]

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

CONTENT_LIMIT = 4096
"""Characters kept of each content field (TC-6)."""

REBUILD_LIMIT = 2000
"""Characters kept of each content field when an event is rebuilt to fit the line (TC-5)."""

BASH_STDERR_TAIL = 1000
TRUNCATED = "…[truncated]"
KEYS = "…[keys]"
_RESULT_FIRST = ("ok", "error", "message", "isError", "code", "exitCode")


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
