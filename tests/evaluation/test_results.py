"""The results table's numbers: rates to three digits, counts as whole numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.results import shown_estimate, shown_number

SCENES = Path(__file__).resolve().parents[2] / "data" / "scenes"


class TestShownNumbers:
    """A new-user trial: `tokens_in_per_turn  1.16e+03 [1.12e+03, 1.21e+03]`."""

    @pytest.mark.parametrize(
        ("value", "shown"),
        [
            (0.8234, "0.823"),
            (1.0, "1"),
            (0.0119, "0.0119"),
            (27.04, "27"),
            (99.4, "99.4"),
            (100.0, "100"),
            (1163.7, "1,164"),
            (1234567.0, "1,234,567"),
            (-2500.0, "-2,500"),
            (math.nan, "n/a"),
        ],
        ids=[
            "rate",
            "one",
            "small",
            "tens",
            "under-100",
            "100",
            "thousands",
            "millions",
            "neg",
            "nan",
        ],
    )
    def test_a_number(self, value: float, shown: str) -> None:
        """Three significant digits below 100; a whole number with separators from 100 up."""
        assert shown_number(value) == shown

    def test_an_estimate_and_its_interval(self) -> None:
        """The trial's row as it now reads; a point shows alone; NaN is n/a."""
        assert shown_estimate(1163.7, 1121.2, 1209.4) == "1,164 [1,121, 1,209]"
        assert shown_estimate(0.82, 0.75, 0.88) == "0.82 [0.75, 0.88]"
        assert shown_estimate(0.0, 0.0, 0.0) == "0"
        assert shown_estimate(math.nan, math.nan, math.nan) == "n/a"

    def test_the_table_writes_no_exponent(self) -> None:
        """Every cell of a real run's table, token counts included, is written without `e+`."""
        table = evaluate([SCENES / "eval-long.json"], runs=2).table()
        cells = [str(c) for c in table.to_numpy().ravel()]
        assert not [c for c in cells if "e+" in c]
        tokens = table.loc["tokens_in_per_turn"].iloc[0]
        assert "," in tokens, tokens
