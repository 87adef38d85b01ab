"""Frames an analyst builds by hand from the journal, and days given as pandas moments.

Found when tried: `pd.read_json(day, lines=True)` holds the names as written (`step.completed`),
and the helpers, which match `read_trace`'s full names (`eve.step.completed`), found no step:
cost 0.0 and every turn "open", with no error. A `pd.Timestamp` day raised a bare ValueError.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import pytest

from trackerkit.trace import (
    assemble_turns,
    orphans,
    read_day_turns,
    read_trace,
    steps,
    tool_calls,
)

SAMPLE = Path(__file__).parents[2] / "data" / "trace"
DAY = SAMPLE / "2026-11-29.jsonl"


def _by_hand() -> pd.DataFrame:
    """The day as pandas reads JSON lines: names as written, no file or line."""
    frame = pd.read_json(DAY, lines=True, dtype=False)
    frame["ts"] = pd.to_datetime(frame["ts"], utc=True)
    return frame


@pytest.mark.parametrize("categorical", [False, True], ids=["text", "categories"])
def test_a_hand_built_frame_gives_the_readers_tables(categorical: bool) -> None:
    """Short names are read in full: the same steps, tool calls and turns as read_trace gives."""
    hand, read = _by_hand(), read_trace(DAY)[0]
    if categorical:
        hand = hand.astype({"kind": "category", "name": "category"})
    assert not hand["name"].astype(str).str.startswith("eve.").any()
    columns = ["turn_name", "step", "usage_in", "cost_usd", "outcome"]
    pd.testing.assert_frame_equal(steps(hand)[columns], steps(read)[columns])
    assert len(tool_calls(hand)) == len(tool_calls(read))
    got = assemble_turns(hand).drop(columns=["day"])
    expected = assemble_turns(read).drop(columns=["day"])
    assert got["cost_usd"].sum() == pytest.approx(expected["cost_usd"].sum())
    assert got["cost_usd"].sum() > 0
    assert got["status"].tolist() == expected["status"].tolist()
    assert "open" not in set(got["status"])


def test_orphans_of_a_frame_without_file_and_line() -> None:
    """A hand frame has no file or line: the orphans table keeps its columns, empty there."""
    hand = _by_hand()
    lost = orphans(hand)
    assert list(lost.columns) == [
        "ts",
        "turn",
        "session",
        "source",
        "name",
        "file",
        "line",
        "reason",
    ]
    assert len(lost) == len(orphans(read_trace(DAY)[0]))


@pytest.mark.parametrize(
    "day",
    [
        pd.Timestamp("2026-11-29"),
        dt.datetime(2026, 11, 29, 15, 30),
        dt.date(2026, 11, 29),
        "2026-11-29",
    ],
    ids=["timestamp", "datetime", "date", "text"],
)
def test_a_day_given_as_a_moment_names_its_date(day: object) -> None:
    """`read_trace(days=...)` and `read_day_turns` take a Timestamp or datetime as its date."""
    events, _ = read_trace(SAMPLE, days=[day])  # type: ignore[list-item]
    assert set(events["day"]) == {"2026-11-29"}
    turns = read_day_turns(SAMPLE, day).turns  # type: ignore[arg-type]
    assert turns["name"].tolist() == read_day_turns(SAMPLE, "2026-11-29").turns["name"].tolist()
    span = read_day_turns(SAMPLE, pd.date_range("2026-11-28", periods=2))  # type: ignore[arg-type]
    assert set(span.events["day"]) == {"2026-11-28", "2026-11-29"}
