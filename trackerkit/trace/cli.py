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
which prints them as one line.
"""

from __future__ import annotations

import argparse
import datetime as dt
import errno
import os
import shlex
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn, cast

import orjson
import pandas as pd

from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.line import fields_line, line_of
from trackerkit.trace._columns import SKIPPED, ColumnSpec, ColumnType
from trackerkit.trace._data import INFERRED
from trackerkit.trace._lazy import jsonable
from trackerkit.trace.costs import cost_summary
from trackerkit.trace.days import read_day_turns
from trackerkit.trace.export import export_parquet
from trackerkit.trace.folder import SkippedFile, folder_days
from trackerkit.trace.read import read_trace, trace_days, trace_subfolder_hint
from trackerkit.trace.turns import turn_events

__all__ = ["register", "summary"]

_SKIPPED_SHOWN = 3
"""Skipped entries named per reason in the no-day-files message; the rest are counted."""


_A_FOLDER = "the folder that holds the YYYY-MM-DD.jsonl day files"


def default_folder() -> Path:
    """The trace folder read when none is given: `<data folder>/trace`, where simulate writes.

    The data folder's rule is `trackerkit.workspace`'s (a core module, as this one is).
    """
    from trackerkit.workspace import trace_root

    return trace_root() / "trace"


def _skipped(skipped: list[SkippedFile]) -> str:
    """The skipped entries grouped by reason: `a.json, b.json and 7 more: not named ...`."""
    by_reason: dict[str, list[str]] = {}
    for entry in skipped:
        by_reason.setdefault(entry.reason, []).append(entry.name)
    groups = []
    for reason, names in by_reason.items():
        shown = ", ".join(names[:_SKIPPED_SHOWN])
        if len(names) > _SKIPPED_SHOWN:
            shown += f" and {len(names) - _SKIPPED_SHOWN} more"
        groups.append(f"{shown}: {reason}")
    return "; ".join(groups)


def _refuse_loop(path: Path, give: str) -> None:
    """Refuse `path` when it (or a link on the way to it) is a symbolic link that loops: it is
    there, so "does not exist" would mislead.

    Raises:
        BadRequestError: the link loops (the message says `give`, what to pass instead).
    """
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadRequestError(
                f"{path} is a symbolic link that loops (it leads back to itself); give {give}."
            ) from None


def trace_folder(given: str | None) -> Path:
    """The folder of day files a trace command reads: `given`, else `default_folder()`.

    Raises:
        NotFoundError: the folder is missing, is a file, or holds no day file (the message
            names what was skipped and why).
        BadRequestError: the folder is a symbolic link that loops.
    """
    if given is None:
        folder = default_folder()
        _refuse_loop(folder, _A_FOLDER)
        if not folder.is_dir():
            raise NotFoundError(
                f"no trace folder at {folder} (the data folder's trace, where simulate writes); "
                "pass --dir DIR, the folder holding the YYYY-MM-DD.jsonl day files"
            )
    else:
        folder = Path(given)
        _refuse_loop(folder, _A_FOLDER)
    days, skipped = folder_days(folder)
    if not days:
        what = f"; skipped {_skipped(skipped)}" if skipped else " (it is empty)"
        hint = trace_subfolder_hint(folder)
        raise NotFoundError(
            f"no trace day files (YYYY-MM-DD.jsonl) in {folder}{what}"
            + (f"; {hint}" if hint else "")
        )
    _note_skipped(folder, skipped)
    return folder


def _note_skipped(folder: Path, skipped: list[SkippedFile] | None = None) -> None:
    """Say on standard error which entries of a folder of days are not read, and why."""
    if skipped is None:
        _days, skipped = folder_days(folder)
    if skipped:
        print(f"note: not read in {folder}: {_skipped(skipped)}", file=sys.stderr)


_JSON_DEPTH = 200
"""Nesting kept in `--json` output when a value is deeper than orjson writes (255 levels)."""


def _shallow(value: Any, depth: int) -> Any:
    """`value` as orjson writes it: containers deeper than `depth` levels as `…[deep]` (TC-7's
    mark), integers beyond 64 bits (which JSON data may hold) as their digits."""
    if isinstance(value, int) and not -(1 << 63) <= value < 1 << 64:
        return str(value)
    if isinstance(value, Mapping | list | tuple):
        if depth <= 0:
            return "…[deep]"
        if isinstance(value, Mapping):
            return {k: _shallow(v, depth - 1) for k, v in value.items()}
        return [_shallow(v, depth - 1) for v in value]
    return value


def _json(value: Any) -> None:
    option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    try:
        text = orjson.dumps(value, default=jsonable, option=option)
    except orjson.JSONEncodeError:  # data orjson cannot write: nested past 255, a huge integer
        text = orjson.dumps(_shallow(value, _JSON_DEPTH), default=jsonable, option=option)
    sys.stdout.write(text.decode() + "\n")


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON-ready rows: times as ISO strings, durations in seconds, missing values as null."""
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.DatetimeTZDtype):
            out[column] = out[column].map(lambda t: None if pd.isna(t) else t.isoformat())
        elif pd.api.types.is_timedelta64_dtype(out[column].dtype):
            out[column] = out[column].dt.total_seconds()
    records = out.astype(object).where(out.notna(), None).to_dict(orient="records")
    return [{str(k): v for k, v in r.items()} for r in records]


