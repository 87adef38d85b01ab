"""MagVarUpdate (MVU): `[InitVar]` variables, or a world-info book holding such entries, to trackers.

An `[InitVar]` entry's content (YAML, JSON or JSON5; inside a code fence when it has one) is an
object of variables, nested at will. The entries of a book (names holding `[InitVar]` in any case)
are merged into one object as MVU merges them, a later entry's value over an earlier one (the
report says which entry each key came from, and which values were replaced). Each top-level
object becomes a record tracker named by its key; the top-level plain values of an entry make
one record named after the entry. Inside a record, a nested locked object is flattened into
dotted fields (`王都.酒馆.描述`), however deep. A leaf is a plain value, a `[value, "meaning"]`
pair or a `{value, description}` object; a range written in the meaning becomes min/max, marked
as guessed. An extensible object (`$meta.extensible`) or an array holding
`"$__META_EXTENSIBLE__$"` becomes a keyed list tracker; a column its starting entries agree on
starts there (guessed), and each entry is reported as a row, since a tracker starts with no rows.
A `$meta.template` gives the list its columns; a key a starting entry holds that the template
lacks is read from the entries as it would be without a template, a column reported as guessed
(`read from the rows, not in the template: row "Bob" holds it`), or, when no column can hold it
(an object), an unmapped line naming the key and the rows holding it. SillyTavern-Tracker's
starting rows follow the same rule, so no key of a row is ever left without a line. A row of a
list is named by its name key (`name`, `名称`, ...); a name that is a number names it by its text
(`2` -> "2", guessed), and a row with no name that is a text or a number (null) is reported and
left out, the other rows and the columns kept.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from trackerkit.errors import ImportRefusedError
from trackerkit.fields import describe_value
from trackerkit.formats.detect import (
    entry_name,
    init_var_entries,
    is_init_var_name,
    parse_document,
    read_document,
)
from trackerkit.formats.imported import Builder, Imported, TrackerDraft
from trackerkit.formats.leaves import (
    NAME_KEYS,
    Leaf,
    leaf,
    number,
    plain_text,
    quoted,
    rows_named,
)
from trackerkit.values import same_value

__all__ = ["import_mvu", "mvu_from_data"]

_MARK = "$__META_EXTENSIBLE__$"
_ROOT_OPTIONS = frozenset({"strictTemplate", "concatTemplateArray", "strictSet"})


def import_mvu(source: str | os.PathLike[str], text: str | None = None) -> Imported:
    """Import MVU `[InitVar]` variables, or every `[InitVar]` entry of a world-info book.

    Args:
        source: the file; with `text`, only its name.
        text: the file's content, when already in hand.
    Raises:
        ImportRefusedError: the file cannot be read, is not an object of variables, or is a book
            with no readable `[InitVar]` entry.
    """
    file, data = read_document(source, text)
    return mvu_from_data(data, file)


def mvu_from_data(data: object, file: str) -> Imported:
    """Import parsed MVU data (see `import_mvu`)."""
    if not isinstance(data, dict):
        raise ImportRefusedError(
            file, "is not MVU variables: an [InitVar] entry holds an object of variables"
        )
    builder = Builder(file, "mvu")
    builder.scene = _scene_title(data) or Path(file).stem
    entries = init_var_entries(data)
    if entries:
        _book(builder, entries, file)
    else:
        stem, holder = Path(file).stem, f"the file {quoted(Path(file).name)}"
        _variables(builder, data, lambda _: stem, "", lambda _: holder)
    return builder.finish()


def _scene_title(data: dict[str, Any]) -> str | None:
    """The card's or book's name, which names the scene its variables are for."""
    inner = data.get("data")
    for holder in (inner if isinstance(inner, dict) else {}, data):
        name = holder.get("name")
        if isinstance(name, str) and name.strip():
            return name
    return None


def _book(builder: Builder, entries: list[object], file: str) -> None:
    """Every `[InitVar]` entry, merged into one object of variables as MagVarUpdate merges them.

    MVU reads each entry whose name holds `[InitVar]` (any case), takes the content of a fenced
    code block when there is one, and merges the entries in order into one object: objects
    deep-merged key by key, and any other value (a plain value, a `[value, meaning]` pair, a
    list) replaced whole by a later entry's (`correctlyMerge`, lodash `mergeWith` with arrays
    replaced). A value replaced so is reported as left behind, naming the entry that won; every
    other line names the entry its key came from.
    """
    merged: dict[str, Any] = {}
    merge = _Merge()
    for index, entry in enumerate(entries):
        name = entry_name(entry) if isinstance(entry, dict) else ""
        where = f"entries[{index}]" + (f" {quoted(name, 40)}" if name else "")
        if not isinstance(entry, dict) or not is_init_var_name(name):
            builder.unmapped(where, "not an [InitVar] entry (lore text, not variables)")
            continue
        content = entry.get("content")
        if not isinstance(content, str):
            builder.unmapped(where, "an [InitVar] entry without text content")
            continue
        try:
            variables = parse_document(_unfenced(content), where)
        except ImportRefusedError as error:
            builder.unmapped(
                where,
                f"its content {error.reason}; MagVarUpdate itself loads no variable of a book "
                "while one of its [InitVar] entries cannot be read",
            )
            continue
        if not isinstance(variables, dict):
            builder.unmapped(where, "its content is a list, not an object of variables")
            continue
        title = " ".join(_INIT_VAR.sub(" ", name).split()) or "Variables"
        merge.entry(builder, merged, variables, where, title, name)
    if not merge.titles:
        raise ImportRefusedError(
            file,
            "is a world-info book with no readable [InitVar] entry (an entry whose name "
            "holds [InitVar] and whose content is an object of variables)",
        )
    first_line, first_draft = len(builder.lines), len(builder.drafts)
    _variables(builder, merged, merge.title_of, "", merge.holder_of)
    for index in range(first_line, len(builder.lines)):
        line = builder.lines[index]
        builder.lines[index] = replace(line, source=merge.labelled(line.source))
    for draft in builder.drafts[first_draft:]:
        if draft.source:
            many = merge.sources.get(draft.source, set())  # a top-level key's own tracker
            if len(many) > 1:
                draft.description += f", merged from {len(many)} [InitVar] entries as MVU does"
            draft.source = merge.labelled(draft.source)


_INIT_VAR = re.compile(r"\[initvar\]", re.IGNORECASE)
#: MVU's own pattern (`variable_init.ts`): the first fenced block, up to its last fence.
_FENCE = re.compile(r"```.*\n([\s\S]*)\n```")


def _unfenced(content: str) -> str:
    """An entry's content without its code fence (```yaml ... ```), as MVU reads it."""
    found = _FENCE.search(content.strip())
    return found.group(1) if found else content


