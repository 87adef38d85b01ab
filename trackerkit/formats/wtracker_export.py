"""Trackers out to WTracker: one draft-07 JSON Schema preset per tracker, and what could not go.

WTracker keeps presets as `schemaPresets{key: {name, value: <schema>, html}}`: the key is the
tracker's id, the name its name. A record becomes a preset whose schema lists its fields as
properties; a list becomes a preset with one property, `rows`, an array of objects keyed by
`name`. Numbers carry `minimum`/`maximum`, choices an `enum`, and every field its meaning and
default. The export is lossy, and says so: a top taken from another field (TR-5), icons, the
tracker's template and changes style have no place in a JSON Schema. A top is written into the
field's description, so the model still reads it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trackerkit.fields import BooleanField, ChoiceField, NumberField
from trackerkit.tracker import Tracker
from trackerkit.values import AnyField

__all__ = ["NOTE_KEY", "ROWS_KEY", "WTrackerExport", "export_wtracker"]

#: The property a list's preset keeps its rows under.
ROWS_KEY = "rows"
#: The keyword beside a preset's description that names the tracker's note, which ends it.
NOTE_KEY = "x-trackerkit-note"
_SCHEMA = "http://json-schema.org/draft-07/schema#"


@dataclass(frozen=True, slots=True)
class WTrackerExport:
    """The WTracker presets (`{"schemaPresets": {...}}`) and one sentence per thing left behind."""

    settings: dict[str, Any]
    left_behind: tuple[str, ...]


def _field_schema(field: AnyField, left: list[str], where: str) -> dict[str, Any]:
    schema: dict[str, Any]
    meaning = field.description
    if isinstance(field, NumberField):
        schema = {"type": "number"}
        if field.min is not None:
            schema["minimum"] = field.min
        if field.max is not None:
            schema["maximum"] = field.max
        if field.max_field is not None:
            top = f"At most {field.max_field}."
            meaning = f"{meaning} {top}" if meaning else top
            left.append(
                f"{where}: its top from {field.max_field} (a JSON Schema has no limit taken from "
                "another field); written into its description, and not enforced"
            )
    elif isinstance(field, ChoiceField):
        schema = {"type": "string", "enum": list(field.choices)}
    elif isinstance(field, BooleanField):
        schema = {"type": "boolean"}
    else:
        schema = {"type": "string"}
    if meaning:
        schema["description"] = meaning
    if field.default is not None:
        schema["default"] = field.default
    return schema


def _html(tracker: Tracker) -> str:
    """A plain table of the fields, in WTracker's Handlebars (`{{data.field}}`)."""
    # Braces escaped too, so a name holding `{{` is shown, not read as Handlebars.
    name = html.escape(tracker.name).replace("{", "&#123;").replace("}", "&#125;")
    title = f"<h4>{name}</h4>"
    cells = "".join(
        f"<tr><td>{f.name}:</td><td>{{{{{prefix}.{f.name}}}}}</td></tr>"
        for prefix in ["row" if tracker.layout == "list" else "data"]
        for f in tracker.fields
    )
    if tracker.layout == "record":
        return f"<div>{title}<table><tbody>{cells}</tbody></table></div>"
    return (
        f"<div>{title}{{{{#each data.{ROWS_KEY} as |row|}}}}<strong>{{{{row.name}}}}</strong>"
        f"<table><tbody>{cells}</tbody></table>{{{{/each}}}}</div>"
    )


def _preset(tracker: Tracker, left: list[str]) -> dict[str, Any]:
    where = tracker.name
    fields = {f.name: _field_schema(f, left, f"{where}.{f.name}") for f in tracker.fields}
    about = " ".join(part for part in (tracker.description, tracker.body.note) if part.strip())
    # WTracker has one description, which its model reads; the note (the model's instruction)
    # ends it, and is named again under NOTE_KEY (a keyword JSON Schema ignores) so that the
    # import takes the two apart again.
    told = {"description": about} if about else {}
    if tracker.body.note.strip():
        told[NOTE_KEY] = tracker.body.note
    if tracker.layout == "record":
        schema: dict[str, Any] = {"$schema": _SCHEMA, "title": tracker.name, "type": "object"}
        schema |= told
        schema |= {"properties": fields, "required": list(fields)}
    else:
        row = {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The row's name."}, **fields},
            "required": ["name", *fields],
        }
        rows: dict[str, Any] = {"type": "array", "items": row, **told}
        schema = {
            "$schema": _SCHEMA,
            "title": tracker.name,
            "type": "object",
            "properties": {ROWS_KEY: rows},
            "required": [ROWS_KEY],
        }
    icons = [f"{f.name} {f.icon}" for f in tracker.fields if f.icon]
    if tracker.body.icon:
        icons.insert(0, f"the tracker's {tracker.body.icon}")
    if icons:
        left.append(f"{where}: its icons ({', '.join(icons)})")
    if tracker.body.template is not None:
        left.append(
            f"{where}: its template (trackerkit macro text; the preset gets a plain HTML table)"
        )
    if tracker.body.changes is not None:
        left.append(f"{where}: its changes style {tracker.body.changes}")
    return {"name": tracker.name, "value": schema, "html": _html(tracker)}


def export_wtracker(trackers: Sequence[Tracker]) -> WTrackerExport:
    """WTracker presets for `trackers`, one each, keyed by the tracker's id (a second tracker of
    one id, from another folder, by the id numbered: `ship-2`) and named by its name, so the
    import gives each tracker back under its id and a scene still links it.

    Every field keeps its type, range, choices, meaning and default; `left_behind` says, per
    tracker and field, what WTracker cannot hold (tops from other fields, icons, templates,
    changes styles).
    """
    left: list[str] = []
    presets: dict[str, Any] = {}
    for tracker in trackers:
        key, n = tracker.id, 1
        while key in presets:
            n += 1
            key = f"{tracker.id}-{n}"
        presets[key] = _preset(tracker, left)
    return WTrackerExport({"schemaPresets": presets}, tuple(left))
