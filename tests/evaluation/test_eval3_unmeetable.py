"""Eval3 trial, finding 5: expectations no state can meet are refused before any turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluation.eval3_scenes import TORCH, TRACKERS, scene
from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        (
            {"Health": {"hp": 40, "hp_max": 30}},
            "turns[0].expect.Health.hp: 40 is above hp_max (30, in the same expect), its top: "
            "hp can never read more than hp_max, so this cannot be met",
        ),
        (
            {"Health": {"hp": None}},
            "turns[0].expect.Health.hp: hp always holds a number (a value not set reads as its "
            "initial value), so null cannot be met; give the value or leave the field out",
        ),
        (
            {"Inventory": {"Torch": {"qty": None}}},
            "turns[0].expect.Inventory.Torch.qty: qty always holds a number",
        ),
        (
            {"Inventory": {"Torch": TORCH, "torch": {"qty": 5}}},
            "turns[0].expect.Inventory: rows 'Torch' and 'torch' differ only in case, and rows "
            "are matched whatever the case; give the row once",
        ),
    ],
    ids=["over-top", "null-number", "null-row-number", "rows-case"],
)
def test_an_expectation_no_state_can_meet_is_refused(
    tmp_path: Path, expect: dict[str, Any], message: str
) -> None:
    """Finding 5: these ran and scored a miss (or silently dropped a row's checks)."""
    path = scene(
        tmp_path, [{"user": "x", "reply": "ok", "expect": expect}], ["health", "inventory"]
    )
    with pytest.raises(BadRequestError) as caught:
        evaluate([path], trackers=TRACKERS, trace=None)
    assert str(caught.value).startswith(f"{path}: 1 expectation ")
    assert "nothing was played" in str(caught.value)
    assert message in str(caught.value)


def test_a_value_at_its_top_is_not_refused(tmp_path: Path) -> None:
    """hp 1 with hp_max 1 can be met: only a value above its top is refused."""
    path = scene(
        tmp_path, [{"user": "x", "reply": "ok", "expect": {"Health": {"hp": 1, "hp_max": 1}}}]
    )
    assert len(evaluate([path], trackers=TRACKERS, trace=None).turns) == 1
