"""The evaluate page's number boxes (trial des8, finding 6): text boxes read with the bounds, steps
and defaults their `mo.ui.number` had, and a refusal in words."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation import NumberBox

ROOT = Path(__file__).resolve().parents[2]
RUNS = NumberBox("Runs (k)", 1, 10, 2)
TOLERANCE = NumberBox("Tolerance (±)", 0, 1000, 1, step=0.01)


class TestNumberBox:
    def test_the_default_is_shown_plainly(self) -> None:
        """A whole default reads without a decimal point."""
        assert (RUNS.shown, TOLERANCE.shown) == ("2", "1")

    @pytest.mark.parametrize(
        ("box", "typed", "number"),
        [(RUNS, "1", 1), (RUNS, " 10 ", 10), (TOLERANCE, "0", 0.0), (TOLERANCE, "0.25", 0.25)],
        ids=["low-bound", "high-bound-spaced", "zero-tolerance", "on-step"],
    )
    def test_a_number_in_bounds_on_the_step_is_read(
        self, box: NumberBox, typed: str, number: float
    ) -> None:
        """Whole steps give an int, a fractional step a float."""
        read = box.read(typed)
        assert read == number
        assert type(read) is type(number)

    @pytest.mark.parametrize(
        ("box", "typed", "said"),
        [
            (RUNS, "0", "Runs (k) takes a whole number from 1 to 10; it reads '0'."),
            (RUNS, "11", "Runs (k) takes a whole number from 1 to 10; it reads '11'."),
            (RUNS, "2.5", "Runs (k) takes a whole number from 1 to 10; it reads '2.5'."),
            (RUNS, "two", "Runs (k) takes a whole number from 1 to 10; it reads 'two'."),
            (RUNS, "", "Runs (k) takes a whole number from 1 to 10; it reads ''."),
            (
                TOLERANCE,
                "0.005",
                "Tolerance (±) takes a number from 0 to 1000, in steps of 0.01; it reads '0.005'.",
            ),
            (
                TOLERANCE,
                "nan",
                "Tolerance (±) takes a number from 0 to 1000, in steps of 0.01; it reads 'nan'.",
            ),
        ],
        ids=["below", "above", "off-step", "words", "empty", "finer-than-step", "nan"],
    )
    def test_anything_else_is_refused_in_words(self, box: NumberBox, typed: str, said: str) -> None:
        """The label, what the box takes and what it reads, and what to do."""
        with pytest.raises(BadRequestError) as caught:
            box.read(typed)
        assert str(caught.value) == f"{said} Type such a number in the box."


def test_the_page_has_no_number_box() -> None:
    """Found in trial des8: mo.ui.number's aria-label was its label's HTML."""
    tree = ast.parse((ROOT / "notebooks" / "evaluate.py").read_text(encoding="utf-8"))
    kinds = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "ui"
    }
    assert "number" not in kinds
