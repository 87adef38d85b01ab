"""`import` and `export`: another tool's trackers in as new pieces, and trackers out to another."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from trackerkit.commands.options import check_out_file
from trackerkit.commands.scene import say_unread_workspace
from trackerkit.commands.terminal import say

if TYPE_CHECKING:
    from trackerkit.tracker import Tracker


def register_import(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `import` command: another tool's tracker file to new tracker pieces."""
    from trackerkit.formats.detect import FORMAT_NAMES, FORMATS

    command = sub.add_parser(
        "import",
        help="import another tool's trackers (MVU, SillyTavern-Tracker, WTracker, ...)",
        description=(
            "Read a tracker file of another tool ("
            + ", ".join(f"{FORMAT_NAMES[f]} ({f})" for f in FORMATS)
            + "), told by its content unless --from names it, and write each tracker as a new "
            "piece in DIR/trackers (atomic; an id already there gets the next free one). Prints "
            "the report: per source key what mapped exactly, what was guessed and from what, and "
            "what could not map and why; then the pieces written and the scene links. When the "
            "source is a set of trackers used together (a card, a preset, a game state), a scene "
            "file linking them is written in DIR/scenes (atomic; a taken id gets the next free "
            "one)."
        ),
    )
    command.add_argument("file", metavar="FILE", help="the file to import")
    command.add_argument(
        "--from",
        dest="format",
        choices=FORMATS,
        metavar="FORMAT",
        help=f"the file's format: {', '.join(FORMATS)} (default: told by the content)",
    )
    command.add_argument(
        "--into",
        "--data",
        dest="into",
        metavar="DIR",
        type=Path,
        help=(
            "the data folder to write into (its trackers/ and scenes/); default: "
            "$TRACKERKIT_DATA, else the per-user workspace (the bundled data/ is copied there "
            "first, never written)"
        ),
    )
    command.add_argument("--dry-run", action="store_true", help="print the report, write nothing")
    command.add_argument(
        "--allow-duplicates",
        action="store_true",
        help=(
            "write the trackers and scene even when ones of the same names are already there "
            "(by default such an import, a second import of one file, is refused)"
        ),
    )
    command.set_defaults(func=_import)


def _import(args: argparse.Namespace) -> int:
    from trackerkit.errors import BadRequestError
    from trackerkit.formats.detect import FORMAT_NAMES
    from trackerkit.formats.importers import import_file, same_names, write_import
    from trackerkit.workspace import workspace

    _refuse_loop(args.file)
    imported = import_file(args.file, args.format)
    report = imported.report
    count = len(imported.trackers)
    noun = "tracker" if count == 1 else "trackers"
    shown = FORMAT_NAMES.get(report.format, report.format)
    print(f"{report.file}: {shown}, {count} {noun} ({report.summary()})")
    for line in report.lines:
        print(f"  {line}")
    if not imported.trackers:
        say(
            f"nothing imported: no part of {report.file} could be made a tracker (the unmapped "
            "lines above say why); nothing was written"
        )
        return 1
    if args.into is not None and args.into.exists() and not args.into.is_dir():
        raise BadRequestError(f"--into: {args.into} is not a folder")
    chosen = workspace({"data": args.into} if args.into is not None else None)
    if not args.dry_run:
        chosen = chosen.for_writing()
    # The folder written into: on the bundled data (read in place), the workspace a real run
    # copies it to first; a dry run reads the bundled library, which that copy holds.
    root = chosen.copy_to if not chosen.writable and chosen.copy_to is not None else chosen.root
    if args.into is None:
        print(f"trackerkit: data folder {root} ({chosen.source})", file=sys.stderr)
    # Every file is chosen and checked before any is written: a refusal writes nothing, and a
    # write failing partway names each file written (write_import).
    saved, scene = write_import(imported, chosen.trackers, chosen.scenes, dry_run=True)
    _refuse_duplicates(same_names(saved, scene, chosen.trackers, chosen.scenes), args, root)
    if not args.dry_run:
        saved, scene = write_import(imported, chosen.trackers, chosen.scenes)
    verb = "would write" if args.dry_run else "wrote"
    for tracker in saved.trackers:
        print(f"{verb} {root / 'trackers' / (tracker.id + '.json')} ({tracker.name})")
    _say_namesakes(saved.trackers, root / "trackers")
    if saved.scene_links:
        print(f"scene links: {orjson.dumps(list(saved.scene_links)).decode()}")
    if scene is not None:
        print(f"{verb} {root / 'scenes' / scene.path.name} (scene {scene.scene.title})")
    elif saved.scene_links:
        print(
            f"no scene written: the {shown} file does not say which of these trackers one scene "
            "uses; link them in a scene (the simulator's tracker checks, or prompting.trackers)"
        )
    if args.dry_run:
        print("dry run: nothing written")
    return 0


def _say_namesakes(trackers: tuple[Tracker, ...], folder: Path) -> None:
    """Warn, in `check`'s words (`design.tracker_hints`), of imported trackers whose names match
    whatever the case (`Li` and `li`): the update tool matches names so."""
    from trackerkit.design.hints import tracker_hints

    files = [str(folder / f"{t.id}.json") for t in trackers]
    for file, found in zip(files, tracker_hints(trackers, files), strict=True):
        for problem in found:
            if problem.code == "namesake":
                print(f"{file}: warning: {problem}")


