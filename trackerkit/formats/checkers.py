"""Each provider's documented rules for a tool definition, as a checker returning every problem with its path.

- OpenAI Chat Completions, `strict: true`: the name matches `^[a-zA-Z0-9_-]{1,64}$`; the
  parameters' root is an object, not an `anyOf`; every object has `additionalProperties: false`
  and lists every property in `required` (an optional one is typed with `"null"`); no `allOf`,
  `oneOf`, `not`, `if`/`then`/`else`; at most 10 levels of nesting, 5,000 properties and 1,000
  enum values in all. A description over 1,024 characters is a warning, not a refusal: OpenAI
  has refused such tools (400 `string_above_max_length`, 2025), and newer models are reported
  to take them (llama_index PR #18784, May 2025), so the tool may be refused, not surely.
- Anthropic Messages: `{name, description, input_schema}` with the name matching
  `^[a-zA-Z0-9_-]{1,64}$` and an `input_schema` whose root is an object.
- Google Gemini: `{"functionDeclarations": [...]}`, each name starting with a letter or `_` and
  then letters, digits, `_`, `.`, `:` or `-`, 64 at most; `parameters` in the OpenAPI 3.0
  subset: no `additionalProperties`, `$ref`/`$defs`, `oneOf`/`allOf`/`not` or `const`, one type
  per schema (`nullable` instead of type arrays), enums of strings only.

Each problem is a refusal by a documented rule, except one whose code is `MAY_REFUSE`
(`is_warning`): a limit a provider has enforced and may have lifted. `tool_verdict` and
`problem_lines` put both in words, one way for the designer's rail and for `export`.

A checker never raises on a malformed definition: what it cannot read is a problem too (a type
written as a list or an object, a property list where an object belongs). It walks at most
20,000 sub-schemas and 200 levels of them, and says so where it stopped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from trackerkit.errors import Location, Problem
from trackerkit.formats.providers import Provider, _known_provider

__all__ = [
    "MAY_REFUSE",
    "check_anthropic",
    "check_gemini",
    "check_openai",
    "check_provider_tool",
    "is_warning",
    "problem_lines",
    "tool_verdict",
]

#: The code of a problem that is a warning, not a refusal: a limit the provider has enforced
#: and may since have lifted, so the tool may be refused.
MAY_REFUSE = "may_refuse"

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
#: A walk past this many sub-schemas, or this many levels of them, stops with a problem (no
#: real tool is near either; OpenAI allows 5,000 properties and 10 levels).
_MAX_SCHEMAS = 20_000
_MAX_NESTING = 200
_Node = tuple[Location, dict[str, Any], int]


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
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _join(path: Location, key: str | int) -> Location:
    return (*path, key)


def _schemas(schema: object, path: Location) -> tuple[list[_Node], Problem | None]:
    """Every sub-schema with its path and object nesting depth (properties, items, anyOf, oneOf
    and allOf branches, in that order, each before its own), and the problem that stopped the
    walk, if one did.

    Walked with a list, not by recursion, so deep nesting cannot run out of stack; it stops past
    `_MAX_SCHEMAS` schemas or `_MAX_NESTING` levels of them, which also ends the walk of a
    structure that refers to itself.
    """
    found: list[_Node] = []
    stack: list[tuple[Location, object, int, int]] = [(path, schema, 1, 1)]
    while stack:
        where, node, depth, level = stack.pop()
        if not isinstance(node, dict):
            continue
        if len(found) == _MAX_SCHEMAS:
            return found, Problem(
                path, f"holds more than {_MAX_SCHEMAS:,} schemas; trackerkit checks no further"
            )
        if level > _MAX_NESTING:
            return found, Problem(
                where, f"is nested past {_MAX_NESTING} schemas; trackerkit checks no further"
            )
        found.append((where, node, depth))
        below: list[tuple[Location, object, int, int]] = []
        properties = node.get("properties")
        if isinstance(properties, dict):
            below += [
                (_join(_join(where, "properties"), _part(key)), sub, depth + 1, level + 1)
                for key, sub in properties.items()
            ]
        items = node.get("items")
        if isinstance(items, dict):
            below.append((_join(where, "items"), items, depth, level + 1))
        for branch_key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(branch_key)
            if isinstance(branches, list):
                below += [
                    (_join(_join(where, branch_key), i), sub, depth, level + 1)
                    for i, sub in enumerate(branches)
                ]
        stack += reversed(below)
    return found, None


def _part(key: object) -> str | int:
    """A key as a path part: JSON keys are text; a Python caller's other keys are shown as text."""
    return key if isinstance(key, str | int) and not isinstance(key, bool) else str(key)


