"""`read_trace(data="raw")` keeps an integer of more than 4,300 digits as written, as documented.

A found gap: the raw text is right, but Python's `json.loads` refuses such an integer (its int
conversion limit) while the dict mode reads it as ±inf; the `read_trace` docstring did not say
so. It now does, with the remedy (`sys.set_int_max_str_digits(0)`), and these tests hold the
behaviour to the words.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from trackerkit.trace import read_trace

BIG = "7" + "0" * 5000  # 5,001 digits: past Python's default limit of 4,300


@pytest.fixture
def day(tmp_path: Path) -> Path:
    """A day file of one event whose `data.n` is `BIG`."""
    (tmp_path / "trace").mkdir()
    line = (
        '{"ts":"2026-03-01T12:00:00.000Z","turn":"turn_0","session":"wrun_A","source":"unknown",'
        f'"kind":"eve","name":"step.completed","data":{{"n":{BIG}}}}}\n'
    )
    path = tmp_path / "trace" / "2026-03-01.jsonl"
    path.write_text(line, encoding="utf-8")
    return path


@pytest.fixture
def no_digit_limit() -> Iterator[None]:
    """Python's int conversion without a digit limit, restored afterwards."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def _raw_text(day: Path) -> str:
    events, errors = read_trace(day, data="raw")
    assert errors == []
    text: str = events["data"].iloc[0]
    return text


def test_the_docstring_names_the_limit_and_the_remedy() -> None:
    """The data="raw" paragraph says json.loads refuses it, what "dict" gives, and the remedy."""
    doc = " ".join((read_trace.__doc__ or "").split())
    assert "refuses an integer of more than 4,300 digits" in doc
    assert '`"dict"` reads as ±inf' in doc
    assert "`sys.set_int_max_str_digits(0)`" in doc


def test_raw_keeps_the_digits_and_json_loads_refuses_them(day: Path) -> None:
    """The raw text holds the number as written; Python's json.loads refuses it by default."""
    text = _raw_text(day)
    assert text == f'{{"n":{BIG}}}'
    with pytest.raises(ValueError, match="4300 digits"):
        json.loads(text)


def test_dict_reads_it_as_infinity(day: Path) -> None:
    """The dict mode reads the same number as +inf (README: longer ones read as ±inf)."""
    events, _ = read_trace(day)
    value = events["data"].iloc[0]["n"]
    assert isinstance(value, float)
    assert math.isinf(value)
    assert value > 0


@pytest.mark.usefixtures("no_digit_limit")
def test_the_remedy_reads_it_exactly(day: Path) -> None:
    """With `sys.set_int_max_str_digits(0)`, json.loads of the raw text gives the exact integer."""
    assert json.loads(_raw_text(day)) == {"n": int(BIG)}