def _refuse_loop(file: str) -> None:
    """Refuse a file that is a symbolic link that loops, in `check`'s words: it is there, so
    the importer's "is not there" would mislead.

    Raises:
        ImportRefusedError: the link loops.
    """
    from trackerkit.errors import ImportRefusedError

    try:
        os.stat(file)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ImportRefusedError(
                file, "is a symbolic link that loops (it leads back to itself); it was not read"
            ) from None


def _refuse_duplicates(clashes: tuple[str, ...], args: argparse.Namespace, root: Path) -> None:
    """Print a line per piece bearing the name of one already in `root`; unless
    --allow-duplicates, refuse the import (a second import of one file, most likely).

    Raises:
        BadRequestError: a piece clashes and --allow-duplicates is not given.
    """
    from trackerkit.errors import BadRequestError

    for clash in clashes:
        print(clash)
    if not clashes or args.allow_duplicates:
        return
    pieces = f"{len(clashes)} pieces it would write bear the names of ones"
    if len(clashes) == 1:
        pieces = "a piece it would write bears the name of one"
    refused = "would be refused" if args.dry_run else "refused"
    raise BadRequestError(
        f"import {refused}: {pieces} already in {root} (above; was {args.file} imported there "
        "before?); nothing was written. Rename or remove the ones there, import into another "
        "folder (--into DIR), or pass --allow-duplicates to write them anyway"
    )


def register_export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `export` command: trackers out as a provider's tool, WTracker presets or a card."""
    from trackerkit.formats.export import EXPORT_TARGETS

    command = sub.add_parser(
        "export",
        help="export trackers as an OpenAI, Anthropic or Gemini tool, WTracker presets or a card",
        description=(
            "Export the trackers of a scene (its linked trackers), of tracker files or of "
            "folders of them. --to openai|anthropic|gemini prints the update_trackers tool as "
            "that provider's tools list takes it (a list of one tool, passed to the provider as "
            "its tools parameter as it is read: tools=json.load(file)), and on stderr each export's token cost beside "
            "the others in cl100k_base and o200k_base (OpenAI encodings: for Anthropic and "
            "Gemini, estimates). --to wtracker prints WTracker presets and names on stderr what "
            "they cannot hold; --to card prints a Character Card V2 with the trackers under "
            "data.extensions.trackerkit; from one scene, a new card takes the scene's char as "
            "its name and its card text as its description, and any card the scene's id, title "
            "and user under data.extensions.trackerkit.scene, which import reads back (--card "
            "CARD.json keeps every other key of that card, its name and description too). "
            "Exit status: 1 when a provider's documented rules refuse the tool (each rule "
            "broken is named on stderr; the document is still written, to look at); 0 when "
            "the only finding is a warning (a line starting 'warning:'), a limit the provider "
            "has enforced and may have lifted, such as OpenAI's 1,024 characters of tool "
            "description: the tool may be refused, so it is said, not failed."
        ),
    )
    command.add_argument(
        "paths",
        nargs="+",
        metavar="SCENE_OR_TRACKERS",
        help="a scene file, tracker files, or folders of tracker files",
    )
    command.add_argument(
        "--to", dest="target", required=True, choices=EXPORT_TARGETS, help="what to export to"
    )
    command.add_argument(
        "--card",
        metavar="CARD.json",
        type=Path,
        help="the card to carry the trackers (--to card): V2 or V1 JSON, or a PNG card",
    )
    command.add_argument(
        "--out",
        metavar="FILE",
        type=Path,
        help="write the document to FILE (atomic) instead of stdout; needed for a PNG card",
    )
    command.add_argument(
        "--trackers",
        metavar="DIR",
        type=Path,
        help="a scene's tracker folder (default: trackers/ beside the scene's folder)",
    )
    command.set_defaults(func=_export)


def _export(args: argparse.Namespace) -> int:
    from trackerkit.formats.export import (
        costs_table,
        export_trackers,
        load_export_source,
        write_export,
    )

    if args.out is not None:
        example = (
            "card.png" if args.card and args.card.suffix.lower() == ".png" else "trackers.json"
        )
        check_out_file(args.out, example=example)
    source = load_export_source(args.paths, args.trackers)
    say_unread_workspace(args.paths, args.trackers, scenes=bool(source.scenes))
    left_out = source.notes
    done = export_trackers(args.target, source.trackers, args.card, scenes=source.scenes)
    text = write_export(done, args.out)
    if text is not None:
        print(text)
    else:
        print(f"trackerkit: wrote {args.out}", file=sys.stderr)
    for note in [*left_out, *done.notes]:
        print(f"trackerkit: {note}", file=sys.stderr)
    if done.costs:
        print(costs_table(done.costs, args.target), file=sys.stderr)
    if done.refused:
        print(
            "trackerkit: the tool was written, but the provider's documented rules refuse it "
            "(each rule broken is named above); exit 1",
            file=sys.stderr,
        )
        return 1
    return 0
