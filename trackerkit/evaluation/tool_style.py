"""The tool-description style a variant offers: one line per tracker (the default) or `anyOf`.

The session always builds the line-per-tracker `update_trackers` tool (TR-36). A variant with
`tool_style="anyOf"` wraps its model in `AnyOfTools`, which offers the model the alternative
design instead (each tracker's fields in the schema, `anyOf` keyed by tracker), under the same
name: the calls have the same shape, so they run and are scored as any other. Since the session
counts the prompt from the tool it built, the wrapper reports, when the server reports no
`usage`, the session's count with the tool swapped: less the line-per-tracker tool's tokens, plus
the `anyOf` tool's, each counted as `trackerkit.tokens.count_tool_tokens` counts a tool. So a
`lines` and an `anyOf` variant's tokens in differ by exactly the two tools' difference.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from trackerkit.simulate.completion import ModelReply, ModelRequest
from trackerkit.simulate.model import Model
from trackerkit.tokens import count_tokens, count_tool_tokens
from trackerkit.tool import TOOL_NAME, anyof_parameters
from trackerkit.tracker import Tracker

__all__ = ["TOOL_STYLES", "AnyOfTools"]

#: The styles a variant may name.
TOOL_STYLES = ("lines", "anyOf")


class AnyOfTools:
    """A model offered the `anyOf` design of the update tool instead of the line-per-tracker one.

    `tag` and `retries` pass through to the wrapped model, so the harness reads them as usual.
    """

    def __init__(self, inner: Model, trackers: Sequence[Tracker]) -> None:
        self.inner = inner
        self.name = f"{inner.name} (anyOf tool)"
        self._tool = anyof_parameters(list(trackers)).to_openai()

    @property
    def retries(self) -> int:
        """The wrapped model's retries (0 when it keeps none)."""
        return int(getattr(self.inner, "retries", 0))

    @property
    def tag(self) -> object:
        """The wrapped model's tag (what the harness sets before each step)."""
        return getattr(self.inner, "tag", None)

    @tag.setter
    def tag(self, value: object) -> None:
        if hasattr(self.inner, "tag"):
            self.inner.tag = value

    def complete(self, request: ModelRequest) -> ModelReply:
        """Ask the wrapped model with the `anyOf` tool in place of the update tool."""
        tools = [self._swap(t) for t in request.tools]
        sent = replace(request, tools=tools)
        reply = self.inner.complete(sent)
        if reply.usage_in is None and tools != request.tools:
            if request.counted is not None:
                swapped = sum(map(_tool_tokens, tools)) - sum(map(_tool_tokens, request.tools))
                usage = request.counted + swapped
            else:
                usage = count_tokens(_text(sent))
            reply = replace(reply, usage_in=usage)
        return reply

    def _swap(self, tool: dict[str, Any]) -> dict[str, Any]:
        function = tool.get("function") or {}
        if function.get("name") != TOOL_NAME:
            return tool
        return self._tool


def _tool_tokens(tool: dict[str, Any]) -> int:
    """A function tool's tokens as the session counts its own tool."""
    function = tool.get("function") or {}
    return count_tool_tokens(
        str(function.get("name", "")),
        str(function.get("description", "")),
        function.get("parameters") or {},
    )


def _text(request: ModelRequest) -> str:
    """The request's messages and tools as the tokenizer reads them."""
    parts = []
    for message in request.messages:
        if message.get("content"):
            parts.append(str(message["content"]))
        for call in message.get("tool_calls") or []:
            parts.append(call["function"]["name"] + call["function"]["arguments"])
    parts += [json.dumps(t, ensure_ascii=False) for t in request.tools]
    return "\n".join(parts)
