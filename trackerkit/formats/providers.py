"""The `update_trackers` tool as OpenAI, Anthropic and Gemini take it, and what each costs in tokens.

Each export is a pure function of the linked trackers and returns the entry a provider's `tools`
list takes. The tool always means the same call (TR-35); only the schema's dialect changes:

- **OpenAI** Chat Completions with `strict: true`: strict mode cannot express the free `set` map
  (`additionalProperties` must be false and every property required), so `set` lists every
  linked tracker's fields, each required and nullable; `null` means "not given" and the reader
  is told so (`apply_tracker_updates(..., null_is_absent=True)`, only for such calls).
- **Anthropic** Messages: the line-per-tracker tool as it is (`input_schema`), which Anthropic's
  JSON Schema takes whole.
- **Gemini** `functionDeclarations`: the same listed fields in the OpenAPI subset (`nullable`
  instead of type arrays, no `additionalProperties`).

No export puts a range in the schema: every range and top is in the description (the tracker
lines of TR-36), and trackerkit's own clamps hold values to them (TR-13).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from trackerkit.errors import BadRequestError
from trackerkit.fields import BooleanField, ChoiceField, NumberField
from trackerkit.tokens import ENCODINGS, count_tokens
from trackerkit.tool import (
    TOOL_SENTENCE,
    anyof_parameters,
    tool_name,
    tracker_line,
    update_trackers_tool,
)
from trackerkit.tracker import Tracker
from trackerkit.values import AnyField

__all__ = [
    "PROVIDERS",
    "STRICT_SENTENCE",
    "ExportCost",
    "Provider",
    "anthropic_tool",
    "export_costs",
    "gemini_tool",
    "openai_tool",
    "provider_tool",
    "strict_arguments",
    "strict_parameters",
]

Provider: TypeAlias = Literal["openai", "anthropic", "gemini"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic", "gemini")

STRICT_SENTENCE = (
    "set lists the fields of every tracker: give values only for the named tracker's fields and "
    "null for every other field; row and remove are null for a record."
)


def _json_type(field: AnyField) -> str:
    if isinstance(field, NumberField):
        return "number"
    if isinstance(field, BooleanField):
        return "boolean"
    return "string"


def _by_name(trackers: Sequence[Tracker]) -> dict[str, list[AnyField]]:
    """Every field name of the linked trackers, in first-seen order, with each field of that name."""
    named: dict[str, list[AnyField]] = {}
    for tracker in trackers:
        for field in tracker.fields:
            named.setdefault(field.name, []).append(field)
    return named


def _kinds(fields: Sequence[AnyField]) -> tuple[list[str], list[str] | None]:
    """The JSON types the fields of one name take, and their choices when every one is a choice."""
    kinds = list(dict.fromkeys(_json_type(f) for f in fields))
    if all(isinstance(f, ChoiceField) for f in fields):
        choices = [c for f in fields if isinstance(f, ChoiceField) for c in f.choices]
        return kinds, list(dict.fromkeys(choices))
    return kinds, None


def _strict_field(fields: Sequence[AnyField]) -> dict[str, Any]:
    kinds, choices = _kinds(fields)
    schema: dict[str, Any] = {"type": [*kinds, "null"]}
    if choices is not None:
        schema["enum"] = [*choices, None]
    return schema


def _gemini_field(fields: Sequence[AnyField]) -> dict[str, Any]:
    kinds, choices = _kinds(fields)
    schema: dict[str, Any]
    if len(kinds) == 1:
        schema = {"type": kinds[0]}
    else:
        schema = {"anyOf": [{"type": kind} for kind in kinds]}
    if choices is not None:
        schema["enum"] = choices
    schema["nullable"] = True
    return schema


def _description(trackers: Sequence[Tracker]) -> str:
    lines = [f"{TOOL_SENTENCE} {STRICT_SENTENCE}", *(tracker_line(t) for t in trackers)]
    return "\n".join(lines)


def strict_parameters(trackers: Sequence[Tracker]) -> dict[str, Any]:
    """The parameters of the strict tool: every linked tracker's fields in `set`, required and nullable.

    Every object has `additionalProperties: false` and lists every property in `required`; a
    field name two trackers share takes the types of both.
    """
    fields = {name: _strict_field(group) for name, group in _by_name(trackers).items()}
    properties: dict[str, Any] = {
        "tracker": {"type": "string", "enum": [t.name for t in trackers]},
    }
    if any(t.layout == "list" for t in trackers):
        properties["row"] = {"type": ["string", "null"]}
        properties["remove"] = {"type": ["boolean", "null"]}
    properties["set"] = {
        "type": "object",
        "properties": fields,
        "required": list(fields),
        "additionalProperties": False,
    }
    item = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"updates": {"type": "array", "items": item}},
        "required": ["updates"],
        "additionalProperties": False,
    }


def _gemini_parameters(trackers: Sequence[Tracker]) -> dict[str, Any]:
    fields = {name: _gemini_field(group) for name, group in _by_name(trackers).items()}
    properties: dict[str, Any] = {
        "tracker": {"type": "string", "enum": [t.name for t in trackers]},
    }
    if any(t.layout == "list" for t in trackers):
        properties["row"] = {"type": "string", "nullable": True}
        properties["remove"] = {"type": "boolean", "nullable": True}
    properties["set"] = {"type": "object", "properties": fields, "required": list(fields)}
    item = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "object",
        "properties": {"updates": {"type": "array", "items": item}},
        "required": ["updates"],
    }


def openai_tool(trackers: Sequence[Tracker], taken: Collection[str] = ()) -> dict[str, Any]:
    """The strict tool for OpenAI Chat Completions: `{"type": "function", "function": {..., "strict": true}}`."""
    return {
        "type": "function",
        "function": {
            "name": tool_name(taken),
            "description": _description(trackers),
            "parameters": strict_parameters(trackers),
            "strict": True,
        },
    }


def anthropic_tool(trackers: Sequence[Tracker], taken: Collection[str] = ()) -> dict[str, Any]:
    """The tool for Anthropic Messages: `{"name", "description", "input_schema"}` (the line-per-tracker tool)."""
    tool = update_trackers_tool(trackers, taken)
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def gemini_tool(trackers: Sequence[Tracker], taken: Collection[str] = ()) -> dict[str, Any]:
    """The tool for Google Gemini: `{"functionDeclarations": [{"name", "description", "parameters"}]}`."""
    declaration = {
        "name": tool_name(taken),
        "description": _description(trackers),
        "parameters": _gemini_parameters(trackers),
    }
    return {"functionDeclarations": [declaration]}


def _known_provider(provider: object) -> Provider:
    """`provider` itself when it is one of `PROVIDERS`, spelled as they are (lower case).

    Raises:
        BadRequestError: any other name (`OpenAI`, `claude`), or something that is no name.
    """
    for known in PROVIDERS:
        if provider == known:
            return known
    names = f"{', '.join(PROVIDERS[:-1])} or {PROVIDERS[-1]}"
    raise BadRequestError(f"unknown provider {provider!r}; use {names}")


_EXPORTS: dict[Provider, Callable[[Sequence[Tracker], Collection[str]], dict[str, Any]]] = {
    "openai": openai_tool,
    "anthropic": anthropic_tool,
    "gemini": gemini_tool,
}


def provider_tool(
    provider: Provider, trackers: Sequence[Tracker], taken: Collection[str] = ()
) -> dict[str, Any]:
    """The export for `provider` (`openai`, `anthropic` or `gemini`).

    Raises:
        BadRequestError: `provider` is none of those three names as written here (`OpenAI` and
            `claude` are refused, not read as another provider).
    """
    return _EXPORTS[_known_provider(provider)](trackers, taken)


def strict_arguments(trackers: Sequence[Tracker], arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments of the line-per-tracker tool as a strict export asks for them: every key, null when not given.

    `apply_tracker_updates(trackers, state, strict_arguments(trackers, a), null_is_absent=True)`
    does what `apply_tracker_updates(trackers, state, a)` does. Items must be objects.
    """
    names = list(_by_name(trackers))
    has_list = any(t.layout == "list" for t in trackers)
    items = []
    for item in arguments["updates"]:
        given = item.get("set") or {}
        full: dict[str, Any] = {"tracker": item["tracker"]}
        if has_list:
            full["row"] = item.get("row")
            full["remove"] = item.get("remove")
        full["set"] = {name: given.get(name) for name in names}
        items.append(full)
    return {"updates": items}


