"""Turns that say their day, why they failed and how much of their cost is unknown (issue 14, item 3)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trackerkit.trace import assemble_turns, read_trace, steps
from trackerkit.trace.costs import COST_COLUMNS, cost_summary, costs_by_day
from trackerkit.trace.plots import daily_costs

SAMPLE = Path(__file__).parents[2] / "data" / "trace"


@pytest.fixture(scope="module")
def events() -> pd.DataFrame:
    frame, errors = read_trace(SAMPLE)
    assert len(errors) == 6  # the sample's deliberately broken lines (TC-19)
    return frame


@pytest.fixture(scope="module")
def turns(events: pd.DataFrame) -> pd.DataFrame:
    return assemble_turns(events)


class TestDay:
    def test_each_turn_has_the_day_file_of_its_first_event(
        self, events: pd.DataFrame, turns: pd.DataFrame
    ) -> None:
        """TC-2: four day files give four days, though the turns start on five UTC dates."""
        assert sorted(turns["day"].unique()) == sorted(p.stem for p in SAMPLE.glob("*.jsonl"))
        assert turns["start"].dt.date.nunique() == 5
        first = events.sort_values("ts", kind="stable").drop_duplicates("session")
        for row in turns.itertuples(index=False):
            owner = first[first["session"] == row.session]
            if len(owner) and owner["ts"].iloc[0] == row.start:
                assert row.day == owner["day"].iloc[0]

    def test_events_not_from_files_give_an_empty_day(self, events: pd.DataFrame) -> None:
        turns = assemble_turns(events.drop(columns=["file", "line", "day"]))
        assert set(turns["day"]) == {""}


class TestErrors:
    def test_a_failed_turn_says_why(self, turns: pd.DataFrame) -> None:
        """A failed turn's class is its failed step's code and the message as written."""
        failed = turns[turns["status"] == "failed"]
        assert failed["error_class"].notna().all()
        model = failed[failed["error_class"] == "E_MODEL"]
        assert set(model["error"]) == {"the model endpoint answered 529"}
        assert (failed["failures"] == 0).any()  # failed with no tool failing: the reason says why

    def test_a_turn_whose_tools_failed_gives_the_first_tools_class(
        self, turns: pd.DataFrame
    ) -> None:
        """A completed turn with failed tools: the first tool's class (TC-16) and message."""
        done = turns[(turns["status"] == "completed") & (turns["failures"] > 0)]
        assert len(done) > 0
        assert done["error_class"].notna().all()
        assert "502 from upstream" in set(done["error"])
        clean = turns[turns["failures"] == 0]
        clean = clean[clean["status"] != "failed"]
        assert clean["error_class"].isna().all()

    def test_step_and_turn_failures_come_before_tool_failures(self, tmp_path: Path) -> None:
        """A tool that failed before the step that failed the turn: the step's code wins."""
        head = '{"ts":"2026-03-01T10:00:0%d.000Z","turn":"turn_0","session":"s","source":"web",'
        rows = [
            '"kind":"eve","name":"action.result","data":{"stepIndex":0,"failure":"timeout","error":"slow"}}',
            '"kind":"eve","name":"step.failed","data":{"stepIndex":1,"code":"E_X","message":"boom"}}',
            '"kind":"eve","name":"turn.failed","data":{"code":"E_Y","message":"later"}}',
        ]
        (tmp_path / "2026-03-01.jsonl").write_text(
            "".join(head % i + row + "\n" for i, row in enumerate(rows))
        )
        turn = assemble_turns(read_trace(tmp_path)[0]).iloc[0]
        assert (turn["status"], turn["failures"]) == ("failed", 1)
        assert (turn["error_class"], turn["error"]) == ("E_X", "boom")
        table = steps(read_trace(tmp_path)[0])
        assert table[["outcome", "error_class", "error"]].values.tolist() == [
            ["failed", "E_X", "boom"]
        ]


class TestCosts:
    def test_known_and_unknown_costs(self, events: pd.DataFrame, turns: pd.DataFrame) -> None:
        """cost_usd sums the known costs; steps_without_cost counts the rest (never a NaN)."""
        table = steps(events)
        completed = table[table["outcome"] == "completed"]
        assert turns["cost_usd"].notna().all()
        assert turns["steps_without_cost"].sum() == completed["cost_usd"].isna().sum() == 36
        assert turns["steps"].sum() == 86
        assert turns["cost_usd"].sum() == pytest.approx(completed["cost_usd"].sum())

    def test_costs_by_day_print_the_unknown_share(self, turns: pd.DataFrame) -> None:
        table = costs_by_day(turns)
        assert list(table.columns) == [c.name for c in COST_COLUMNS]
        assert table["day"].tolist() == sorted(turns["day"].unique())
        assert table["turns"].sum() == len(turns)
        assert table["failed_turns"].sum() == (turns["status"] == "failed").sum()
        assert table["cost_usd"].sum() == pytest.approx(turns["cost_usd"].sum())
        share = table["steps_without_cost"] / table["steps"]
        assert table["unknown_share"].astype(float).tolist() == pytest.approx(share.tolist())
        assert cost_summary(turns) == (
            "$1.1434 over 50 of 86 steps; 36 steps (42%) carry no cost and are not in the total."
        )

    def test_costs_by_day_carry_the_usage_of_each_day(self, turns: pd.DataFrame) -> None:
        """Tokens in and out per day file sum to the turns' tokens: the per-day usage view."""
        table = costs_by_day(turns).set_index("day")
        by_day = turns.groupby("day")[["tokens_in", "tokens_out"]].sum()
        assert table[["tokens_in", "tokens_out"]].astype("int64").equals(by_day.astype("int64"))

    def test_the_figure_labels_each_day_with_its_unknown_share(self, turns: pd.DataFrame) -> None:
        figure = daily_costs(turns)
        bar = figure.data[0]
        assert list(bar.x) == costs_by_day(turns)["day"].tolist()
        assert all("without cost" in label for label in bar.text)
        assert "36 of 86 steps carry no cost" in figure.layout.title.text

    def test_no_turns_no_rows(self) -> None:
        empty = assemble_turns(read_trace(SAMPLE, days="2026-11-26")[0].iloc[:0])
        assert costs_by_day(empty).empty
        assert cost_summary(empty) == "no completed step, so no cost."
