"""What a draft's save sends, in words a designer reads: one line per edit (TR-50).

`Draft.patch` is the data Save sends: the changed head keys and body keys against the revision
opened, the whole field list when any field changed. `edit_lines` says the same in the page's own
words, each field followed by its key as the draft follows it (TR-47): a rename is one line
(`renames field hp → vigor`), not a new name plus the tops that moved with it; a field added,
deleted or moved is named; a setting changed reads as its box is labelled on the page, old value
then new. `patch_text` is the patch itself as indented JSON, for whoever wants the data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trackerkit.design.draft import Draft
from trackerkit.tracker import encode_tracker

__all__ = ["edit_lines", "patch_text"]

#: The tracker's settings as the page labels their boxes.
_TRACKER_LABELS = {
    "name": "Name",
    "description": "What it tracks",
    "layout": "Shape",
    "note": "How the AI should update it",
    "icon": "Icon",
    "changes": "Show changes on replies as",
    "template": "Prompt line",
}

#: A field's settings as the page labels their boxes, in the order the page shows them.
_FIELD_LABELS = {
    "type": "Type",
    "description": "What it means",
    "icon": "Icon",
    "min": "From",
    "max": "To (a number)",
    "maxField": "To (another field)",
    "choices": "Choices",
    "default": "Starts at",
}

#: Settings that hold a word of a fixed set or a name, not free text: shown unquoted.
_WORDS = frozenset({"layout", "icon", "changes", "type", "maxField"})

#: How much of a long value a line quotes.
_LONG = 60


def edit_lines(draft: Draft) -> list[str]:
    """The draft's edits against the revision opened, one plain sentence each; [] when none.

    Plain text with names and values as written: the page escapes each line. In the order of
    the page: the tracker's settings, then the fields (renamed, added, deleted, moved, changed).

    >>> from trackerkit import Draft
    >>> draft = Draft.blank("t", "Mana").rename_field("#1", "mp").set_field("#1", max=20)
    >>> edit_lines(draft)
    ['renames field value → mp', "mp's To (a number): (none) → 20"]
    """
    before, after = encode_tracker(draft.base), draft.to_piece()
    lines = [
        f"{_TRACKER_LABELS[key]}: {_shown(before[key])} → {_shown(after[key])}"
        for key in ("name", "description")
        if before[key] != after[key]
    ]
    changed = draft.patch().get("body", {})
    for key in _TRACKER_LABELS:
        if key in changed:
            old, new = before["body"].get(key), after["body"].get(key)
            lines.append(f"{_TRACKER_LABELS[key]}: {_shown(old, key)} → {_shown(new, key)}")
    if "fields" in changed:
        lines += _field_lines(draft, before["body"]["fields"], after["body"]["fields"])
    return lines


def patch_text(draft: Draft) -> str:
    """The patch Save sends (`Draft.patch`) as indented JSON, names and letters as written."""
    return json.dumps(draft.patch(), indent=2, ensure_ascii=False)


def _field_lines(
    draft: Draft, before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> list[str]:
    """The field edits: each stored field found again by its key, never by its name."""
    old = dict(zip(draft.opened, before, strict=True))
    new = {f.key: piece for f, piece in zip(draft.fields, after, strict=True)}
    renamed = {old[k]["name"]: new[k]["name"] for k in old if k in new}
    lines = [
        f"renames field {old[k]['name']} → {new[k]['name']}"
        for k in old
        if k in new and old[k]["name"] != new[k]["name"]
    ]
    lines += [f"adds field {_added(piece)}" for k, piece in new.items() if k not in old]
    lines += [f"deletes field {piece['name']}" for k, piece in old.items() if k not in new]
    kept = [k for k in new if k in old]
    if kept != [k for k in old if k in new]:
        lines.append("moves the fields into the order " + ", ".join(p["name"] for p in after))
    for key in kept:
        lines += _setting_lines(old[key], new[key], renamed)
    return lines


def _added(piece: Mapping[str, Any]) -> str:
    """A new field: its name, its type and any setting it was given."""
    given = [
        f"{label} {_shown(piece[key], key)}"
        for key, label in _FIELD_LABELS.items()
        if key != "type" and piece.get(key) not in (None, "")
    ]
    return f"{piece['name']} ({'; '.join([piece['type'], *given])})"


def _setting_lines(
    old: Mapping[str, Any], new: Mapping[str, Any], renamed: Mapping[str, str]
) -> list[str]:
    """One field's changed settings; a top that only followed its field's rename is no change."""
    was = {**old, "maxField": renamed.get(old.get("maxField", ""), old.get("maxField"))}
    retyped = old["type"] != new["type"]
    lines = []
    for key, label in _FIELD_LABELS.items():
        if retyped and key != "type" and key not in new:
            continue  # dropped with the old type (TR-48): the type's line says it
        if was.get(key) != new.get(key):
            old_value, new_value = _shown(was.get(key), key), _shown(new.get(key), key)
            lines.append(f"{new['name']}'s {label}: {old_value} → {new_value}")
    return lines


def _shown(value: object, key: str = "") -> str:
    """A value as a line quotes it: JSON (free text quoted), `(none)`, `(empty)`, long text cut."""
    if value is None:
        return "(none)"
    if value == "":
        return "(empty)"
    words = key in _WORDS and isinstance(value, str)
    text = str(value) if words else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _LONG else text[: _LONG - 1] + "…"
