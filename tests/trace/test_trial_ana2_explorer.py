"""Trial ana2: the explorer on a big day, and a subagent's failure said as the subagent's.

Finding 1: on a day of 70k steps the cumulative tokens-and-cost figure alone was 9 MB, past the
page's output limit, and took the whole per-day section down with it. Finding 5: a completed
turn whose subagent failed was explained as if the turn itself had failed.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import marimo as mo
import numpy as np
import orjson
import pandas as pd
import plotly.graph_objects as go
import pytest

from trackerkit.trace import (
    FAILURE_COLUMNS,
    assemble_turns,
    assign_turns,
    failure_reason,
    read_trace,
    tokens_over_day,
    turn_failures,
)

_STEPS = 100_000
_DAY = "2026-11-10"


def _step_events(count: int, day: str, seed: int = 1) -> tuple[pd.DataFrame, pd.Series]:
    """`count` completed steps (two a turn) spread unevenly over one day, and their turn names."""
    rng = np.random.default_rng(seed)
    start = pd.Timestamp(f"{day}T00:00:00Z") - pd.Timedelta(hours=3)
    offsets = np.sort(rng.gamma(0.5, 20_000_000.0, count).clip(0, 86_399_000)).astype("int64")
    turns = [f"turn_{i // 2}" for i in range(count)]
    costs = rng.uniform(0, 0.01, count)
    data = [
        {
            "sequence": i,
            "stepIndex": i % 2,
            "usage": {"in": 1000 + i % 7, "out": 50 + i % 5}
            | ({} if i % 11 == 0 else {"costUsd": float(costs[i])}),
        }
        for i in range(count)
    ]
    events = pd.DataFrame(
        {
            "ts": start + pd.to_timedelta(offsets, unit="ms"),
            "turn": turns,
            "session": f"s_{day}",
            "source": "telegram",
            "kind": "eve",
            "name": "eve.step.completed",
            "data": data,
        }
    )
    return events, pd.Series([f"s_{day}/{t}" for t in turns])


def _turns(names: pd.Series, day: str) -> pd.DataFrame:
    unique = names.unique()
    return pd.DataFrame({"name": unique, "day": [day] * len(unique)})


@pytest.fixture(scope="module")
def big_day() -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    events, names = _step_events(_STEPS, _DAY)
    return events, names, _turns(names, _DAY)


@pytest.fixture(scope="module")
def thin(big_day: tuple[pd.DataFrame, pd.Series, pd.DataFrame]) -> Any:
    """The big day's figure as the explorer draws it."""
    return tokens_over_day(*big_day)


@pytest.fixture(scope="module")
def full(big_day: tuple[pd.DataFrame, pd.Series, pd.DataFrame]) -> Any:
    """The big day's figure through every step."""
    return tokens_over_day(*big_day, most_points=None)


class TestTokensOverABigDay:
    """Finding 1: the cumulative figure stays small whatever the day's size."""

    def test_a_day_of_100k_steps_draws_under_a_megabyte(self, thin: Any) -> None:
        """The figure of 100,000 steps is far under the page's 8 MB output limit."""
        assert len(thin.to_json()) < 1_000_000
        assert all(len(trace.x) <= 3000 for trace in thin.data)

    def test_the_day_ends_at_its_exact_totals(
        self, big_day: tuple[pd.DataFrame, pd.Series, pd.DataFrame], thin: Any, full: Any
    ) -> None:
        """Thinned, each curve still starts at the day's first step and ends at its totals."""
        assert len(full.data[0].x) == _STEPS
        usage = pd.json_normalize(big_day[0]["data"].tolist())
        totals = {
            "tokens in": usage["usage.in"].sum(),
            "tokens out": usage["usage.out"].sum(),
            "cost (USD)": usage["usage.costUsd"].sum(),
        }
        for thinned, whole in zip(thin.data, full.data, strict=True):
            assert thinned.y[-1] == whole.y[-1]
            assert thinned.y[-1] == pytest.approx(totals[thinned.name], rel=1e-12)
            assert thinned.x[0] == whole.x[0]
            assert thinned.x[-1] == whole.x[-1]
            assert thinned.y[0] == whole.y[0]

    def test_every_point_drawn_is_on_the_whole_curve(self, thin: Any, full: Any) -> None:
        """A kept point is a step's own (time, cumulative value), never an average or a guess."""
        for thinned, whole in zip(thin.data, full.data, strict=True):
            points = set(zip(whole.x, whole.y, strict=True))
            assert all(p in points for p in zip(thinned.x, thinned.y, strict=True))
            assert list(thinned.x) == sorted(thinned.x)

    def test_the_figure_says_it_is_thinned(self, thin: Any) -> None:
        """The subtitle says the curves are thinned; each hover says through how many steps."""
        figure = go.Figure(thin)
        assert "thinned to at most 3,000 points a day" in figure.layout.title.subtitle.text
        drawn = len(figure.data[0].x)
        assert f"drawn through {drawn:,} of its {_STEPS:,} steps" in figure.data[0].hovertemplate
        figure.update_layout(title_text="retitled, as the explorer does")
        assert figure.layout.title.subtitle.text

    def test_a_small_day_is_drawn_whole_and_says_nothing(self) -> None:
        """A day within its share keeps every step, and the figure has no subtitle."""
        events, names = _step_events(500, _DAY)
        figure = tokens_over_day(events, names, _turns(names, _DAY))
        assert [len(trace.x) for trace in figure.data] == [500] * 3
        assert figure.layout.title.subtitle.text is None
        assert "drawn through" not in figure.data[0].hovertemplate

    def test_many_days_share_the_points(self) -> None:
        """A month of busy days stays small too: the days share the points, two at least each."""
        frames, names, turns = [], [], []
        for number in range(30):
            day = f"2026-11-{number + 1:02d}"
            events, named = _step_events(4000, day, seed=number)
            frames.append(events)
            names.append(named)
            turns.append(_turns(named, day))
        events = pd.concat(frames, ignore_index=True)
        figure = tokens_over_day(
            events, pd.concat(names, ignore_index=True), pd.concat(turns, ignore_index=True)
        )
        assert len(figure.data) == 90
        assert sum(len(trace.x) for trace in figure.data[::3]) <= 3000
        assert len(figure.to_json()) < 1_000_000


