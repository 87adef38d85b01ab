"""Issue 17 item 2: scoring, metrics and intervals on hand-computed cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from trackerkit import decode_tracker
from trackerkit.evaluation import EvaluationResults
from trackerkit.evaluation.intervals import bootstrap_mean, bootstrap_ratio, wilson
from trackerkit.evaluation.metrics import (
    TurnRecord,
    field_frame,
    pass_at_k,
    summarize_runs,
    summarize_variants,
    turn_frame,
)
from trackerkit.evaluation.scoring import score_turn

ROOT = Path(__file__).resolve().parents[2]
HEALTH = decode_tracker(json.loads((ROOT / "data/trackers/health.json").read_text()))
INVENTORY = decode_tracker(json.loads((ROOT / "data/trackers/inventory.json").read_text()))
ROW = {"qty": 1, "weight": 0, "equipped": False, "notes": ""}


def _record(**fields: object) -> dict[str, object]:
    return {"hp": 30, "hp_max": 30, "mood": "calm", **fields}


def _row(**fields: object) -> dict[str, object]:
    return {**ROW, **fields}


class TestScoreTurn:
    """One score per field, and per list row's presence; rows matched case-folded (TR-20)."""

    def test_record_fields(self) -> None:
        """hp off by 2 (wrong, outside tolerance 1), mood right; what should change and what did."""
        before = {"Health": _record()}
        expected = {"Health": _record(hp=20, mood="tense")}
        found = {"Health": _record(hp=22, mood="tense")}
        scores = {s.field: s for s in score_turn([HEALTH], before, expected, found)}
        assert [s.correct for s in scores.values()] == [False, True, True]
        assert scores["hp"].abs_error == 2.0
        assert scores["hp"].within_tolerance is False
        assert scores["mood"].within_tolerance is None
        assert (scores["hp"].should_change, scores["hp"].changed) == (True, True)
        assert (scores["hp_max"].should_change, scores["hp_max"].changed) == (False, False)
        assert scores["hp"].expected == "20"
        assert scores["hp"].found == "22"

    def test_a_flag_is_not_a_number(self) -> None:
        """True == 1 in Python, but a tracker's number is never its flag."""
        expected = {"Inventory": {"Rope": _row(qty=1)}}
        found = {"Inventory": {"Rope": _row(qty=True)}}
        qty = [s for s in score_turn([INVENTORY], expected, expected, found) if s.field == "qty"]
        assert qty[0].correct is False

    def test_list_rows(self) -> None:
        """A row in another case is the same row; a missing row, an extra row and a removed one."""
        before = {"Inventory": {"Torch": _row(qty=3), "Rope": _row()}}
        expected = {"Inventory": {"Torch": _row(qty=2), "Lamp": _row()}}
        found = {"Inventory": {"TORCH": _row(qty=2), "Rope": _row(), "Coin": _row(qty=5)}}
        scores = score_turn([INVENTORY], before, expected, found)
        rows = {s.row.casefold(): s for s in scores if s.kind == "row"}
        assert {k: (s.expected, s.found, s.correct) for k, s in rows.items()} == {
            "torch": ("true", "true", True),
            "lamp": ("true", "false", False),
            "rope": ("false", "true", False),
            "coin": ("false", "true", False),
        }
        torch_qty = next(s for s in scores if s.row == "Torch" and s.field == "qty")
        assert torch_qty.correct
        assert torch_qty.in_list
        lamp = [s for s in scores if s.row == "Lamp" and s.kind != "row"]
        assert len(lamp) == 4
        assert not any(s.correct for s in lamp)
        assert rows["rope"].should_change
        assert not rows["rope"].changed


def _turn(run: int, turn: int, joint: bool, **extra: object) -> TurnRecord:
    values: dict[str, object] = {
        "kind": "turn",
        "joint": joint,
        "expect_no_call": False,
        "expected_calls": True,
        "update_calls": 1,
        "refused_calls": 0,
        "clamps": 0,
        "retries": 0,
        "tokens_in": 100,
        "tokens_out": 10,
        "latency_s": 0.5,
    }
    values.update(extra)
    return TurnRecord("v", "s", run, "free", turn, turn, **values)  # type: ignore[arg-type]


