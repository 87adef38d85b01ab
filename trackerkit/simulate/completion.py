"""The chat-completions shapes a model speaks (request, reply, tool call) and a strict reader of a server's reply.

`read_completion` turns the bytes an OpenAI-compatible server answered into a `ModelReply`, or refuses
them with a `ModelError` that names the first thing wrong by its path in the reply, such as
`choices[0].message.tool_calls[1].function`. The JSON parser (pydantic-core's) stops at 200 levels of
nesting and refuses lone surrogates and numbers past 4,300 digits with its own error, so no reply,
however deep or odd, raises anything but `ModelError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_core import from_json

from trackerkit._json import loads as well_formed_loads
from trackerkit.errors import ModelError
from trackerkit.fields import describe_value

__all__ = [
    "MAX_TOKENS",
    "PROTOCOLS",
    "ModelReply",
    "ModelRequest",
    "ToolCall",
    "UpdateProtocol",
    "read_completion",
]

#: How a model sends its tracker updates: as `update_trackers` tool calls, or as one fenced
#: JSON block at the end of its reply (`trackerkit.formats.text_protocol`), for models without
#: tool calling.
UpdateProtocol = Literal["tools", "text"]
#: The protocols, as the CLI and the variants spell them.
PROTOCOLS: tuple[UpdateProtocol, ...] = ("tools", "text")

MAX_TOKENS = 2**63 - 1
"""The largest token count a reply's `usage` may report (the trace keeps counts as 64-bit integers)."""

MAX_REPLY_TEXT = 1 << 20
"""The most characters a reply's content, or one call's arguments, may hold (a mebi-character:
a quarter of a million tokens). More is a server gone wrong: counting its tokens round after
round took minutes and gigabytes (an attack trial: 10 MB of arguments), so the turn fails."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model sent it: its id, the tool's name, and the arguments as sent."""

    id: str
    name: str
    arguments: str

    def to_openai(self) -> dict[str, Any]:
        """The call as an assistant message's `tool_calls` entry."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What a model is asked: the messages and the tools offered (chat-completions shapes).

    `protocol` says how the session reads the updates: "text" offers no tool and reads the
    reply's update block (a scripted model writes its planned calls as that block). It is never
    sent to a server; the instructions are in the messages.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    protocol: UpdateProtocol = "tools"
    #: The session's own count of the prompt (its parts, the tool as it built it), when known:
    #: what a turn reports as tokens in when the server reports no `usage`.
    counted: int | None = None

    def to_openai(self, model: str) -> dict[str, Any]:
        """The JSON body of `POST /chat/completions` (tool_choice left out: the model decides)."""
        body: dict[str, Any] = {"model": model, "messages": self.messages}
        if self.tools:
            body["tools"] = self.tools
        return body


@dataclass(frozen=True, slots=True)
class ModelReply:
    """A model's answer: its text, its tool calls, why it stopped, and the usage it reported."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    usage_in: int | None = None
    usage_out: int | None = None


class _MalformedError(Exception):
    """What is wrong with a reply, in words that start with its path."""


def read_completion(raw: bytes, url: str) -> ModelReply:
    """Read the first choice of a chat completion, checking every part it uses.

    Args:
        raw: the body the server answered.
        url: where it answered from, for the message.

    Raises:
        ModelError: the body is not JSON, or a part is missing or of the wrong type; the message
            names the part (`choices[0].message.content must be text or null; found an object`).
    """
    try:
        data = _loads(raw)
    except ValueError as exc:
        reason = f"its body is not JSON ({exc})"
    else:
        try:
            return _reply(data)
        except _MalformedError as exc:
            reason = str(exc)
    raise ModelError(
        f"the model server at {url} answered something that is not a chat completion: {reason}"
    )