@dataclass
class _Merge:
    """The `[InitVar]` entries merged so far: where each key came from, and the entries' titles."""

    #: Each merged key's path (`Li`, `Li.affection`) and the entry that last wrote it.
    origin: dict[str, str] = field(default_factory=dict)
    #: Each entry's place in the book (`entries[1] "[InitVar] b"`) and its title (`b`).
    titles: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Each top-level key and the entries that wrote into it.
    sources: dict[str, set[str]] = field(default_factory=dict)

    def entry(
        self,
        builder: Builder,
        into: dict[str, Any],
        variables: dict[str, Any],
        where: str,
        title: str,
        name: str,
    ) -> None:
        self.titles[where] = (title, name)
        for key in variables:
            self.sources.setdefault(key, set()).add(where)
        self._merge(builder, into, variables, "", where)

    def _merge(
        self, builder: Builder, into: dict[str, Any], source: dict[str, Any], path: str, where: str
    ) -> None:
        for key, value in source.items():
            here = f"{path}.{key}" if path else key
            old = into.get(key, _MISSING)
            if isinstance(value, dict) and isinstance(old, dict):
                self.origin[here] = where
                self._merge(builder, old, value, here, where)
                continue
            if old is not _MISSING and not same_value(old, value):
                builder.unmapped(
                    f"{self.origin.get(here, where)}: {here}",
                    f"its value was replaced by the one in {where}: MagVarUpdate merges every "
                    "[InitVar] entry into one object, a later entry's value over an earlier one",
                )
            if isinstance(old, dict):  # its keys' places go with it
                for stale in [p for p in self.origin if p.startswith(f"{here}.")]:
                    del self.origin[stale]
            into[key] = copy.deepcopy(value)
            self._mark(value, here, where)

    def _mark(self, value: object, here: str, where: str) -> None:
        self.origin[here] = where
        if isinstance(value, dict):
            for key, inner in value.items():
                self._mark(inner, f"{here}.{key}", where)

    def labelled(self, source: str) -> str:
        """A report line's source with the entry its key came from before it."""
        cuts = [len(source), *(i for i in range(len(source) - 1, 0, -1) if source[i] in ". ")]
        for cut in sorted(cuts, reverse=True):
            if source[:cut] in self.origin:
                return f"{self.origin[source[:cut]]}: {source}"
        return source

    def title_of(self, key: str) -> str:
        """The title of the entry a top-level plain value came from (its values' tracker)."""
        return self.titles[self.origin[key]][0]

    def holder_of(self, key: str) -> str:
        return f"the entry {quoted(self.titles[self.origin[key]][1])}"