class TestSummaries:
    """Per-run metrics computed by hand from two turns of scores."""

    def test_one_run(self) -> None:
        """Joint 1/2, slots 4/5, MAE (0+2)/2, tolerance 1/2, row F1, change P/R, no-call, refused."""
        before = {"Health": _record(), "Inventory": {"Torch": _row(qty=3)}}
        expected_1 = {"Health": _record(hp=20), "Inventory": {"Torch": _row(qty=3)}}
        found_1 = {"Health": _record(hp=22), "Inventory": {"Torch": _row(qty=3), "Coin": _row()}}
        cells = [
            (("v", "s", 0, "free", 0, 0), s)
            for s in score_turn([HEALTH, INVENTORY], before, expected_1, found_1)
        ]
        cells += [
            (("v", "s", 0, "free", 1, 1), s)
            for s in score_turn([HEALTH], found_1, {"Health": _record(hp=22)}, found_1)
        ]
        turns = turn_frame(
            [
                _turn(0, 0, False, refused_calls=1, update_calls=2, clamps=1, retries=2),
                _turn(0, 1, True, expect_no_call=True, update_calls=0, expected_calls=False),
            ]
        )
        row = summarize_runs(turns, field_frame(cells)).iloc[0]
        assert row["joint_accuracy"] == 0.5
        # slots: turn 0 hp wrong, hp_max, mood, and Torch's 4 fields right; turn 1: 3 right.
        assert row["slot_accuracy"] == pytest.approx(9 / 10)
        # numbers: hp (2), hp_max (0), Torch qty (0) and weight (0), then hp, hp_max (0, 0).
        assert row["number_mae"] == pytest.approx(2 / 6)
        assert row["within_tolerance"] == pytest.approx(5 / 6)
        assert row["quantity_accuracy"] == 1.0
        # rows: Torch (tp), Coin (fp): F1 = 2 / (2 + 1).
        assert row["row_f1"] == pytest.approx(2 / 3)
        # changed: hp (wrongly, to 22), Coin's presence; should change: hp. Turn 1: nothing.
        assert row["change_precision"] == 0.0
        assert row["change_recall"] == 0.0
        assert row["no_call_correctness"] == 1.0
        assert row["refused_batch_rate"] == pytest.approx(1 / 2)
        assert (row["clamps"], row["retries"], row["tokens_in"], row["tokens_out"]) == (
            1,
            2,
            200,
            20,
        )
        assert not row["passed"]

    def test_pass_at_k(self) -> None:
        """A scenario passes only when every turn of every run is jointly right."""
        turns = turn_frame([_turn(0, 0, True), _turn(1, 0, True), _turn(1, 1, False)])
        assert pass_at_k(turns) == (0, 1)
        assert pass_at_k(turns[turns["run"] == 0]) == (1, 1)

    def test_variant_intervals(self) -> None:
        """Joint accuracy pooled over runs, with its Wilson interval and n."""
        turns = turn_frame([_turn(r, t, (r + t) % 4 != 0) for r in range(4) for t in range(5)])
        table = summarize_variants(turns, field_frame([]))
        joint = table[table["metric"] == "joint_accuracy"].iloc[0]
        assert joint["n"] == 20
        assert joint["estimate"] == pytest.approx(15 / 20)
        assert (joint["low"], joint["high"]) == pytest.approx(
            (wilson(15, 20).low, wilson(15, 20).high)
        )
        assert "pass^4" in set(table["metric"])

    def test_row_f1_has_a_bootstrap_interval(self) -> None:
        """A new-user trial: row F1 had no interval (`Interval(f1, f1, f1)`) where the README
        gives every metric one. It is pooled over turns, with a bootstrap drawing whole turns."""
        before = {"Inventory": {}}
        expected = {"Inventory": {"Torch": _row(), "Rope": _row()}}
        found_by_turn = [
            {"Inventory": {"Torch": _row(), "Rope": _row()}},  # tp 2
            {"Inventory": {"Torch": _row(), "Coin": _row()}},  # tp 1, fp 1, fn 1
            {"Inventory": {"Torch": _row(), "Rope": _row(), "Coin": _row()}},  # tp 2, fp 1
            {"Inventory": {}},  # fn 2
        ] * 3
        cells = [
            (("v", "s", 0, "free", t, t), score)
            for t, found in enumerate(found_by_turn)
            for score in score_turn([INVENTORY], before, expected, found)
        ]
        turns = turn_frame([_turn(0, t, False) for t in range(len(found_by_turn))])
        table = summarize_variants(turns, field_frame(cells), seed=3)
        f1 = table[table["metric"] == "row_f1"].iloc[0]
        tp, fp, fn = 5 * 3, 2 * 3, 3 * 3
        assert f1["estimate"] == pytest.approx(2 * tp / (2 * tp + fp + fn))
        assert summarize_runs(turns, field_frame(cells)).iloc[0]["row_f1"] == f1["estimate"]
        assert f1["low"] < f1["estimate"] < f1["high"]
        by_turn = bootstrap_ratio([4, 2, 4, 0] * 3, [4, 4, 5, 2] * 3, seed=3)
        assert (f1["low"], f1["high"]) == (by_turn.low, by_turn.high)
        again = summarize_variants(turns, field_frame(cells), seed=3)
        assert again[again["metric"] == "row_f1"].iloc[0].equals(f1)


