"""The `update_trackers` tool definition: its name, description, JSON schema (TR-34..TR-36).

The description is one fixed sentence and then one line per tracker with every field (its type,
range or choices, and what it means) and the tracker's note. It is never cut, so every tracker and
every field reaches the model. `anyof_parameters` builds the alternative design (each tracker's
fields in the `set` schema as an `anyOf`) only so that its cost can be compared.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from trackerkit.fields import BooleanField, ChoiceField, NumberField
from trackerkit.line import line_of
from trackerkit.tracker import Tracker
from trackerkit.values import AnyField

__all__ = [
    "TOOL_NAME",
    "TOOL_SENTENCE",
    "ToolDefinition",
    "accepted_text",
    "anyof_parameters",
    "field_phrase",
    "tool_name",
    "tracker_line",
    "update_trackers_tool",
]

TOOL_NAME = "update_trackers"
TOOL_SENTENCE = (
    "Change the trackers shown in the ### Trackers block: each update names a tracker and sets "
    "field values (a list tracker also names its row; remove: true deletes the row); updates apply "
    "in order, all or nothing."
)


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A function tool as a chat-completions request carries it."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        """The `{"type": "function", "function": {...}}` dict an OpenAI-compatible API takes."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def tool_name(taken: Collection[str] = ()) -> str:
    """`update_trackers`, numbered (`update_trackers_2`, ...) when the name is taken (TR-34)."""
    if TOOL_NAME not in taken:
        return TOOL_NAME
    n = 2
    while f"{TOOL_NAME}_{n}" in taken:
        n += 1
    return f"{TOOL_NAME}_{n}"


def _num(value: int | float) -> str:
    return line_of(value)


def _bounds(field: NumberField) -> tuple[int | float | None, int | float | str | None]:
    """A number's low bound and its top: the top field's name, else the max, else None."""
    return field.min, field.max_field if field.max_field is not None else field.max


def field_phrase(field: AnyField, *, meanings: bool = True) -> str:
    """One field as the tool describes it: `hp (number 0 to hp_max: Hit points.)` (TR-36)."""
    if isinstance(field, NumberField):
        low, high = _bounds(field)
        top = high if isinstance(high, str) else (_num(high) if high is not None else None)
        if low is None and top is None:
            kind = "number"
        elif low is None:
            kind = f"number up to {top}"
        elif top is None:
            kind = f"number from {_num(low)}"
        elif isinstance(high, str) or low < 0 or (high is not None and high < 0):
            kind = f"number {_num(low)} to {top}"
        else:
            kind = f"number {_num(low)}-{top}"
    elif isinstance(field, ChoiceField):
        kind = "|".join(line_of(c) for c in field.choices)
    elif isinstance(field, BooleanField):
        kind = "true/false"
    else:
        kind = "text"
    meaning = line_of(field.description).strip()
    return f"{field.name} ({kind}: {meaning})" if meanings and meaning else f"{field.name} ({kind})"


def accepted_text(field: AnyField) -> str:
    """What a field accepts, in words for a person: `a number from 0 to hp_max`, `one of: calm,
    tense`, `true or false`, `any text` (the tool's `field_phrase` says it for the model)."""
    if isinstance(field, ChoiceField):
        return "one of: " + ", ".join(line_of(c) for c in field.choices)
    if isinstance(field, BooleanField):
        return "true or false"
    if not isinstance(field, NumberField):
        return "any text"
    low, top = (None if b is None else line_of(b) for b in _bounds(field))
    if low is not None and top is not None:
        return f"a number from {low} to {top}"
    if low is not None:
        return f"a number, at least {low}"
    if top is not None:
        return f"a number, at most {top}"
    return "any number"


def tracker_line(tracker: Tracker, *, meanings: bool = True) -> str:
    """A tracker's line in the tool description: name, layout, every field, then the note."""
    fields = ", ".join(field_phrase(f, meanings=meanings) for f in tracker.fields)
    note = line_of(tracker.body.note).strip()
    line = f"{line_of(tracker.name)} ({tracker.layout}): {fields}."
    return f"{line} {note}" if note else line


def _parameters(trackers: Sequence[Tracker]) -> dict[str, Any]:
    has_list = any(t.layout == "list" for t in trackers)
    item: dict[str, Any] = {
        "type": "object",
        "properties": {
            "tracker": {"type": "string", "enum": [t.name for t in trackers]},
            "set": {
                "type": "object",
                "description": "Field values to write.",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
        },
        "required": ["tracker"],
        "additionalProperties": False,
    }
    if has_list:
        item["properties"]["row"] = {
            "type": "string",
            "description": "The row's name (lists only).",
        }
        item["properties"]["remove"] = {"type": "boolean", "description": "Delete the row."}
    return {
        "type": "object",
        "properties": {"updates": {"type": "array", "items": item}},
        "required": ["updates"],
        "additionalProperties": False,
    }


def update_trackers_tool(
    trackers: Sequence[Tracker], taken: Collection[str] = (), *, meanings: bool = True
) -> ToolDefinition:
    """The `update_trackers` tool for the linked trackers a turn loaded (TR-34..TR-36).

    Args:
        trackers: the linked trackers, in link order.
        taken: tool names already in use in the request (the tool is numbered past them).
        meanings: False leaves the field meanings out (only to measure what they cost).
    """
    lines = [TOOL_SENTENCE, *(tracker_line(t, meanings=meanings) for t in trackers)]
    return ToolDefinition(tool_name(taken), "\n".join(lines), _parameters(trackers))


def _field_schema(field: AnyField) -> dict[str, Any]:
    schema: dict[str, Any]
    if isinstance(field, NumberField):
        schema = {"type": "number"}
        if field.min is not None:
            schema["minimum"] = field.min
        if field.max is not None:
            schema["maximum"] = field.max
    elif isinstance(field, ChoiceField):
        schema = {"type": "string", "enum": list(field.choices)}
    elif isinstance(field, BooleanField):
        schema = {"type": "boolean"}
    else:
        schema = {"type": "string"}
    if field.description:
        schema["description"] = field.description
    return schema


def anyof_parameters(trackers: Sequence[Tracker]) -> ToolDefinition:
    """The alternative design (TR-36): each tracker's fields in the schema, as an anyOf keyed by tracker.

    Only for comparing costs; the description keeps the fixed sentence and each tracker's note.
    """
    variants = []
    for tracker in trackers:
        properties: dict[str, Any] = {
            "tracker": {"const": tracker.name},
            "set": {
                "type": "object",
                "properties": {f.name: _field_schema(f) for f in tracker.fields},
                "additionalProperties": False,
            },
        }
        required = ["tracker"]
        if tracker.layout == "list":
            properties["row"] = {"type": "string"}
            properties["remove"] = {"type": "boolean"}
            required.append("row")
        variants.append(
            {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            }
        )
    notes = [f"{line_of(t.name)}: {line_of(t.body.note)}" for t in trackers if t.body.note]
    parameters = {
        "type": "object",
        "properties": {"updates": {"type": "array", "items": {"anyOf": variants}}},
        "required": ["updates"],
        "additionalProperties": False,
    }
    return ToolDefinition(TOOL_NAME, "\n".join([TOOL_SENTENCE, *notes]), parameters)
