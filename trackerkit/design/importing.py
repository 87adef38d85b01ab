"""The designer's "Import…": read another tool's file, show its report, take the trackers in.

A file arrives as an upload (its name and bytes) or as a path on this machine. `read_upload` and
`read_path` parse it once, tell its format by its content, read it in that format (or in the one
the person chose instead) and return an `ImportView`: what the page shows, with the problem in
words when the file cannot be read, never an exception. `report_html` lays the import report out
as a table (exact, guessed with the text it was guessed from, unmapped with the reason; the
original key beside the new name). `take_imported` writes trackers into the library through the
designer's own save (`design.save`: atomic, guarded by revision, never over another file), an id
the library already holds getting the next free suffix. As `trackerkit import` does, it refuses
pieces named like ones already there (`duplicates`, said on the page before the button) unless
the person chose to take them anyway. `open_imported` opens one as a new draft under the id it
is saved under.

The view and its report table are `design.import_view`'s, what a take did (`Taken`) is
`design.taken`'s; both are imported here, the place to import them from.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

from trackerkit.design.draft import Draft, namesakes
from trackerkit.design.import_view import (
    ALL_IMPORTED,
    ImportView,
    format_label,
    format_options,
    report_html,
)
from trackerkit.design.report import readable
from trackerkit.design.saving import clash_line, save
from trackerkit.design.taken import Taken
from trackerkit.errors import TrackerkitError
from trackerkit.formats.detect import (
    FORMATS,
    MAX_BYTES,
    parse_document,
    png_card,
    read_document,
    sniff,
)
from trackerkit.formats.document import decoded_text
from trackerkit.formats.imported import Imported
from trackerkit.formats.importers import IMPORTERS, same_title_scenes, save_imported_scene
from trackerkit.formats.png import is_png
from trackerkit.library import Library
from trackerkit.tracker import Tracker

__all__ = [
    "ALL_IMPORTED",
    "TAKE_ANYWAY",
    "ImportView",
    "Taken",
    "duplicates",
    "format_label",
    "format_options",
    "free_id",
    "open_imported",
    "read_path",
    "read_upload",
    "report_html",
    "take_imported",
    "taken_before",
]

#: The designer's choice to take pieces named like ones already there (the CLI's
#: --allow-duplicates); a refused take names it.
TAKE_ANYWAY = "Take them anyway, beside the ones of the same names"


def read_upload(name: str, contents: bytes, format: str | None = None) -> ImportView:
    """Read an uploaded file (its name and bytes) for import; see `read_path`."""
    file = name or "the uploaded file"
    try:
        if len(contents) > MAX_BYTES:
            raise TrackerkitError(
                f"{file}: is {len(contents):,} bytes; an import reads at most {MAX_BYTES:,}"
            )
        if is_png(contents):
            data = png_card(contents, file)
        else:
            data = parse_document(decoded_text(contents, file), file, whole=True)
    except Exception as error:  # every failure is shown on the page, none escapes
        return ImportView(file, None, format or None, None, _unread(error))
    return _read(file, data, format or None)


def read_path(path: str | os.PathLike[str], format: str | None = None) -> ImportView:
    """Read a file on this machine for import, in `format` or in the format its content shows.

    Never raises: a file that is missing, unreadable, in no known format or refused by its
    importer gives a view whose `problem` says so, naming the file.
    """
    given = os.fspath(path).strip()
    file = str(Path(given).expanduser()) if given else ""
    if not file:
        return ImportView("", None, format or None, None, "Give a file's path to import it.")
    try:
        file, data = read_document(file)
    except Exception as error:  # every failure is shown on the page, none escapes
        return ImportView(file, None, format or None, None, _unread(error))
    return _read(file, data, format or None)


def _unread(error: BaseException) -> str:
    return readable(error, "read the file")


def _read(file: str, data: object, chosen: str | None) -> ImportView:
    detected = sniff(data)
    format = chosen or detected
    if format is None:
        known = ", ".join(format_label(f) for f in FORMATS)
        problem = (
            f"{file}: trackerkit cannot tell its format by its content; it reads {known}. "
            'If it is one of them, choose it under "Read as".'
        )
        return ImportView(file, None, None, None, problem)
    importer = IMPORTERS.get(format)
    if importer is None:
        return ImportView(file, detected, format, None, f"{file}: no importer for {format!r}")
    try:
        imported = importer(data, file)
    except Exception as error:  # every failure is shown on the page, none escapes
        return ImportView(
            file, detected, format, None, readable(error, f"read it as {format_label(format)}")
        )
    if not imported.trackers:
        why = f"{file}: no tracker could be made from it; the report says what each key became."
        return ImportView(file, detected, format, imported, why)
    return ImportView(file, detected, format, imported)


def free_id(wanted: str, taken: Collection[str]) -> str:
    """`wanted`, or the first of `wanted-2`, `wanted-3`, ... that `taken` does not hold."""
    candidate, n = wanted, 1
    while candidate in taken:
        n += 1
        candidate = f"{wanted}-{n}"
    return candidate


def duplicates(
    imported: Imported,
    library: Library,
    which: str = ALL_IMPORTED,
    scenes: str | os.PathLike[str] | None = None,
) -> tuple[str, ...]:
    """One sentence per piece `take_imported` would write that bears the name of one already there.

    The check `trackerkit import` makes before writing (it refuses such an import unless
    --allow-duplicates): a tracker clashes with a tracker of the library called by its name (as
    the update tool matches names: `HEALTH` is `Health`), the scene linking them (written when
    every tracker is taken and `scenes` is given) with a scene file of its title. Each sentence
    names the file the piece would be. A library or folder that cannot be read holds none.
    Markdown, names as written: the page escapes it (`safe_md`).
    """
    chosen = [t for t in imported.trackers if which in (ALL_IMPORTED, t.id)]
    try:
        held, taken = library.trackers(), set(library.ids())
    except TrackerkitError:
        held, taken = [], set()
    lines = []
    for tracker in chosen:
        new_id = free_id(tracker.id, taken)
        taken.add(new_id)
        same = namesakes(tracker.name, held)
        if same:
            lines.append(clash_line(tracker.name, new_id, same))
    if scenes is not None and which == ALL_IMPORTED and chosen:
        lines += _same_title(imported, scenes)
    return tuple(lines)


def _same_title(imported: Imported, scenes: str | os.PathLike[str]) -> list[str]:
    """The sentence for the scene an import would write, when a scene file has its title."""
    try:
        planned = save_imported_scene(imported, scenes, dry_run=True)
        if planned is None:
            return []
        twins = same_title_scenes(planned.scene.title, scenes)
    except (TrackerkitError, OSError, ValueError):  # an unreadable folder holds no twin
        return []
    if not twins:
        return []
    files = ", ".join(f"`{p.name}`" for p in twins)
    return [
        f'the scene "{planned.scene.title}" (would be `{planned.path.name}`): the scenes folder '
        f"already holds a scene of this title: {files}"
    ]


def _refuse_duplicates(count: int) -> str:
    """The CLI's refusal of an import that clashes, with the designer's choice in place of its flag."""
    pieces = f"{count} pieces it would write bear the names of ones"
    if count == 1:
        pieces = "a piece it would write bears the name of one"
    return (
        f"not taken: {pieces} already in the library (listed above; was this file taken in "
        "before?); nothing was written. Rename or remove the ones there, or tick "
        f'"{TAKE_ANYWAY}" to write them anyway'
    )


def taken_before(imported: Imported, which: str, took: Mapping[str, str]) -> str | None:
    """Why the page does not offer to take `which` of this import again, or None when it may.

    `took` is what the page's takes of this same file wrote (`Taken.took`, summed): the import's
    id to the id saved under. When every tracker chosen was taken, a second take would only write
    copies beside them (`li-2.json`), named like them (a trial: a second press did). A choice
    holding one not taken yet is offered, its namesakes said by `duplicates` as for any take.
    Markdown, names as written: the page escapes it (`safe_md`).
    """
    chosen = [t for t in imported.trackers if which in (ALL_IMPORTED, t.id)]
    if not chosen or any(t.id not in took for t in chosen):
        return None  # something new to take; a namesake of what was taken is `duplicates`' part
    files = ", ".join(f'"{t.name}" as `{took[t.id]}.json`' for t in chosen)
    return (
        f"Already taken into the library from this file: {files}. Taking them again would write "
        "copies beside them, so it is not offered: edit them in the library."
    )


def take_imported(
    imported: Imported,
    library: Library,
    which: str = ALL_IMPORTED,
    scenes: str | os.PathLike[str] | None = None,
    *,
    allow_duplicates: bool = False,
) -> Taken:
    """Save imported trackers into `library` as new pieces, through the designer's own save.

    Each goes through `design.save(Draft.open(tracker), library, id)`: its verdict is checked,
    the file is written atomically and only where none exists (base revision -1). An id the
    library holds gets the next free suffix (`li-2`), also when another save takes it meanwhile.

    Args:
        imported: what `read_upload` or `read_path` imported.
        library: the tracker folder to write into.
        which: one tracker's id from the import, or `ALL_IMPORTED`.
        scenes: when given and every tracker is taken, the scenes folder where a scene linking
            them is written (if the source implies one: a card, a preset, a game state).
        allow_duplicates: take them even when a piece bears the name of one already there
            (`duplicates`); by default, as `trackerkit import` without --allow-duplicates,
            nothing is written and the refusal names each clash.
    """
    chosen = [t for t in imported.trackers if which in (ALL_IMPORTED, t.id)]
    if not chosen:
        return Taken((), (f"the import holds no tracker {which!r}",))
    clashes = duplicates(imported, library, which, scenes)
    if clashes and not allow_duplicates:
        return Taken((), (*clashes, _refuse_duplicates(len(clashes))))
    saved: list[Tracker] = []
    refused: list[str] = []
    renamed: dict[str, str] = {}
    for tracker in chosen:
        stored = _save_new(tracker, library, refused)
        if stored is None:
            continue
        saved.append(stored)
        if stored.id != tracker.id:
            renamed[tracker.id] = stored.id
    scene = None
    twins: tuple[Path, ...] = ()
    links: tuple[str, ...] = ()
    if scenes is not None and which == ALL_IMPORTED and not refused and saved:
        links = tuple(renamed.get(i, i) for i in imported.scene_links)
        written = replace(imported, trackers=tuple(saved), scene_links=links)
        try:
            done = save_imported_scene(written, scenes)
        except Exception as error:  # the trackers are saved; the scene's failure is said
            refused.append(readable(error, "write the scene linking them"))
        else:
            if done is not None:
                scene = done.path
                twins = tuple(same_title_scenes(done.scene.title, scenes, done.path))
    return Taken(
        tuple(saved),
        tuple(refused),
        scene,
        renamed,
        _namesakes(saved, library),
        links if scene is not None else (),
        twins,
    )


def _namesakes(saved: list[Tracker], library: Library) -> dict[str, tuple[Tracker, ...]]:
    """Each saved tracker's namesakes in the library (none when the library cannot be listed)."""
    try:
        held = list(library.trackers())
    except TrackerkitError:
        return {}
    found = {t.id: tuple(namesakes(t.name, held, t.id)) for t in saved}
    return {i: same for i, same in found.items() if same}


