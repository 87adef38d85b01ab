"""The scene a command is given, read and refused up front in one line; the `prompt` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from trackerkit._pieces import read_piece_file
from trackerkit.commands.terminal import say
from trackerkit.errors import TrackerkitError
from trackerkit.formats.detect import piece_kind

if TYPE_CHECKING:
    from trackerkit.scene import Linked, Scene


def file_kind(path: str | Path) -> str | None:
    """`piece_kind` of a file's JSON; None when it cannot be read or parsed."""
    raw, _unread = read_piece_file(Path(path))
    if raw is None:
        return None
    try:
        return piece_kind(orjson.loads(raw))
    except orjson.JSONDecodeError:
        return None


def refuse_tracker_for_scene(path: str | Path, command: str) -> None:
    """Refuse a tracker file given where a scene file is wanted, in one line that says so.

    Raises:
        TrackerkitError: `path` holds a tracker piece.
    """
    if file_kind(path) == "tracker":
        raise TrackerkitError(
            f"{path}: is a tracker, not a scene; {command} reads a scene file, which links "
            "trackers (such as data/scenes/fight.json)"
        )


def register_prompt(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `prompt` command: what a scene's turn sends at starting values, and its token costs."""
    prompt = sub.add_parser(
        "prompt",
        help="print a scene's ### Trackers block, tool lines and token costs",
        description=(
            "Render a scene at its trackers' starting values: the ### Trackers block, the "
            "update tool's line per tracker, and a token table (block, tool, tool without "
            "meanings, the anyOf alternative, card) naming the encoding."
        ),
    )
    prompt.add_argument(
        "scene", metavar="SCENE", help="a scene file, such as data/scenes/typical.json"
    )
    prompt.add_argument(
        "--trackers",
        metavar="DIR",
        type=Path,
        help="the tracker folder (default: trackers/ beside the scene's folder, SCENE/../../trackers)",
    )
    prompt.add_argument("--json", action="store_true", help="print machine-readable output")
    prompt.set_defaults(func=_prompt)


def _prompt(args: argparse.Namespace) -> int:
    from trackerkit.prompt import PromptContext, preview_prompt

    scene, linked = scene_and_trackers(args.scene, args.trackers, "prompt")
    say_unread_workspace([args.scene], args.trackers)
    for left in linked.left_out:
        print(f"trackerkit: left out {left.tracker_id}: {left.reason}", file=sys.stderr)
    context = PromptContext(scene.user, scene.char)
    preview = preview_prompt(linked.trackers, scene.card, context=context)
    if args.json:
        print(orjson.dumps(preview.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        print(preview.to_text())
    return 0


def scene_and_trackers(
    path: str | Path, trackers: Path | None, command: str, *, turns: bool = False
) -> tuple[Scene, Linked]:
    """The scene a command reads and its linked trackers, refused up front in one plain line.

    Args:
        path: the scene file given.
        trackers: the `--trackers` folder, or None for the one beside the scene's folder.
        command: the command's name, for the messages.
        turns: whether the command plays the scene's scripted turns (so it needs some).
    Raises:
        TrackerkitError: a tracker file given for a scene; a scene that cannot be read; no
            tracker folder; a scene whose linked trackers are none of them there or loadable;
            with `turns`, a scene without scripted turns.
    """
    from trackerkit.scene import FolderSource, load_linked, load_scene, scene_trackers

    refuse_tracker_for_scene(path, command)
    scene = load_scene(path)
    folder = scene_trackers(path, trackers)
    if not folder.is_dir():
        raise TrackerkitError(f"no tracker folder at {folder}; pass --trackers DIR")
    linked = load_linked(scene, FolderSource(folder))
    if scene.trackers and not linked.trackers:
        files = [f"{t}.json" for t in scene.trackers]
        if not any((folder / name).exists() for name in files):
            raise TrackerkitError(
                f"{path}: no linked tracker was found in {folder} (looked for "
                f"{', '.join(files)}); pass --trackers DIR, the folder holding them"
            )
        why = "; ".join(f"{left.tracker_id}: {left.reason}" for left in linked.left_out)
        raise TrackerkitError(f"{path}: none of its linked trackers loads from {folder} ({why})")
    if turns and not scene.turns:
        verb = "evaluate" if command == "eval" else "play"
        raise TrackerkitError(
            f"{path}: has no scripted turns to {verb}; {command} plays a scene's scripted "
            "turns (the simulator app plays any scene by hand)"
        )
    return scene, linked


def say_unread_workspace(
    paths: Sequence[str | Path],
    trackers: Path | None,
    *,
    data: Path | None = None,
    scenes: bool = True,
    folders: Sequence[Path] = (),
) -> None:
    """Say on stderr, in one line, that a command reads the bundled library while the apps read
    the person's workspace (a save made it), so the edits saved there are not what it reads.

    Nothing is said when `--data` (`data`) or `TRACKERKIT_DATA` chose the folder, when no
    workspace holds a library, or when no file read lies in the bundled `trackers/` or `scenes/`.
    The line names both folders and what to give instead: the workspace's copy of the first
    bundled file that has one, else of the tracker folder (`--trackers`).

    Args:
        paths: the files and folders the command was given.
        trackers: the `--trackers` folder, or None.
        data: the command's `--data` folder, or None.
        scenes: whether `paths` are scenes, whose trackers are read beside them (unless
            `trackers` is given).
        folders: other tracker folders read (those `eval`'s variants name).
    """
    from trackerkit.scene import scene_trackers
    from trackerkit.workspace import BUNDLED, in_bundled, unread_workspace

    home = unread_workspace() if data is None else None
    if home is None:
        return
    read = [(Path(path), "") for path in paths]
    if trackers is not None:
        read.append((trackers, "--trackers "))
    elif scenes:
        read += [(scene_trackers(path), "--trackers ") for path in paths]
    read += [(folder, "") for folder in folders]
    found = [(part, option) for path, option in read if (part := in_bundled(path)) is not None]
    if not found:
        return
    copies = [(home / part, option) for part, option in found if (home / part).exists()]
    instead = (
        f'give the workspace\'s copy instead, such as {copies[0][1]}"{copies[0][0]}"'
        if copies
        else "give the workspace's files instead"
    )
    say(
        f"read the bundled data {BUNDLED}, not your workspace {home}, which the apps read and "
        f"save to; to read the edits saved there, {instead}"
    )
