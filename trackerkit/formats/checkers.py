"""Each provider's documented rules for a tool definition, as a checker returning every problem with its path.

- OpenAI Chat Completions, `strict: true`: the name matches `^[a-zA-Z0-9_-]{1,64}$`; the
  description is at most 1,024 characters (longer is refused, `string_above_max_length`); the
  parameters' root is an object, not an `anyOf`; every object has `additionalProperties: false`
  and lists every property in `required` (an optional one is typed with `"null"`); no `allOf`,
  `oneOf`, `not`, `if`/`then`/`else`; at most 10 levels of nesting, 5,000 properties and 1,000
  enum values in all.
- Anthropic Messages: `{name, description, input_schema}` with the name matching
  `^[a-zA-Z0-9_-]{1,64}$` and an `input_schema` whose root is an object.
- Google Gemini: `{"functionDeclarations": [...]}`, each name starting with a letter or `_` and
  then letters, digits, `_`, `.`, `:` or `-`, 64 at most; `parameters` in the OpenAPI 3.0
  subset: no `additionalProperties`, `$ref`/`$defs`, `oneOf`/`allOf`/`not` or `const`, one type
  per schema (`nullable` instead of type arrays), enums of strings only.

A checker never raises on a malformed definition: what it cannot read is a problem too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from trackerkit.errors import Location, Problem
from trackerkit.formats.providers import Provider

__all__ = ["check_anthropic", "check_gemini", "check_openai", "check_provider_tool"]

_OPENAI_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_ANTHROPIC_NAME = _OPENAI_NAME
_GEMINI_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}")
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_GEMINI_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array"})
_OPENAI_FORBIDDEN = ("allOf", "oneOf", "not", "if", "then", "else", "patternProperties")
_GEMINI_FORBIDDEN = ("additionalProperties", "$ref", "$defs", "oneOf", "allOf", "not", "const")
_GEMINI_KEYS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "items", "properties",
        "required", "minItems", "maxItems", "minProperties", "maxProperties", "minLength",
        "maxLength", "pattern", "minimum", "maximum", "anyOf", "propertyOrdering", "default",
        "example",
    }
)  # fmt: skip
_OPENAI_MAX_DEPTH = 10
_OPENAI_MAX_PROPERTIES = 5000
_OPENAI_MAX_ENUM = 1000
_OPENAI_MAX_DESCRIPTION = 1024


def _shown(value: object) -> str:
    """What a checker found in an exported tool, as the JSON it is, cut to 60 characters.

    Not `fields.describe_value` (a tracker value in words): a checker reports on a JSON document
    a provider reads, so the reader sees the JSON itself (`"object"`, `["string", "null"]`).
    """
    text = json.dumps(value, ensure_ascii=False) if _is_json(value) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _is_json(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _join(path: Location, key: str | int) -> Location:
    return (*path, key)


def _schemas(
    schema: object, path: Location, depth: int = 1
) -> Iterator[tuple[Location, dict[str, Any], int]]:
    """Every sub-schema with its path and object nesting depth: properties, items, anyOf branches."""
    if not isinstance(schema, dict):
        return
    yield path, schema, depth
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for key, sub in properties.items():
            yield from _schemas(sub, _join(_join(path, "properties"), key), depth + 1)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _schemas(items, _join(path, "items"), depth)
    for branch_key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(branch_key)
        if isinstance(branches, list):
            for i, sub in enumerate(branches):
                yield from _schemas(sub, _join(_join(path, branch_key), i), depth)


def _types(schema: Mapping[str, Any]) -> list[object]:
    kind = schema.get("type")
    return list(kind) if isinstance(kind, list) else ([] if kind is None else [kind])


def _name_problems(
    tool: Mapping[str, Any], path: Location, pattern: re.Pattern[str], rule: str
) -> list[Problem]:
    name = tool.get("name")
    if not isinstance(name, str) or pattern.fullmatch(name) is None:
        return [Problem(_join(path, "name"), f"must match {rule}; found {_shown(name)}")]
    return []


def _description_problems(tool: Mapping[str, Any], path: Location) -> list[Problem]:
    if "description" in tool and not isinstance(tool["description"], str):
        found = _shown(tool["description"])
        return [Problem(_join(path, "description"), f"must be text; found {found}")]
    return []


def _root_problems(schema: object, path: Location) -> list[Problem]:
    if not isinstance(schema, dict):
        return [Problem(path, f"must be a JSON Schema object; found {_shown(schema)}")]
    problems = []
    if schema.get("type") != "object":
        problems.append(
            Problem(
                path, f'must have type "object" at its root; found {_shown(schema.get("type"))}'
            )
        )
    if "anyOf" in schema:
        problems.append(
            Problem(_join(path, "anyOf"), "is refused at the root; the root must be one object")
        )
    return problems


def check_openai(tool: object) -> list[Problem]:
    """Every way `tool` breaks OpenAI's rules for a strict function tool; empty when it passes."""
    if not isinstance(tool, dict):
        return [Problem((), f"must be an object; found {_shown(tool)}")]
    problems = []
    if tool.get("type") != "function":
        problems.append(Problem(("type",), f'must be "function"; found {_shown(tool.get("type"))}'))
    function = tool.get("function")
    if not isinstance(function, dict):
        return [*problems, Problem(("function",), f"must be an object; found {_shown(function)}")]
    problems += _name_problems(function, ("function",), _OPENAI_NAME, "^[a-zA-Z0-9_-]{1,64}$")
    problems += _description_problems(function, ("function",))
    described = function.get("description")
    if isinstance(described, str) and len(described) > _OPENAI_MAX_DESCRIPTION:
        problems.append(
            Problem(
                ("function", "description"),
                f"is {len(described):,} characters; OpenAI takes at most "
                f"{_OPENAI_MAX_DESCRIPTION:,} (link fewer trackers, or shorten their field meanings)",
            )
        )
    if function.get("strict") is not True:
        found = _shown(function.get("strict"))
        problems.append(
            Problem(("function", "strict"), f"must be true for strict mode; found {found}")
        )
    path: Location = ("function", "parameters")
    parameters = function.get("parameters")
    problems += _root_problems(parameters, path)
    properties = enums = 0
    for where, schema, depth in _schemas(parameters, path):
        problems += _openai_node(where, schema)
        if depth == _OPENAI_MAX_DEPTH + 1:  # named once, where the nesting first goes too deep
            problems.append(
                Problem(
                    where, f"is nested {depth} levels deep; strict mode allows {_OPENAI_MAX_DEPTH}"
                )
            )
        if isinstance(schema.get("properties"), dict):
            properties += len(schema["properties"])
        if isinstance(schema.get("enum"), list):
            enums += len(schema["enum"])
    if properties > _OPENAI_MAX_PROPERTIES:
        problems.append(
            Problem(
                path,
                f"has {properties:,} properties; strict mode allows {_OPENAI_MAX_PROPERTIES:,}",
            )
        )
    if enums > _OPENAI_MAX_ENUM:
        problems.append(
            Problem(path, f"has {enums:,} enum values; strict mode allows {_OPENAI_MAX_ENUM:,}")
        )
    return problems


