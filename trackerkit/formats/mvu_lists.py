"""MVU lists as list trackers: an extensible object or array, or a locked list of named objects.

A `$meta.template` gives the list its columns; a key a starting entry holds that the template
lacks is read from the entries as it would be without a template, a column reported as guessed
(`read from the rows, not in the template: row "Bob" holds it`), or, when no column can hold it
(an object), an unmapped line naming the key and the rows holding it. A column its starting
entries agree on starts there (guessed), and each entry is reported as a row, since a tracker
starts with no rows. A row is named by its name key (`name`, `名称`, ...); a name that is a
number names it by its text (`2` -> "2", guessed), and a row with no name that is a text or a
number (null) is reported and left out, the other rows and the columns kept.
"""

from __future__ import annotations

from typing import Any

from trackerkit.fields import describe_value
from trackerkit.formats.imported import Builder, TrackerDraft
from trackerkit.formats.leaves import NAME_KEYS, Leaf, leaf, number, plain_text, quoted, rows_named
from trackerkit.formats.mvu_leaves import (
    EXTENSIBLE_MARK,
    is_value_form,
    leaf_field,
    report_meta,
    split_leaf,
)

__all__ = ["keyed_list", "rows_of_objects"]


def rows_of_objects(builder: Builder, name: str, where: str, items: list[Any]) -> None:
    """A locked list of objects as a list tracker keyed by their name key, or an unmapped line
    when they have none."""
    rows = [i for i in items if isinstance(i, dict)]
    key = _name_key(rows)
    if key is None or len(rows) != len(items):
        builder.unmapped(
            where,
            "a locked list of objects or lists with no name key (name, 名称, title, id) to key "
            "rows by; mark it extensible or give each item a name",
        )
        return
    draft = builder.tracker(name, "list", f"MVU list {quoted(name)}", where)
    _named_rows(builder, draft, where, list(enumerate(items)), key)


def _name_key(rows: list[dict[str, Any]]) -> str | None:
    """The key that names the rows: the first of `NAME_KEYS` every row holds as a text, else
    every row as a text or a number, else some row so (a row it cannot name is left out)."""
    for usable, every in ((_is_text_name, True), (_is_name, True), (_is_name, False)):
        for key in NAME_KEYS:
            held = [usable(r.get(key)) for r in rows]
            if held and (all(held) if every else any(held)):
                return key
    return None


def _is_text_name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_name(value: object) -> bool:
    """Whether a row can be named by `value`: a text, or a number (by its text, guessed)."""
    return _is_text_name(value) or number(value) is not None


def _named_rows(
    builder: Builder, draft: TrackerDraft, where: str, items: list[tuple[int, Any]], key: str
) -> None:
    """A list's columns and starting rows from its items (each with its place in the list),
    each object named by its `key`, a plain item by itself.

    A name that is a number names its row by its text (`2` -> "2"), on a guessed line; an item
    with no name that is a text or a number (null, an empty text, a list) is reported and left
    out, and the other rows and their columns are kept.
    """
    rows: list[tuple[str, dict[str, Any]]] = []
    for index, item in items:
        held = item.get(key) if isinstance(item, dict) else item
        if not _is_name(held):
            whose = f"whose {key} is" if isinstance(item, dict) else "that is"
            found = (
                "missing" if isinstance(item, dict) and key not in item else describe_value(held)
            )
            builder.unmapped(
                f"{where}[{index}]",
                f"a row {whose} {found}, not a text or a number: a row needs a name, so this "
                "one is left out",
            )
            continue
        row = plain_text(held)
        if not isinstance(held, str):
            builder.line(
                "guessed",
                f"{where}[{index}]" + (f".{key}" if isinstance(item, dict) else ""),
                draft.name,
                f"row {quoted(row, 40)}: its name is the number {row}, read as its text",
            )
        rows.append((row, _without(item, key) if isinstance(item, dict) else {}))
    _columns(builder, draft, where, rows, None)
    draft.starting_rows(where, [(row, _row(values, None)) for row, values in rows])


