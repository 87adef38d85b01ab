"""Every importer by its format name, and `import_file`, which tells the format when not given."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from trackerkit._pieces import write_atomically
from trackerkit.errors import (
    BadRequestError,
    ImportRefusedError,
    ImportWriteError,
    StaleRevisionError,
    TrackerkitError,
)
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
from trackerkit.scene import Scene, load_scene
from trackerkit.tracker import Tracker
from trackerkit.update import name_key

__all__ = [
    "IMPORTERS",
    "ImportWriteError",
    "SavedScene",
    "check_folder",
    "import_file",
    "same_names",
    "same_title_scenes",
    "save_imported",
    "save_imported_scene",
    "write_import",
]

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

    A tracker whose id a piece of the library already has, or whose file name anything in the
    folder holds (a folder, a link, a file that is no piece), gets the next free id (`li-2`,
    ...); the scene links follow. Before any piece is written the folder is checked (it is a
    folder, or can be made, and can be written in), so a refusal writes nothing. Each save is
    atomic and guarded by revision (TR-50): a piece that appears under the same id meanwhile is
    never overwritten.

    Args:
        imported: what an importer returned.
        library: the tracker folder to write into.
        dry_run: choose the ids but write nothing.
    Raises:
        BadRequestError: the folder cannot hold the pieces; nothing was written.
        ImportWriteError: a save failed partway; the message names every file written and not.
    """
    folder = Path(library.path)
    taken = set(library.ids()) if folder.is_dir() else set()
    renamed: dict[str, str] = {}
    planned: list[Tracker] = []
    for tracker in imported.trackers:
        new_id = tracker.id
        n = 1
        while new_id in taken or os.path.lexists(folder / f"{new_id}.json"):
            n += 1
            new_id = f"{tracker.id}-{n}"
        taken.add(new_id)
        renamed[tracker.id] = new_id
        planned.append(
            tracker if new_id == tracker.id else tracker.model_copy(update={"id": new_id})
        )
    links = tuple(renamed.get(i, i) for i in imported.scene_links)
    if not dry_run and planned:
        check_folder(folder, "trackers")
        planned = _save_all(planned, library)
    return replace(imported, trackers=tuple(planned), scene_links=links)


def check_folder(folder: Path, what: str) -> None:
    """Refuse before writing when `folder` cannot hold the import's files.

    It must be a folder, or be makeable: its nearest existing ancestor a folder that can be
    written in.

    Raises:
        BadRequestError: `folder` (or a folder on its way) is a file or other non-folder, or
            cannot be written in; the message names it.
    """
    here = folder
    while not here.is_dir():
        if os.path.lexists(here):
            kind = "a file" if here.is_file() else "not a folder"
            place = f"{folder}" if here == folder else f"{here} (on the way to {folder})"
            raise BadRequestError(
                f"{place} is {kind}, so the imported {what} cannot be written there; move it "
                "away or import into another folder (--into DIR); nothing was written"
            )
        if here.parent == here:
            break
        here = here.parent
    if not os.access(here, os.W_OK | os.X_OK):
        raise BadRequestError(
            f"cannot write in {here} (permission denied), so the imported {what} cannot be "
            "written there; nothing was written"
        )


def _save_all(
    planned: list[Tracker], library: Library, after: tuple[str, ...] = ()
) -> list[Tracker]:
    """Save each new piece; on a failure, raise naming the files written and not written
    (`after`: what the import would have written next)."""
    folder = Path(library.path)
    written: list[Tracker] = []
    for piece in planned:
        try:
            written.append(library.save(piece, base_revision=-1))
        except (TrackerkitError, OSError) as error:
            rest = tuple(str(folder / f"{p.id}.json") for p in planned[len(written) :]) + after
            raise ImportWriteError(
                _write_failure(folder / f"{piece.id}.json", error),
                tuple(folder / f"{p.id}.json" for p in written),
                rest,
            ) from error
    return written


def _write_failure(path: Path, error: BaseException) -> str:
    """Why writing `path` failed, in a few words."""
    if isinstance(error, StaleRevisionError):
        return f"{path} appeared meanwhile (another program wrote it) and was left as it is"
    if isinstance(error, OSError):
        return f"cannot write {path}: {error.strerror or error}"
    return f"cannot write {path}: {error}"


