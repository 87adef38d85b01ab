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
"""

from __future__ import annotations

import html
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from trackerkit.design.draft import Draft, named, namesakes
from trackerkit.design.report import readable
from trackerkit.design.saving import clash_line, save
from trackerkit.errors import TrackerkitError
from trackerkit.formats.detect import (
    FORMAT_NAMES,
    FORMATS,
    MAX_BYTES,
    parse_document,
    png_card,
    read_document,
    sniff,
)
from trackerkit.formats.imported import Imported, ImportReport, ReportLine
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

#: The value of the "which tracker" choice that means every imported tracker.
ALL_IMPORTED = "*"

#: The designer's choice to take pieces named like ones already there (the CLI's
#: --allow-duplicates); a refused take names it.
TAKE_ANYWAY = "Take them anyway, beside the ones of the same names"

_MARKS = {"exact": "✓ exact", "guessed": "≈ guessed", "unmapped": "✗ unmapped"}


def format_label(format: str) -> str:
    """A format as its users know it, with its short name: `SillyTavern-Tracker (sillytavern-tracker)`."""
    return f"{FORMAT_NAMES.get(format, format)} ({format})"


def format_options() -> dict[str, str]:
    """The "Read as" choices, label to format: the detected format first (value ``""``), then each format."""
    return {"the format its content shows": "", **{format_label(f): f for f in FORMATS}}


@dataclass(frozen=True, slots=True)
class ImportView:
    """What the designer shows of one file read for import.

    Attributes:
        file: the file's name (an upload's own name, or the path given).
        detected: the format its content shows, or None when it cannot be told.
        format: the format it was read as (the one chosen, else the detected one), or None.
        imported: the import, or None when the file could not be read.
        problem: why nothing was imported, in words for the page (None when imported).
    """

    file: str
    detected: str | None
    format: str | None
    imported: Imported | None
    problem: str | None = None

    @property
    def trackers(self) -> tuple[Tracker, ...]:
        """The imported trackers (none when the file could not be read)."""
        return self.imported.trackers if self.imported is not None else ()

    def summary(self) -> str:
        """One line (markdown) for the page: the file, how it was read, what came of it.

        The file name is as given, not escaped: the page escapes the line (`safe_md`).
        """
        head = f"**{self.file}**"
        if self.format is None:
            return f"{head} · not imported"
        how = format_label(self.format)
        if self.detected == self.format:
            read = f"read as {how}, the format its content shows"
        elif self.detected is None:
            read = f"read as {how}, as chosen (its content shows no format trackerkit knows)"
        else:
            read = f"read as {how}, as chosen (its content shows {format_label(self.detected)})"
        if self.imported is None:
            return f"{head} · {read}"
        made = _count(len(self.imported.trackers), "tracker")
        if self.imported.scene:
            made += f' used together as "{self.imported.scene}"'
        return f"{head} · {read} · {made} · {self.imported.report.summary()}"

    def choices(self) -> dict[str, str]:
        """The "which tracker" choices, label to id: every tracker when there are several, then each one."""
        trackers = self.trackers
        each = {f"{t.name} ({_count(len(t.fields), 'field')})": t.id for t in trackers}
        if len(trackers) > 1:
            return {f"All {len(trackers)} trackers": ALL_IMPORTED, **each}
        return each


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


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
            try:
                text = contents.decode("utf-8-sig")
            except UnicodeDecodeError as error:
                raise TrackerkitError(
                    f"{file}: is not UTF-8 text (byte {error.start} is not UTF-8)"
                ) from None
            data = parse_document(text, file)
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


def _row(line: ReportLine) -> str:
    cells = (
        f'<td class="kind">{_MARKS[line.kind]}</td>',
        f"<td><code>{html.escape(line.source)}</code></td>",
        f"<td>{'<code>' + html.escape(line.target) + '</code>' if line.target else '—'}</td>",
        f"<td>{html.escape(line.detail)}</td>",
    )
    return f'<tr class="report-{line.kind}">{"".join(cells)}</tr>'


_STYLE = (
    "<style>"
    ".import-report{border-collapse:collapse;width:100%;font-size:0.9em}"
    ".import-report th,.import-report td{border:1px solid #d4d4d8;padding:3px 6px;"
    "text-align:left;vertical-align:top}"
    ".import-report th{background:#f4f4f5}"
    ".import-report .kind{white-space:nowrap}"
    ".import-report .report-guessed{background:#fef9c3}"
    ".import-report .report-unmapped{background:#fee2e2}"
    "</style>"
)


def report_html(report: ImportReport) -> str:
    """The report as an HTML table: one row per source key, in the source's order.

    Columns: what became of it (`✓ exact`, `≈ guessed`, `✗ unmapped`), the original key, the new
    name (`Tracker.field`, or `—` when unmapped) and how it was read (for a guess, the text it was
    guessed from; for an unmapped key, the reason). Every text is escaped.
    """
    head = "<tr><th>Became</th><th>Original key</th><th>New name</th><th>How it was read, or why not</th></tr>"
    rows = "".join(_row(line) for line in report.lines)
    return (
        f'{_STYLE}<table class="import-report"><thead>{head}</thead><tbody>{rows}</tbody></table>'
    )


def free_id(wanted: str, taken: Collection[str]) -> str:
    """`wanted`, or the first of `wanted-2`, `wanted-3`, ... that `taken` does not hold."""
    candidate, n = wanted, 1
    while candidate in taken:
        n += 1
        candidate = f"{wanted}-{n}"
    return candidate


@dataclass(frozen=True, slots=True)
class Taken:
    """What taking imported trackers into the library did.

    Attributes:
        saved: each tracker as the library now holds it, in the import's order.
        refused: a sentence for each tracker not saved, and why.
        scene: the scene file written to link them, when one was.
        renamed: the import's id to the id saved under, for each id the library already held.
        namesakes: each saved id whose name the library's other trackers also bear, and those
            trackers (a scene linking two of one name leaves one out: `draft.name_clash`).
        scene_links: the ids the scene written links (empty when none was written).
        scene_twins: the other scene files of the written scene's title (a second import).
    """

    saved: tuple[Tracker, ...]
    refused: tuple[str, ...] = ()
    scene: Path | None = None
    renamed: dict[str, str] = field(default_factory=dict)
    namesakes: dict[str, tuple[Tracker, ...]] = field(default_factory=dict)
    scene_links: tuple[str, ...] = ()
    scene_twins: tuple[Path, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every tracker asked for was saved."""
        return bool(self.saved) and not self.refused

    @property
    def took(self) -> dict[str, str]:
        """The import's id of each tracker saved, to the id the library now holds it under."""
        was = {now: before for before, now in self.renamed.items()}
        return {was.get(t.id, t.id): t.id for t in self.saved}

    def message(self) -> str:
        """What happened, in markdown for the page (names as written; the page escapes it, `safe_md`)."""
        lines = []
        for tracker in self.saved:
            line = f'- saved "{tracker.name}" as `{tracker.id}.json`'
            same = self.namesakes.get(tracker.id, ())
            if same:
                line += f"; the library already holds a tracker of this name: {named(same)}"
            lines.append(line)
        for was, now in self.renamed.items():
            lines.append(f"- `{was}` was taken, so it is `{now}`")
        if self.scene is not None:
            lines.append(f"- a scene linking them: `{self.scene.name}`")
        if self.scene is not None and self.scene_twins:
            twins = ", ".join(f"`{p.name}`" for p in self.scene_twins)
            lines.append(
                f"- same title: `{self.scene.name}`: the scenes folder already holds a scene of "
                f"this title, {twins}; the scene lists show two of one title"
            )
        lines += [f"- {line}" for line in self.refused]
        lines += self._namesake_lines()
        head = f"Took {len(self.saved)} into the library." if self.saved else "Nothing was taken."
        return head + "\n\n" + "\n".join(lines)

    def _namesake_lines(self) -> list[str]:
        """One line per group of trackers sharing a name, naming them, and whether the scene
        written links more than one of them (a trial: the general sentence read as if the new
        scene linked both when it did not)."""
        lines, told = [], set()
        for tracker in self.saved:
            same = self.namesakes.get(tracker.id, ())
            group = frozenset([tracker.id, *(t.id for t in same)])
            if not same or group in told:
                continue
            told.add(group)
            ids = ", ".join(f"`{i}`" for i in sorted(group))
            linked = sorted(group & set(self.scene_links))
            if self.scene is not None and len(linked) > 1:
                both = ", ".join(f"`{i}`" for i in linked)
                lines.append(
                    f"- the scene written, `{self.scene.name}`, links {both}, which share a name: "
                    "every turn leaves one of them out: rename one"
                )
            else:
                scene = (
                    f"`{self.scene.name}` links one of them; "
                    if self.scene is not None and linked
                    else ""
                )
                lines.append(
                    f"- {ids} share a name: {scene}a scene that links two trackers of one name "
                    "leaves one of them out of every turn: rename one before linking both"
                )
        return lines


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