def keyed_list(builder: Builder, name: str, where: str, container: object) -> None:
    """An extensible object or array as a list tracker: its columns and its starting rows."""
    draft = builder.tracker(name, "list", f"MVU extensible {quoted(name)}", where)
    if isinstance(container, dict):
        meta = container.get("$meta")
        template = meta.get("template") if isinstance(meta, dict) else None
        entries = {k: v for k, v in container.items() if k != "$meta"}
        report_meta(builder, f"{where}.$meta", meta, quoted(name))
        plain = _columns(builder, draft, where, list(entries.items()), template)
        draft.starting_rows(
            where,
            [
                (k, _row(v, None) if _is_row(v) else {plain: split_leaf(v)[0]} if plain else {})
                for k, v in entries.items()
            ],
        )
        return
    assert isinstance(container, list)
    items = [(i, v) for i, v in enumerate(container) if v != EXTENSIBLE_MARK]
    key = _name_key([v for _, v in items if isinstance(v, dict)])
    if key is not None:
        _named_rows(builder, draft, where, items, key)
        return
    draft.add(
        where,
        "detail",
        {"type": "text"},
        text=f"about each entry of {name}",
        detail="text, guessed: an extensible array of plain items is keyed by the item; a text "
        "column was added because a row needs a field",
        guessed=True,
    )
    for index, item in items:
        if isinstance(item, dict | list):
            builder.unmapped(
                f"{where}[{index}]",
                f"{describe_value(item)} among plain items, with no name key (name, 名称, title, "
                "id) to key it by: left out",
            )
    draft.starting_rows(
        where, [(plain_text(i), {}) for _, i in items if not isinstance(i, dict | list)]
    )


def _without(row: dict[str, Any], key: str) -> dict[str, Any]:
    """A row's values without its name key."""
    return {k: v for k, v in row.items() if k != key}


def _is_row(value: object) -> bool:
    return isinstance(value, dict) and not is_value_form(value)


def _row(row: object, key: str | None) -> dict[str, object]:
    """A starting row's values by column key (each leaf's value, its meaning left aside)."""
    if not isinstance(row, dict):
        return {}
    return {k: split_leaf(v)[0] for k, v in row.items() if k != key and k != "$meta"}


def _columns(
    builder: Builder,
    draft: TrackerDraft,
    where: str,
    rows: list[tuple[str, Any]],
    template: object,
) -> str | None:
    """Columns from a `$meta.template`, then from the starting rows (each key's first value).

    A key the template lacks is read from the rows as it is without a template, and said to be
    not in the template, naming the rows that hold it; a template that gives no column leaves
    every key to the rows.

    Args:
        rows: each starting row's name and its value (an object of fields, or a plain value).
    Returns:
        The key of the column made for entries that are plain values (`quantity` or `value`),
        or None.
    """
    templated: frozenset[str] = frozenset()
    if isinstance(template, dict):
        for key, value in template.items():
            leaf_field(
                builder, draft, f"{where}.$meta.template.{key}", key, value, "; from the template"
            )
        if draft.fields:
            templated = frozenset(template)
    shapes: dict[str, object] = {}
    holders: dict[str, list[str]] = {}
    plain: list[object] = []
    for row, value in rows:
        if _is_row(value):
            for key, inner in value.items():
                if key not in templated:
                    shapes.setdefault(key, inner)
                    holders.setdefault(key, []).append(row)
        else:
            plain.append(value)
    for key, inner in shapes.items():
        _row_column(builder, draft, f"{where}.*.{key}", key, inner, holders[key], bool(templated))
    return _plain_column(draft, where, plain) if plain else None


def _row_column(
    builder: Builder,
    draft: TrackerDraft,
    where: str,
    key: str,
    value: object,
    holders: list[str],
    templated: bool,
) -> None:
    """The column of a key the rows hold (`value`: the first row's), or why there is none."""
    held = rows_named(holders)
    if isinstance(value, dict) and not is_value_form(value):
        builder.unmapped(where, f"an object inside a row ({held}); a row holds plain fields only")
        return
    start, text = split_leaf(value)
    found = leaf(start, text)
    if isinstance(found, str):
        builder.unmapped(where, f"{found} ({held})")
        return
    how = "; read from the rows"
    if templated:
        how += f", not in the template: {held} {'holds' if len(holders) == 1 else 'hold'} it"
    draft.add(
        where,
        key,
        {k: v for k, v in found.spec.items() if k != "default"},  # rows differ; no start
        text=text,
        detail=found.detail + how,
        guessed=found.guessed or templated,
    )


def _plain_column(draft: TrackerDraft, where: str, plain: list[object]) -> str:
    """The one column of entries that are plain values: `quantity` for numbers, else `value`."""
    start, text = split_leaf(plain[0])
    found = leaf(start, text)
    numeric = isinstance(found, Leaf) and found.spec["type"] == "number"
    column = "quantity" if numeric else "value"
    draft.add(
        f"{where}.*",
        column,
        {"type": "number", "min": 0} if numeric else {"type": "text"},
        text=text or f"the value of each entry of {draft.name}",
        detail="number from 0, guessed: every entry maps a key to a number, read as a quantity"
        if numeric
        else "text, guessed: each entry's value",
        guessed=True,
    )
    return column