def write_import(
    imported: Imported,
    trackers: str | os.PathLike[str],
    scenes: str | os.PathLike[str],
    *,
    dry_run: bool = False,
) -> tuple[Imported, SavedScene | None]:
    """Write an import whole: its trackers into `trackers`, and its scene file into `scenes`.

    Every target is chosen and checked before any file is written (the folders can hold the
    files, no file name is taken), so a refusal writes nothing. Should a write still fail
    partway (a full disk, a piece another program wrote meanwhile), the error names each file
    written and each not.

    Args:
        imported: what an importer returned.
        trackers: the tracker folder (`DIR/trackers`).
        scenes: the scenes folder (`DIR/scenes`).
        dry_run: choose the files but write nothing.
    Returns:
        The trackers as written (or to be written) and the scene file, if the source implies one.
    Raises:
        BadRequestError: a folder cannot hold the files; nothing was written.
        ImportWriteError: a write failed partway; the message says what was written.
    """
    library = Library(Path(trackers))
    planned = save_imported(imported, library, dry_run=True)
    scene = save_imported_scene(planned, scenes, dry_run=True)
    if dry_run:
        return planned, scene
    if planned.trackers:
        check_folder(Path(trackers), "trackers")
    if scene is not None:
        check_folder(Path(scenes), "scene file")
    then = (f"the scene file in {scenes}",) if scene is not None else ()
    saved = replace(planned, trackers=tuple(_save_all(list(planned.trackers), library, then)))
    try:
        scene = save_imported_scene(saved, scenes)
    except (TrackerkitError, OSError) as error:
        folder = Path(trackers)
        raise ImportWriteError(
            f"cannot write the scene file in {scenes}: "
            + (error.strerror or str(error) if isinstance(error, OSError) else str(error)),
            tuple(folder / f"{t.id}.json" for t in saved.trackers),
            then,
        ) from error
    return saved, scene


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
    under. The scene's id is the one the source wants (`Imported.scene_details`), else made from
    its title (`Vera's pack` -> `vera-s-pack`); an id a scene file in `scenes` already has gets
    the next free one (`vera-s-pack-2`), so no scene is ever overwritten. Its char, user and card
    text are the source's when it gives them. The file is written atomically (a temporary
    renamed into place), and its name is claimed first, so two imports at once cannot take the
    same one.

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
    details = imported.scene_details
    wanted = details.get("id", "")
    known = {key: details[key] for key in ("char", "user", "card") if key in details}
    while True:
        if wanted and wanted not in taken:
            scene_id = wanted
            taken.add(wanted)
        else:
            scene_id = piece_id(wanted or imported.scene, taken)
        scene = Scene.model_validate(
            {
                "id": scene_id,
                "title": imported.scene,
                **known,
                "prompting": {"trackers": list(imported.scene_links)},
            }
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


def same_names(
    imported: Imported,
    scene: SavedScene | None,
    trackers: str | os.PathLike[str],
    scenes: str | os.PathLike[str],
) -> tuple[str, ...]:
    """One sentence per piece an import would write that bears the name of one already there.

    Call it with what `write_import(..., dry_run=True)` returned, before writing. A tracker
    clashes with a tracker of the folder called by the same name (as the update tool matches
    names: `HEALTH` is `Health`); the scene with a scene file of the same title. A second import
    of one file clashes on every piece. A folder or file that cannot be read counts as none.
    """
    folder = Path(trackers)
    new_ids = {t.id for t in imported.trackers}
    try:
        held = [t for t in Library(folder).trackers() if t.id not in new_ids]
    except TrackerkitError:
        held = []
    lines = []
    for tracker in imported.trackers:
        key = name_key(tracker.name)
        same = sorted((t for t in held if key and name_key(t.name) == key), key=lambda t: t.id)
        if same:
            files = ", ".join(str(folder / f"{t.id}.json") for t in same)
            lines.append(
                f'same name: {folder / (tracker.id + ".json")} ("{tracker.name}"): the library '
                f"already holds a tracker of this name, {files}; a scene that links two "
                "trackers of one name leaves one of them out of every turn"
            )
    if scene is not None:
        twins = same_title_scenes(scene.scene.title, scenes, scene.path)
        if twins:
            lines.append(
                f'same title: {scene.path} (scene "{scene.scene.title}"): the scenes folder '
                f"already holds a scene of this title, {', '.join(map(str, twins))}; the "
                "scene lists show two of one title"
            )
    return tuple(lines)


def same_title_scenes(
    title: str, scenes: str | os.PathLike[str], own: Path | None = None
) -> list[Path]:
    """The scene files in `scenes` (other than `own`) whose scene has `title`, by name."""
    folder = Path(scenes)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path == own:
            continue
        try:
            if load_scene(path).title == title:
                found.append(path)
        except (TrackerkitError, OSError):
            continue
    return found