_MISSING = object()


def _is_leaf(value: object) -> bool:
    if isinstance(value, list):
        if _MARK in value:
            return False
        if _is_pair(value):
            return True
        return not any(isinstance(v, dict | list) for v in value)
    if isinstance(value, dict):
        return _is_value_form(value)
    return True


def _is_value_form(value: dict[str, Any]) -> bool:
    return (
        "value" in value
        and set(value) <= {"value", "description"}
        and isinstance(value.get("description", ""), str)
    )


def _is_pair(value: object) -> bool:
    """Whether `value` is a `[value, "meaning"]` pair."""
    return isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)


def _split(value: object) -> tuple[object, str]:
    """A leaf's start value and its meaning."""
    if isinstance(value, list) and _is_pair(value):
        return value[0], value[1]
    if isinstance(value, dict) and _is_value_form(value):
        return value.get("value"), str(value.get("description", ""))
    return value, ""


def _extensible(value: object) -> bool:
    if isinstance(value, dict):
        meta = value.get("$meta")
        return isinstance(meta, dict) and meta.get("extensible") is True
    return isinstance(value, list) and _MARK in value


def _tracks(key: str, value: object) -> bool:
    """Whether a top-level variable becomes a tracker of its own, named by its key."""
    return key not in _ROOT_OPTIONS and key != "$meta" and not _is_leaf(value)


def _variables(
    builder: Builder,
    root: dict[str, Any],
    title_of: Callable[[str], str],
    prefix: str,
    holder_of: Callable[[str], str],
) -> None:
    """The trackers of one object of variables: a tracker per top-level object or list, and one
    for the top-level plain values of each entry (`title_of` a value's key: the entry's title),
    named by that title unless another tracker has it (an object with the entry's own name,
    `背包` in `[InitVar] 背包`): then `背包 (top-level values)`, so it does not read as a second
    part of that object."""
    loose: dict[str, TrackerDraft] = {}
    taken = {d.name for d in builder.drafts} | {
        " ".join(k.split()) for k, v in root.items() if _tracks(k, v)
    }
    for key, value in root.items():
        where = f"{prefix}{key}"
        if key in _ROOT_OPTIONS:
            builder.unmapped(
                where, "an MVU update option; trackerkit applies each batch all or nothing"
            )
        elif key == "$meta":
            _meta(builder, where, value, "the root object")
        elif _extensible(value):
            _keyed_list(builder, key, where, value)
        elif isinstance(value, dict) and not _is_value_form(value):
            draft = builder.tracker(key, "record", f"MVU variables {quoted(key)}", where)
            _record(builder, draft, value, [], where)
        elif isinstance(value, list) and not _is_leaf(value):
            _rows_of_objects(builder, key, where, value)
        else:
            title = title_of(key)
            if title not in loose:
                loose[title] = builder.tracker(
                    f"{title} (top-level values)" if title in taken else title,
                    "record",
                    f"The top-level values of {holder_of(key)}, from MVU",
                )
            _leaf_field(builder, loose[title], where, key, value, "")