def _is_type(kind: object, names: frozenset[str]) -> bool:
    """Whether `kind` is one of `names`; a list or object written as a type is not (and does not
    make the test raise, as a set lookup of an unhashable value would)."""
    return isinstance(kind, str) and kind in names


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
                f"is {len(described):,} characters; OpenAI has refused tool descriptions over "
                f"{_OPENAI_MAX_DESCRIPTION:,} characters (string_above_max_length); newer models "
                "may take it (to be safe, link fewer trackers or shorten their field meanings)",
                MAY_REFUSE,
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
    nodes, stopped = _schemas(parameters, path)
    problems += [stopped] if stopped else []
    for where, schema, depth in nodes:
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
        if not _is_type(t, _JSON_TYPES)
    ]
    if "properties" in schema and not isinstance(schema["properties"], dict):
        found = _shown(schema["properties"])
        problems.append(
            Problem(_join(where, "properties"), f"must be an object of schemas; found {found}")
        )
    if "object" in types or isinstance(schema.get("properties"), dict):
        if schema.get("additionalProperties") is not False:
            found = _shown(schema.get("additionalProperties"))
            problems.append(
                Problem(
                    _join(where, "additionalProperties"),
                    f"must be false on every object in strict mode; found {found}",
                )
            )
        properties = schema.get("properties")
        names = [str(n) for n in properties] if isinstance(properties, dict) else []
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
    nodes, stopped = _schemas(tool["input_schema"], ("input_schema",))
    problems += [stopped] if stopped else []
    for where, schema, _ in nodes:
        problems += [
            Problem(_join(where, "type"), f"must be a JSON Schema type; found {_shown(t)}")
            for t in _types(schema)
            if not _is_type(t, _JSON_TYPES)
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
        where = _join(path, "parameters")
        problems += _root_problems(declaration["parameters"], where)
        nodes, stopped = _schemas(declaration["parameters"], where)
        problems += [stopped] if stopped else []
        problems += [p for at, schema, _ in nodes for p in _gemini_node(at, schema)]
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
                Problem(_join(where, _part(key)), "is not in Gemini's schema subset (OpenAPI 3.0)")
            )
        elif key not in _GEMINI_KEYS:
            problems.append(
                Problem(_join(where, _part(key)), "is not a key of Gemini's schema object")
            )
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
        unknown = [str(n) for n in required if not isinstance(n, str) or n not in names]
        if unknown:
            problems.append(
                Problem(
                    _join(where, "required"),
                    f"names properties that are not there: {', '.join(unknown)}",
                )
            )
    return problems


_CHECKERS: dict[Provider, Callable[[object], list[Problem]]] = {
    "openai": check_openai,
    "anthropic": check_anthropic,
    "gemini": check_gemini,
}


def check_provider_tool(provider: Provider, tool: object) -> list[Problem]:
    """The checker for `provider` applied to `tool`: every problem, with its path.

    `tool` is one tool (what `provider_tool` returns) or the provider's `tools` list that
    `trackerkit export --to PROVIDER` writes: each tool in the list is checked, and its
    problems' paths start with its index (`[0].function.name`). An empty list is a problem.

    Raises:
        BadRequestError: `provider` is not `openai`, `anthropic` or `gemini` (`OpenAI` neither).
    """
    check = _CHECKERS[_known_provider(provider)]
    if not isinstance(tool, list):
        return check(tool)
    if not tool:
        return [Problem((), "must list at least one tool; found []")]
    return [_at_index(i, p) for i, one in enumerate(tool) for p in check(one)]


def _at_index(index: int, problem: Problem) -> Problem:
    """`problem` of one tool, placed under its index in the `tools` list."""
    other = None if problem.other is None else (index, *problem.other)
    return Problem((index, *problem.where), problem.message, problem.code, other)


def is_warning(problem: Problem) -> bool:
    """Whether `problem` says the tool may be refused (`MAY_REFUSE`), not that it will be."""
    return problem.code == MAY_REFUSE


def tool_verdict(name: str, refusals: int, warnings: int = 0) -> str:
    """What provider `name` makes of a tool with that many problems of each kind, in words.

    `OpenAI takes it`, `OpenAI may refuse it (1 warning)`, `OpenAI would refuse it (2 problems)`
    or `OpenAI would refuse it (1 problem, 1 warning)`.
    """
    counts = ", ".join(
        f"{n} {word}{'' if n == 1 else 's'}"
        for n, word in ((refusals, "problem"), (warnings, "warning"))
        if n
    )
    if refusals:
        return f"{name} would refuse it ({counts})"
    if warnings:
        return f"{name} may refuse it ({counts})"
    return f"{name} takes it"


def problem_lines(name: str, problems: Sequence[Problem]) -> list[str]:
    """Each problem as a line for a person: `{name} would refuse this tool: ...`, or for a
    warning `warning: {name} may refuse this tool: ...`."""
    return [
        f"warning: {name} may refuse this tool: {p}"
        if is_warning(p)
        else f"{name} would refuse this tool: {p}"
        for p in problems
    ]
