"""The update tool a variant offers: one line per tracker (the default), `anyOf`, or a strict export.

The session always builds the line-per-tracker `update_trackers` tool (TR-36). A variant of
another style wraps its model, which is then offered another tool under the same name:

- `anyOf` (`AnyOfTools`): each tracker's fields in the schema, `anyOf` keyed by tracker. The
  calls have the same shape, so they run and are scored as any other.
- `strict` and `gemini` (`StrictTools`): the tool `trackerkit export --to openai` writes
  (`openai_tool`, `strict: true`), or the declaration `--to gemini` writes (`gemini_tool`, in the
  chat-completions wrapping `{"type": "function", "function": ...}`). Both list every linked
  tracker's fields in `set`, required and nullable, so a model must send null for every field it
  leaves alone, and row and remove null for a record. The wrapper says `null_is_absent`, so the
  session reads its update calls as the export documents
  (`apply_tracker_updates(..., null_is_absent=True)`): a null field is a field not given. A
  model's calls are kept and scored as it sent them; one that writes a value where it meant
  null changes that field, and is scored for it.

A scripted model plays a plan written in the line shape, so a scripted `strict` or `gemini`
variant sends its update calls on in the export's shape (`strict_shape`: a null for every listed
field not given, as `strict_arguments` writes them) and the run goes through the null handling;
when that handling holds, it ends each turn with the `lines` run's values. The noisy loopback
model answers in the shape of the tool it is offered, the same way. A real model's calls are
never rewritten.

Since the session counts the prompt from the tool it built, the wrapper reports, when the server
reports no `usage`, the session's count with the tool swapped: less the line-per-tracker tool's
tokens, plus its own tool's, each counted as `trackerkit.tokens.count_tool_tokens` counts a
tool. So a `lines` variant's tokens in and another style's differ, round by round, by exactly
the two tools' difference (plus, in a turn's later rounds, the difference of the calls sent
before them: a strict call's nulls are tokens too).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeAlias

from trackerkit.formats.providers import gemini_tool, openai_tool
from trackerkit.simulate.completion import ModelReply, ModelRequest, ToolCall
from trackerkit.simulate.model import Model
from trackerkit.tokens import count_tokens, count_tool_tokens
from trackerkit.tool import TOOL_NAME, anyof_parameters
from trackerkit.tracker import Tracker

__all__ = [
    "TOOL_STYLES",
    "AnyOfTools",
    "StrictTools",
    "ToolStyle",
    "strict_parameters_offered",
    "strict_shape",
]

#: The styles a variant may name.
ToolStyle: TypeAlias = Literal["lines", "anyOf", "strict", "gemini"]
TOOL_STYLES: tuple[ToolStyle, ...] = ("lines", "anyOf", "strict", "gemini")


class _OfferedTool:
    """A model offered `tool` in place of the session's update tool.

    `tag` and `retries` pass through to the wrapped model, so the harness reads them as usual.
    """

    #: Whether the session reads the update calls with `null_is_absent` (a strict export's).
    null_is_absent = False

    def __init__(self, inner: Model, tool: dict[str, Any], label: str) -> None:
        self.inner = inner
        self.name = f"{inner.name} ({label})"
        self._tool = tool

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
        """Ask the wrapped model with this style's tool in place of the update tool."""
        tools = [self._swap(t) for t in request.tools]
        sent = replace(request, tools=tools)
        reply = self._passed_on(self.inner.complete(sent))
        if reply.usage_in is None and tools != request.tools:
            if request.counted is not None:
                swapped = sum(map(_tool_tokens, tools)) - sum(map(_tool_tokens, request.tools))
                usage = request.counted + swapped
            else:
                usage = count_tokens(_text(sent))
            reply = replace(reply, usage_in=usage)
        return reply

    def _passed_on(self, reply: ModelReply) -> ModelReply:
        """The wrapped model's reply as the session gets it."""
        return reply

    def _swap(self, tool: dict[str, Any]) -> dict[str, Any]:
        function = tool.get("function") or {}
        if function.get("name") != TOOL_NAME:
            return tool
        return self._tool


class AnyOfTools(_OfferedTool):
    """A model offered the `anyOf` design of the update tool instead of the line-per-tracker one."""

    def __init__(self, inner: Model, trackers: Sequence[Tracker]) -> None:
        super().__init__(inner, anyof_parameters(list(trackers)).to_openai(), "anyOf tool")