def _save_new(tracker: Tracker, library: Library, refused: list[str]) -> Tracker | None:
    draft = Draft.open(tracker)
    taken: set[str] = set()
    while True:
        try:
            taken |= set(library.ids())
        except TrackerkitError as error:
            refused.append(f'"{tracker.name}": ' + readable(error, "list the library"))
            return None
        new_id = free_id(tracker.id, taken)
        outcome = save(draft, library, new_id)
        if outcome.ok:
            return outcome.draft.base
        if outcome.kind != "taken":
            refused.append(f'"{tracker.name}": {outcome.message}')
            return None
        taken.add(new_id)  # saved by someone else meanwhile: the next suffix


def open_imported(imported: Imported, which: str, taken: Collection[str]) -> tuple[Draft, str]:
    """One imported tracker as a new draft under a free id (`free_id`), and that id.

    The draft carries the id it is saved under, not the import's: where it is linked and what
    its save would break are the new tracker's (none), never those of a library tracker that
    holds the import's id (a trial: a preset `quest` showed the bundled Quest's scene).

    Raises:
        TrackerkitError: `which` names no tracker of the import (all of them cannot be opened).
    """
    tracker = next((t for t in imported.trackers if t.id == which), None)
    if tracker is None:
        if which == ALL_IMPORTED:
            raise TrackerkitError("choose one tracker to open: the draft holds one at a time")
        raise TrackerkitError(f"the import holds no tracker {which!r}")
    new_id = free_id(tracker.id, taken)
    return Draft.open(tracker).with_id(new_id), new_id
