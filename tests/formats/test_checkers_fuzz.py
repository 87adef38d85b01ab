"""A provider checker answers any input with a list of problems, never an exception.

Hypothesis puts arbitrary JSON at every position of a real export (each value replaced, or a key
added beside the others) and at the root, and every checker reads every result.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit import decode_tracker
from trackerkit.errors import Problem
from trackerkit.formats.checkers import check_provider_tool
from trackerkit.formats.providers import PROVIDERS, provider_tool

DATA = Path(__file__).resolve().parents[2] / "data" / "trackers"
BUNDLED = [decode_tracker(json.loads(p.read_text())) for p in sorted(DATA.glob("*.json"))]
#: Each provider's export of every bundled tracker together: every key a checker reads is there.
EXPORTS = {provider: provider_tool(provider, BUNDLED) for provider in PROVIDERS}

_KEYS = st.sampled_from(
    [
        "type", "function", "name", "description", "strict", "parameters", "input_schema",
        "functionDeclarations", "properties", "items", "anyOf", "oneOf", "allOf", "required",
        "additionalProperties", "enum", "nullable", "const", "$ref", "x",
    ]
)  # fmt: skip
JSON: st.SearchStrategy[object] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(["object", "string", "null", "array", "function"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_KEYS | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def _positions(node: object, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path in a JSON document, the root first."""
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _positions(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _positions(value, (*path, i))
    return found


POSITIONS = {provider: _positions(tool) for provider, tool in EXPORTS.items()}


def _answers(tool: object) -> None:
    """Every checker reads `tool` and answers with a list of problems."""
    for provider in PROVIDERS:
        answer = check_provider_tool(provider, tool)
        assert isinstance(answer, list)
        assert all(isinstance(p, Problem) and isinstance(p.message, str) for p in answer)
        assert all(isinstance(p.path, str) for p in answer)


@pytest.mark.parametrize(
    ("provider", "tool"),
    [
        ("openai", {"type": "function", "function": {"name": "f", "parameters": {"type": [["object"]]}}}),
        ("anthropic", {"name": "f", "input_schema": {"type": [{}]}}),
        ("gemini", {"functionDeclarations": [{"name": "f", "parameters": {"type": "object", "required": [[1]]}}]}),
        ("openai", {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": [1, {}]}}}),
        ("openai", {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {1: {}}}}}),
    ],
    ids=["openai-type-list", "anthropic-type-object", "gemini-required-list", "openai-properties-list", "openai-number-key"],
)  # fmt: skip
def test_what_the_testers_found_is_problems(provider: str, tool: object) -> None:
    """A type or a name that cannot be hashed or joined is a problem, not a TypeError."""
    problems = check_provider_tool(provider, tool)  # type: ignore[arg-type]
    assert problems != []
    _answers(tool)


def test_deep_nesting_is_problems() -> None:
    """A schema nested thousands of levels deep is read without running out of stack, and says
    where the checker stopped."""
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(1500):
        schema = {"type": "object", "properties": {"a": schema}, "anyOf": [{"type": "null"}]}
        schema = {"type": "array", "items": schema}
    deep: object = schema
    for _ in range(3000):
        deep = [deep]
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": schema, "strict": deep}},
        {"name": "f", "input_schema": schema, "description": deep},
        {"functionDeclarations": [{"name": deep, "parameters": schema}]},
    ]
    for tool in tools:
        _answers(tool)
    for provider, tool in zip(PROVIDERS, tools, strict=True):
        assert any(
            p.message == "is nested past 200 schemas; trackerkit checks no further"
            for p in check_provider_tool(provider, tool)
        )


def test_a_schema_that_holds_itself_is_problems() -> None:
    """A Python schema that refers to itself (twice over, so its walk branches) ends the walk
    with a problem, not a hang."""
    schema: dict[str, Any] = {"type": "object", "additionalProperties": False}
    schema["properties"] = {"again": schema, "and": schema}
    schema["required"] = ["again"]
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": schema, "strict": True}},
        {"name": "f", "input_schema": schema},
        {"functionDeclarations": [{"name": "f", "parameters": schema}]},
    ]
    for provider, tool in zip(PROVIDERS, tools, strict=True):
        assert any(
            p.message.endswith("; trackerkit checks no further")
            for p in check_provider_tool(provider, tool)
        )


def test_a_schema_too_wide_to_walk_is_a_problem() -> None:
    """Past 20,000 schemas the walk stops and says so, at the parameters' root."""
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(20_001)}}
    problems = check_provider_tool("anthropic", {"name": "f", "input_schema": schema})
    assert [(p.path, p.message) for p in problems] == [
        ("input_schema", "holds more than 20,000 schemas; trackerkit checks no further")
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON)
def test_any_json_at_the_root(tool: object) -> None:
    """Any JSON document at all is answered."""
    _answers(tool)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PROVIDERS), st.data())
def test_any_json_in_every_position(provider: str, data: st.DataObject) -> None:
    """A real export with arbitrary JSON put in place of any one value, or beside it as a new key."""
    tool = copy.deepcopy(EXPORTS[provider])
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        path = data.draw(st.sampled_from(_positions(tool)), label="path")
        value = data.draw(JSON, label="value")
        if not path:
            tool = value
            continue
        parent: Any = tool
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, dict) and data.draw(st.booleans(), label="add a key"):
            parent[data.draw(_KEYS, label="key")] = value
        else:
            parent[path[-1]] = value
    _answers(tool)
