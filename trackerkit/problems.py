"""What the strict decoder says: the ceilings a hostile file meets, and pydantic's errors in plain words.

The ceilings (TR-11) are checked in one iterative pass over the raw data before any model work,
so a huge or deeply nested file is refused quickly and without recursion. The same pass refuses
what no JSON file in UTF-8 can hold (a key that is not text, a lone surrogate), so no message
ever carries text that cannot be printed. Every problem is a `Problem(path, message)` with a
path such as `body.fields[2].maxField` (TR-12).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import pydantic

from trackerkit.errors import Problem
from trackerkit.fields import (
    KEYS_BY_TYPE,
    MAX_SAFE_INTEGER,
    NAME_PATTERN,
    ChoiceField,
    NumberField,
    describe_value,
    owner_types,
    read_fields,
    shown_text,
)
from trackerkit.values import AnyField, refusal

__all__ = [
    "MAX_ITEMS",
    "MAX_TEXT",
    "ceiling_problems",
    "dedupe",
    "field_rules",
    "plain",
    "read_what_parsed",
]

#: TR-11 ceilings: about a hundred times past real use; not design limits.
MAX_ITEMS = 10_000
MAX_TEXT = 1_000_000
_MAX_DEPTH = 32
_MAX_PROBLEMS = 200
_SURROGATE = re.compile("[\ud800-\udfff]")


# --- ceilings (TR-11): one iterative pass over the raw data, before any model work ---------------


def ceiling_problems(data: object) -> list[Problem]:
    if _within_ceilings(data):
        return []
    return _ceiling_paths(data)


def _within_ceilings(data: object) -> bool:
    """The fast pass: True when nothing passes a ceiling (no paths built, exact types first)."""
    if not isinstance(data, dict | list):
        return _scalar_within(data)
    stack: list[tuple[dict[Any, Any] | list[Any], int]] = [(data, 0)]
    push = stack.append
    while stack:
        container, depth = stack.pop()
        if len(container) > MAX_ITEMS or depth >= _MAX_DEPTH:
            return False
        if type(container) is dict or isinstance(container, dict):
            for key in container:
                if type(key) is not str or len(key) > MAX_TEXT or not _plain_text(key):
                    return False
            items: Any = container.values()
        else:
            items = container
        for item in items:
            kind = type(item)
            if kind is str:
                if len(item) > MAX_TEXT or not (item.isascii() or _plain_text(item)):
                    return False
            elif kind is int or kind is float:
                if item > MAX_SAFE_INTEGER or item < -MAX_SAFE_INTEGER:
                    return False
            elif kind is dict or kind is list or isinstance(item, dict | list):
                push((item, depth + 1))
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


def _ceiling_paths(data: object) -> list[Problem]:
    """The slow pass, run only when the fast one found something: every problem, with its path."""
    problems: list[Problem] = []
    stack: list[tuple[object, str, int]] = [(data, "", 0)]
    while stack and len(problems) < _MAX_PROBLEMS:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                problems.append(
                    Problem(
                        path,
                        f"is unusually large: a text of {len(value):,} characters passes the ceiling of {MAX_TEXT:,}",
                    )
                )
            if not _plain_text(value):
                problems.append(Problem(path, _not_text(value)))
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, float) and not math.isfinite(value):
            continue  # not a number at all; the model's own check says so in plain words
        elif isinstance(value, int | float):
            if abs(value) > MAX_SAFE_INTEGER:
                problems.append(
                    Problem(
                        path,
                        f"is unusually large: {describe_value(value)} passes the ceiling of 2^53-1",
                    )
                )
        elif isinstance(value, list | dict):
            if len(value) > MAX_ITEMS:
                what = "a list" if isinstance(value, list) else "an object"
                problems.append(
                    Problem(
                        path,
                        f"is unusually large: {what} of {len(value):,} items passes the ceiling of {MAX_ITEMS:,}",
                    )
                )
                continue
            if depth >= _MAX_DEPTH:
                problems.append(
                    Problem(path, f"is unusually deep: nesting passes {_MAX_DEPTH} levels")
                )
                continue
            if isinstance(value, list):
                stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))
            else:
                for key, item in value.items():
                    if not isinstance(key, str):
                        problems.append(
                            Problem(
                                path, f"has a key that is not text; found {describe_value(key)}"
                            )
                        )
                        continue
                    if len(key) > MAX_TEXT:
                        problems.append(
                            Problem(
                                path,
                                "is unusually large: a key passes the ceiling of 1,000,000 characters",
                            )
                        )
                        continue
                    if not _plain_text(key):
                        problems.append(Problem(path, f"has a key that {_not_text(key)}"))
                        continue
                    stack.append((item, f"{path}.{key}" if path else key, depth + 1))
    return problems


def _not_text(text: str) -> str:
    found = _SURROGATE.search(text)
    assert found is not None
    return (
        f"is not valid text: it holds a lone surrogate (U+{ord(found.group()):04X}) at character "
        f'{found.start()}, which UTF-8 cannot encode; found "{shown_text(text, 40)}"'
    )


# --- pydantic errors in plain words -------------------------------------------------------------

_TAGS = frozenset(KEYS_BY_TYPE)


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    previous: int | str | None = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(previous, int) and part in _TAGS:
            pass  # the discriminated union's tag, not a key of the document
        elif part in ("function-plain", "function-after"):
            pass
        else:
            out += f".{part}" if out else part
        previous = part
    return out


def _lookup(data: object, loc: tuple[int | str, ...]) -> object:
    at = data
    for part in loc:
        if isinstance(at, dict) and isinstance(part, str) and part in at:
            at = at[part]
        elif isinstance(at, list) and isinstance(part, int) and 0 <= part < len(at):
            at = at[part]
    return at


def plain(err: Any, data: object) -> Problem:
    loc: tuple[int | str, ...] = tuple(err["loc"])
    kind: str = err["type"]
    path = _path(loc)
    found = describe_value(err.get("input"))
    if kind == "missing":
        return Problem(path, "is required")
    if kind == "extra_forbidden":
        key = str(loc[-1])
        owner = _lookup(data, loc[:-1])
        ftype = owner.get("type") if isinstance(owner, dict) else None
        types = owner_types(key)
        if isinstance(ftype, str) and ftype in _TAGS and types:
            return Problem(path, f"belongs to {' and '.join(types)} fields, not to a {ftype} field")
        return Problem(path, "is not a known key")
    if kind == "union_tag_invalid":
        owner = _lookup(data, loc)
        tag = owner.get("type") if isinstance(owner, dict) else None
        return Problem(
            path + ".type",
            f"must be one of text, number, boolean, choice; found {describe_value(tag)}",
        )
    if kind == "union_tag_not_found":
        return Problem(path + ".type", "is required (text, number, boolean or choice)")
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return Problem(path, f"must be one of {expected}; found {found}")
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
        return Problem(path, f"{messages[kind]}; found {found}")
    return Problem(path, str(err["msg"]))


def dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


# --- rules across keys (TR-3..TR-7, TR-9, TR-19): every rule that can still be checked ----------

#: How many names of a loop of tops a message shows before it says how many more there are.
_LOOP_SHOWN = 8


def field_rules(
    fields: Sequence[AnyField | None],
    *,
    is_list: bool,
    names: Sequence[str | None] | None = None,
    positions: Sequence[int] | None = None,
    broken: Sequence[frozenset[str]] | None = None,
) -> list[Problem]:
    """The rules within each field and across fields, in one pass over the fields and their tops.

    Args:
        fields: each field as read; when the document did not parse whole, a field is read with
            the keys that failed left out (see `read_what_parsed`), or None when not even its
            type could be read.
        is_list: the layout is `list` (where `name` is reserved).
        names: each field's name when it is a valid name, else None (default: the fields' own).
        positions: each field's index in the document (default: 0, 1, 2, ...).
        broken: per field, the keys that failed to read, whose rules cannot be checked.
    """
    at = positions if positions is not None else range(len(fields))
    if names is None:
        names = [f.name if f is not None else None for f in fields]
    problems: list[Problem] = []
    if not fields:
        problems.append(Problem("body.fields", "needs at least one field"))
    first: dict[str, int] = {}
    for k, name in enumerate(names):
        if name is not None and first.setdefault(name, k) != k:
            problems.append(
                Problem(
                    f"body.fields[{at[k]}].name",
                    f'repeats the name "{name}" of fields[{at[first[name]]}]',
                )
            )
    if is_list and "name" in first:
        problems += [
            Problem(f"body.fields[{at[k]}].name", 'is reserved on a list: the row name is "name"')
            for k, name in enumerate(names)
            if name == "name"
        ]
    for k, field in enumerate(fields):
        # Only these can break a rule within the field; skipping the rest keeps 10,000 fields quick.
        if field is not None and (
            field.default is not None
            or isinstance(field, ChoiceField)
            or (isinstance(field, NumberField) and field.max is not None)
        ):
            problems += _within_field(
                field, f"body.fields[{at[k]}]", broken[k] if broken is not None else frozenset()
            )
    return problems + _top_problems(fields, names, at, first)


def _within_field(field: AnyField, path: str, broken: frozenset[str]) -> list[Problem]:
    problems: list[Problem] = []
    if isinstance(field, ChoiceField) and "choices" not in broken:
        if not field.choices:
            problems.append(Problem(f"{path}.choices", "needs at least one choice"))
        seen: set[str] = set()
        for j, choice in enumerate(field.choices):
            if choice in seen:
                problems.append(
                    Problem(
                        f"{path}.choices[{j}]", f'repeats the choice "{shown_text(choice, 40)}"'
                    )
                )
            seen.add(choice)
    if isinstance(field, NumberField):
        if field.min is not None and field.max is not None and field.min > field.max:
            problems.append(
                Problem(f"{path}.min", f"must be at most max ({field.max}); found {field.min}")
            )
        if field.max_field is not None and field.max is not None:
            problems.append(
                Problem(
                    f"{path}.maxField",
                    "cannot come with max: a number takes a fixed max or a top field, not both",
                )
            )
    # A choice field whose choices did not read has nothing to hold its default against.
    if field.default is not None and not (isinstance(field, ChoiceField) and not field.choices):
        reason = refusal(field, field.default)
        if reason is not None:
            problems.append(Problem(f"{path}.default", reason))
    return problems


def _top_problems(
    fields: Sequence[AnyField | None],
    names: Sequence[str | None],
    at: Sequence[int],
    first: dict[str, int],
) -> list[Problem]:
    """TR-5: each top names another number field; the tops make no loop (one pass, each loop once)."""
    problems: list[Problem] = []
    tops = [f.max_field if type(f) is NumberField else None for f in fields]
    targets: list[int | None] = [None if top is None else first.get(top) for top in tops]
    for k, top in enumerate(tops):
        if top is None:
            continue
        target = targets[k]
        found = fields[target] if target is not None else None
        if type(found) is NumberField and top != names[k]:
            continue  # the usual case: another number field
        targets[k] = None
        path = f"body.fields[{at[k]}].maxField"
        if top == names[k]:
            problems.append(Problem(path, "cannot name the field itself"))
        elif target is None:
            problems.append(Problem(path, f'names "{top}", which is not a field of this tracker'))
        elif found is None:
            continue  # a field whose type did not read: its own problems say why
        else:
            problems.append(
                Problem(path, f'names "{top}", which is a {found.type} field, not a number')
            )
    for loop in _loops(targets):
        shown = [str(names[k]) for k in loop]
        problems.append(Problem(f"body.fields[{at[loop[0]]}].maxField", _loop_message(shown)))
    return problems


def _loops(targets: Sequence[int | None]) -> list[list[int]]:
    """Each loop of a graph where every node has at most one edge, once, from its lowest node.

    One walk per node that is not yet done, each node walked once: linear in the nodes.
    """
    state = bytearray(len(targets))  # 0 not seen, 1 on the current walk, 2 done
    loops: list[list[int]] = []
    for start, edge in enumerate(targets):
        if edge is None or state[start]:
            continue
        walk: list[int] = []
        node: int | None = start
        while node is not None and state[node] == 0:
            state[node] = 1
            walk.append(node)
            node = targets[node]
        if node is not None and state[node] == 1:
            loop = walk[walk.index(node) :]
            low = loop.index(min(loop))
            loops.append(loop[low:] + loop[:low])
        for done in walk:
            state[done] = 2
    return sorted(loops)


def _loop_message(names: list[str]) -> str:
    """`makes a loop of tops: a -> b -> a`, the middle of a long loop counted, not listed."""
    if len(names) <= _LOOP_SHOWN:
        return "makes a loop of tops: " + " -> ".join([*names, names[0]])
    shown = " -> ".join(names[:_LOOP_SHOWN])
    more = len(names) - _LOOP_SHOWN
    return f"makes a loop of {len(names):,} tops: {shown} -> … and {more:,} more -> {names[0]}"


def read_what_parsed(
    raw: list[Any], errors: list[Any]
) -> tuple[list[AnyField | None], list[str | None], list[frozenset[str]]]:
    """Each raw field as far as it reads, so the rules that do not need a broken key still run.

    A field whose keys failed is read again without them (a failed name or description replaced
    by a stand-in, failed choices by none); one whose type, or whose whole shape, failed is None.

    Args:
        raw: the document's `body.fields`.
        errors: pydantic's errors for the whole document (located from the root).
    Returns:
        The fields as read, each field's name when it is a valid name (else None), and each
        field's keys that failed.
    """
    failed: dict[int, set[str]] = {}
    unreadable: set[int] = set()
    for err in errors:
        loc = tuple(err["loc"])
        if len(loc) < 3 or loc[:2] != ("body", "fields") or not isinstance(loc[2], int):
            continue
        if len(loc) >= 5 and loc[3] in _TAGS and isinstance(loc[4], str):
            failed.setdefault(loc[2], set()).add(loc[4])
        else:
            unreadable.add(loc[2])
    names: list[str | None] = []
    broken: list[frozenset[str]] = []
    docs: list[Any] = []
    for i, item in enumerate(raw):
        name = item.get("name") if isinstance(item, dict) else None
        keys = frozenset(failed.get(i, ()))
        valid = isinstance(name, str) and NAME_PATTERN.fullmatch(name) is not None
        names.append(name if valid else None)
        broken.append(keys)
        if i in unreadable or not isinstance(item, dict):
            docs.append(None)
        elif keys:
            docs.append(_without(item, keys))
        else:
            docs.append(item)
    return _read_each(docs), names, broken


def _without(field: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """The field without the keys that failed, stand-ins where a key is required."""
    kept = {k: v for k, v in field.items() if k not in keys}
    if "name" in keys:
        kept["name"] = "stand_in"  # its rules run by the names list, never by this one
    if "description" in keys:
        kept["description"] = ""
    if "choices" in keys and field.get("type") == "choice":  # on another type it is just extra
        kept["choices"] = []
    return kept


def _read_each(docs: list[Any]) -> list[AnyField | None]:
    """Read the fields that can be read in one call (one call per field made 10,000 slow)."""
    out: list[AnyField | None] = [None] * len(docs)
    todo = [i for i, doc in enumerate(docs) if doc is not None]
    while todo:
        try:
            read = read_fields([docs[i] for i in todo])
        except pydantic.ValidationError as exc:
            # A field that still fails without its failed keys is left out; read the rest again.
            bad = {todo[int(err["loc"][0])] for err in exc.errors() if err["loc"]}
            todo = [i for i in todo if i not in bad] if bad else []
            continue
        for i, field in zip(todo, read, strict=True):
            out[i] = field
        break
    return out