def _meta(builder: Builder, where: str, meta: object, what: str) -> None:
    if not isinstance(meta, dict):
        builder.unmapped(where, f"a $meta that is {type(meta).__name__}, not an object")
        return
    flags = ", ".join(f"{k}={v}" for k, v in meta.items() if k != "template") or "no flags"
    builder.unmapped(
        where,
        f"schema flags of {what} ({flags}): trackerkit fields are fixed by the tracker, and a "
        "keyed list takes new rows without a flag",
    )


def _leaf_field(
    builder: Builder, draft: TrackerDraft, where: str, key: str, value: object, how: str
) -> None:
    start, text = _split(value)
    found = leaf(start, text)
    if isinstance(found, str):
        if _is_pair(value):
            found = "a [value, meaning] pair (a list of two, the second a text) whose " + (
                found.removeprefix("its ")
            )
        builder.unmapped(where, found)
        return
    detail = found.detail + how
    if text and isinstance(value, list):
        detail += "; start and meaning from a [value, meaning] pair"
    draft.add(where, key, found.spec, text=text, detail=detail, guessed=found.guessed)


def _record(
    builder: Builder, draft: TrackerDraft, node: dict[str, Any], path: list[str], where: str
) -> None:
    for key, value in node.items():
        here = f"{where}.{key}"
        if key == "$meta":
            _meta(builder, here, value, f"{quoted(draft.name)}")
        elif _extensible(value):
            _keyed_list(builder, f"{draft.name} {'.'.join([*path, key])}", here, value)
        elif isinstance(value, dict) and not value:
            builder.unmapped(here, "an empty object: no variable in it to make a field of")
        elif isinstance(value, dict) and not _is_value_form(value):
            _record(builder, draft, value, [*path, key], here)
        elif isinstance(value, list) and not _is_leaf(value):
            _rows_of_objects(builder, f"{draft.name} {'.'.join([*path, key])}", here, value)
        else:
            dotted = ".".join([*path, key])
            how = f"; flattened from {len(path) + 1} levels as {quoted(dotted)}" if path else ""
            _leaf_field(builder, draft, here, dotted, value, how)


def _rows_of_objects(builder: Builder, name: str, where: str, items: list[Any]) -> None:
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


def _keyed_list(builder: Builder, name: str, where: str, container: object) -> None:
    draft = builder.tracker(name, "list", f"MVU extensible {quoted(name)}", where)
    if isinstance(container, dict):
        meta = container.get("$meta")
        template = meta.get("template") if isinstance(meta, dict) else None
        entries = {k: v for k, v in container.items() if k != "$meta"}
        _meta(builder, f"{where}.$meta", meta, quoted(name))
        plain = _columns(builder, draft, where, list(entries.items()), template)
        draft.starting_rows(
            where,
            [
                (k, _row(v, None) if _is_row(v) else {plain: _split(v)[0]} if plain else {})
                for k, v in entries.items()
            ],
        )
        return
    assert isinstance(container, list)
    items = [(i, v) for i, v in enumerate(container) if v != _MARK]
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
    return isinstance(value, dict) and not _is_value_form(value)


def _row(row: object, key: str | None) -> dict[str, object]:
    """A starting row's values by column key (each leaf's value, its meaning left aside)."""
    if not isinstance(row, dict):
        return {}
    return {k: _split(v)[0] for k, v in row.items() if k != key and k != "$meta"}


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
            _leaf_field(
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
    if isinstance(value, dict) and not _is_value_form(value):
        builder.unmapped(where, f"an object inside a row ({held}); a row holds plain fields only")
        return
    start, text = _split(value)
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
    start, text = _split(plain[0])
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
