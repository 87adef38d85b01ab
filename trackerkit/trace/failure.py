"""Failure classes of tool calls (TC-16): a class, never a text.

`failure_class` is what a writer puts in `eve.action.result`'s `data.failure`; `failure_of`
is what a reader takes from a result row, deriving the class for rows written before the
rule (their `result` is an object and they have no `failure`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["FAILURE_CLASSES", "FAILURE_EVENTS", "error_of", "failure_class", "failure_of"]

FAILURE_CLASSES = ("isError", "status:failed", "ok:false", "error", "timeout", "exit <code>")
"""The classes `failure` may hold; `exit <code>` stands for `exit 1`, `exit 127`, …"""

_NOT_FAILURES = {"rejected", "cancelled", "canceled"}


def _answer(result: Any) -> Any:
    """A string answer holding a JSON object is read as that object (TC-16)."""
    if isinstance(result, str) and result.lstrip().startswith("{"):
        try:
            return orjson.loads(result)
        except orjson.JSONDecodeError:
            return result
    return result


def failure_class(
    result: Any,
    *,
    status: str | None = None,
    is_error: bool = False,
    tool_name: str | None = None,
    exit_code: int | None = None,
    stderr: str | None = None,
) -> str | None:
    """The failure class of one tool call, or None when it did not fail (TC-16).

    Args:
        result: the answer the tool gave (an object, or a string, possibly holding JSON).
        status: the call's status; `rejected` and a cancelled call are never failures.
        is_error: eve or the tool marked the answer as an error.
        tool_name: the tool; `bash` fails by exit code only with a non-empty stderr.
        exit_code: bash's exit code, when not inside `result`.
        stderr: bash's stderr, when not inside `result`.
    """
    if status in _NOT_FAILURES:
        return None
    if is_error:
        return "isError"
    answer = _answer(result)
    if isinstance(answer, Mapping):
        if answer.get("status") == "failed" and "code" in answer and "message" in answer:
            return "status:failed"
        if answer.get("ok") is False:
            return "ok:false"
        if answer.get("error"):
            return "error"
        if answer.get("timedOut") is True or answer.get("timeout") is True:
            return "timeout"
        exit_code = answer.get("exitCode", exit_code)
        stderr = answer.get("stderr", stderr)
    if status == "timeout":
        return "timeout"
    if tool_name == "bash" and isinstance(exit_code, int) and exit_code != 0 and stderr:
        return f"exit {exit_code}"
    return None


def failure_of(data: Any) -> str | None:
    """The failure class of an `eve.action.result` row's data, derived for pre-rule rows."""
    if type(data) is not dict and not isinstance(data, Mapping):  # dict first: ABC tests cost
        return None
    failure = data.get("failure")
    if isinstance(failure, str) and failure:
        return failure
    if "failure" in data or not isinstance(data.get("result"), Mapping):
        return None  # written under the rule (or content off): no class means no failure
    status = data.get("status")
    return failure_class(
        data["result"],
        status=status if isinstance(status, str) else None,
        is_error=data.get("isError") is True,
        tool_name=data.get("toolName") if isinstance(data.get("toolName"), str) else None,
        exit_code=data.get("exitCode") if isinstance(data.get("exitCode"), int) else None,
    )


FAILURE_EVENTS = ("eve.action.result", "eve.step.failed", "eve.turn.failed")
"""The events that may record a failure: a tool's result, a step's, a turn's."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _tool_message(data: Mapping[str, Any]) -> str | None:
    """A failed tool's message as written: `error`, else the answer's message or error."""
    written = _text(data.get("error"))
    if written is not None:
        return written
    answer = _answer(data.get("result"))
    if isinstance(answer, Mapping):
        error = answer.get("error")
        if isinstance(error, Mapping):
            error = error.get("message")
        return _text(answer.get("message")) or _text(error) or _text(answer.get("stderr"))
    return _text(answer)


def error_of(name: str, data: Any) -> tuple[str, str | None] | None:
    """The class and message of a failure an event records, or None when it records none.

    A failed tool (`eve.action.result` with a failure class, TC-16): that class and the
    message it gave. A failed step or turn (`eve.step.failed`, `eve.turn.failed`): its `code`
    (the event's name when it has none) and its `message`.
    """
    if not isinstance(data, Mapping):
        data = {}
    if name == "eve.action.result":
        failure = failure_of(data)
        return None if failure is None else (failure, _tool_message(data))
    if name in ("eve.step.failed", "eve.turn.failed"):
        code = _text(data.get("code")) or name.removeprefix("eve.")
        return code, _text(data.get("message"))
    return None
