"""Reading a tool call's argument text as the model wrote it: JSON or one reason, never an exception (TR-37)."""

from __future__ import annotations

import math

import pytest

from trackerkit._arguments import read_arguments, unicode_problem, valid_text


class TestReadArguments:
    """Any text comes back as JSON or as a reason the model is answered with."""

    def test_json_object(self) -> None:
        """An object reads as itself."""
        assert read_arguments('{"updates": []}') == ({"updates": []}, None)

    @pytest.mark.parametrize("text", ["", "  \n"], ids=["empty", "blank"])
    def test_empty_reads_as_no_arguments(self, text: str) -> None:
        """Empty text is a call without arguments."""
        assert read_arguments(text) == ({}, None)

    @pytest.mark.parametrize(
        "text",
        ["[" * 100_000 + "]" * 100_000, '{"updates":' + "[" * 100_000, '{"a":' * 50_000],
        ids=["deep-list", "deep-unclosed", "deep-object"],
    )
    def test_deep_nesting_is_a_reason(self, text: str) -> None:
        """Nesting 100,000 deep is refused with a reason, not a RecursionError."""
        assert read_arguments(text) == (
            None,
            "the arguments nest too deep to read; an update call needs four levels",
        )

    @pytest.mark.parametrize(("sign", "expected"), [("", math.inf), ("-", -math.inf)])
    def test_integer_past_the_digit_limit_reads_as_infinity(
        self, sign: str, expected: float
    ) -> None:
        """An integer of 5,000 digits reads as an infinity of its sign, for the clamps to judge (TR-13)."""
        assert read_arguments(f'{{"n": {sign}{"9" * 5000}}}') == ({"n": expected}, None)

    def test_long_integer_within_the_limit_is_exact(self) -> None:
        """An integer the interpreter can convert stays exact."""
        assert read_arguments("1" * 4000) == (int("1" * 4000), None)

    @pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
    def test_non_json_constants_are_refused(self, literal: str) -> None:
        """NaN and Infinity are not JSON: refused with a reason naming them."""
        value, reason = read_arguments(f'{{"n": {literal}}}')
        assert value is None
        assert reason is not None
        assert literal.lstrip("-") in reason

    def test_invalid_json_names_where(self) -> None:
        """Invalid JSON is refused with the decoder's reason and position."""
        assert read_arguments("{") == (
            None,
            "the arguments are not valid JSON (Expecting property name enclosed in double quotes at character 1)",
        )

    @pytest.mark.parametrize("text", ['"\\ud800"', '"\ud800"'], ids=["escaped", "raw"])
    def test_lone_surrogate_is_kept_for_the_rules(self, text: str) -> None:
        """A lone surrogate reads as text; the update rules refuse it where it would be written."""
        assert read_arguments(text) == ("\ud800", None)


class TestUnicode:
    """Text that cannot be stored or shown is named; any text can be shown escaped."""

    @pytest.mark.parametrize("text", ["plain", "Ä😀", ""], ids=["ascii", "astral", "empty"])
    def test_valid_text_has_no_problem(self, text: str) -> None:
        """Valid Unicode passes as it is."""
        assert unicode_problem(text) is None
        assert valid_text(text) == text

    def test_lone_surrogate_is_named_with_its_place(self) -> None:
        """The first lone surrogate is named escaped, with its character offset."""
        assert unicode_problem("ab\udc00") == (
            "is not valid Unicode: a lone surrogate \\udc00 at character 2"
        )

    def test_valid_text_escapes_lone_surrogates(self) -> None:
        """Shown text is always encodable as UTF-8."""
        assert valid_text("a\ud800b") == "a\\ud800b"
        valid_text("a\ud800b").encode("utf-8")
