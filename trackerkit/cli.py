"""The `trackerkit` command: thin, one library call per command, errors as one line and exit 1."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from trackerkit._pieces import read_piece_file
from trackerkit.design.hints import tracker_hints
from trackerkit.errors import BadRequestError, Problem, TrackerkitError
from trackerkit.formats.detect import piece_kind
from trackerkit.library import Verdict, check_paths
from trackerkit.line import shown_path

if TYPE_CHECKING:
    from trackerkit.scene import Linked, Scene
    from trackerkit.trace import TraceWriter

# Each command module registers its sub-commands on the parser; the handler is stored as `func`.
Handler = Callable[[argparse.Namespace], int]
Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _registrars() -> list[Registrar]:
    from trackerkit.evaluation.cli import register as register_eval
    from trackerkit.trace.cli import register as register_trace

    return [
        register_trackers,
        register_prompt,
        register_simulate,
        register_eval,
        register_trace,
        register_import,
        register_export,
    ]


def register_trackers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The tracker-side commands: `check`."""
    check = sub.add_parser(
        "check",
        help="decode tracker files or folders and print every problem",
        description=(
            "Decode tracker files (or every *.json in a folder) through the strict decoder. "
            "Prints each problem as `file: path: message`; exits 1 when any file is refused. "
            "Files that decode may get warnings (`file: warning: path: message`, exit code "
            "unchanged): a template macro naming a tracker or field none of the files checked "
            "holds, a name a macro cannot write, two trackers of one name whatever the case."
        ),
    )
    check.add_argument(
        "paths", nargs="+", metavar="PATH", help="a tracker file or a folder of them"
    )
    check.add_argument("--json", action="store_true", help="print machine-readable verdicts")
    check.set_defaults(func=_check)


def _check(args: argparse.Namespace) -> int:
    checked = [
        (path, [_scene_verdict(v) for v in found]) for path, found in check_paths(args.paths)
    ]
    verdicts = [v for _, found in checked for v in found]
    warned = _warnings(verdicts)
    if args.json:
        out = [{**v.to_json(), "warnings": _problems_json(warned.get(id(v), []))} for v in verdicts]
        print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return 0 if all(v.ok for v in verdicts) else 1
    for path, found in checked:
        if found and all(_is_scene(v) for v in found) and Path(path).is_dir():
            # A folder of scenes given for trackers: one line says so, not every scene's keys.
            print(f"{shown_path(path)}: {_scenes_folder(Path(path), len(found))}")
            continue
        for verdict in found:
            for line in verdict.lines():
                print(line)
            for problem in warned.get(id(verdict), []):
                print(f"{shown_path(verdict.file)}: warning: {problem}")
        if len(found) != 1 or not _is_scene(found[0]) or Path(path).is_dir():
            count = sum(len(warned.get(id(v), [])) for v in found)
            print(f"{shown_path(path)}: {_summary(found)}{_warning_count(count)}")
    return 0 if all(v.ok for v in verdicts) else 1


def _warnings(verdicts: list[Verdict]) -> dict[int, list[Problem]]:
    """Each decoded verdict's warnings (`design.tracker_hints`), by the verdict's identity: the
    trackers of every path checked are judged together, as a scene could link them."""
    decoded: list[Verdict] = []
    seen: set[Path] = set()
    for verdict in verdicts:  # a file named twice (a folder and a file in it) is judged once
        where = Path(verdict.file).resolve()
        if verdict.tracker is not None and where not in seen:
            seen.add(where)
            decoded.append(verdict)
    hints = tracker_hints([v.tracker for v in decoded if v.tracker], [v.file for v in decoded])
    return {id(v): found for v, found in zip(decoded, hints, strict=True) if found}


def _problems_json(problems: list[Problem]) -> list[dict[str, str]]:
    return [{"path": p.path, "message": p.message} for p in problems]


def _warning_count(count: int) -> str:
    if not count:
        return ""
    return f" ({count} warning{'' if count == 1 else 's'} above)"


#: What `check` says of a scene file given for a tracker (its problem code is `is_scene`).
_SCENE_NOT_TRACKER = (
    "is a scene, not a tracker; check reads tracker files (trackerkit prompt SCENE reads a scene)"
)


