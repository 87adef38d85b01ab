"""Every importer by its format name, and `import_file`, which tells the format when not given."""

from __future__ import annotations

import os
from collections.abc import Callable

from trackerkit.errors import ImportRefusedError
from trackerkit.formats.card import card_from_data
from trackerkit.formats.detect import FORMATS, read_document, sniff, unknown_format
from trackerkit.formats.imported import Imported
from trackerkit.formats.marinara import marinara_from_data
from trackerkit.formats.mvu import mvu_from_data
from trackerkit.formats.rpg_companion import rpg_companion_from_data
from trackerkit.formats.sillytavern_tracker import sillytavern_tracker_from_data
from trackerkit.formats.wtracker_import import wtracker_from_data
from trackerkit.library import Library
from trackerkit.tracker import Tracker

__all__ = ["IMPORTERS", "import_file", "save_imported"]

#: Each format's importer of parsed data, `(data, file) -> Imported`.
IMPORTERS: dict[str, Callable[[object, str], Imported]] = {
    "mvu": mvu_from_data,
    "sillytavern-tracker": sillytavern_tracker_from_data,
    "wtracker": wtracker_from_data,
    "rpg-companion": rpg_companion_from_data,
    "marinara": marinara_from_data,
    "card": card_from_data,
}


def import_file(
    source: str | os.PathLike[str], format: str | None = None, text: str | None = None
) -> Imported:
    """Import a file in `format` (one of `FORMATS`), or in the format its content shows.

    Raises:
        ImportRefusedError: an unknown format name, a file that cannot be read, one whose format
            cannot be told, or one its importer cannot read (each names the file).
    """
    file, data = read_document(source, text)
    if format is None:
        found = sniff(data)
        if found is None:
            raise unknown_format(file)
        format = found
    importer = IMPORTERS.get(format)
    if importer is None:
        raise ImportRefusedError(
            file, f"cannot be read as {format!r}: the formats are {', '.join(FORMATS)}"
        )
    return importer(data, file)


def save_imported(imported: Imported, library: Library, *, dry_run: bool = False) -> Imported:
    """Write an import's trackers into `library` as new pieces; returns them as written.

    A tracker whose id a piece of the library already has gets the next free id (`li-2`, ...);
    the scene links follow. Each save is atomic and guarded by revision (TR-50): a piece that
    appears under the same id meanwhile is never overwritten (`StaleRevisionError`).

    Args:
        imported: what an importer returned.
        library: the tracker folder to write into.
        dry_run: choose the ids but write nothing.
    """
    taken = set(library.ids())
    renamed: dict[str, str] = {}
    written: list[Tracker] = []
    for tracker in imported.trackers:
        new_id = tracker.id
        n = 1
        while new_id in taken:
            n += 1
            new_id = f"{tracker.id}-{n}"
        taken.add(new_id)
        renamed[tracker.id] = new_id
        piece = tracker if new_id == tracker.id else tracker.model_copy(update={"id": new_id})
        written.append(piece if dry_run else library.save(piece, base_revision=-1))
    links = tuple(renamed.get(i, i) for i in imported.scene_links)
    return Imported(tuple(written), links, imported.report)