class StrictTools(_OfferedTool):
    """A model offered the update tool as `export --to openai` (`strict`) or `--to gemini` writes it.

    Args:
        inner: the model asked.
        trackers: the run's linked trackers, whose fields the tool lists.
        style: "strict" (OpenAI's strict tool) or "gemini" (Gemini's declaration).
        fill_calls: rewrite the wrapped model's update calls into the tool's shape
            (`strict_shape`); only for a model that plays a plan written in the line shape, such
            as the scripted one.
    """

    null_is_absent = True

    def __init__(
        self,
        inner: Model,
        trackers: Sequence[Tracker],
        style: Literal["strict", "gemini"] = "strict",
        *,
        fill_calls: bool = False,
    ) -> None:
        if style == "strict":
            tool = openai_tool(trackers)
        else:
            tool = {
                "type": "function",
                "function": gemini_tool(trackers)["functionDeclarations"][0],
            }
        super().__init__(inner, tool, f"{style} tool")
        self.fill_calls = fill_calls

    def _passed_on(self, reply: ModelReply) -> ModelReply:
        if not self.fill_calls or not reply.tool_calls:
            return reply
        parameters = self._tool["function"]["parameters"]
        return replace(reply, tool_calls=tuple(_filled(c, parameters) for c in reply.tool_calls))


def strict_parameters_offered(tools: Sequence[object]) -> dict[str, Any] | None:
    """The parameters of the offered update tool when it is a strict export's, else None.

    A strict export (OpenAI strict, Gemini) is told by its items' `set`, which lists its fields
    as required; the line-per-tracker and `anyOf` tools list none.
    """
    for tool in tools:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or function.get("name") != TOOL_NAME:
            continue
        parameters = function.get("parameters")
        schema: object = parameters
        for key in ("properties", "updates", "items", "properties", "set"):
            schema = schema.get(key) if isinstance(schema, Mapping) else None
        if isinstance(schema, Mapping) and isinstance(schema.get("required"), list):
            assert isinstance(parameters, Mapping)
            return dict(parameters)
    return None


def strict_shape(arguments: object, parameters: Mapping[str, Any]) -> object:
    """A line-shaped call as a model offered the strict tool `parameters` sends it.

    Each item lists every field of the tool's `set`, null when not given, and, when the tool has
    them, `row` and `remove`, null when not given: for a well-formed call, what
    `trackerkit.formats.providers.strict_arguments` writes for the trackers the tool was built
    from. A planned mistake stays one: a key the tool does not list is kept as it was, and an item
    that is no object with a `tracker` and an object `set` (or arguments that are no object with
    an `updates` list) is left as it was, so the refusal a scenario plans still comes.
    """
    if not isinstance(arguments, Mapping) or not isinstance(arguments.get("updates"), list):
        return arguments
    keys = parameters["properties"]["updates"]["items"]["properties"]
    names = list(keys["set"]["properties"])
    items: list[object] = []
    for item in arguments["updates"]:
        given = item.get("set") if isinstance(item, Mapping) else None
        if (
            not isinstance(item, Mapping)
            or "tracker" not in item
            or (given is not None and not isinstance(given, Mapping))
        ):
            items.append(item)
            continue
        given = given or {}
        full: dict[str, Any] = {"tracker": item["tracker"]}
        full.update({key: item.get(key) for key in ("row", "remove") if key in keys})
        full["set"] = {name: given.get(name) for name in names} | {
            k: v for k, v in given.items() if k not in names
        }
        full.update({k: v for k, v in item.items() if k not in full})
        items.append(full)
    return {**arguments, "updates": items}


def _filled(call: ToolCall, parameters: Mapping[str, Any]) -> ToolCall:
    """An update call's arguments in the strict shape (text that is no JSON is sent as it is)."""
    if call.name != TOOL_NAME:
        return call
    try:
        arguments = json.loads(call.arguments)
    except (ValueError, RecursionError):
        return call
    shaped = strict_shape(arguments, parameters)
    if shaped == arguments:
        return call
    return replace(call, arguments=json.dumps(shaped, ensure_ascii=False))


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
