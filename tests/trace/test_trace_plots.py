"""Plotly figures of the sample days: each builds, with the traces an analyst expects."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trackerkit.trace import (
    assemble_turns,
    assign_turns,
    costs_by_day,
    daily_costs,
    daily_usage,
    failures_by_class,
    plots,
    read_trace,
    steps,
    tokens_over_day,
    tool_calls,
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


class TestTokensOverDay:
    """Tokens and cost are cumulative within each day file, not one curve over all days (issue 14)."""

    def test_three_lines_a_day(self, events: pd.DataFrame) -> None:
        """Each day file has its own tokens in, tokens out and cost, cost on its own axis."""
        turns = assemble_turns(events)
        figure = tokens_over_day(events, turns=turns)
        days = sorted(turns["day"].unique())
        assert [t.legendgroup for t in figure.data] == [d for d in days for _ in range(3)]
        lines = ["tokens in", "tokens out", "cost (USD)"]
        assert [t.name for t in figure.data] == lines * len(days)
        assert [t.yaxis for t in figure.data[:3]] == ["y", "y", "y2"]

    def test_each_day_ends_at_its_totals(self, events: pd.DataFrame) -> None:
        """A day's curves start afresh and end at that day's row of costs_by_day."""
        turns = assemble_turns(events)
        figure = tokens_over_day(events)
        per_day = costs_by_day(turns).set_index("day")
        column = {"tokens in": "tokens_in", "tokens out": "tokens_out", "cost (USD)": "cost_usd"}
        for trace in figure.data:
            totals = per_day[column[trace.name]]
            assert trace.y[-1] == pytest.approx(float(totals[trace.legendgroup]))
            assert trace.y[0] <= trace.y[-1] < totals.sum()

    def test_steps_outside_files_count_on_no_day(self, events: pd.DataFrame) -> None:
        """Events not read from a file have no day: their steps are one "(no day)" group."""
        figure = tokens_over_day(events.drop(columns=["day"]))
        assert {t.legendgroup for t in figure.data} == {"(no day)"}
        total = sum(
            d["usage"]["in"] for d in events[events["name"] == "eve.step.completed"]["data"]
        )
        assert figure.data[0].y[-1] == pytest.approx(total)


def test_failures_by_class(events: pd.DataFrame) -> None:
    """Failed calls are counted per class (TC-16), stacked by tool."""
    figure = failures_by_class(events)
    classes = {x for trace in figure.data for x in trace.x}
    assert classes == {"isError", "status:failed", "ok:false", "error", "timeout", "exit 2"}


def test_turn_durations(events: pd.DataFrame) -> None:
    """The histogram has one series per kind of turn, stacked: a bin of three turns of two
    kinds is three tall, not drawn over itself as one."""
    figure = turn_durations(assemble_turns(events))
    assert {t.name for t in figure.data} == {"chat", "night", "live"}
    assert figure.layout.barmode == "stack"


class TestFailuresInTheTimeline:
    """A failed step or tool is drawn visibly, and each failure is marked (issue 14, item 4)."""

    @pytest.fixture
    def failed(self, events: pd.DataFrame) -> tuple[str, object]:
        turns = assemble_turns(events)
        name = str(turns[(turns["status"] == "failed") & (turns["failures"] > 0)]["name"].iloc[0])
        return name, turn_timeline(events, name)

    def test_no_bar_is_narrower_than_a_hundredth_of_the_turn(
        self, failed: tuple[str, object]
    ) -> None:
        """The step that failed the instant it was written still has a visible width."""
        _, figure = failed
        bars = [t for t in figure.data if t.type == "bar"]  # type: ignore[attr-defined]
        assert "step failed" in {t.name for t in bars}
        times = [x for t in figure.data if t.type == "scatter" for x in t.x]  # type: ignore[attr-defined]
        span_ms = (max(times) - min(times)) / pd.Timedelta(milliseconds=1)
        widths = [float(w) for t in bars for w in t.x]
        assert min(widths) >= 0.01 * span_ms - 1  # plotly keeps whole milliseconds

    def test_each_failure_is_an_x_with_its_reason_in_the_hover(
        self, events: pd.DataFrame, failed: tuple[str, object]
    ) -> None:
        name, figure = failed
        marks = next(t for t in figure.data if t.name == "failure")  # type: ignore[attr-defined]
        assert marks.marker.symbol == "x"
        error = assemble_turns(events).set_index("name").loc[name]
        assert any(
            f"step failed: {error['error_class']}: {error['error']}" == text for text in marks.text
        )
        assert any(text.startswith("turn failed: ") for text in marks.text)
        assert any(text.startswith("tool failed: ") for text in marks.text)

    def test_the_hover_gives_the_real_length_not_the_drawn_one(
        self, failed: tuple[str, object]
    ) -> None:
        _, figure = failed
        bar = next(t for t in figure.data if t.name == "step failed")  # type: ignore[attr-defined]
        assert "took=" in bar.hovertemplate
        assert "error=" in bar.hovertemplate
        assert "end=" not in bar.hovertemplate


def test_every_figure_fills_its_container(events: pd.DataFrame) -> None:
    """No figure sets a width (which clipped the durations chart); each autosizes."""
    turns = assemble_turns(events)
    name = str(turns["name"].iloc[0])
    for figure in (
        turn_timeline(events, name),
        tokens_over_day(events),
        failures_by_class(events),
        turn_durations(turns),
        daily_costs(turns),
        daily_usage(turns),
    ):
        assert figure.layout.width is None
        assert figure.layout.autosize is True


def test_daily_usage_has_tokens_per_day(events: pd.DataFrame) -> None:
    """Tokens in and out per day file, summing to the turns' tokens, failed turns in the hover."""
    turns = assemble_turns(events)
    figure = daily_usage(turns)
    assert [t.name for t in figure.data] == ["tokens in", "tokens out"]
    assert list(figure.data[0].x) == sorted(turns["day"].unique())
    assert sum(figure.data[0].y) == turns["tokens_in"].sum()
    assert sum(figure.data[1].y) == turns["tokens_out"].sum()
    assert all("failed" in text for text in figure.data[0].hovertext)


