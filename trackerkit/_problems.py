"""What the strict decoder says: the ceilings a hostile file meets, and pydantic's errors in plain words.

The ceilings (TR-11) are checked in one iterative pass over the raw data before any model work,
so a huge or deeply nested file is refused quickly and without recursion. The same pass refuses
what no JSON file in UTF-8 can hold (a key that is not text, a lone surrogate), so no message
ever carries text that cannot be printed. Every problem is a `Problem(where, message, code)` with
a location such as `("body", "fields", 2, "maxField")`, shown as `body.fields[2].maxField` (TR-12).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from trackerkit.errors import Location, Problem
from trackerkit.fields import (
    KEYS_BY_TYPE,
    MAX_SAFE_INTEGER,
    describe_value,
    owner_types,
    shown_text,
)

__all__ = ["MAX_ITEMS", "MAX_TEXT", "ceiling_problems", "plain_problem"]

#: TR-11 ceilings: about a hundred times past real use; not design limits.
MAX_ITEMS = 10_000
MAX_TEXT = 1_000_000
_MAX_DEPTH = 32
_MAX_PROBLEMS = 200
_SURROGATE = re.compile("[\ud800-\udfff]")


# --- ceilings (TR-11): one iterative pass over the raw data, before any model work ---------------


def ceiling_problems(data: object) -> list[Problem]:
    """Every ceiling `data` passes, and every key or text it holds that is not valid text (TR-11)."""
    if _within_ceilings(data):
        return []
    return _ceiling_paths(data)


def _within_ceilings(data: object) -> bool:
    """The fast pass: True when nothing passes a ceiling and every key and text is valid text
    (no paths built, exact types first)."""
    if not isinstance(data, dict | list):
        return _scalar_within(data)
    stack: list[tuple[dict[Any, Any] | list[Any], int]] = [(data, 0)]
    push = stack.append
    while stack:
        container, depth = stack.pop()
        if len(container) > MAX_ITEMS or depth >= _MAX_DEPTH:
            return False
        if type(container) is dict or isinstance(container, dict):
            if not _keys_within(container):
                return False
            items: Any = container.values()
        else:
            items = container
        if not _items_within(items, depth + 1, push):
            return False
    return True


def _keys_within(container: dict[Any, Any]) -> bool:
    """True when every key of `container` is valid text within the ceiling."""
    for key in container:
        if type(key) is not str or len(key) > MAX_TEXT or not _plain_text(key):
            return False
    return True


def _items_within(
    items: Any, depth: int, push: Callable[[tuple[dict[Any, Any] | list[Any], int]], None]
) -> bool:
    """True when every scalar of `items` is within its ceiling; each container is pushed at `depth`."""
    for item in items:
        kind = type(item)
        if kind is str:
            if len(item) > MAX_TEXT or not (item.isascii() or _plain_text(item)):
                return False
        elif kind is int or kind is float:
            if item > MAX_SAFE_INTEGER or item < -MAX_SAFE_INTEGER:
                return False
        elif kind is dict or kind is list or isinstance(item, dict | list):
            push((item, depth))
        elif kind is not bool and item is not None and not _scalar_within(item):
            return False
    return True


def _plain_text(text: str) -> bool:
    """True when `text` can be written as UTF-8: it holds no lone surrogate."""
    return text.isascii() or _SURROGATE.search(text) is None


def _scalar_within(value: object) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_TEXT and _plain_text(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    return True


_Pending = list[tuple[object, Location, int]]


def _ceiling_paths(data: object) -> list[Problem]:
    """The slow pass, run only when the fast one found something: every problem, with its path."""
    problems: list[Problem] = []
    stack: _Pending = [(data, (), 0)]
    while stack and len(problems) < _MAX_PROBLEMS:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            problems += _text_problems(value, path)
        elif isinstance(value, list | dict):
            problems += _container_problems(value, path, depth, stack)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            problems += _number_problems(value, path)
    return problems


def _text_problems(value: str, path: Location) -> list[Problem]:
    problems = []
    if len(value) > MAX_TEXT:
        problems.append(
            Problem(
                path,
                f"is unusually large: a text of {len(value):,} characters passes the ceiling of {MAX_TEXT:,}",
                "too_large",
            )
        )
    if not _plain_text(value):
        problems.append(Problem(path, _not_text(value), "not_text"))
    return problems


def _number_problems(value: int | float, path: Location) -> list[Problem]:
    if isinstance(value, float) and not math.isfinite(value):
        return []  # not a number at all; the model's own check says so in plain words
    if abs(value) > MAX_SAFE_INTEGER:
        return [
            Problem(
                path,
                f"is unusually large: {describe_value(value)} passes the ceiling of 2^53-1",
                "too_large",
            )
        ]
    return []


def _container_problems(
    value: list[Any] | dict[Any, Any], path: Location, depth: int, stack: _Pending
) -> list[Problem]:
    """A list or object's own ceilings; within them, its items are pushed on `stack` to be seen."""
    if len(value) > MAX_ITEMS:
        what = "a list" if isinstance(value, list) else "an object"
        return [
            Problem(
                path,
                f"is unusually large: {what} of {len(value):,} items passes the ceiling of {MAX_ITEMS:,}",
                "too_large",
            )
        ]
    if depth >= _MAX_DEPTH:
        return [Problem(path, f"is unusually deep: nesting passes {_MAX_DEPTH} levels", "too_deep")]
    if isinstance(value, list):
        stack.extend((item, (*path, i), depth + 1) for i, item in enumerate(value))
        return []
    problems = []
    for key, item in value.items():
        problem = _key_problem(key, path)
        if problem is None:
            stack.append((item, (*path, key), depth + 1))
        else:
            problems.append(problem)
    return problems


