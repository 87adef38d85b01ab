"""Plotly figures of the sample days: each builds, with the traces an analyst expects."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trackerkit.trace import (
    assemble_turns,
    assign_turns,
    failures_by_class,
    read_trace,
    tokens_over_day,
    turn_durations,
    turn_timeline,
)


@pytest.fixture(scope="module")
def events() -> pd.DataFrame:
    frame, _ = read_trace(Path(__file__).parents[2] / "data" / "trace")
    frame["turn_name"] = assign_turns(frame)
    return frame


def test_turn_timeline_has_steps_tools_and_events(events: pd.DataFrame) -> None:
    """The waterfall of a chat turn draws step bars, tool bars and other events as points."""
    name = next(n for n in events["turn_name"].dropna().unique() if n.endswith("/turn_0"))
    figure = turn_timeline(events, name)
    names = {trace.name for trace in figure.data}
    assert {"step", "events"} <= names
    assert names & {"tool", "tool failed"}
    assert figure.layout.title.text == f"Turn {name}"


def test_tokens_over_day(events: pd.DataFrame) -> None:
    """Tokens in and out and cost are three cumulative lines, cost on its own axis."""
    figure = tokens_over_day(events)
    assert [t.name for t in figure.data] == ["tokens in", "tokens out", "cost (USD)"]
    assert figure.data[0].y[-1] == pytest.approx(
        sum(d["usage"]["in"] for d in events[events["name"] == "eve.step.completed"]["data"])
    )


def test_failures_by_class(events: pd.DataFrame) -> None:
    """Failed calls are counted per class (TC-16), stacked by tool."""
    figure = failures_by_class(events)
    classes = {x for trace in figure.data for x in trace.x}
    assert classes == {"isError", "status:failed", "ok:false", "error", "timeout", "exit 2"}


def test_turn_durations(events: pd.DataFrame) -> None:
    """The histogram has one series per kind of turn."""
    figure = turn_durations(assemble_turns(events))
    assert {t.name for t in figure.data} == {"chat", "night"}