@dataclass(frozen=True, slots=True)
class ExportCost:
    """What one export of the tool costs, counted as the compact JSON of its `tools` entry.

    `tokens` maps each OpenAI encoding (`cl100k_base`, `o200k_base`) to a count; for Anthropic and
    Gemini these are estimates, not those providers' own counts.
    """

    key: str
    label: str
    tokens: dict[str, int]


def _sent(entry: object) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def export_costs(trackers: Sequence[Tracker]) -> list[ExportCost]:
    """Each export's token cost beside the others: the line-per-tracker tool, its anyOf variant (TR-36), and the three providers.

    The price of strictness shows as the difference between `tool` and `openai` or `gemini`.
    """
    lines = update_trackers_tool(trackers).to_openai()
    alt = anyof_parameters(trackers)
    entries: list[tuple[str, str, object]] = [
        ("tool", "update_trackers, one line per tracker (OpenAI, not strict)", lines),
        (
            "anyof",
            "anyOf variant: each tracker's fields in the schema",
            {
                "type": "function",
                "function": {
                    "name": alt.name,
                    "description": alt.description,
                    "parameters": alt.parameters,
                },
            },
        ),
        ("openai", "OpenAI strict: every field listed, required, nullable", openai_tool(trackers)),
        ("anthropic", "Anthropic input_schema (estimate)", anthropic_tool(trackers)),
        ("gemini", "Gemini functionDeclarations (estimate)", gemini_tool(trackers)),
    ]
    return [
        ExportCost(key, label, {enc: count_tokens(_sent(entry), enc) for enc in ENCODINGS})
        for key, label, entry in entries
    ]
