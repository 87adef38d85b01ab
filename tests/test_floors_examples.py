"""`make floors` caps each property test at a few examples (tests/floor_examples.py); `make test`
draws what each test asks."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import floor_examples
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def _property(drawn: list[int]) -> Any:
    @settings(max_examples=200, database=None)
    @given(st.integers())
    def check(value: int) -> None:
        drawn.append(value)

    return check


def _method(drawn: list[int]) -> Any:
    """The same as a test method, as pytest holds one in a class: a bound method."""

    class Case:
        @settings(max_examples=200, database=None)
        @given(st.integers())
        def check(self, value: int) -> None:
            drawn.append(value)

    return Case().check


@pytest.mark.parametrize("as_method", [False, True])
def test_the_floors_draw_at_most_the_cap(as_method: bool) -> None:
    drawn: list[int] = []
    test = _method(drawn) if as_method else _property(drawn)
    floor_examples.cap([SimpleNamespace(obj=test)])
    test()
    assert 0 < len(drawn) <= floor_examples.CAP


def test_uncapped_the_test_draws_what_it_asks() -> None:
    drawn: list[int] = []
    _property(drawn)()
    assert len(drawn) > floor_examples.CAP
