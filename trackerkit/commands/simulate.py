"""`simulate` and `changes`: a scene's scripted turns played, per turn or as the changes read."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from trackerkit.commands.options import (
    add_data_option,
    add_model_options,
    check_model_options,
    refuse_empty_ids,
    trace_folder,
)
from trackerkit.commands.scene import say_unread_workspace, scene_and_trackers
from trackerkit.errors import BadRequestError

if TYPE_CHECKING:
    from trackerkit.simulate.model import Model
    from trackerkit.simulate.report import TurnReport
    from trackerkit.simulate.session import Session
    from trackerkit.trace import TraceWriter


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
    from trackerkit.simulate import time_zone
    from trackerkit.simulate.model import OpenAIModel
    from trackerkit.views.tables import turn_table

    zone = time_zone(args.timezone)  # checked first: a bad zone is refused before any turn runs
    clock = _clock(args.now)
    model: Model | None = None
    check_model_options(args)
    scene_and_trackers(args.scene, args.trackers, "simulate", turns=True)
    say_unread_workspace([args.scene], args.trackers, data=args.data)
    if args.model == "openai":
        model = OpenAIModel(args.base_url, args.model_name, args.api_key_env)
    trace = None
    if not args.no_trace:
        from trackerkit.trace import TraceWriter

        trace = TraceWriter(trace_folder(args.data), timezone=zone, clock=clock)
    started = clock()
    with held_trace_failures() as reasons:
        reports, session = _played(args, model, trace, clock)
    traced = say_trace(trace, started, clock(), reasons) if trace is not None else True

    if args.json:
        print(orjson.dumps([r.to_json() for r in reports], option=orjson.OPT_INDENT_2).decode())
    else:
        print(turn_table(reports))
        print(f"\nvalues at the tip: {orjson.dumps(session.values()).decode()}")
    for sentence in _renamed(args.scene, args.trackers, session):
        print(f"trackerkit: {sentence}", file=sys.stderr)
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
    # The trace asked for and not written is a failure: a script must not take it for a pass.
    return 1 if session.mismatches or not traced else 0


def _played(
    args: argparse.Namespace,
    model: Model | None,
    trace: TraceWriter | None,
    clock: Callable[[], datetime],
) -> tuple[list[TurnReport], Session]:
    """The scene's turns played, with a progress bar on a terminal; the trace closed after."""
    from tqdm import tqdm

    from trackerkit.simulate.session import Session

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

            return session.run(progress=advance), session
    finally:
        if trace is not None:
            trace.close()


def _renamed(scene: str, trackers: Path | None, session: Session) -> list[str]:
    """What the simulator page says of the fields the scene's scripted steps set or expect by a
    name a designer save took from them (`trackerkit.simulate.outdated`): why their calls were
    refused and their expectations not met, and what to change in the scene file."""
    from trackerkit.renames import histories
    from trackerkit.scene import scene_trackers
    from trackerkit.simulate.outdated import outdated_names

    history = histories(scene_trackers(scene, trackers))
    linked = session.chat.linked().trackers
    found = outdated_names(session.scene.id, Path(scene), session.steps, linked, history)
    return [o.sentence for o in found]


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


@contextmanager
def held_trace_failures() -> Iterator[list[str]]:
    """While in the block, the trace writer's failures are held back from the `trackerkit.trace`
    logger (which Python prints raw on stderr) and their reasons kept in the list yielded:
    `say_trace` tells them on one `trackerkit:` line. Outside the block, library users' logging
    is as it was."""
    reasons: list[str] = []

    def hold(record: logging.LogRecord) -> bool:
        reason = getattr(record, "trace_write_failure", None)
        if reason is None:
            return True
        reasons.append(str(reason))
        return False

    logger = logging.getLogger("trackerkit.trace")
    logger.addFilter(hold)
    try:
        yield reasons
    finally:
        logger.removeFilter(hold)


def say_trace(
    trace: TraceWriter, started: datetime, ended: datetime, reasons: Sequence[str] = ()
) -> bool:
    """Say on stderr each day file a run from `started` to `ended` wrote its turns to; True when
    the trace is whole (every write done).

    The writer never breaks a turn (TC-20), so a failed write is told here, not raised, with the
    first reason `held_trace_failures` kept; a day file left empty holds no trace and is said to
    be unwritten.
    """
    moments = [started]
    while moments[-1] + timedelta(days=1) < ended:  # a run past midnight: each day between
        moments.append(moments[-1] + timedelta(days=1))
    days = list(dict.fromkeys(trace.path_for(m) for m in [*moments, ended]))
    why = f": {reasons[0]}" if reasons else ""
    lost = (
        f" ({trace.failures} {'write' if trace.failures == 1 else 'writes'} failed, so "
        f"events are missing from it{why})"
        if trace.failures
        else ""
    )
    written = [d for d in days if d.is_file() and d.stat().st_size]
    for day in written:
        print(f"trackerkit: trace written to {day}{lost}", file=sys.stderr)
    for day in [] if written else days:
        print(f"trackerkit: no trace could be written to {day}{why}", file=sys.stderr)
    return bool(written) and not trace.failures


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

    refuse_empty_ids(args.from_id, args.to_id)
    scene_and_trackers(args.scene, args.trackers, "changes", turns=True)
    say_unread_workspace([args.scene], args.trackers)
    session = Session.from_scene(args.scene, trackers=args.trackers)
    session.run()
    messages = session.chat.messages
    ids = [m.id for m in messages]
    _refuse_unknown_ids(ids, args.from_id, args.to_id)
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


def _refuse_unknown_ids(ids: list[str], from_id: str | None, to_id: str | None) -> None:
    """Refuse a `--from` or `--to` naming no message of the chat the scene played, listing the
    ids it has (the library's words, "take 't1' has no live message", name its own terms). What
    is no message id at all (`m 1`) is left to the library, whose refusal says so.

    Raises:
        BadRequestError: the option, the id, and the ids there are.
    """
    from trackerkit.state import is_message_id

    for option, value in (("--from", from_id), ("--to", to_id)):
        if value is None or value in ids or not is_message_id(value):
            continue
        if not ids:
            there = "it has none"
        elif len(ids) <= 5:
            there = f"its {'message is' if len(ids) == 1 else 'messages are'} {', '.join(ids)}"
        else:
            there = f"its {len(ids)} messages run from {ids[0]} to {ids[-1]}"
        raise BadRequestError(
            f"{option} {value}: the chat the scene plays has no message {value}; {there}"
        )