def _loads(raw: bytes) -> object:
    """The body as JSON; a lone surrogate escape in it reads as U+FFFD, as the trace reader reads it.

    A server that cuts a reply inside an emoji's surrogate pair writes `"…\\ud83d"`: legal JSON
    that pydantic's reader refuses, so the trace reader's `loads` reads what it refused. A number
    past a double's range (which that reads as an infinity) stays refused.

    Raises:
        ValueError: not JSON (pydantic's words, which name the place).
    """
    try:
        return from_json(raw, allow_inf_nan=False)
    except ValueError as exc:
        try:
            value = well_formed_loads(raw)
            json.dumps(value, allow_nan=False)  # refuses the infinity a huge number was read as
        except (ValueError, RecursionError):
            raise exc from None
        return value


def _reply(data: object) -> ModelReply:
    top = _object(data, "the top level")
    choices = top.get("choices")
    if not isinstance(choices, list) or not choices:
        kind = "an empty list" if choices == [] else describe_value(choices)
        if "choices" not in top:
            kind = "nothing"
        raise _MalformedError(f"choices must be a list of at least one choice; found {kind}")
    choice = _object(choices[0], "choices[0]")
    message = _object(choice.get("message"), "choices[0].message", "message" in choice)
    at = "choices[0].message"
    content = _bounded(_text(message.get("content"), f"{at}.content", ""), f"{at}.content")
    calls = _calls(message.get("tool_calls"), f"{at}.tool_calls")
    finish = _text(
        choice.get("finish_reason"),
        "choices[0].finish_reason",
        "tool_calls" if calls else "stop",
    )
    usage_in, usage_out = _usage(top.get("usage"))
    return ModelReply(content, calls, finish, usage_in, usage_out)


def _calls(value: object, at: str) -> tuple[ToolCall, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _MalformedError(
            f"{at} must be a list of calls or null; found {describe_value(value)}"
        )
    calls = []
    for i, item in enumerate(value):
        call = _object(item, f"{at}[{i}]")
        function = _object(call.get("function"), f"{at}[{i}].function", "function" in call)
        name = function.get("name")
        if not isinstance(name, str):
            found = describe_value(name) if "name" in function else "nothing"
            raise _MalformedError(f"{at}[{i}].function.name must be text; found {found}")
        calls.append(
            ToolCall(
                _text(call.get("id"), f"{at}[{i}].id", "") or f"call_{i}",
                name,
                _bounded(
                    _arguments(function.get("arguments"), f"{at}[{i}].function.arguments"),
                    f"{at}[{i}].function.arguments",
                ),
            )
        )
    return tuple(calls)


def _bounded(text: str, at: str) -> str:
    if len(text) > MAX_REPLY_TEXT:
        raise _MalformedError(
            f"{at} holds {len(text):,} characters; trackerkit reads at most {MAX_REPLY_TEXT:,} "
            "(a tracker update is far smaller)"
        )
    return text


def _arguments(value: object, at: str) -> str:
    """The arguments as text: text as sent, an object (as some servers send) as its JSON text."""
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, dict):
        raise _MalformedError(f"{at} must be text or an object; found {describe_value(value)}")
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise _MalformedError(
            f"{at} holds a number too large for JSON text (it overflowed to infinity)"
        ) from None


def _usage(value: object) -> tuple[int | None, int | None]:
    if value is None:
        return None, None
    usage = _object(value, "usage")
    return _count(usage.get("prompt_tokens"), "usage.prompt_tokens"), _count(
        usage.get("completion_tokens"), "usage.completion_tokens"
    )


def _count(value: object, at: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS:
        return value
    raise _MalformedError(
        f"{at} must be a token count (a whole number from 0 to 2^63-1) or null; found {describe_value(value)}"
    )


def _object(value: object, at: str, present: bool = True) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    found = describe_value(value) if present else "nothing"
    raise _MalformedError(f"{at} must be an object; found {found}")


def _text(value: object, at: str, default: str) -> str:
    if value is None:
        return default
    if isinstance(value, str):
        return value
    raise _MalformedError(f"{at} must be text or null; found {describe_value(value)}")
