"""A world-info book's entries, and MagVarUpdate's merge of its `[InitVar]` entries into one object.

A book's entries are `entries` (a map or a list), or a card's `data.character_book.entries`; an
entry is named by its `comment` (SillyTavern's title), else its `name`, and is an `[InitVar]`
entry when that name holds `[InitVar]` in any case. MVU reads each such entry's content (the
first fenced code block when there is one) and merges the entries in order into one object of
variables; `merge_book` does the same and remembers which entry each key came from, so the
report can name it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from typing import Any

from trackerkit.errors import ImportRefusedError
from trackerkit.formats.document import parse_document
from trackerkit.formats.imported import Builder
from trackerkit.formats.leaves import quoted
from trackerkit.values import same_value

__all__ = [
    "BookMerge",
    "entry_name",
    "has_init_var_entries",
    "init_var_entries",
    "is_init_var_name",
    "merge_book",
]


def _entries(data: dict[str, Any]) -> list[object]:
    """World-info entries: `entries` (a map or a list), or a card's `data.character_book.entries`."""
    entries = data.get("entries")
    inner = data.get("data")
    if entries is None and isinstance(inner, dict):
        book = inner.get("character_book")
        entries = book.get("entries") if isinstance(book, dict) else None
    if entries is None and isinstance(data.get("character_book"), dict):
        entries = data["character_book"].get("entries")
    if isinstance(entries, dict):
        return list(entries.values())
    return list(entries) if isinstance(entries, list) else []


def entry_name(entry: dict[str, Any]) -> str:
    """A world-info entry's name: `comment` (SillyTavern's title), else `name`."""
    for key in ("comment", "name"):
        value = entry.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def is_init_var_name(name: str) -> bool:
    """Whether a world-info entry's name marks it `[InitVar]`: MagVarUpdate matches any case."""
    return "[initvar]" in name.lower()


def init_var_entries(data: dict[str, Any]) -> list[object]:
    """Every world-info entry of `data` (all of them, `[InitVar]` or not)."""
    return _entries(data)


def has_init_var_entries(data: dict[str, Any]) -> bool:
    """Whether `data` holds a world-info entry named `[InitVar]` with text content."""
    return any(
        isinstance(e, dict)
        and is_init_var_name(entry_name(e))
        and isinstance(e.get("content"), str)
        for e in _entries(data)
    )


def merge_book(builder: Builder, entries: list[object], file: str) -> BookMerge:
    """Every `[InitVar]` entry, merged into one object of variables as MagVarUpdate merges them.

    MVU reads each entry whose name holds `[InitVar]` (any case), takes the content of a fenced
    code block when there is one, and merges the entries in order into one object: objects
    deep-merged key by key, and any other value (a plain value, a `[value, meaning]` pair, a
    list) replaced whole by a later entry's (`correctlyMerge`, lodash `mergeWith` with arrays
    replaced). A value replaced so is reported as left behind, naming the entry that won; an
    entry that is not `[InitVar]` or cannot be read is reported too. A JSON number past a
    double's range (MVU reads it as Infinity) leaves only its own variable unread.

    Raises:
        ImportRefusedError: no entry is a readable `[InitVar]` entry (naming each `[InitVar]`
            entry and why it could not be read).
    """
    merge = BookMerge()
    unread: list[str] = []  # each [InitVar] entry left unread, and why
    for index, entry in enumerate(entries):
        name = entry_name(entry) if isinstance(entry, dict) else ""
        where = f"entries[{index}]" + (f" {quoted(name, 40)}" if name else "")
        if not isinstance(entry, dict) or not is_init_var_name(name):
            builder.unmapped(where, "not an [InitVar] entry (lore text, not variables)")
            continue
        content = entry.get("content")
        if not isinstance(content, str):
            builder.unmapped(where, "an [InitVar] entry without text content")
            unread.append(f"{where} has no text content")
            continue
        try:
            variables = parse_document(_unfenced(content), where, long_numbers=True)
        except ImportRefusedError as error:
            builder.unmapped(
                where,
                f"its content {error.reason}; MagVarUpdate itself loads no variable of a book "
                "while one of its [InitVar] entries cannot be read",
            )
            unread.append(f"{where}: its content {error.reason}")
            continue
        if not isinstance(variables, dict):
            builder.unmapped(where, "its content is a list, not an object of variables")
            unread.append(f"{where}: its content is a list, not an object of variables")
            continue
        title = " ".join(_INIT_VAR.sub(" ", name).split()) or "Variables"
        merge.entry(builder, variables, where, title, name)
    if not merge.titles:
        raise ImportRefusedError(file, _no_readable_entry(unread))
    return merge


def _no_readable_entry(unread: list[str]) -> str:
    """Why a book yields no variables: each `[InitVar]` entry's reason (the first three), or
    that it has none."""
    if not unread:
        return (
            "is a world-info book with no readable [InitVar] entry (an entry whose name "
            "holds [InitVar] and whose content is an object of variables)"
        )
    more = f"; and {len(unread) - 3} more" if len(unread) > 3 else ""
    return f"is a world-info book with no readable [InitVar] entry: {'; '.join(unread[:3])}{more}"


_INIT_VAR = re.compile(r"\[initvar\]", re.IGNORECASE)
#: MVU's own pattern (`variable_init.ts`): the first fenced block, up to its last fence.
_FENCE = re.compile(r"```.*\n([\s\S]*)\n```")


def _unfenced(content: str) -> str:
    """An entry's content without its code fence (```yaml ... ```), as MVU reads it."""
    found = _FENCE.search(content.strip())
    return found.group(1) if found else content


@dataclass
class BookMerge:
    """The `[InitVar]` entries merged so far: where each key came from, and the entries' titles."""

    #: The merged object of variables.
    merged: dict[str, Any] = field(default_factory=dict)
    #: Each merged key's path (`Li`, `Li.affection`) and the entry that last wrote it.
    origin: dict[str, str] = field(default_factory=dict)
    #: Each entry's place in the book (`entries[1] "[InitVar] b"`) and its title (`b`).
    titles: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Each top-level key and the entries that wrote into it.
    sources: dict[str, set[str]] = field(default_factory=dict)

    def entry(
        self,
        builder: Builder,
        variables: dict[str, Any],
        where: str,
        title: str,
        name: str,
    ) -> None:
        """Merge one entry's variables (at `where` in the book) over those merged so far."""
        self.titles[where] = (title, name)
        for key in variables:
            self.sources.setdefault(key, set()).add(where)
        self._merge(builder, self.merged, variables, "", where)

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

    def label(self, builder: Builder, first_line: int, first_draft: int) -> None:
        """Name the entry each key came from on the report lines and trackers made since
        `first_line` and `first_draft`, and say which trackers several entries wrote into."""
        for index in range(first_line, len(builder.lines)):
            line = builder.lines[index]
            builder.lines[index] = replace(line, source=self.labelled(line.source))
        for draft in builder.drafts[first_draft:]:
            if draft.source:
                many = self.sources.get(draft.source, set())  # a top-level key's own tracker
                if len(many) > 1:
                    draft.description += f", merged from {len(many)} [InitVar] entries as MVU does"
                draft.source = self.labelled(draft.source)

    def title_of(self, key: str) -> str:
        """The title of the entry a top-level plain value came from (its values' tracker)."""
        return self.titles[self.origin[key]][0]

    def holder_of(self, key: str) -> str:
        """The entry a top-level plain value came from, as the report names it."""
        return f"the entry {quoted(self.titles[self.origin[key]][1])}"


_MISSING = object()
