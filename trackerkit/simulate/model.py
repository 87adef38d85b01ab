"""Models a session can talk to: a scripted one (the embedded default) and any OpenAI-compatible endpoint.

A model takes a `ModelRequest` (chat-completions messages and tools) and answers a `ModelReply`: text,
and tool calls when it wants the tools run. `ScriptedModel` answers from a plan (a scenario file says
what it replies and which calls it makes, round by round); `OpenAIModel` posts to
`<base_url>/chat/completions` of any server that speaks that protocol (a local Ollama or llama.cpp
server, or a hosted one) within one deadline per call, reading a capped body, never leaving the
base URL's origin (see `trackerkit.simulate.endpoint`), and reads the reply strictly (`trackerkit.simulate.completion`):
whatever a server answers, the caller gets a well-formed `ModelReply` or a `ModelError`.
"""

from __future__ import annotations

import json
import os
import ssl
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import httpx
from pydantic_core import from_json

from trackerkit.errors import ModelError, ToolsRefusedError
from trackerkit.formats.text_protocol import render_text_updates
from trackerkit.simulate.completion import ModelReply, ModelRequest, ToolCall, read_completion
from trackerkit.simulate.endpoint import MAX_BODY, post
from trackerkit.steps import TurnPlan
from trackerkit.tool import TOOL_NAME

__all__ = [
    "REFUSAL_HINTS",
    "Model",
    "ModelReply",
    "ModelRequest",
    "OpenAIModel",
    "ScriptedModel",
    "ToolCall",
    "ToolsRefusedError",
    "TurnPlan",
    "error_detail",
]


class Model(Protocol):
    """Anything that answers a request with a reply."""

    name: str

    def complete(self, request: ModelRequest) -> ModelReply: ...


class ScriptedModel:
    """The embedded default model: it answers from plans, one plan per turn, no network.

    Each plan says which tool calls to make in each round and the reply text that ends the turn.
    A round's calls are made only when the request offers tools; a turn without tools (a
    continue, or tool access off) goes straight to the reply.

    Under the text protocol (`request.protocol == "text"`) there is one model call per turn: the
    reply ends with the first round's `update_trackers` calls written as the update block (see
    `text_block`); later rounds (a batch sent again after a refusal) are not played, since the
    refusal is answered on the next turn, and calls of other tools are not made (no tool is offered).
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
        if request.protocol == "text":
            block = text_block(plan.rounds[0]) if plan.rounds and self._round == 0 else None
            self._round = max(self._round, 1)
            return ModelReply(f"{plan.reply}\n\n{block}" if block else plan.reply, (), "stop")
        if request.tools and self._round < len(plan.rounds):
            calls = []
            for raw in plan.rounds[self._round]:
                self._calls += 1
                calls.append(
                    ToolCall(
                        str(raw.get("id", f"call_{self._calls}")),
                        str(raw.get("name", TOOL_NAME)),
                        _arguments_text(raw.get("arguments", {})),
                    )
                )
            self._round += 1
            return ModelReply("", tuple(calls), "tool_calls")
        return ModelReply(plan.reply, (), "stop")


def _arguments_text(arguments: object) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def text_block(calls: Sequence[Mapping[str, Any]]) -> str | None:
    """A round's planned `update_trackers` calls as the text protocol's update block (None: no such call).

    One call's arguments are the block's body as planned (text stays as sent, so a scenario's
    broken JSON is sent broken). Several calls' `updates` are joined into one batch, which is
    then all or nothing as one call is; when one of them cannot be joined (text that is not an
    object with an `updates` list), the block holds that call's arguments alone, so the refusal
    the scenario plans is what the model is told.
    """
    updates = [c.get("arguments", {}) for c in calls if c.get("name", TOOL_NAME) == TOOL_NAME]
    if not updates:
        return None
    if len(updates) == 1:
        only = updates[0]
        if isinstance(only, Mapping):
            return render_text_updates(only)
        return f"```{TOOL_NAME}\n{_arguments_text(only)}\n```"
    joined: list[object] = []
    for arguments in updates:
        value = arguments
        if isinstance(arguments, str):
            try:
                value = json.loads(arguments)
            except (ValueError, RecursionError):
                value = None
        items = value.get("updates") if isinstance(value, dict) else None
        if not isinstance(items, list):
            return f"```{TOOL_NAME}\n{_arguments_text(arguments)}\n```"
        joined.extend(items)
    return render_text_updates({"updates": joined})


#: Words of a server's error that say the model does not take tools (OpenAI-compatible servers word
#: it differently; these are the phrasings of Ollama, llama.cpp's server and vLLM).
REFUSAL_HINTS = (
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
        timeout: seconds for the whole call, from connecting to the last byte of the answer.
        max_body: the most bytes of an answer read (`trackerkit.simulate.endpoint.MAX_BODY`, 32 MiB).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_body: int = MAX_BODY,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"openai:{model}"
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_body = max_body
        self._tls: ssl.SSLContext | None = None

    def complete(self, request: ModelRequest) -> ModelReply:
        """Post the request and read the first choice.

        Raises:
            ToolsRefusedError: the server says the model does not take tools.
            ModelError: the server is away, did not finish within the timeout, redirected to
                another origin, answered a body over `max_body` or an HTTP error, or answered
                something that is not a chat completion (the message names the part).
        """
        body = json.dumps(request.to_openai(self.model)).encode()
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "").strip()
        if key:
            bad = next((i for i, c in enumerate(key) if not "!" <= c <= "~"), None)
            if bad is not None:
                raise ModelError(
                    f"the API key in {self.api_key_env} has a character that cannot go in an HTTP "
                    f"header at position {bad + 1} (keys are printable ASCII); check the variable"
                )
            headers["Authorization"] = f"Bearer {key}"
        url = f"{self.base_url}/chat/completions"
        if self._tls is None:
            # Built once per model: loading the CA bundle takes ~20 ms, which httpx would spend on
            # every client (one per call), plain-HTTP ones too.
            self._tls = httpx.create_ssl_context()
        answer = post(
            url, body, headers, timeout=self.timeout, max_body=self.max_body, verify=self._tls
        )
        if 200 <= answer.status < 300:
            return read_completion(answer.body, url)
        detail = error_detail(answer.body)
        if request.tools and any(h in detail.lower() for h in REFUSAL_HINTS):
            raise ToolsRefusedError(f"{self.model} does not take tools ({detail})")
        raise ModelError(
            f"the model server at {url} answered HTTP {answer.status}: "
            f"{detail or answer.reason or 'no reason given'}"
        )


def error_detail(raw: bytes) -> str:
    """A server's error body on one short line: its `error.message` when it is JSON."""
    try:
        data = from_json(raw, allow_inf_nan=False)
    except ValueError:
        data = None
    text = raw[:4096].decode("utf-8", "replace")
    if isinstance(data, dict):
        error = data.get("error", data.get("message"))
        if isinstance(error, dict):
            error = error.get("message")
        if isinstance(error, str):
            text = error[:4096]
    return " ".join(text.split())[:300]
