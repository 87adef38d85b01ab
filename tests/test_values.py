"""What a field accepts and starts at, and how numbers are held to range and top (TR-8, TR-13, TR-18)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from strategies import trackers

from trackerkit import Tracker, accepts, decode_tracker, initial_value
from trackerkit.fields import BooleanField, ChoiceField, NumberField, TextField
from trackerkit.values import (
    clamp_to_range,
    hold_to_top,
    read_values,
    refusal,
    same_value,
    top_order,
)


def number(**keys: Any) -> NumberField:
    return NumberField.model_validate({"name": "n", "description": "", "type": "number", **keys})


def choice(*choices: str, **keys: Any) -> ChoiceField:
    return ChoiceField.model_validate(
        {"name": "c", "description": "", "type": "choice", "choices": list(choices), **keys}
    )


TEXT = TextField.model_validate({"name": "t", "description": "", "type": "text"})
FLAG = BooleanField.model_validate({"name": "b", "description": "", "type": "boolean"})


class TestInitialValue:
    """TR-8: the default, else the type's own."""

    @pytest.mark.parametrize(
        ("field", "expected"),
        [
            (number(), 0),
            (number(min=5), 5),
            (number(max=-3), -3),
            (number(min=-10, max=10), 0),
            (number(min=0.5, max=2), 0.5),
            (number(default=7, max=9), 7),
            (FLAG, False),
            (choice("calm", "tense"), "calm"),
            (choice("calm", "tense", default="tense"), "tense"),
            (TEXT, ""),
        ],
        ids=[
            "number-0",
            "min-5-starts-at-5",
            "max--3-starts-at--3",
            "0-inside",
            "float-min",
            "default",
            "boolean-false",
            "first-choice",
            "choice-default",
            "text-empty",
        ],
    )
    def test_table(self, field: Any, expected: object) -> None:
        """TR-8: each type's start, with 0 held inside a number's range."""
        value = initial_value(field)
        assert same_value(value, expected)

    def test_bool_default(self) -> None:
        """TR-8: a boolean default of true is kept."""
        flag = BooleanField.model_validate(
            {"name": "b", "description": "", "type": "boolean", "default": True}
        )
        assert initial_value(flag) is True

    @given(trackers())
    def test_every_initial_value_is_accepted(self, tracker: Tracker) -> None:
        """TR-8: what a field starts at is always a value it accepts."""
        for field in tracker.fields:
            assert accepts(field, initial_value(field)), field


class TestAccepts:
    """TR-8: type, choices and range; True is not a number; NaN and infinities are not numbers."""

    @pytest.mark.parametrize(
        ("field", "value", "ok"),
        [
            (number(), 1, True),
            (number(), 1.5, True),
            (number(), True, False),
            (number(), False, False),
            (number(), math.nan, False),
            (number(), math.inf, False),
            (number(), -math.inf, False),
            (number(), 2**53, False),
            (number(), "1", False),
            (number(min=0, max=10), 10, True),
            (number(min=0, max=10), 10.01, False),
            (number(min=0, max=10), -1, False),
            (FLAG, True, True),
            (FLAG, 1, False),
            (choice("a", "b"), "b", True),
            (choice("a", "b"), "B", False),
            (choice("a", "b"), None, False),
            (TEXT, "", True),
            (TEXT, 0, False),
        ],
        ids=[
            "int",
            "float",
            "true-not-number",
            "false-not-number",
            "nan",
            "inf",
            "-inf",
            "2^53",
            "text-not-number",
            "at-max",
            "past-max",
            "below-min",
            "bool",
            "1-not-bool",
            "a-choice",
            "case-matters",
            "null-not-choice",
            "empty-text",
            "number-not-text",
        ],
    )
    def test_table(self, field: Any, value: object, ok: bool) -> None:
        """TR-8: `accepts` and `refusal` agree, and a refusal is a sentence."""
        assert accepts(field, value) is ok
        reason = refusal(field, value)
        assert (reason is None) is ok
        if reason is not None:
            assert reason.startswith("must be")


