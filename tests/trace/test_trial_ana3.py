"""An analyst's trial on days from their own generator (ana3): costs that are no cost, a turn
whose start is in a missing file, a cost line over no step, and the frame's full `name`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trackerkit.cli import main
from trackerkit.trace import assemble_turns, read_day_turns, read_trace, steps
from trackerkit.trace.costs import cost_summary, costs_by_day
from trackerkit.trace.plots import daily_costs, tokens_over_day

README = Path(__file__).parents[2] / "README.md"


def _line(ts: str, turn: str, session: str, source: str, kind: str, name: str, **data: Any) -> str:
    event = {"ts": ts, "turn": turn, "session": session, "source": source, "kind": kind}
    event |= {"name": name, "data": data}
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def _turn(session: str, hour: str, costs: list[Any], started: bool = True) -> list[str]:
    """An http turn of one step per cost (a cost of None: the model has no price)."""
    lines = []
    if started:
        lines.append(_line(f"{hour}:00.000Z", "turn_0", session, "http", "eve", "turn.started"))
    for step, cost in enumerate(costs):
        usage: dict[str, Any] = {"in": 10, "out": 2}
        if cost is not None:
            usage["costUsd"] = cost
        lines.append(
            _line(
                f"{hour}:0{step + 1}.000Z",
                "turn_0",
                session,
                "http",
                "eve",
                "step.completed",
                sequence=step,
                stepIndex=step,
                finishReason="stop",
                usage=usage,
            )
        )
    lines.append(_line(f"{hour}:09.000Z", "turn_0", session, "http", "eve", "turn.completed"))
    return lines


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    day = _turn("wrun_A", "2026-10-08T10:00", [0.05, -1.0, 1e7, None])
    (tmp_path / "2026-10-08.jsonl").write_text("\n".join(day) + "\n", encoding="utf-8")
    return tmp_path


class TestStepCosts:
    def test_a_cost_that_is_no_cost_is_missing_in_steps_as_in_the_turns(self, folder: Path) -> None:
        """The steps table took costUsd -1 and 1e7 as costs: its sum (and the explorer's
        cumulative curve) went to $10,000,000 while the turns and costs_by_day said $0.05."""
        events, _ = read_trace(folder)
        table = steps(events)
        assert table["cost_usd"].isna().tolist() == [False, True, True, True]
        assert table["cost_usd"].sum() == pytest.approx(0.05)
        assert table.attrs["skipped"]["data.usage.costUsd"] == 2
        by_day = costs_by_day(assemble_turns(events))
        assert by_day["cost_usd"].tolist() == pytest.approx([0.05])
        assert by_day["steps_without_cost"].tolist() == [3]

    def test_the_cumulative_cost_curve_ends_at_the_days_total(self, folder: Path) -> None:
        events, _ = read_trace(folder)
        figure = tokens_over_day(events)
        costs = [trace for trace in figure.data if "cost" in (trace.name or "").lower()]
        assert costs
        assert max(float(trace.y[-1]) for trace in costs) == pytest.approx(0.05)


class TestCostSummary:
    def test_no_step_is_not_every_step_carrying_its_cost(self) -> None:
        """A day of broken lines only said '$0.0000 over 0 of 0 steps; every step carries its
        cost'."""
        empty = pd.DataFrame({"cost_usd": [], "steps": [], "steps_without_cost": []})
        assert cost_summary(empty) == "no completed step, so no cost."

    def test_the_cost_figure_of_no_step_says_so(self, tmp_path: Path) -> None:
        """The explorer's per-day cost figure said 'every step carries its cost' over no step."""
        (tmp_path / "2026-10-09.jsonl").write_text("not json\n", encoding="utf-8")
        events, errors = read_trace(tmp_path)
        assert len(errors) == 1
        figure = daily_costs(assemble_turns(events))
        assert "no completed step, so no cost" in figure.layout.title.text


class TestCutTurn:
    def test_a_turn_begun_in_a_missing_file_is_cut_not_live(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """With the day before gone (retention), a turn begun before midnight was listed as a
        short 'live' turn; its start is not among the rows, so it is of kind cut, and said."""
        whole = _turn("wrun_B", "2026-10-07T12:00", [0.01])
        cut = _turn("wrun_C", "2026-10-07T00:00", [0.02], started=False)
        (tmp_path / "2026-10-07.jsonl").write_text("\n".join(whole + cut) + "\n")
        turns = read_day_turns(tmp_path, "2026-10-07").turns.set_index("name")
        assert turns.loc["wrun_B/turn_0", "kind"] == "live"
        assert turns.loc["wrun_C/turn_0", "kind"] == "cut"
        assert not turns.loc["wrun_C/turn_0", "started"]
        assert main(["trace", "turns", "2026-10-07", "--dir", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        assert "1 turn of kind cut: no eve.turn.started in the files read" in out


class TestFullName:
    def test_the_frames_name_is_documented_as_kind_dot_name(self) -> None:
        """The frame's `name` is `eve.step.completed` where the line says `step.completed`; a
        filter on the written name found nothing, and neither the README nor read_trace said so."""
        assert "`name` is the full `kind.name`" in (read_trace.__doc__ or "")
        assert "`name` is the full `kind.name`" in README.read_text(encoding="utf-8")
