"""The `trackerkit trace` commands: days, turns, show (`--json` on each), export.

    trackerkit trace days [DIR]          the day files with line counts and broken lines
    trackerkit trace turns DAY           the turns begun in a day's file, with any events the
                                         next file holds (and its orphan rows)
    trackerkit trace show NAME           one turn's events in order; NAME is
                                         <session>/<turn_N> or turn_N (the newest, TC-13)
    trackerkit trace export PATH --parquet OUT
                                         one Parquet file per day (data as JSON text);
                                         --column NAME=PATH adds a typed column of data

`days`, `turns` and `show` read a folder of day files, alike: `DIR` (days) or `--dir DIR`, else
the trace folder of the data folder (`<data>/trace`, where `simulate` writes:
`trackerkit.simulate.data_dir`). A path that is a file, a missing folder, or a folder with no
day file is refused in one line (the last naming what it skipped and why), exit 1. `export`
alone takes a day file too.

Each handler is one library call and a printer; library errors reach `trackerkit.cli.main`,
which prints them as one line. The folder a command reads is `trace._cli_folder`'s, the printing
`trace._cli_output`'s, the day and `--column` argument types `trace._cli_arguments`'; the names
this module offered before are imported here.
"""

from __future__ import annotations

import argparse
import shlex
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from trackerkit._names import repeated
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace._cli_arguments import _column, _day
from trackerkit.trace._cli_folder import _refuse_loop, trace_folder
from trackerkit.trace._cli_folder import default_folder as default_folder
from trackerkit.trace._cli_output import _count, _date, _json, _records, _table, _time, summary
from trackerkit.trace._columns import SKIPPED, ColumnSpec
from trackerkit.trace.costs import cost_summary
from trackerkit.trace.days import read_day_turns
from trackerkit.trace.export import export_parquet
from trackerkit.trace.read import read_trace, trace_days
from trackerkit.trace.turns import turn_events

__all__ = ["register", "summary"]


def _days(args: argparse.Namespace) -> int:
    days = trace_days(trace_folder(args.directory or args.dir))
    if args.json:
        _json(_records(days))
        return 0
    shown = days[["day", "lines", "events", "broken", "first", "last"]].copy()
    for column in ("first", "last"):
        shown[column] = shown[column].map(
            lambda t: "" if pd.isna(t) else f"{_date(t)} {t:%H:%M:%S}"
        )
    print(_table(shown.rename(columns={"first": "first (UTC)", "last": "last (UTC)"})))
    return 0


def _turns(args: argparse.Namespace) -> int:
    # The turns begun in the day's file, whole: a turn past midnight goes on in the next file.
    read = read_day_turns(trace_folder(args.dir), args.day)
    turns, lost, errors, running_on = read.turns, read.orphans, read.errors, read.running_on
    if args.json:
        _json(
            {
                "day": args.day,
                "turns": _records(turns),
                "orphans": _records(lost),
                "broken": [{"file": e.file, "line": e.line, "reason": e.reason} for e in errors],
                "skipped": turns.attrs.get(SKIPPED, {}),
                "running_on": running_on,
            }
        )
        return 0
    shown = turns[
        [
            "name",
            "kind",
            "source",
            "start",
            "duration",
            "events",
            "steps",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "steps_without_cost",
            "tool_calls",
            "failures",
            "delivered",
            "fell_back",
            "status",
            "error_class",
            "orphans",
        ]
    ].copy()
    # UTC, with its date: a turn begun before UTC midnight may belong to the next day's file.
    shown["start"] = shown["start"].map(lambda t: "" if pd.isna(t) else f"{_date(t)}T{_time(t)}Z")
    # In seconds, and the header says so (`--json` writes the same number under "duration").
    shown["duration"] = shown["duration"].dt.total_seconds().round(3)
    shown = shown.rename(columns={"duration": "duration_s"})
    # Six significant digits each: a $0.0000001 turn is not printed 0.0 beside a $0.5 one.
    shown["cost_usd"] = shown["cost_usd"].map(lambda cost: f"{cost:.6g}")
    print(_table(shown))
    print(f"\ncost: {cost_summary(turns)}")
    print(
        f"{_count(len(turns), 'turn')}, {_count(len(lost), 'orphan row')}, "
        f"{_count(len(errors), 'broken line')} on {args.day}."
    )
    if running_on:
        print(
            f"{len(running_on)} of these turns {'runs' if len(running_on) == 1 else 'run'} on "
            "into the next day's file; their figures "
            "count those events too."
        )
    cut = int((turns["kind"] == "cut").sum())
    if cut:
        print(
            f"{_count(cut, 'turn')} of kind cut: no eve.turn.started in the files read (begun "
            "in a day file not in the folder, or that line broken); start, duration and figures "
            "count from the first row read."
        )
    for error in errors:
        print(f"  {error}")
    skipped = turns.attrs.get(SKIPPED, {})
    if skipped:
        where = ", ".join(f"{path} {count}" for path, count in skipped.items())
        print(f"{_count(sum(skipped.values()), 'odd value')} in data read as missing ({where}).")
    return 0


