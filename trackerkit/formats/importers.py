"""Every importer by its format name, and `import_file`, which tells the format when not given."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson

from trackerkit._pieces import write_atomically
from trackerkit.errors import ImportRefusedError
from trackerkit.formats.card import card_from_data
from trackerkit.formats.detect import FORMATS, detected, read_document
from trackerkit.formats.imported import Imported
from trackerkit.formats.marinara import marinara_from_data
from trackerkit.formats.mvu import mvu_from_data
from trackerkit.formats.names import piece_id
from trackerkit.formats.rpg_companion import rpg_companion_from_data
from trackerkit.formats.sillytavern_tracker import sillytavern_tracker_from_data
from trackerkit.formats.wtracker_import import wtracker_from_data
from trackerkit.library import Library
from trackerkit.scene import Scene
from trackerkit.tracker import Tracker

__all__ = ["IMPORTERS", "SavedScene", "import_file", "save_imported", "save_imported_scene"]

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
        format = detected(file, data)
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
    return Imported(tuple(written), links, imported.report, imported.scene)


@dataclass(frozen=True, slots=True)
class SavedScene:
    """The scene file an import wrote (or would write), and the scene in it."""

    path: Path
    scene: Scene


def save_imported_scene(
    imported: Imported, scenes: str | os.PathLike[str], *, dry_run: bool = False
) -> SavedScene | None:
    """Write a scene file linking the imported trackers, when the source implies a scene.

    Call it with what `save_imported` returned, so the links are the ids the pieces were written
    under. The scene's id comes from its title (`Vera's pack` -> `vera-s-pack`); an id a scene
    file in `scenes` already has gets the next free one (`vera-s-pack-2`), so no scene is ever
    overwritten. The file is written atomically (a temporary renamed into place), and its name is
    claimed first, so two imports at once cannot take the same one.

    Args:
        imported: the saved import.
        scenes: the scenes folder (`DIR/scenes`); made when missing.
        dry_run: choose the id but write nothing (the folder is not made either).
    Returns:
        The scene file and its scene, or None when the source implies no scene (see
        `Imported.scene`) or no tracker was imported.
    """
    if imported.scene is None or not imported.scene_links:
        return None
    folder = Path(scenes)
    taken = {p.stem for p in folder.glob("*.json")} if folder.is_dir() else set()
    while True:
        scene_id = piece_id(imported.scene, taken)
        scene = Scene(
            id=scene_id,
            title=imported.scene,
            prompting={"trackers": list(imported.scene_links)},
        )
        path = folder / f"{scene_id}.json"
        if dry_run:
            return SavedScene(path, scene)
        folder.mkdir(parents=True, exist_ok=True)
        try:  # claim the name: a scene written meanwhile under it is never replaced
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        try:
            payload = orjson.dumps(scene.to_json(), option=orjson.OPT_INDENT_2) + b"\n"
            write_atomically(path, payload)
        except BaseException:
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return SavedScene(path, scene)
