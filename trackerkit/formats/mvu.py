"""MagVarUpdate (MVU): `[InitVar]` variables, or a world-info book holding such entries, to trackers.

An `[InitVar]` entry's content (YAML, JSON or JSON5; inside a code fence when it has one) is an
object of variables, nested at will. The entries of a book (names holding `[InitVar]` in any case)
are merged into one object as MVU merges them, a later entry's value over an earlier one (the
report says which entry each key came from, and which values were replaced; see `worldbook`).
Each top-level object becomes a record tracker named by its key; the top-level plain values of an
entry make one record named after the entry. Inside a record, a nested locked object is
flattened into dotted fields (`王都.酒馆.描述`), however deep, each reported as guessed (its
place read from a shape, not written as one field). A leaf is a plain value, a
`[value, "meaning"]` pair or a `{value, description}` object; a range written in the meaning
becomes min/max, marked as guessed (see `mvu_leaves`). An extensible object (`$meta.extensible`)
or an array holding `"$__META_EXTENSIBLE__$"` becomes a keyed list tracker, and a locked list of
named objects a list tracker, their columns and starting rows read as `mvu_lists` says, so no key
of a row is ever left without a line (SillyTavern-Tracker's starting rows follow the same rule).
MVU reads any object of variables, so a file content detection tells is another format (a
WTracker schema) is refused rather than made into trackers of its keywords.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trackerkit.errors import ImportRefusedError
from trackerkit.formats.detect import FORMAT_NAMES, detected, piece_kind, sniff
from trackerkit.formats.document import read_document
from trackerkit.formats.imported import Builder, Imported, TrackerDraft
from trackerkit.formats.leaves import quoted
from trackerkit.formats.mvu_leaves import (
    is_extensible,
    is_leaf,
    is_value_form,
    leaf_field,
    report_meta,
)
from trackerkit.formats.mvu_lists import keyed_list, rows_of_objects
from trackerkit.formats.worldbook import has_init_var_entries, init_var_entries, merge_book

__all__ = ["import_mvu", "mvu_from_data"]

_ROOT_OPTIONS = frozenset({"strictTemplate", "concatTemplateArray", "strictSet"})


def import_mvu(source: str | os.PathLike[str], text: str | None = None) -> Imported:
    """Import MVU `[InitVar]` variables, or every `[InitVar]` entry of a world-info book.

    Args:
        source: the file; with `text`, only its name.
        text: the file's content, when already in hand.
    Raises:
        ImportRefusedError: the file cannot be read, is not an object of variables, is another
            format's file (told by its content), or is a book with no readable `[InitVar]` entry.
    """
    file, data = read_document(source, text)
    return mvu_from_data(data, file)


def mvu_from_data(data: object, file: str) -> Imported:
    """Import parsed MVU data (see `import_mvu`)."""
    if not isinstance(data, dict):
        raise ImportRefusedError(
            file, "is not MVU variables: an [InitVar] entry holds an object of variables"
        )
    _refuse_other_format(data, file)
    builder = Builder(file, "mvu")
    builder.scene = _scene_title(data) or Path(file).stem
    entries = init_var_entries(data)
    if entries:
        _book(builder, entries, file)
    else:
        stem, holder = Path(file).stem, f"the file {quoted(Path(file).name)}"
        _variables(builder, data, lambda _: stem, "", lambda _: holder)
    return builder.finish()


def _refuse_other_format(data: dict[str, Any], file: str) -> None:
    """Refuse a file that content detection tells is another known format, as the other
    importers refuse a file without their marks: MVU reads any object of variables, so a
    WTracker schema read as MVU would become junk trackers of schema keywords. A book of
    `[InitVar]` entries is MVU's own (a card may carry one beside its trackers); a file no
    format claims is what `--from mvu` is for.

    Raises:
        ImportRefusedError: trackerkit's own tracker or scene, a character card holding no
            trackers, or another format's file (naming it and the `--from` that imports it).
    """
    if has_init_var_entries(data):
        return
    if sniff(data) is None and piece_kind(data) is None:
        return
    found = detected(file, data)  # refuses trackerkit's own pieces and plain cards in its words
    if found != "mvu":
        raise ImportRefusedError(
            file,
            f"looks like {_a_file_of(found)}, not MVU; import it with --from {found}, or "
            "without --from",
        )


def _a_file_of(format: str) -> str:
    """`a WTracker file`, `an RPG Companion file`, `a character card carrying trackers`."""
    if format == "card":
        return "a character card carrying trackerkit trackers"
    article = "an" if format == "rpg-companion" else "a"  # said "an R-P-G"
    return f"{article} {FORMAT_NAMES[format]} file"


def _scene_title(data: dict[str, Any]) -> str | None:
    """The card's or book's name, which names the scene its variables are for."""
    inner = data.get("data")
    for holder in (inner if isinstance(inner, dict) else {}, data):
        name = holder.get("name")
        if isinstance(name, str) and name.strip():
            return name
    return None


def _book(builder: Builder, entries: list[object], file: str) -> None:
    """Every `[InitVar]` entry merged as MagVarUpdate merges them (see `worldbook.merge_book`),
    made into trackers whose every line names the entry its key came from."""
    merge = merge_book(builder, entries, file)
    first_line, first_draft = len(builder.lines), len(builder.drafts)
    _variables(builder, merge.merged, merge.title_of, "", merge.holder_of)
    merge.label(builder, first_line, first_draft)


def _tracks(key: str, value: object) -> bool:
    """Whether a top-level variable becomes a tracker of its own, named by its key."""
    return key not in _ROOT_OPTIONS and key != "$meta" and not is_leaf(value)


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
            report_meta(builder, where, value, "the root object")
        elif is_extensible(value):
            keyed_list(builder, key, where, value)
        elif isinstance(value, dict) and not is_value_form(value):
            draft = builder.tracker(key, "record", f"MVU variables {quoted(key)}", where)
            _record(builder, draft, value, [], where)
        elif isinstance(value, list) and not is_leaf(value):
            rows_of_objects(builder, key, where, value)
        else:
            title = title_of(key)
            if title not in loose:
                loose[title] = builder.tracker(
                    f"{title} (top-level values)" if title in taken else title,
                    "record",
                    f"The top-level values of {holder_of(key)}, from MVU",
                )
            leaf_field(builder, loose[title], where, key, value, "")


def _record(
    builder: Builder, draft: TrackerDraft, node: dict[str, Any], path: list[str], where: str
) -> None:
    for key, value in node.items():
        here = f"{where}.{key}"
        if key == "$meta":
            report_meta(builder, here, value, f"{quoted(draft.name)}")
        elif is_extensible(value):
            keyed_list(builder, f"{draft.name} {'.'.join([*path, key])}", here, value)
        elif isinstance(value, dict) and not value:
            builder.unmapped(here, "an empty object: no variable in it to make a field of")
        elif isinstance(value, dict) and not is_value_form(value):
            _record(builder, draft, value, [*path, key], here)
        elif isinstance(value, list) and not is_leaf(value):
            rows_of_objects(builder, f"{draft.name} {'.'.join([*path, key])}", here, value)
        else:
            dotted = ".".join([*path, key])
            how = f"; flattened from {len(path) + 1} levels as {quoted(dotted)}" if path else ""
            leaf_field(builder, draft, here, dotted, value, how, guessed=bool(path))