def file_kind(path: str | Path) -> str | None:
    """`piece_kind` of a file's JSON; None when it cannot be read or parsed."""
    raw, _unread = read_piece_file(Path(path))
    if raw is None:
        return None
    try:
        return piece_kind(orjson.loads(raw))
    except orjson.JSONDecodeError:
        return None


def _scene_verdict(verdict: Verdict) -> Verdict:
    """A refused verdict on a scene file: one problem saying so, in place of the unknown keys."""
    if verdict.ok or file_kind(verdict.file) != "scene":
        return verdict
    return Verdict(verdict.file, verdict.id, None, (Problem((), _SCENE_NOT_TRACKER, "is_scene"),))


def _is_scene(verdict: Verdict) -> bool:
    return any(p.code == "is_scene" for p in verdict.problems)


def _scenes_folder(folder: Path, count: int) -> str:
    noun = "file" if count == 1 else "files"
    trackers = folder.parent / "trackers"
    hint = f": try {trackers}" if trackers.is_dir() and trackers != folder else ""
    return (
        f"is a folder of scenes ({count} scene {noun}), not trackers; check reads tracker "
        f"files{hint}"
    )


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


def _summary(verdicts: list[Verdict]) -> str:
    total = len(verdicts)
    if total == 0:
        return "no tracker files (*.json)"
    noun = "tracker" if total == 1 else "trackers"
    refused = sum(not v.ok for v in verdicts)
    scenes = sum(_is_scene(v) for v in verdicts)
    if scenes:
        are = "is a scene, not a tracker" if scenes == 1 else "are scenes, not trackers"
        return f"{refused} of {total} files refused ({scenes} {are})"
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

    scene, linked = scene_and_trackers(args.scene, args.trackers, "prompt")
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


