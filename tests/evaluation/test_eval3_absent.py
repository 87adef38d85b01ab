"""Eval3 trial, finding 2: `expect.absent` rows are scored by eval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.eval3_scenes import TRACKERS, call, joint, scene
from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate


class TestAbsentIsScored:
    """`expect.absent` rows are scored as rows expected gone (finding 2)."""

    def _rope(self, tmp_path: Path, removes: bool) -> Path:
        rope = {"tracker": "Inventory", "row": "Rope", "set": {"qty": 1}}
        gone = {"tracker": "Inventory", "row": "Rope", "remove": True}
        return scene(
            tmp_path,
            [
                {
                    "user": "A rope.",
                    "reply": "ok",
                    "calls": call(rope),
                    "expect": {"Inventory": {"Rope": {"qty": 1}}},
                },
                {
                    "user": "I drop the rope.",
                    "reply": "ok",
                    **({"calls": call(gone)} if removes else {}),
                    "expect": {"absent": {"Inventory": ["rope"]}},
                },
            ],
            ["inventory"],
        )

    def test_a_row_kept_that_should_be_gone_is_a_miss(self, tmp_path: Path) -> None:
        """The trial: a model that keeps the row was not penalised."""
        results = evaluate([self._rope(tmp_path, removes=False)], trackers=TRACKERS, trace=None)
        assert [bool(j) for j in results.turns["joint"]] == [True, False]
        rows = results.fields[results.fields["kind"] == "row"]
        assert rows[["row", "expected", "found", "correct"]].values.tolist() == [
            ["Rope", "true", "true", True],
            ["rope", "false", "true", False],
        ]

    def test_a_row_removed_as_expected_scores_one(self, tmp_path: Path) -> None:
        """A row expected gone and gone is a hit in row presence, and a change."""
        results = evaluate([self._rope(tmp_path, removes=True)], trackers=TRACKERS, trace=None)
        assert [bool(j) for j in results.turns["joint"]] == [True, True]
        rows = results.fields[results.fields["kind"] == "row"]
        assert rows[["expected", "found", "correct", "should_change"]].values.tolist()[1] == [
            "false",
            "false",
            True,
            True,
        ]

    def test_a_scenario_expecting_only_absent_rows_is_scored(self, tmp_path: Path) -> None:
        """The trial: it was refused as 'every expect ... names no tracker'."""
        path = scene(
            tmp_path,
            [{"user": "x", "reply": "ok", "expect": {"absent": {"Inventory": ["Rope"]}}}],
            ["inventory"],
        )
        results = evaluate([path], trackers=TRACKERS, trace=None)
        assert results.fields[["tracker", "row", "correct"]].values.tolist() == [
            ["Inventory", "Rope", True]
        ]

    def test_forced_mode_starts_the_next_turn_without_the_absent_row(self, tmp_path: Path) -> None:
        """The reference drops an absent row, so the next turn does not find it."""
        path = self._rope(tmp_path, removes=False)
        doc = json.loads(path.read_text())
        doc["turns"].append(
            {"user": "x", "reply": "ok", "expect": {"Inventory": {}}, "expect_no_call": True}
        )
        path.write_text(json.dumps(doc))
        assert joint(path, "forced") == [True, False, True]

    def test_a_row_expected_present_and_absent_is_refused(self, tmp_path: Path) -> None:
        """The trial: Torch both expected (qty 2) and absent was accepted and scored present."""
        path = scene(
            tmp_path,
            [
                {
                    "user": "x",
                    "reply": "ok",
                    "expect": {
                        "Inventory": {"Torch": {"qty": 2}},
                        "absent": {"Inventory": ["torch"]},
                    },
                }
            ],
            ["inventory"],
        )
        with pytest.raises(BadRequestError) as caught:
            evaluate([path], trackers=TRACKERS, trace=None)
        assert (
            "turns[0].expect.absent.Inventory: row 'torch' is expected both present "
            "(turns[0].expect.Inventory.Torch) and absent; keep it in one of them"
        ) in str(caught.value)
