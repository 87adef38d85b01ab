"""Models a session can talk to: a scripted one (the embedded default) and any OpenAI-compatible endpoint.

A model takes a `ModelRequest` (chat-completions messages and tools) and answers a `ModelReply`: text,
and tool calls when it wants the tools run. `ScriptedModel` answers from a plan (a scenario file says
what it replies and which calls it makes, round by round); `OpenAIModel` posts to
`<base_url>/chat/completions` of any server that speaks that protocol (a local Ollama or llama.cpp
server, or a hosted one), with timeouts and plain errors when the server is away.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from trackerkit.errors import ModelError

__all__ = [
    "Model",
    "ModelReply",
    "ModelRequest",
    "OpenAIModel",
    "ScriptedModel",
    "ToolCall",
    "ToolsRefusedError",
    "TurnPlan",
]


class ToolsRefusedError(ModelError):
    """The model (or its server) does not take tools."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model sent it: its id, the tool's name, and the arguments as sent."""

    id: str
    name: str
    arguments: str

    def parsed(self) -> tuple[object, str | None]:
        """The arguments as JSON, or `(None, reason)` when they are not valid JSON."""
        try:
            return json.loads(self.arguments) if self.arguments.strip() else {}, None
        except json.JSONDecodeError as exc:
            return None, f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})"

    def to_openai(self) -> dict[str, Any]:
        """The call as an assistant message's `tool_calls` entry."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What a model is asked: the messages and the tools offered (chat-completions shapes)."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)

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


class Model(Protocol):
    """Anything that answers a request with a reply."""

    name: str

    def complete(self, request: ModelRequest) -> ModelReply: ...


@dataclass(slots=True)
class TurnPlan:
    """What the scripted model does in one turn: calls per round, then the reply text."""

    reply: str
    rounds: list[list[dict[str, Any]]] = field(default_factory=list)
    refuses_tools: bool = False

    @classmethod
    def from_step(cls, step: Mapping[str, Any]) -> TurnPlan:
        """Read a scenario step: `reply`, and `calls` (one round) or `rounds` (a list of rounds)."""
        rounds = step.get("rounds")
        if rounds is None:
            calls = step.get("calls")
            rounds = [calls] if calls else []
        if not isinstance(rounds, list) or not all(isinstance(r, list) for r in rounds):
            raise ModelError("a scripted step's rounds must be a list of lists of calls")
        return cls(
            str(step.get("reply", "")),
            [list(r) for r in rounds],
            bool(step.get("refusesTools", False)),
        )


class ScriptedModel:
    """The embedded default model: it answers from plans, one plan per turn, no network.

    Each plan says which tool calls to make in each round and the reply text that ends the turn.
    A round's calls are made only when the request offers tools; a turn without tools (a
    continue, or tool access off) goes straight to the reply.
    """

    name = "scripted"

    def __init__(self, plans: Sequence[TurnPlan] = ()) -> None:
        self._plans: deque[TurnPlan] = deque(plans)
        self._current: TurnPlan | None = None
        self._round = 0
        self._calls = 0

    def plan(self, plan: TurnPlan) -> None:
        """Queue what the model does in a coming turn."""
        self._plans.append(plan)

    def start_turn(self) -> None:
        """Begin the next planned turn (the session calls this once per turn)."""
        if not self._plans:
            raise ModelError(
                "the scripted model has no reply planned for this turn; give the turn a script (reply and calls)"
            )
        self._current = self._plans.popleft()
        self._round = 0

    @property
    def pending(self) -> int:
        """How many planned turns are still queued."""
        return len(self._plans)

    def complete(self, request: ModelRequest) -> ModelReply:
        """The next round's calls, or the reply when the plan's rounds are spent."""
        plan = self._current
        if plan is None:
            raise ModelError("the scripted model was asked outside a turn")
        if plan.refuses_tools and request.tools:
            raise ToolsRefusedError("the scripted model does not take tools")
        if request.tools and self._round < len(plan.rounds):
            calls = []
            for raw in plan.rounds[self._round]:
                self._calls += 1
                arguments = raw.get("arguments", {})
                text = (
                    arguments
                    if isinstance(arguments, str)
                    else json.dumps(arguments, ensure_ascii=False)
                )
                calls.append(
                    ToolCall(
                        str(raw.get("id", f"call_{self._calls}")),
                        str(raw.get("name", "update_trackers")),
                        text,
                    )
                )
            self._round += 1
            return ModelReply("", tuple(calls), "tool_calls")
        return ModelReply(plan.reply, (), "stop")


_REFUSAL_HINTS = (
    "does not support tools",
    "tools are not supported",
    "tool use is not supported",
    "does not support function",
)


class OpenAIModel:
    """Any OpenAI-compatible chat-completions endpoint with tool calling.

    Args:
        base_url: the API root, such as `http://127.0.0.1:11434/v1` (Ollama) or `https://api.openai.com/v1`.
        model: the model name the server knows.
        api_key_env: the environment variable holding the API key (none sent when it is unset).
        timeout: seconds to wait for an answer.
    """

    def __init__(
        self, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", timeout: float = 60.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"openai:{model}"
        self.api_key_env = api_key_env
        self.timeout = timeout

    def complete(self, request: ModelRequest) -> ModelReply:
        """Post the request and read the first choice.

        Raises:
            ToolsRefusedError: the server says the model does not take tools.
            ModelError: the server is away, timed out, or answered something unreadable.
        """
        body = json.dumps(request.to_openai(self.model)).encode()
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = f"{self.base_url}/chat/completions"
        post = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(post, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            with exc:  # the error holds the open response; close it
                detail = _detail(exc.read())
            if request.tools and any(h in detail.lower() for h in _REFUSAL_HINTS):
                raise ToolsRefusedError(f"{self.model} does not take tools ({detail})") from None
            raise ModelError(
                f"the model server at {url} answered HTTP {exc.code}: {detail or exc.reason}"
            ) from None
        except (TimeoutError, urllib.error.URLError) as exc:
            # urlopen wraps a timeout while waiting for the status line in URLError.
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            if isinstance(reason, TimeoutError):
                raise ModelError(
                    f"the model server at {url} did not answer within {self.timeout:g} s"
                ) from None
            raise ModelError(f"could not reach the model server at {url}: {reason}") from None
        except (OSError, http.client.HTTPException) as exc:
            # A dropped connection or a garbled status line mid-answer.
            raise ModelError(f"the model server at {url} broke off its answer: {exc}") from None
        return _read_reply(raw, url)


def _detail(raw: bytes) -> str:
    """A server's error body on one short line: its `error.message` when it is JSON."""
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data.get("message"))
        if isinstance(error, dict):
            error = error.get("message")
        if isinstance(error, str):
            text = error
    return " ".join(text.split())[:300]


def _read_reply(raw: bytes, url: str) -> ModelReply:
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelError(
            f"the model server at {url} answered something that is not a chat completion"
        ) from None
    calls = []
    for i, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        calls.append(
            ToolCall(str(call.get("id") or f"call_{i}"), str(function.get("name", "")), arguments)
        )
    usage = data.get("usage") or {}
    return ModelReply(
        message.get("content") or "",
        tuple(calls),
        str(choice.get("finish_reason") or ("tool_calls" if calls else "stop")),
        usage.get("prompt_tokens"),
        usage.get("completion_tokens"),
    )
