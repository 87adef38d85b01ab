"""A helper the importer tests share: one imported field as the dict its file would hold."""

from __future__ import annotations

from typing import Any

from trackerkit.formats import Imported


def field_of(imported: Imported, tracker: str, field: str) -> dict[str, Any]:
    """The field `field` of the imported tracker named `tracker`, dumped as stored."""
    found = next(t for t in imported.trackers if t.name == tracker)
    spec = found.field(field)
    assert spec is not None, field
    return spec.model_dump(by_alias=True, exclude_none=True)