def _openai_node(where: Location, schema: Mapping[str, Any]) -> list[Problem]:
    problems = [
        Problem(_join(where, key), "is not supported in strict mode")
        for key in _OPENAI_FORBIDDEN
        if key in schema
    ]
    types = _types(schema)
    problems += [
        Problem(_join(where, "type"), f"must be a JSON Schema type; found {_shown(t)}")
        for t in types
        if t not in _JSON_TYPES
    ]
    if "object" in types or isinstance(schema.get("properties"), dict):
        if schema.get("additionalProperties") is not False:
            found = _shown(schema.get("additionalProperties"))
            problems.append(
                Problem(
                    _join(where, "additionalProperties"),
                    f"must be false on every object in strict mode; found {found}",
                )
            )
        names = list(schema.get("properties") or {})
        required = schema.get("required")
        missing = [n for n in names if not isinstance(required, list) or n not in required]
        if missing:
            problems.append(
                Problem(
                    _join(where, "required"),
                    f"must list every property in strict mode (an optional one is typed with "
                    f'"null"); missing {", ".join(missing)}',
                )
            )
    enum = schema.get("enum")
    if isinstance(enum, list) and types:
        if None in enum and "null" not in types:
            problems.append(Problem(_join(where, "enum"), 'holds null but the type has no "null"'))
        if "null" in types and None not in enum:
            problems.append(
                Problem(
                    _join(where, "enum"), 'lacks null, so the "null" in its type can never be sent'
                )
            )
    return problems


def check_anthropic(tool: object) -> list[Problem]:
    """Every way `tool` breaks Anthropic's rules for a Messages tool; empty when it passes."""
    if not isinstance(tool, dict):
        return [Problem((), f"must be an object; found {_shown(tool)}")]
    problems = _name_problems(tool, (), _ANTHROPIC_NAME, "^[a-zA-Z0-9_-]{1,64}$")
    problems += _description_problems(tool, ())
    unknown = sorted(
        str(k) for k in tool if k not in {"name", "description", "input_schema", "cache_control"}
    )
    if unknown:
        problems.append(
            Problem(
                (),
                f"has keys a Messages tool does not take: {', '.join(unknown)} (it takes name, description, input_schema)",
            )
        )
    if "input_schema" not in tool:
        return [
            *problems,
            Problem(("input_schema",), "is missing; a tool needs its JSON Schema here"),
        ]
    problems += _root_problems(tool["input_schema"], ("input_schema",))
    for where, schema, _ in _schemas(tool["input_schema"], ("input_schema",)):
        problems += [
            Problem(_join(where, "type"), f"must be a JSON Schema type; found {_shown(t)}")
            for t in _types(schema)
            if t not in _JSON_TYPES
        ]
    return problems


