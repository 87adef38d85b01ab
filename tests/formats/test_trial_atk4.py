"""Trial "atk4": hostile and odd inputs to the importers and the card round trip."""

from __future__ import annotations

import time

import orjson
import pytest

from trackerkit.formats import import_mvu
from trackerkit.formats.leaves import guess_range

#: 100,000 characters of each shape that made a range pattern try every start in a run of digits.
_HOSTILE = {
    "digits then a hyphen": "1" * 100_000 + "-",
    "digits then a tilde": "1" * 100_000 + "~",
    "digits then a percent": "1" * 100_000 + "%",
    "digits then to": "1" * 100_000 + " to",
    "bracket then digits": "[" + "1" * 100_000,
    "bracket, a bound and digits": "[1," + "1" * 100_000,
    "a decimal's long fraction": "1." + "1" * 100_000 + "~",
    "full-width digits": "１" * 100_000 + "-",
    "Arabic-Indic digits": "٣" * 100_000 + " ..",
    "ASCII and other digits mixed": "1١" * 50_000 + "-",
}


class TestRangeProseIsLinear:
    """Finding 2: a long run of digits in a meaning is read in linear time, never quadratic."""

    @pytest.mark.parametrize("text", _HOSTILE.values(), ids=_HOSTILE.keys())
    def test_a_long_run_of_digits_is_read_at_once(self, text: str) -> None:
        """100,000 digits take milliseconds (the old patterns took minutes); 2 s is generous."""
        began = time.perf_counter()
        guess_range(text)
        assert time.perf_counter() - began < 2

    def test_a_bound_is_never_read_from_inside_a_number(self) -> None:
        """A bound starts where its number starts: `x12~30` is 12 to 30, and a range written
        after a run of other digits (`١٢ to 5`) is not read from that run's tail."""
        assert guess_range("x12~30") == (12, 30, "12~30")
        assert guess_range("ab-3~7") == (-3, 7, "-3~7")
        assert guess_range("a١٢ to 5") is None

    def test_the_mvu_file_of_the_trial_imports_at_once(self) -> None:
        """The trial's 30 KB MVU file (23.6 s before) imports in well under 2 s."""
        data = {"Li": {"affection": [5, "1" * 30_000 + " is the score"]}}
        began = time.perf_counter()
        imported = import_mvu("mvu_slow.json", orjson.dumps(data).decode())
        assert time.perf_counter() - began < 2
        assert imported.trackers[0].fields[0].type == "number"