def _subagent_day(folder: Path) -> None:
    """One completed turn (`s1/turn_2`) whose subagent planner failed, and its tool failed too."""
    rows = [
        ("turn_2", "turn.started", {"sequence": 0}),
        ("turn_2", "step.started", {"sequence": 1, "stepIndex": 0}),
        ("turn_2#planner", "step.started", {"sequence": 0, "stepIndex": 0, "subagent": "planner"}),
        (
            "turn_2#planner",
            "turn.failed",
            {
                "sequence": 1,
                "stepIndex": 0,
                "code": "subagent_budget",
                "message": "planner ran out of budget",
                "subagent": "planner",
            },
        ),
        (
            "turn_2",
            "action.result",
            {
                "sequence": 2,
                "stepIndex": 0,
                "callId": "c1",
                "toolName": "search",
                "status": "failed",
                "failure": "timeout",
            },
        ),
        ("turn_2", "step.completed", {"sequence": 3, "stepIndex": 0, "usage": {"in": 1, "out": 1}}),
        ("turn_2", "turn.completed", {"sequence": 4}),
    ]
    lines = [
        orjson.dumps(
            {
                "ts": f"2026-11-10T10:00:0{i}Z",
                "turn": turn,
                "session": "s1",
                "source": "telegram",
                "kind": "eve",
                "name": name,
                "data": data,
            }
        )
        for i, (turn, name, data) in enumerate(rows)
    ]
    (folder / "2026-11-10.jsonl").write_bytes(b"\n".join(lines) + b"\n")


class TestASubagentsFailure:
    """Finding 5: a subagent's failure is said to be the subagent's, on the turn it ran in."""

    @pytest.fixture
    def failures(self, tmp_path: Path) -> tuple[pd.DataFrame, pd.Series]:
        _subagent_day(tmp_path)
        events, _ = read_trace(tmp_path)
        turn = assemble_turns(events, assign_turns(events)).iloc[0]
        return turn_failures(events, "s1/turn_2"), turn

    def test_the_status_and_failures_keep_their_meaning(
        self, failures: tuple[pd.DataFrame, pd.Series]
    ) -> None:
        """The subagent's end ends the subagent (TC-8): the turn completed, one tool failed."""
        _, turn = failures
        assert turn["status"] == "completed"
        assert turn["failures"] == 1
        assert turn["error_class"] == "subagent_budget"

    def test_each_failure_names_its_turn_key(
        self, failures: tuple[pd.DataFrame, pd.Series]
    ) -> None:
        """The failures frame says which rows are the subagent's (`turn_2#planner`)."""
        frame, _ = failures
        assert "turn" in [c.name for c in FAILURE_COLUMNS]
        assert frame[["event", "turn", "is_reason"]].values.tolist() == [
            ["eve.turn.failed", "turn_2#planner", True],
            ["eve.action.result", "turn_2", False],
        ]

    def test_the_reason_says_the_subagent_failed(
        self, failures: tuple[pd.DataFrame, pd.Series]
    ) -> None:
        """The reason names the subagent and its turn key before the class and message."""
        frame, turn = failures
        text = failure_reason(frame, turn["status"], int(turn["failures"]))
        shown = html.unescape(re.sub(r"<[^>]*>", "", mo.md(text).text))
        assert (
            "In this turn the subagent planner failed (turn_2#planner): "
            "subagent_budget: planner ran out of budget"
        ) in shown
        assert "status completed, failures 1 (failed tool calls; a subagent's end ends" in shown
        assert "the reason is the subagent's eve.turn.failed" in shown

    def test_a_turns_own_failure_is_said_as_before(
        self, failures: tuple[pd.DataFrame, pd.Series]
    ) -> None:
        """Without the subagent's row, the tool's failure is the turn's own: no subagent said."""
        frame, turn = failures
        own = frame[frame["turn"] == "turn_2"].assign(is_reason=True)
        text = failure_reason(own, turn["status"], 1)
        assert "subagent" not in text
        assert text.startswith("**<code>timeout</code>**: ")
