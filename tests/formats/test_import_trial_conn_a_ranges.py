"""Trial "conn" finding 7: the common ways MVU cards write a range in a field's meaning."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trackerkit.formats import import_mvu
from trackerkit.formats.leaves import guess_range, leaf


class TestRangeProse:
    """Finding 7: the common ways MVU cards write a range are read, and what is not a range is not."""

    @pytest.mark.parametrize(
        ("text", "found"),
        [
            ("0-100", (0, 100, "0-100")),
            ("0 - 100", (0, 100, "0 - 100")),
            ("range 0 to 100", (0, 100, "0 to 100")),
            ("0 to 100", (0, 100, "0 to 100")),
            ("1..10", (1, 10, "1..10")),
            ("范围0-100", (0, 100, "0-100")),
            ("好感度，0-100，每次变化不超过5", (0, 100, "0-100")),
            ("0–100", (0, 100, "0–100")),
            ("percent 0%-100%", (0, 100, "0%-100%")),
            ("-10-10", (-10, 10, "-10-10")),
            ("-5 - 5", (-5, 5, "-5 - 5")),
            ("-10--5", (-10, -5, "-10--5")),
            ("Affection (0-100).", (0, 100, "0-100")),
            ("0~100", (0, 100, "0~100")),
            ("between 1 and 10", (1, 10, "between 1 and 10")),
            ("[0, 100]", (0, 100, "[0, 100]")),
            ("date 2024-01-05", None),
            ("year, e.g. 2024-2025 season", None),
            ("id v1-2", None),
            ("steps 1-2-3", None),
            ("x-5-5", None),
            ("5 -10", None),
            ("100-0", None),
            ("1...10", None),
            ("chapter 01-05", None),
            ("HP:0-100", (0, 100, "0-100")),
            ("9:10-11:30", None),
            ("12/1-12/5", None),
            ("1 - 2 - 3", None),
        ],
        ids=lambda v: v if isinstance(v, str) else "",
    )
    def test_guess(self, text: str, found: tuple[float, float, str] | None) -> None:
        """A plain range form is read; a date, an id, a chain or a lone minus is not."""
        assert guess_range(text) == found

    @pytest.mark.parametrize(
        ("text", "note"),
        [
            ("(0,100)", True),
            ("（0，100）", True),
            ("[0,100)", True),
            ("[0,100]", False),
            ("(0~100)", False),
        ],
    )
    def test_open_interval_is_said(self, text: str, note: bool) -> None:
        """`(0,100)` excludes its bounds as written; the line says they are read as included."""
        found = leaf(5, text)
        assert not isinstance(found, str)
        assert (found.spec["min"], found.spec["max"]) == (0, 100)
        said = "read with its bounds included" in found.detail
        assert said == note

    def test_the_repro_file(self) -> None:
        """Each row of the trial's table: read as min/max, guessed, or left exact."""
        keys = "abcdefghijklmn"
        texts = [
            "0-100",
            "0 - 100",
            "range 0 to 100",
            "0~100",
            "范围0-100",
            "1..10",
            "(0,100)",
            "[0, 100]",
            "-10~10",
            "max 100",
            "好感度，0-100，每次变化不超过5",
            "year, e.g. 2024-2025 season",
            "percent 0%-100%",
            "between 1 and 10",
        ]
        starts = [5] * 11 + [2024, 50, 5]
        data = {"r": {k: [s, t] for k, s, t in zip(keys, starts, texts, strict=True)}}
        imported = import_mvu("r.json", orjson.dumps(data).decode())
        kinds = {line.source: line.kind for line in imported.report.lines}
        assert [k for k in keys if kinds[f"r.{k}"] == "exact"] == ["j", "l"]


@given(st.text(alphabet="0123456789-–.~ to,()[]abv年%", max_size=24))
def test_law_a_range_read_from_prose_is_in_it(text: str) -> None:
    """Any text reads as no range, or as min <= max from a part of the text itself."""
    found = guess_range(text)
    if found is not None:
        low, high, part = found
        assert low <= high
        assert part in text


@given(st.integers(1, 2999), st.integers(1, 12), st.integers(1, 28), st.text(max_size=8))
def test_law_a_date_is_no_range(year: int, month: int, day: int, around: str) -> None:
    """A date written `YYYY-MM-DD` is never read as bounds."""
    text = f"{around} {year:04d}-{month:02d}-{day:02d} {around}"
    found = guess_range(text)
    assert found is None or f"{year:04d}-{month:02d}" not in found[2]


@given(st.text(max_size=40))
def test_law_any_meaning_imports(text: str) -> None:
    """Any meaning beside a number imports as one number field, its range inside the text's."""
    imported = import_mvu("r.json", orjson.dumps({"r": {"a": [5, text]}}).decode())
    (field,) = imported.trackers[0].fields
    assert field.type == "number"
    assert (field.min is None) == (field.max is None)