def register_simulate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `simulate` and `changes` commands: play a scenario turn by turn."""
    simulate = sub.add_parser(
        "simulate",
        help="play a scene's scripted turns and print a table per turn",
        description=(
            "Run a scene turn by turn (its scripted turns, against the scripted model or any "
            "OpenAI-compatible endpoint) and print per turn: the user text, the tool calls, the "
            "changes and the prompt tokens by part. --protocol text offers no tool: the prompt "
            "asks for the updates as one fenced JSON block at the end of the reply, which is "
            "taken out of the reply and applied as a tool call would be. Writes the turns to the trace journal "
            "DATA/trace/YYYY-MM-DD.jsonl unless --no-trace, and says where on stderr: DATA is "
            "the data folder every app and command uses: --data, else $TRACKERKIT_DATA, else "
            "$ASSISTANT_DATA_DIR, else the per-user workspace (such as "
            "~/.local/share/trackerkit/workspace), never the repository's bundled sample days. "
            "The day file is named in --timezone, else $ASSISTANT_TIMEZONE, else UTC."
        ),
    )
    _session_options(simulate)
    simulate.add_argument("--json", action="store_true", help="print the turn reports as JSON")
    add_model_options(simulate)
    add_data_option(simulate)
    simulate.add_argument(
        "--timezone",
        metavar="TZ",
        help="the IANA time zone naming the trace day file (default: $ASSISTANT_TIMEZONE, else UTC)",
    )
    simulate.add_argument(
        "--now",
        metavar="TIMESTAMP",
        type=_timestamp,
        help=(
            "start the simulated clock at this ISO-8601 time (UTC unless it names an offset), "
            "for tests and replays; the clock then runs at the real pace"
        ),
    )
    simulate.add_argument("--no-trace", action="store_true", help="write no trace events")
    simulate.set_defaults(func=_simulate)

    changes = sub.add_parser(
        "changes",
        help="play a scene's scripted turns and print what each reply changed",
        description=(
            "Play the scene's scripted turns (no trace) and print the changes read over the "
            "take: per message, per tracker, each change. --json prints the exact shape "
            "{messages: [{messageId, trackers: [...]}]}."
        ),
    )
    _session_options(changes)
    changes.add_argument("--json", action="store_true", help="print the exact changes shape")
    changes.add_argument(
        "--from", dest="from_id", metavar="ID", help="the first message (default: the first)"
    )
    changes.add_argument(
        "--to", dest="to_id", metavar="ID", help="the last message (default: the tip)"
    )
    changes.set_defaults(func=_changes)


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """`--data DIR`, which `simulate` and `eval` share: the data folder whose trace/ receives
    the turns, chosen by the one rule of `trackerkit.workspace` when not given."""
    parser.add_argument(
        "--data",
        metavar="DIR",
        type=Path,
        help=(
            "the data folder whose trace/ receives the turns (default: $TRACKERKIT_DATA, else "
            "$ASSISTANT_DATA_DIR, else the per-user workspace)"
        ),
    )


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """The model options `simulate` and `eval` share: which model, where, and by which protocol."""
    parser.add_argument(
        "--model",
        choices=["scripted", "openai"],
        default="scripted",
        help="the model (default: scripted)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1",
    )
    parser.add_argument(
        "--model-name",
        metavar="NAME",
        help="the model name the server knows (needed with --model openai)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        default="OPENAI_API_KEY",
        help="the environment variable holding the API key",
    )
    from trackerkit.simulate.completion import PROTOCOLS

    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="tools",
        help=(
            "how the model sends its tracker updates: tools (the update_trackers tool; default) "
            "or text (no tool: one fenced update_trackers JSON block at the end of the reply, "
            "for models without tool calling)"
        ),
    )


def check_model_options(args: argparse.Namespace) -> None:
    """Refuse model options that cannot work, before anything runs: `--model openai` without
    `--base-url` or `--model-name` (but with `--variants`, which name their own), a `--base-url`
    that is no http(s) address, `--base-url` for the scripted model, an empty `--model-name` or
    `--api-key-env`."""
    if args.model == "openai" and not args.base_url:
        raise TrackerkitError(
            "--model openai needs --base-url (the API root, such as http://127.0.0.1:11434/v1)"
        )
    if args.base_url and not args.base_url.startswith(("http://", "https://")):
        raise TrackerkitError(
            f"--base-url {args.base_url!r} is not an http(s) address; give the API root, such "
            "as http://127.0.0.1:11434/v1"
        )
    if args.base_url and args.model != "openai":
        raise TrackerkitError(
            "--base-url is for --model openai; the scripted model plays the scene's own calls "
            "(add --model openai to use the server)"
        )
    if (
        args.model == "openai"
        and args.model_name is None
        and getattr(args, "variants", None) is None
    ):
        raise TrackerkitError(
            f"--model openai needs --model-name: the model the server at {args.base_url} knows "
            "(such as qwen2.5:7b on Ollama); it also names the results and the trace's model"
        )
    for option, value in (("--model-name", args.model_name), ("--api-key-env", args.api_key_env)):
        if value is not None and not value.strip():  # None: not given, where it has no default
            raise TrackerkitError(f"{option} needs a name, not an empty text")


def _number(text: str, *, least: float, inclusive: bool, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give {what}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; give {what}")
    if value < least or (value == least and not inclusive):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; give {what}")
    return value


def positive_number(text: str) -> float:
    """An option's number that must be above 0 (seconds, for instance); argparse's `type`."""
    return _number(text, least=0.0, inclusive=False, what="a number above 0")


def non_negative_number(text: str) -> float:
    """An option's number that must be 0 or more (a tolerance); argparse's `type`."""
    return _number(text, least=0.0, inclusive=True, what="a number of 0 or more")


def positive_int(text: str) -> int:
    """An option's whole number that must be 1 or more (runs, concurrency); argparse's `type`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number; give 1 or more"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; give 1 or more")
    return value


def check_out_file(out: Path, option: str = "--out", example: str = "results.parquet") -> Path:
    """Refuse an output file that cannot be written, before any work: a folder, a missing
    folder, a place this user cannot write.

    Raises:
        TrackerkitError: the message names the path and what to give instead.
    """
    if out.is_dir():
        raise TrackerkitError(
            f"{option} {out} is a folder; give a file name, such as {out / example}"
        )
    parent = out.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise TrackerkitError(f"{option} {out}: the folder {parent} {what}")
    if not os.access(parent, os.W_OK | os.X_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise TrackerkitError(f"{option} {out}: this user cannot write there")
    return out


def _session_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "scene",
        metavar="SCENE",
        help="a scene file with scripted turns, e.g. data/scenes/fight.json",
    )
    parser.add_argument(
        "--trackers",
        metavar="DIR",
        type=Path,
        help="the tracker folder (default: trackers/ beside the scene's folder)",
    )