class TestFailedTurns:
    """A failed turn (the model could not be reached) is not an answer: no metric counts it."""

    def test_failed_turns_are_left_out_of_every_metric(self) -> None:
        """The summary with failed turns is the summary of the answered ones, plus the count."""
        answered = [_turn(0, 0, True), _turn(0, 1, False), _turn(1, 0, True)]
        failed = [_turn(1, 1, False, failed="The model failed: could not reach it.")]
        both = summarize_variants(turn_frame(answered + failed), field_frame([]))
        alone = summarize_variants(turn_frame(answered), field_frame([]))
        shown = both[~both["metric"].isin(["failed_turn_rate"])].reset_index(drop=True)
        kept = alone[alone["metric"] != "failed_turn_rate"].reset_index(drop=True)
        joint = shown[shown["metric"] == "joint_accuracy"].iloc[0]
        assert (joint["estimate"], joint["n"]) == (pytest.approx(2 / 3), 3)
        pass_k = shown["metric"].str.startswith("pass^")
        pd.testing.assert_frame_equal(shown[~pass_k], kept[~pass_k])
        rate = both[both["metric"] == "failed_turn_rate"].iloc[0]
        assert (rate["estimate"], rate["n"]) == (pytest.approx(1 / 4), 4)
        runs = summarize_runs(turn_frame(answered + failed), field_frame([]))
        assert runs["failed_turns"].tolist() == [0, 1]
        assert runs["passed"].tolist() == [False, False]  # run 1 failed a turn: not passed

    def test_a_variant_that_answered_nothing_has_no_scores(self) -> None:
        """Every turn failed: n/a everywhere but the failure rate, never a model's zeroes."""
        failed = [
            _turn(r, t, False, failed="The model failed: away.") for r in (0, 1) for t in (0, 1)
        ]
        table = summarize_variants(turn_frame(failed), field_frame([]))
        rates = table.set_index("metric")["estimate"]
        assert rates.drop("failed_turn_rate").isna().all()
        assert rates["failed_turn_rate"] == 1.0
        assert pass_at_k(turn_frame(failed)) == (0, 0)
        lines = EvaluationResults(turn_frame(failed), field_frame([])).failure_lines()
        assert lines == [
            "v (free): 4 of 4 turns failed and are not scored (so it has no scores); "
            "the first: The model failed: away."
        ]

    def test_the_retries_spent_on_failed_turns_are_said(self) -> None:
        """A wire trial: 20 failed turns each retried after a 429 showed retries_per_turn 0, as a
        failed turn is in no metric; the failures name the retries spent on them."""
        failed = [_turn(0, t, False, retries=2, failed="The model failed: 429.") for t in (0, 1)]
        results = EvaluationResults(turn_frame([_turn(0, 2, True), *failed]), field_frame([]))
        assert results.failures()["retries"].tolist() == [4]
        assert results.failure_lines() == [
            "v (free): 2 of 3 turns failed, after 4 retries, and are not scored; "
            "the first: The model failed: 429."
        ]


class TestIntervals:
    """Wilson's interval and the seeded bootstrap."""

    def test_wilson_by_hand(self) -> None:
        """8 of 10 at 95%: (0.4902, 0.9433), as the textbook formula gives."""
        interval = wilson(8, 10)
        assert interval.estimate == 0.8
        assert (interval.low, interval.high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
        assert wilson(0, 10).low == 0.0
        assert wilson(10, 10).high == 1.0
        assert math.isnan(wilson(0, 0).estimate)

    def test_wilson_refuses_more_successes_than_trials(self) -> None:
        """A count past the trials is a mistake, said so."""
        with pytest.raises(ValueError, match="between 0 and trials"):
            wilson(3, 2)

    def test_bootstrap_is_seeded(self) -> None:
        """The same seed gives the same interval; it holds the mean; NaN values are left out."""
        values = [1.0, 2.0, 3.0, 4.0, 10.0, math.nan]
        a, b = bootstrap_mean(values, seed=7), bootstrap_mean(values, seed=7)
        assert a == b
        assert a.estimate == 4.0
        assert a.low < 4.0 < a.high
        assert bootstrap_mean([5.0]).low == 5.0
        assert math.isnan(bootstrap_mean([]).estimate)

    def test_bootstrap_ratio_draws_whole_units(self) -> None:
        """The pooled ratio, a seeded interval around it; NaN with nothing to divide by."""
        a = bootstrap_ratio([2, 0, 4, 1], [2, 3, 4, 2], seed=5)
        assert a == bootstrap_ratio([2, 0, 4, 1], [2, 3, 4, 2], seed=5)
        assert a.estimate == pytest.approx(7 / 11)
        assert 0 <= a.low < a.estimate < a.high <= 1
        assert bootstrap_ratio([1], [2]) == bootstrap_ratio([1], [2])
        assert bootstrap_ratio([1], [2]).low == 0.5
        assert math.isnan(bootstrap_ratio([0, 0], [0, 0]).estimate)
        assert math.isnan(bootstrap_ratio([], []).estimate)
        with pytest.raises(ValueError, match="must pair up"):
            bootstrap_ratio([1, 2], [3])
