"""The turns of chosen day files, whole.

A day's file holds what happened before the installation's midnight (TC-2), so a turn running
at midnight goes on in the next day's file. Read alone, a file shows such a turn cut in two: on
its first day open, with part of its steps, and again on the next day, with the rest. A turn
belongs to the day file of its first event (the turns frame's `day`); `read_day_turns` reads the
chosen files and the files either side, and gives the turns begun in the chosen files with all
their events, wherever they were written, so per-day figures add up to the folder's.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from trackerkit.errors import TraceLineError
from trackerkit.trace.read import _as_day, day_of, read_trace
from trackerkit.trace.turns import assemble_turns, names_and_orphans

__all__ = ["DayTurns", "read_day_turns"]


@dataclass(frozen=True, slots=True)
class DayTurns:
    """What `read_day_turns` read.

    Attributes:
        events: every event of the chosen files (what they hold), sorted by `ts`.
        errors: the chosen files' broken lines.
        turn_events: the events of the turns begun in the chosen files, each turn whole (the
            next file's events too), and the chosen files' orphan rows: give it, with `names`,
            to `assemble_turns`, `steps`, `tool_calls`, `turn_timeline` and the rest.
        names: each row of `turn_events`' turn name (None for an orphan row).
        orphans: the chosen files' rows no turn takes, with the reason (TC-14).
        running_on: the turns begun in a chosen file that go on in a file not chosen.
        turns: the turns begun in the chosen files, whole (`assemble_turns` of `turn_events`
            with `names`): one row a turn, `day` the file it began in.
    """

    events: pd.DataFrame
    errors: list[TraceLineError]
    turn_events: pd.DataFrame
    names: pd.Series
    orphans: pd.DataFrame
    running_on: list[str]
    turns: pd.DataFrame


def _around(folder: Path, chosen: list[str]) -> list[str]:
    """The chosen days and the days either side of each that have a file in `folder`."""
    days = set(chosen)
    for day in chosen:
        for step in (-1, 1):
            try:
                other = (dt.date.fromisoformat(day) + dt.timedelta(days=step)).isoformat()
            except OverflowError:  # 0001-01-01 has no day before, 9999-12-31 none after
                continue
            if (folder / f"{other}.jsonl").is_file():
                days.add(other)
    return sorted(days)


def _trimmed(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its categories cut to the values its rows hold (the neighbours' go)."""
    out = frame.reset_index(drop=True)
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].cat.remove_unused_categories()
    return out


def _chosen(day: object, chosen: set[str]) -> bool:
    return day_of(str(day)) in chosen


def read_day_turns(
    folder: str | os.PathLike[str], days: str | dt.date | Iterable[str | dt.date]
) -> DayTurns:
    """The chosen day files of a folder, and the turns begun in them, whole (see the module).

    Raises:
        NotFoundError: the folder or a chosen day's file is missing, or a day is not YYYY-MM-DD.
    """
    root = Path(folder)
    wanted = [days] if isinstance(days, str | dt.date) else list(days)
    chosen = [_as_day(day) for day in wanted]
    read, errors = read_trace(root, days=_around(root, chosen))
    picked = set(chosen)
    in_chosen = read["day"].isin(picked).to_numpy()
    names, lost = names_and_orphans(read)
    # A turn's day is the file of its first event (the turns frame's `day`); the events are in
    # `ts` order (ties in file and line order), so that is each name's first row.
    first_days = read["day"].astype(object).groupby(names.to_numpy(), sort=False).first()
    begun = set(first_days.index[first_days.isin(picked)])
    turned = names.isin(begun).to_numpy()
    mine = turned | (names.isna().to_numpy() & in_chosen)
    turn_events = _trimmed(read[mine])
    turn_names = names[mine].reset_index(drop=True)
    return DayTurns(
        events=_trimmed(read[in_chosen]),
        errors=[e for e in errors if _chosen(e.file, picked)],
        turn_events=turn_events,
        names=turn_names,
        orphans=lost[[_chosen(f, picked) for f in lost["file"]]].reset_index(drop=True),
        running_on=sorted(set(names[turned & ~in_chosen])),
        turns=assemble_turns(turn_events, turn_names),
    )