def _simulate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from trackerkit.simulate import check_data_dir, data_dir, time_zone
    from trackerkit.simulate.model import Model, OpenAIModel
    from trackerkit.simulate.session import Session
    from trackerkit.views.tables import turn_table

    zone = time_zone(args.timezone)  # checked first: a bad zone is refused before any turn runs
    clock = _clock(args.now)
    model: Model | None = None
    check_model_options(args)
    scene_and_trackers(args.scene, args.trackers, "simulate", turns=True)
    if args.model == "openai":
        model = OpenAIModel(args.base_url, args.model_name, args.api_key_env)
    trace = None
    if not args.no_trace:
        from trackerkit.trace import TraceWriter

        trace = TraceWriter(check_data_dir(data_dir(args.data)), timezone=zone, clock=clock)
    started = clock()
    try:
        session = Session.from_scene(
            args.scene,
            model,
            trackers=args.trackers,
            trace=trace,
            clock=clock,
            protocol=args.protocol,
        )
        with tqdm(
            total=len(session.steps), unit="step", disable=None, leave=False, file=sys.stderr
        ) as bar:

            def advance(done: int, total: int) -> None:
                bar.update(done - bar.n)

            reports = session.run(progress=advance)
    finally:
        if trace is not None:
            trace.close()
    if trace is not None:
        say_trace(trace, started, clock())
    if args.json:
        print(orjson.dumps([r.to_json() for r in reports], option=orjson.OPT_INDENT_2).decode())
    else:
        print(turn_table(reports))
        print(f"\nvalues at the tip: {orjson.dumps(session.values()).decode()}")
    failed = [r for r in reports if r.failed is not None]
    if failed:
        # Turns that failed (an unreachable server) miss every expectation after them: one line
        # for the failure and one count, not a line per expectation.
        noun = "turn" if len(reports) == 1 else "turns"
        print(
            f"trackerkit: {len(failed)} of {len(reports)} {noun} failed: {failed[0].failed}",
            file=sys.stderr,
        )
        if session.mismatches:
            count = len(session.mismatches)
            print(
                f"trackerkit: {count} {'expectation' if count == 1 else 'expectations'} not met "
                "(not listed, as turns failed)",
                file=sys.stderr,
            )
        return 1
    for mismatch in session.mismatches:
        print(f"trackerkit: expectation not met: {mismatch}", file=sys.stderr)
    return 1 if session.mismatches else 0


def _timestamp(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO-8601 time such as 2027-01-05T12:00:00Z"
        ) from None
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    # The clock runs on from it, and days are told in other offsets: a day's room either side.
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not _EARLIEST <= utc <= _LATEST:
        raise argparse.ArgumentTypeError(
            f"{text!r} is too near the calendar's edge; give a time between "
            f"{_EARLIEST.date().isoformat()} and {_LATEST.date().isoformat()} (UTC)"
        )
    return moment


_EARLIEST = datetime(1, 1, 3, tzinfo=UTC)
_LATEST = datetime(9999, 12, 29, tzinfo=UTC)


def say_trace(trace: TraceWriter, started: datetime, ended: datetime) -> None:
    """Say on stderr each day file a run from `started` to `ended` wrote its turns to.

    The writer never breaks a turn (TC-20), so a failed write is told here, not raised; a day
    file left empty holds no trace and is said to be unwritten.
    """
    moments = [started]
    while moments[-1] + timedelta(days=1) < ended:  # a run past midnight: each day between
        moments.append(moments[-1] + timedelta(days=1))
    days = list(dict.fromkeys(trace.path_for(m) for m in [*moments, ended]))
    lost = (
        f" ({trace.failures} {'write' if trace.failures == 1 else 'writes'} failed, so "
        "events are missing from it)"
        if trace.failures
        else ""
    )
    written = [d for d in days if d.is_file() and d.stat().st_size]
    for day in written:
        print(f"trackerkit: trace written to {day}{lost}", file=sys.stderr)
    for day in [] if written else days:
        print(f"trackerkit: no trace could be written to {day}", file=sys.stderr)


