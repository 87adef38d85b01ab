"""The `trackerkit` command: thin, one library call per command, errors as one line and exit 1."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson

from trackerkit.errors import TrackerkitError
from trackerkit.library import Verdict, check_paths

# Each command module registers its sub-commands on the parser; the handler is stored as `func`.
Handler = Callable[[argparse.Namespace], int]
Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _registrars() -> list[Registrar]:
    registrars: list[Registrar] = [register_trackers, register_prompt]
    try:
        from trackerkit.trace.cli import register as register_trace
    except ModuleNotFoundError as exc:
        # The trace commands land with the trace package; until then the tracker side stands alone.
        if exc.name not in ("trackerkit.trace", "trackerkit.trace.cli"):
            raise
    else:
        registrars.append(register_trace)
    return registrars


def register_trackers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The tracker-side commands: `check`."""
    check = sub.add_parser(
        "check",
        help="decode tracker files or folders and print every problem",
        description=(
            "Decode tracker files (or every *.json in a folder) through the strict decoder. "
            "Prints each problem as `file: path: message`; exits 1 when any file is refused."
        ),
    )
    check.add_argument(
        "paths", nargs="+", metavar="PATH", help="a tracker file or a folder of them"
    )
    check.add_argument("--json", action="store_true", help="print machine-readable verdicts")
    check.set_defaults(func=_check)


def _check(args: argparse.Namespace) -> int:
    checked = check_paths(args.paths)
    verdicts = [v for _, found in checked for v in found]
    if args.json:
        print(orjson.dumps([v.to_json() for v in verdicts], option=orjson.OPT_INDENT_2).decode())
    else:
        for verdict in verdicts:
            for line in verdict.lines():
                print(line)
        for path, found in checked:
            print(f"{path}: {_summary(found)}")
    return 0 if all(v.ok for v in verdicts) else 1


def _summary(verdicts: list[Verdict]) -> str:
    total = len(verdicts)
    if total == 0:
        return "no tracker files (*.json)"
    noun = "tracker" if total == 1 else "trackers"
    refused = sum(not v.ok for v in verdicts)
    if refused:
        return f"{refused} of {total} {noun} refused"
    return f"{total} {noun}, all decode" if total > 1 else "1 tracker, decodes"


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
    from trackerkit.scene import FolderSource, load_linked, load_scene

    scene = load_scene(args.scene)
    folder: Path = args.trackers or Path(args.scene).parent.parent / "trackers"
    if not folder.is_dir():
        raise TrackerkitError(f"no tracker folder at {folder}; pass --trackers DIR")
    linked = load_linked(scene, FolderSource(folder))
    for left in linked.left_out:
        print(f"trackerkit: left out {left.tracker_id}: {left.reason}", file=sys.stderr)
    context = PromptContext(scene.user, scene.char)
    preview = preview_prompt(linked.trackers, scene.card, context=context)
    if args.json:
        print(orjson.dumps(preview.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        print(preview.to_text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree, so tests can check every command is documented."""
    parser = argparse.ArgumentParser(
        prog="trackerkit",
        description="Design, simulate and inspect LLM chat trackers; read trace journals.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for register in _registrars():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 refused or failed, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.func
    try:
        return handler(args)
    except TrackerkitError as exc:
        print(f"trackerkit: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"trackerkit: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
