"""Eval3 trial, finding 1: `--mode forced` starts each turn from the expected state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluation.eval3_scenes import HEALTH_25, HEALTH_30, TORCH, call, joint, scene


class TestForcedStartsFromTheExpectedState:
    """`--mode forced` starts each turn from the reference state, whatever the scripted calls."""

    def test_a_quiet_turn_after_expect_only_turns_scores_one(self, tmp_path: Path) -> None:
        """The trial: three expect-only turns; the quiet third was scored 'hp expected 25, found 0'."""
        path = scene(
            tmp_path,
            [
                {"user": "30 of 30.", "reply": "ok", "expect": {"Health": HEALTH_30}},
                {"user": "Hit for 5.", "reply": "ok", "expect": {"Health": HEALTH_25}},
                {
                    "user": "I look at the sky.",
                    "reply": "ok",
                    "expect": {"Health": HEALTH_25},
                    "expect_no_call": True,
                },
            ],
        )
        assert joint(path, "forced") == [False, False, True]
        assert joint(path, "free") == [False, False, False]

    def test_a_right_turn_after_a_missed_one_scores_one(self, tmp_path: Path) -> None:
        """A missed row is not carried: the next turn starts with the row as expected."""
        path = scene(
            tmp_path,
            [
                {"user": "3 torches.", "reply": "ok", "expect": {"Inventory": {"Torch": TORCH}}},
                {
                    "user": "I light one.",
                    "reply": "ok",
                    "calls": call({"tracker": "Inventory", "row": "Torch", "set": {"qty": 2}}),
                    "expect": {"Inventory": {"Torch": {**TORCH, "qty": 2}}},
                },
            ],
            ["inventory"],
        )
        assert joint(path, "forced") == [False, True]
        assert joint(path, "free") == [False, False]

    def test_a_step_without_expect_moves_the_start_by_its_scripted_calls(
        self, tmp_path: Path
    ) -> None:
        """Between two checked turns, an unchecked one moves the start by what its calls did."""
        path = scene(
            tmp_path,
            [
                {"user": "30 of 30.", "reply": "ok", "expect": {"Health": HEALTH_30}},
                {
                    "user": "Hit for 5.",
                    "reply": "ok",
                    "calls": call({"tracker": "Health", "set": {"hp": 25}}),
                },
                {
                    "user": "I look at the sky.",
                    "reply": "ok",
                    "expect": {"Health": HEALTH_25},
                    "expect_no_call": True,
                },
            ],
        )
        assert joint(path, "forced") == [False, True]

    def test_a_quiet_swipe_starts_where_the_reply_it_replaces_started(self, tmp_path: Path) -> None:
        """A swipe sees the state before the reply it replaces: the reference there."""
        path = scene(
            tmp_path,
            [
                {"user": "30 of 30.", "reply": "ok", "expect": {"Health": HEALTH_30}},
                {"user": "Hit for 5.", "reply": "ok", "expect": {"Health": HEALTH_25}},
                {
                    "action": "swipe",
                    "reply": "It misses.",
                    "expect": {"Health": HEALTH_30},
                    "expect_no_call": True,
                },
            ],
        )
        assert joint(path, "forced") == [False, False, True]

    @pytest.mark.parametrize(
        "between",
        [
            {"action": "continue", "reply": " more", "expect": {"Health": HEALTH_25}},
            {"action": "edit", "tracker": "Health", "set": {"hp": 25}},
        ],
        ids=["continue", "edit"],
    )
    def test_a_turn_after_a_step_that_writes_no_call_starts_from_the_reference(
        self, tmp_path: Path, between: dict[str, Any]
    ) -> None:
        """A continue (no tool) or a person's edit moves the reference; the next turn starts there."""
        path = scene(
            tmp_path,
            [
                {"user": "30 of 30.", "reply": "ok", "expect": {"Health": HEALTH_30}},
                between,
                {
                    "user": "I look at the sky.",
                    "reply": "ok",
                    "expect": {"Health": HEALTH_25},
                    "expect_no_call": True,
                },
            ],
        )
        assert joint(path, "forced")[-1] is True