def check_gemini(tool: object) -> list[Problem]:
    """Every way `tool` breaks Gemini's rules for `functionDeclarations`; empty when it passes."""
    if not isinstance(tool, dict):
        return [Problem((), f"must be an object; found {_shown(tool)}")]
    declarations = tool.get("functionDeclarations")
    if not isinstance(declarations, list) or not declarations:
        found = _shown(declarations)
        return [
            Problem(
                ("functionDeclarations",), f"must be a list of function declarations; found {found}"
            )
        ]
    problems: list[Problem] = []
    for i, declaration in enumerate(declarations):
        path = ("functionDeclarations", i)
        if not isinstance(declaration, dict):
            problems.append(Problem(path, f"must be an object; found {_shown(declaration)}"))
            continue
        rule = "a letter or _, then letters, digits, _ . : or -, 64 at most"
        problems += _name_problems(declaration, path, _GEMINI_NAME, rule)
        problems += _description_problems(declaration, path)
        if "parameters" not in declaration:
            continue
        problems += _root_problems(declaration["parameters"], _join(path, "parameters"))
        for where, schema, _ in _schemas(declaration["parameters"], _join(path, "parameters")):
            problems += _gemini_node(where, schema)
    return problems


def _gemini_node(where: Location, schema: Mapping[str, Any]) -> list[Problem]:
    """One schema object against Gemini's subset: its keys, type, enum, nullable and required."""
    return [
        *_gemini_keys(where, schema),
        *_gemini_type(where, schema),
        *_gemini_enum(where, schema),
        *_gemini_nullable_required(where, schema),
    ]


def _gemini_keys(where: Location, schema: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for key in schema:
        if key in _GEMINI_FORBIDDEN:
            problems.append(
                Problem(_join(where, key), "is not in Gemini's schema subset (OpenAPI 3.0)")
            )
        elif key not in _GEMINI_KEYS:
            problems.append(Problem(_join(where, key), "is not a key of Gemini's schema object"))
    return problems


def _gemini_type(where: Location, schema: Mapping[str, Any]) -> list[Problem]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return [
            Problem(
                _join(where, "type"),
                f"must be one type (use nullable: true for null); found {_shown(kind)}",
            )
        ]
    if kind is not None and (not isinstance(kind, str) or kind.lower() not in _GEMINI_TYPES):
        return [Problem(_join(where, "type"), f"must be an OpenAPI type; found {_shown(kind)}")]
    if kind is None and "anyOf" not in schema:
        return [Problem(where, "has no type")]
    return []


def _gemini_enum(where: Location, schema: Mapping[str, Any]) -> list[Problem]:
    enum, kind = schema.get("enum"), schema.get("type")
    if enum is None:
        return []
    if not isinstance(enum, list) or not all(isinstance(v, str) for v in enum):
        return [Problem(_join(where, "enum"), f"must list strings only; found {_shown(enum)}")]
    if not (isinstance(kind, str) and kind.lower() == "string") and "anyOf" not in schema:
        return [Problem(_join(where, "enum"), f'needs type "string"; found {_shown(kind)}')]
    return []


def _gemini_nullable_required(where: Location, schema: Mapping[str, Any]) -> list[Problem]:
    """`nullable` is a boolean; `required` names only properties that are there."""
    problems = []
    if "nullable" in schema and not isinstance(schema["nullable"], bool):
        problems.append(
            Problem(
                _join(where, "nullable"),
                f"must be true or false; found {_shown(schema['nullable'])}",
            )
        )
    required = schema.get("required")
    properties = schema.get("properties")
    if isinstance(required, list):
        names = properties if isinstance(properties, dict) else {}
        unknown = [str(n) for n in required if n not in names]
        if unknown:
            problems.append(
                Problem(
                    _join(where, "required"),
                    f"names properties that are not there: {', '.join(unknown)}",
                )
            )
    return problems


_CHECKERS: dict[str, Callable[[object], list[Problem]]] = {
    "openai": check_openai,
    "anthropic": check_anthropic,
    "gemini": check_gemini,
}


def check_provider_tool(provider: Provider, tool: object) -> list[Problem]:
    """The checker for `provider` applied to `tool`: every problem, with its path."""
    return _CHECKERS[provider](tool)