def _count(number: int, noun: str) -> str:
    """`1 turn`, `2 turns`, `0 turns`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _table(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "(none)"
    return frame.to_string(index=False, na_rep="")


def _time(stamp: Any) -> str:
    return "" if pd.isna(stamp) else pd.Timestamp(stamp).strftime("%H:%M:%S.%f")[:-3]


def _date(stamp: Any) -> str:
    """`YYYY-MM-DD`, four digits of year always (strftime's `%Y` writes year 1 as `1`)."""
    return f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}"


_LIST_SHOWN = 40
"""A list of plain values is shown whole up to this many characters, else by its length."""


def _list_summary(items: list[Any]) -> str:
    """`[23, 7]` or `['a', 'b']` for a short list of plain values; else `(3 items)`."""
    if not any(isinstance(item, dict | list) for item in items):
        shown = "[" + ", ".join(repr(i) if isinstance(i, str) else line_of(i) for i in items) + "]"
        if len(shown) <= _LIST_SHOWN:
            return shown
    return f"({len(items)} item{'' if len(items) == 1 else 's'})"


def summary(data: Mapping[str, Any]) -> str:
    """A short readable line of an event's data: sizes, names and outcomes before content."""
    if not isinstance(data, Mapping):
        return ""
    parts = []
    for key, value in data.items():
        if isinstance(value, dict):
            flat = {k: v for k, v in value.items() if not isinstance(v, dict | list)}
            value = "{" + fields_line(flat) + "}"
        elif isinstance(value, list):
            value = _list_summary(value)
        elif isinstance(value, str) and len(value) > 60:
            value = repr(value[:57] + "...")
        elif isinstance(value, str):
            value = repr(value)
        else:
            value = line_of(value)
        parts.append(f"{key}={value}")
    return " ".join(parts)


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
    shown["duration"] = shown["duration"].dt.total_seconds().round(3)
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


_COLUMN_TYPES = ("int", "float", "str", "bool")


def _column(value: str) -> str | ColumnSpec:
    """`--column`: `PATH`, `PATH:TYPE`, `NAME=PATH` or `NAME=PATH:TYPE` (int, float, str, bool).

    What follows the last `:` is the type (`read_trace(columns=...)` takes a path holding `:`).
    """
    name, sep, path = value.rpartition("=") if "=" in value else ("", "", value)
    head, colon, kind = path.rpartition(":")
    typed = bool(colon)
    if typed and kind not in _COLUMN_TYPES:
        _bad_column(value, f"{kind!r} is no type")
    if typed:
        path = head
    if sep and not name:
        _bad_column(value, "the NAME before = is empty")
    if "=" in name:
        _bad_column(value, "a NAME= comes once, before the path")
    if not path:
        _bad_column(value, "it names no path")
    name = name or path
    if not typed:
        if not sep:
            return value
        return ColumnSpec(name, path, "object", doc=INFERRED)  # typed by its values
    return ColumnSpec(name, path, cast(ColumnType, kind))


def _bad_column(value: str, why: str) -> NoReturn:
    raise argparse.ArgumentTypeError(
        f"{value!r} is not a column ({why}); write PATH, PATH:TYPE, NAME=PATH or NAME=PATH:TYPE "
        f"with TYPE one of {', '.join(_COLUMN_TYPES)} (for example cost_usd=usage.costUsd:float)"
    )


def _export(args: argparse.Namespace) -> int:
    if args.parquet is None:
        raise BadRequestError("trace export needs --parquet OUT, the folder to write into.")
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


def _day(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a day; write it as YYYY-MM-DD"
        ) from None


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
        "--parquet", metavar="OUT", help="the folder to write day.parquet files into"
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