def _many_turns(count: int) -> pd.DataFrame:
    """A turns frame of `count` turns of three kinds, durations spread over a few minutes."""
    rng = np.random.default_rng(7)
    seconds = np.round(rng.gamma(2.0, 20.0, count), 3)
    return pd.DataFrame(
        {
            "duration": pd.to_timedelta(seconds, unit="s"),
            "kind": rng.choice(["chat", "night", "live"], count, p=[0.7, 0.2, 0.1]),
        }
    )


class TestTurnDurationsOnABusyDay:
    """The histogram is binned before it reaches the page: its size does not grow with the turns
    (one value a turn was 440 KB at 36,000 turns), and every bar's count is exact."""

    def test_the_figure_stays_small(self) -> None:
        """A hundred thousand turns send a few kilobytes, not one value a turn."""
        assert len(turn_durations(_many_turns(100_000)).to_json()) < 30_000

    def test_every_turn_is_counted_in_its_bin(self) -> None:
        """Each bar holds the turns of its kind whose duration falls in [start, end)."""
        turns = _many_turns(5_000)
        figure = turn_durations(turns)
        seconds = turns["duration"].dt.total_seconds().to_numpy()
        counted = 0
        for trace in figure.data:
            mine = seconds[(turns["kind"] == trace.name).to_numpy()]
            for (start, end), count in zip(trace.customdata, trace.y, strict=True):
                assert count == ((mine >= start) & (mine < end)).sum()
                counted += count
        assert counted == len(turns)

    def test_bins_are_even_and_round(self) -> None:
        """At most about forty bins of one round width (1, 2 or 5 times a power of ten)."""
        figure = turn_durations(_many_turns(5_000))
        widths = {float(trace.width) for trace in figure.data}
        assert len(widths) == 1
        width = widths.pop()
        assert round(width / 10 ** np.floor(np.log10(width)), 6) in {1.0, 2.0, 5.0}
        assert len(figure.data[0].x) <= 41

    def test_a_turn_without_duration_is_left_out(self) -> None:
        """A turn with no end (NaT) is not drawn, as the histogram did not draw it."""
        turns = _many_turns(10)
        turns.loc[0, "duration"] = pd.NaT
        assert sum(sum(t.y) for t in turn_durations(turns).data) == 9

    def test_one_duration_only(self) -> None:
        """Turns that all took the same time are one bar."""
        turns = pd.DataFrame({"duration": pd.to_timedelta([2.5] * 3, unit="s"), "kind": "chat"})
        (trace,) = turn_durations(turns).data
        assert list(trace.y) == [3]


class TestFiguresTakeTheTablesAlreadyMade:
    """The explorer has made the steps and tool calls frames for its summary: the figures take
    them instead of remaking them (several seconds each on a 200 MB day)."""

    def test_failures_by_class_from_calls(
        self, events: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls = tool_calls(events)
        expected = failures_by_class(events)
        monkeypatch.setattr(plots, "tool_calls", _not_again)
        figure = failures_by_class(events, calls=calls)
        assert figure.to_json() == expected.to_json()

    def test_tokens_over_day_from_steps(
        self, events: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        turns = assemble_turns(events)
        table = steps(events)
        expected = tokens_over_day(events, turns=turns)
        monkeypatch.setattr(plots, "steps", _not_again)
        figure = tokens_over_day(events, turns=turns, step_table=table)
        assert figure.to_json() == expected.to_json()


def _not_again(*_: object, **__: object) -> pd.DataFrame:
    raise AssertionError("the frame given was made again")