def _show(args: argparse.Namespace) -> int:
    folder = trace_folder(args.dir)
    if args.day:
        # A turn begun in the day's file (a bare turn_N: the day's newest), shown whole, with
        # any events the next day's file holds (TC-2).
        read = read_day_turns(folder, args.day)
        try:
            picked = turn_events(read.turn_events, args.name, read.names)
        except NotFoundError:
            held = _turns_holding(read.events, args.name)
            if held:
                where = f" --dir {shlex.quote(str(args.dir))}" if args.dir else ""
                named = " or ".join(f"`trace show {name}{where}`" for name in held)
                raise NotFoundError(
                    f"no turn {args.name.strip()!r} began in {args.day}'s file, though the file "
                    "holds its rows: it began on an earlier day (a turn is listed on the day it "
                    f"began); {named} without --day shows it whole."
                ) from None
            raise
    else:
        events, _errors = read_trace(folder)
        picked = turn_events(events, args.name)
    name = str(picked["turn_name"].iloc[0])
    if args.json:
        out = picked[["ts", "turn", "session", "source", "name", "data", "file", "line"]]
        _json({"name": name, "events": _records(out)})
        return 0
    start, end = picked["ts"].min(), picked["ts"].max()
    print(
        f"{name}  {_date(start)} {start:%H:%M:%S} UTC, {(end - start).total_seconds():.3f} s, {_count(len(picked), 'event')}"
    )
    for row in picked.itertuples(index=False):
        data: Mapping[str, Any] = row.data if isinstance(row.data, Mapping) else {}
        print(
            f"{_time(row.ts)}  {row.source!s:<9} {row.name!s:<24} {row.turn!s:<18} {summary(data)}"
        )
    return 0


def _turns_holding(events: pd.DataFrame, ref: str) -> list[str]:
    """The full names (`<session>/turn_N`) of the turns `ref` names that have rows in `events`."""
    session, _, turn = ref.strip().rpartition("/")
    base = turn.split("#", 1)[0]  # `turn_3` for `turn_3#planner` (TC-22)
    rows = events["turn"].astype(str).str.split("#", n=1).str[0] == base
    if session:
        rows &= events["session"] == session
    sessions = sorted({s for s in events.loc[rows, "session"].astype(str) if s})
    return [f"{s}/{base}" for s in sessions]


def _refuse_twice_named(columns: list[str | ColumnSpec]) -> None:
    """Refuse two `--column`s of one name in the command line's words (the library's refusal
    names its `columns=` keyword, which a command-line user never typed).

    Raises:
        BadRequestError: the names given twice, and how to name a column.
    """
    twice = repeated(c.name if isinstance(c, ColumnSpec) else c for c in columns)
    if twice:
        raise BadRequestError(
            f"--column names {', '.join(map(repr, twice))} twice; give each column its own "
            "name (NAME=PATH)"
        )


def _export(args: argparse.Namespace) -> int:
    _refuse_twice_named(args.column or [])
    _refuse_loop(Path(args.path), "a trace day file or a folder of them")
    if Path(args.path).is_dir():
        trace_folder(args.path)  # a folder without days is refused, with why (as `trace days`)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        try:
            written, errors = export_parquet(args.path, args.parquet, columns=args.column or None)
        except OSError as exc:  # the folder cannot be made (under /proc), or a write failed
            raise BadRequestError(
                f"trace export could not write {exc.filename or args.parquet} "
                f"({exc.strerror or exc}); --parquet takes a folder this user can make and "
                "write files into"
            ) from None
    notes = [str(w.message) for w in caught]
    if args.json:
        _json(
            {
                "files": [{"file": str(path), "rows": rows} for path, rows in written],
                "broken": [{"file": e.file, "line": e.line, "reason": e.reason} for e in errors],
                "notes": notes,
            }
        )
        return 0
    for path, rows in written:
        print(f"{path}  {rows} events")
    print(
        f"{_count(len(written), 'day file')} written, {_count(len(errors), 'broken line')} left out."
    )
    for error in errors:
        print(f"  {error}")
    for note in notes:
        print(f"note: {note}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `trace` command group to the `trackerkit` parser."""
    trace = sub.add_parser(
        "trace", help="read trace journal days", description="Read trace journal days."
    )
    commands = trace.add_subparsers(dest="trace_command", metavar="COMMAND")
    commands.required = True

    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--dir",
            metavar="DIR",
            help=(
                "the folder of YYYY-MM-DD.jsonl day files (default: the data folder's trace/, "
                "where simulate writes)"
            ),
        )
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")

    days = commands.add_parser("days", help="list day files with line counts and broken lines")
    days.add_argument(
        "directory", nargs="?", metavar="DIR", help="the trace folder (overrides --dir)"
    )
    common(days)
    days.set_defaults(func=_days)

    turns = commands.add_parser("turns", help="the turns begun on one day, whole")
    turns.add_argument("day", metavar="DAY", type=_day, help="the day, YYYY-MM-DD")
    common(turns)
    turns.set_defaults(func=_turns)

    show = commands.add_parser("show", help="one turn's events in order")
    show.add_argument("name", metavar="NAME", help="<session>/<turn_N>, or turn_N for the newest")
    show.add_argument(
        "--day", type=_day, help="a turn of this day, shown whole (default: of every day)"
    )
    common(show)
    show.set_defaults(func=_show)

    export = commands.add_parser(
        "export",
        help="write trace days as Parquet, one file per day (data as JSON text)",
        description="Write trace days as Parquet, one file per day: the seven fields (name as "
        "the full kind.name, eve.step.completed, as in read_trace's frame), data as its JSON "
        "text, the day, and any --column asked for.",
    )
    export.add_argument("path", metavar="PATH", help="a day file or a folder of day files")
    export.add_argument(
        "--parquet",
        metavar="OUT",
        required=True,  # the one output: usage shows it needed
        help="the folder to write day.parquet files into",
    )
    export.add_argument(
        "--column",
        action="append",
        type=_column,
        metavar="[NAME=]PATH[:TYPE]",
        help="a path into data to add as a column (repeat it), e.g. cost_usd=usage.costUsd:float",
    )
    export.add_argument("--json", action="store_true", help="print JSON instead of lines")
    export.set_defaults(func=_export)
