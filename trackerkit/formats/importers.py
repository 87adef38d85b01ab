"""Every importer by its format name, and `import_file`, which tells the format when not given."""

from __future__ import annotations

import os
from collections.abc import Callable

from trackerkit.errors import ImportRefusedError
from trackerkit.formats.detect import FORMATS, read_document, sniff, unknown_format
from trackerkit.formats.imported import Imported
from trackerkit.formats.marinara import marinara_from_data
from trackerkit.formats.mvu import mvu_from_data
from trackerkit.formats.rpg_companion import rpg_companion_from_data
from trackerkit.formats.sillytavern_tracker import sillytavern_tracker_from_data
from trackerkit.formats.wtracker_import import wtracker_from_data

__all__ = ["IMPORTERS", "import_file"]

#: Each format's importer of parsed data, `(data, file) -> Imported`.
IMPORTERS: dict[str, Callable[[object, str], Imported]] = {
    "mvu": mvu_from_data,
    "sillytavern-tracker": sillytavern_tracker_from_data,
    "wtracker": wtracker_from_data,
    "rpg-companion": rpg_companion_from_data,
    "marinara": marinara_from_data,
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