class TestClamps:
    """TR-13 and TR-18: clamp into range, hold to a top, never below min."""

    @pytest.mark.parametrize(
        ("keys", "value", "expected"),
        [
            ({"min": 0, "max": 10}, 11, 10),
            ({"min": 0, "max": 10}, -1, 0),
            ({"min": 0}, 5, 5),
            ({}, -9, -9),
        ],
        ids=["above", "below", "inside", "no-range"],
    )
    def test_clamp_to_range(self, keys: dict[str, Any], value: int, expected: int) -> None:
        """TR-13: a number outside its range is brought inside it."""
        assert clamp_to_range(number(**keys), value) == expected

    @pytest.mark.parametrize(
        ("keys", "value", "top", "expected"),
        [({}, 25, 10, 10), ({}, 5, 10, 5), ({"min": 3}, 25, 1, 3), ({}, 25, None, 25)],
        ids=["above-top", "under-top", "top-below-min-leaves-min", "no-top"],
    )
    def test_hold_to_top(
        self, keys: dict[str, Any], value: int, top: int | None, expected: int
    ) -> None:
        """TR-18: a value is held to its top, and a top below min leaves the min."""
        assert hold_to_top(number(**keys), value, top) == expected


class TestRead:
    """TR-18 read safety net and TR-14 top order, through `read_values`."""

    def test_stored_over_top_reads_clamped(self, health: dict[str, Any]) -> None:
        """TR-18: hp stored at 25 over an hp_max of 10 reads 10."""
        tracker = decode_tracker(health)
        assert read_values(tracker.fields, {"hp": 25, "hp_max": 10}) == {
            "hp": 10,
            "hp_max": 10,
            "mood": "calm",
        }

    def test_misfits_read_as_initial(self, health: dict[str, Any]) -> None:
        """A stored value that does not fit reads as the field's initial value."""
        tracker = decode_tracker(health)
        values = read_values(tracker.fields, {"hp": True, "hp_max": "x", "mood": "angry"})
        assert values == {"hp": 0, "hp_max": 30, "mood": "calm"}

    def test_top_order_puts_tops_first(self, health: dict[str, Any]) -> None:
        """TR-14: hp_max (the top) is ordered before hp (its dependent)."""
        order = top_order(decode_tracker(health).fields)
        assert order.index(1) < order.index(0)
        assert sorted(order) == [0, 1, 2]

    @given(trackers())
    def test_read_of_nothing_is_accepted(self, tracker: Tracker) -> None:
        """TR-18: an empty record reads as values every field accepts, none above its top."""
        values = read_values(tracker.fields, {})
        for field in tracker.fields:
            assert accepts(field, values[field.name])
            if isinstance(field, NumberField) and field.max_field is not None:
                top = values[field.max_field]
                low = field.min if field.min is not None else -math.inf
                assert values[field.name] <= max(top, low)  # type: ignore[operator]


class TestSameValue:
    """Equality that keeps kinds apart."""

    @pytest.mark.parametrize(
        ("a", "b", "same"),
        [
            (1, 1.0, True),
            (True, 1, False),
            (False, 0, False),
            (True, True, True),
            ("a", "a", True),
            (None, None, True),
            (None, 0, False),
            ({"qty": 2, "ok": True}, {"ok": True, "qty": 2.0}, True),
            ({"ok": True}, {"ok": 1}, False),
            ({"a": {"b": False}}, {"a": {"b": 0}}, False),
            ({"qty": 2}, {"qty": 2, "ok": False}, False),
            ([1, True], (1.0, True), True),
            ([True], [1], False),
            ([1], [1, 1], False),
            ({"a": 1}, [("a", 1)], False),
        ],
        ids=[
            "int-float",
            "true-1",
            "false-0",
            "bools",
            "texts",
            "nulls",
            "null-0",
            "rows",
            "row-flag-1",
            "nested-flag-0",
            "row-more-keys",
            "list-tuple",
            "list-flag-1",
            "list-lengths",
            "mapping-list",
        ],
    )
    def test_table(self, a: object, b: object, same: bool) -> None:
        """True is not 1 at any depth, but 1 is 1.0; rows by keys, lists by order."""
        assert same_value(a, b) is same
        assert same_value(b, a) is same