def _clock(start: datetime | None) -> Callable[[], datetime]:
    """The real clock, or one that starts at `start` and runs at the real pace."""
    if start is None:
        return lambda: datetime.now(UTC)
    began = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - began)


def _changes(args: argparse.Namespace) -> int:
    from trackerkit.changes import Changes, tracker_changes_between
    from trackerkit.simulate.session import Session
    from trackerkit.views.tables import changes_lines

    scene_and_trackers(args.scene, args.trackers, "changes", turns=True)
    session = Session.from_scene(args.scene, trackers=args.trackers)
    session.run()
    messages = session.chat.messages
    ids = [m.id for m in messages]
    if (
        args.from_id in ids
        and args.to_id in ids
        and ids.index(args.from_id) > ids.index(args.to_id)
    ):
        raise BadRequestError(
            f"--from {args.from_id} comes after --to {args.to_id} on this take; "
            f"give the earlier message first (--from {args.to_id} --to {args.from_id})"
        )
    result = (
        tracker_changes_between(session.chat, None, args.from_id or messages[0].id, args.to_id)
        if messages
        else Changes()
    )
    if args.json:
        print(orjson.dumps(result.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        print(changes_lines(result))
    return 0


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

    imported = import_file(args.file, args.format)
    report = imported.report
    count = len(imported.trackers)
    noun = "tracker" if count == 1 else "trackers"
    shown = FORMAT_NAMES.get(report.format, report.format)
    print(f"{report.file}: {shown}, {count} {noun} ({report.summary()})")
    for line in report.lines:
        print(f"  {line}")
    if not imported.trackers:
        _say(
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
            "that provider's tools list takes it, and on stderr each export's token cost beside "
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
    """Run the command line; returns the exit code (0 ok, 1 refused or failed, 2 usage).

    Every error is one line on stderr (`trackerkit: <file>: <what is wrong>`), never a traceback.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.func
    out, err = sys.stdout, sys.stderr
    # Text from files, models and servers reaches the terminal shown, never obeyed: an escape
    # sequence in a row name or an error body would colour or move the user's terminal.
    sys.stdout, sys.stderr = _Shown(out, "\t\n"), _Shown(err, "\t\n\r")
    try:
        return _run(handler, args)
    finally:
        sys.stdout, sys.stderr = out, err


_UNSHOWN = [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
"""C0 and C1 controls (ESC among them) and the bidi embeddings, overrides and isolates."""


class _Shown:
    """A text stream that writes control characters as escapes (`\\x1b`), bidi overrides as
    `\\u202e`, and keeps only the layout characters `keep` (JSON output holds none raw)."""

    def __init__(self, stream: Any, keep: str) -> None:
        self._stream = stream
        self._table = {
            cp: f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"
            for cp in _UNSHOWN
            if chr(cp) not in keep
        }

    def write(self, text: str) -> int:
        self._stream.write(text.translate(self._table))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self._stream, name)


def _run(handler: Handler, args: argparse.Namespace) -> int:
    try:
        code = handler(args)
        sys.stdout.flush()  # a reader gone (`| head`) shows here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        # The reader stopped reading (`trackerkit changes --json | head`): stop quietly, as
        # well-behaved commands do, with stdout pointed at devnull so the exit's flush is silent.
        _quiet_stdout()
        return 1
    except (TrackerkitError, OSError, ValueError) as exc:
        _say(str(exc))
        return 1
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except Exception as exc:  # a bug: still one line, naming the error so it can be reported
        _say(f"unexpected {type(exc).__name__} (a bug in trackerkit; please report it): {exc}")
        return 1


def _quiet_stdout() -> None:
    """Point the process's stdout at devnull (when it is a real file descriptor)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # a captured or replaced stdout (tests): nothing to silence
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _say(message: str) -> None:
    # One line, whatever the message holds: a newline or a lone surrogate never breaks stderr.
    line = " ".join(message.split())[:2000] or "failed"
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    print(f"trackerkit: {line}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