def _key_problem(key: object, path: Location) -> Problem | None:
    """Why a key of the object at `path` cannot be read as text, or None when it can."""
    if not isinstance(key, str):
        return Problem(path, f"has a key that is not text; found {describe_value(key)}", "not_text")
    if len(key) > MAX_TEXT:
        return Problem(
            path,
            "is unusually large: a key passes the ceiling of 1,000,000 characters",
            "too_large",
        )
    if not _plain_text(key):
        return Problem(path, f"has a key that {_not_text(key)}", "not_text")
    return None


def _not_text(text: str) -> str:
    found = _SURROGATE.search(text)
    assert found is not None
    return (
        f"is not valid text: it holds a lone surrogate (U+{ord(found.group()):04X}) at character "
        f'{found.start()}, which UTF-8 cannot encode; found "{shown_text(text, 40)}"'
    )


# --- pydantic errors in plain words -------------------------------------------------------------

_TAGS = frozenset(KEYS_BY_TYPE)


def _where(loc: tuple[int | str, ...]) -> Location:
    """The document's location from pydantic's: the union's tags and validator steps left out."""
    out: list[int | str] = []
    previous: int | str | None = None
    for part in loc:
        tag = isinstance(previous, int) and part in _TAGS  # the union's tag, no key of the document
        if not tag and part not in ("function-plain", "function-after"):
            out.append(part)
        previous = part
    return tuple(out)


def _lookup(data: object, loc: tuple[int | str, ...]) -> object:
    at = data
    for part in loc:
        if isinstance(at, dict) and isinstance(part, str) and part in at:
            at = at[part]
        elif isinstance(at, list) and isinstance(part, int) and 0 <= part < len(at):
            at = at[part]
    return at


def plain_problem(err: Any, data: object) -> Problem:
    """One of pydantic's errors on the piece `data` as a `Problem`: its location in the document
    (the union's tags left out), a plain sentence, and a code."""
    loc: tuple[int | str, ...] = tuple(err["loc"])
    kind: str = err["type"]
    path = _where(loc)
    found = describe_value(err.get("input"))
    if kind == "missing":
        return Problem(path, "is required", "required")
    if kind == "extra_forbidden":
        key = str(loc[-1])
        owner = _lookup(data, loc[:-1])
        ftype = owner.get("type") if isinstance(owner, dict) else None
        types = owner_types(key)
        if isinstance(ftype, str) and ftype in _TAGS and types:
            return Problem(
                path,
                f"belongs to {' and '.join(types)} fields, not to a {ftype} field",
                "other_type",
            )
        return Problem(path, "is not a known key", "unknown_key")
    if kind == "union_tag_invalid":
        owner = _lookup(data, loc)
        tag = owner.get("type") if isinstance(owner, dict) else None
        return Problem(
            (*path, "type"),
            f"must be one of text, number, boolean, choice; found {describe_value(tag)}",
            "not_one_of",
        )
    if kind == "union_tag_not_found":
        return Problem((*path, "type"), "is required (text, number, boolean or choice)", "required")
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return Problem(path, f"must be one of {expected}; found {found}", "not_one_of")
    messages = {
        "string_type": "must be text",
        "bool_type": "must be true or false",
        "int_type": "must be a whole number",
        "list_type": "must be a list",
        "model_type": "must be an object",
        "dict_type": "must be an object",
        "model_attributes_type": "must be an object",
    }
    if kind in messages:
        return Problem(path, f"{messages[kind]}; found {found}", "wrong_type")
    return Problem(path, str(err["msg"]))
