"""The rules across keys of a tracker piece (TR-3..TR-7, TR-9, TR-19), on whatever parsed.

Run on the fields of a document that parsed whole, and, when it did not, on each field as far as
it reads (a field read again without the keys that failed), so one problem hides no other rule
that can still be checked (TR-12). The tops are one pass over their graph: a chain of 10,000
tops is linear, and each loop is reported once, with a bounded description.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from trackerkit.errors import Location, Problem
from trackerkit.fields import (
    KEYS_BY_TYPE,
    NAME_PATTERN,
    ChoiceField,
    NumberField,
    read_fields,
    shown_text,
)
from trackerkit.values import AnyField, refusal

__all__ = ["field_rules", "read_what_parsed"]

_TAGS = frozenset(KEYS_BY_TYPE)

#: How many names of a loop of tops a message shows before it says how many more there are.
_LOOP_SHOWN = 8


def field_rules(
    fields: Sequence[AnyField | None],
    *,
    is_list: bool,
    names: Sequence[str | None] | None = None,
    broken: Sequence[frozenset[str]] | None = None,
) -> list[Problem]:
    """The rules within each field and across fields, in one pass over the fields and their tops.

    Args:
        fields: each field as read; when the document did not parse whole, a field is read with
            the keys that failed left out (see `read_what_parsed`), or None when not even its
            type could be read.
        is_list: the layout is `list` (where `name` is reserved).
        names: each field's name when it is a valid name, else None (default: the fields' own).
        broken: per field, the keys that failed to read, whose rules cannot be checked.
    """
    if names is None:
        names = [f.name if f is not None else None for f in fields]
    problems: list[Problem] = []
    if not fields:
        problems.append(Problem(("body", "fields"), "needs at least one field", "no_fields"))
    first: dict[str, int] = {}
    for k, name in enumerate(names):
        if name is not None and first.setdefault(name, k) != k:
            problems.append(
                Problem(
                    ("body", "fields", k, "name"),
                    f'repeats the name "{name}" of fields[{first[name]}]',
                    "name_repeated",
                    other=("body", "fields", first[name]),
                )
            )
    if is_list and "name" in first:
        problems += [
            Problem(
                ("body", "fields", k, "name"),
                'is reserved on a list: the row name is "name"',
                "name_reserved",
            )
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
                field, ("body", "fields", k), broken[k] if broken is not None else frozenset()
            )
    return problems + _top_problems(fields, names, first)


def _within_field(field: AnyField, path: Location, broken: frozenset[str]) -> list[Problem]:
    problems: list[Problem] = []
    if isinstance(field, ChoiceField) and "choices" not in broken:
        if not field.choices:
            problems.append(Problem((*path, "choices"), "needs at least one choice", "no_choices"))
        seen: set[str] = set()
        for j, choice in enumerate(field.choices):
            if choice in seen:
                problems.append(
                    Problem(
                        (*path, "choices", j),
                        f'repeats the choice "{shown_text(choice, 40)}"',
                        "choice_repeated",
                    )
                )
            seen.add(choice)
    if isinstance(field, NumberField):
        if field.min is not None and field.max is not None and field.min > field.max:
            problems.append(
                Problem(
                    (*path, "min"),
                    f"must be at most max ({field.max}); found {field.min}",
                    "min_above_max",
                )
            )
        if field.max_field is not None and field.max is not None:
            problems.append(
                Problem(
                    (*path, "maxField"),
                    "cannot come with max: a number takes a fixed max or a top field, not both",
                    "max_and_top",
                )
            )
    # A choice field whose choices did not read has nothing to hold its default against.
    if field.default is not None and not (isinstance(field, ChoiceField) and not field.choices):
        reason = refusal(field, field.default)
        if reason is not None:
            problems.append(Problem((*path, "default"), reason, "default_refused"))
    return problems


def _top_problems(
    fields: Sequence[AnyField | None],
    names: Sequence[str | None],
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
        path = ("body", "fields", k, "maxField")
        if top == names[k]:
            problems.append(Problem(path, "cannot name the field itself", "top_itself"))
        elif target is None:
            problems.append(
                Problem(path, f'names "{top}", which is not a field of this tracker', "top_unknown")
            )
        elif found is None:
            continue  # a field whose type did not read: its own problems say why
        else:
            problems.append(
                Problem(
                    path,
                    f'names "{top}", which is a {found.type} field, not a number',
                    "top_not_number",
                    other=("body", "fields", target),
                )
            )
    for loop in _loops(targets):
        shown = [str(names[k]) for k in loop]
        problems.append(
            Problem(("body", "fields", loop[0], "maxField"), _loop_message(shown), "top_loop")
        )
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
