"""Field rules (TR-1..TR-7): names, types, choices, ranges, tops, icons, defaults.

Each rule is proved through the strict decoder on the `health` document with one field edited,
so the test also pins the exact path the decoder reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit import TrackerDecodeError, decode_tracker
from trackerkit.fields import MAX_SAFE_INTEGER, describe_value, is_number

Doc = dict[str, Any]


def _field(i: int, **keys: object) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        doc["body"]["fields"][i].update(keys)

    return change


def _drop(i: int, key: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        del doc["body"]["fields"][i][key]

    return change


def _refusals(doc: Doc) -> list[tuple[str, str]]:
    with pytest.raises(TrackerDecodeError) as caught:
        decode_tracker(doc)
    return [(p.path, p.message) for p in caught.value.problems]


def _assert_refused(doc: Doc, path: str, fragment: str) -> None:
    problems = _refusals(doc)
    assert any(p == path and fragment in m for p, m in problems), problems


class TestNames:
    """TR-1: a lowercase letter, then lowercase letters, digits or _, 64 characters at most."""

    @pytest.mark.parametrize(
        "name",
        ["a", "calm", "how_calm", "x9", "a_", "a" * 64, "z" + "_" * 63],
        ids=["one-letter", "plain", "underscore", "digit", "trailing-underscore", "64", "z___"],
    )
    def test_accepted(self, edit_health: Any, name: str) -> None:
        """TR-1: names of the function-name shape decode."""
        tracker = decode_tracker(edit_health(_field(2, name=name)))
        assert tracker.fields[2].name == name

    @pytest.mark.parametrize(
        "name",
        ["", "HP", "Hp", "9lives", "_hp", "hp-max", "hp max", "a" * 65, "ÿ", "hp\n", "é"],
        ids=[
            "empty",
            "upper",
            "mixed-case",
            "digit-first",
            "underscore-first",
            "hyphen",
            "space",
            "65-chars",
            "latin-1",
            "newline",
            "accent",
        ],
    )
    def test_refused(self, edit_health: Any, name: str) -> None:
        """TR-1: any other name is refused at `body.fields[i].name`."""
        _assert_refused(
            edit_health(_field(2, name=name)), "body.fields[2].name", "must be a lowercase letter"
        )

    def test_not_text(self, edit_health: Any) -> None:
        """TR-1: a name that is not text says what was found."""
        _assert_refused(edit_health(_field(2, name=7)), "body.fields[2].name", "found 7")


class TestTypes:
    """TR-2: text, number, boolean, choice and nothing else."""

    @pytest.mark.parametrize(
        ("value", "fragment"),
        [
            ("texty", 'found the text "texty"'),
            ("Number", 'found the text "Number"'),
            ("number ", 'found the text "number "'),
            (3, "found 3"),
            (None, "found null"),
        ],
        ids=["unknown", "capitalised", "trailing-space", "a-number", "null"],
    )
    def test_unknown_type(self, edit_health: Any, value: object, fragment: str) -> None:
        """TR-2: an unknown type names the four types and what was found."""
        doc = edit_health(_field(2, type=value))
        _assert_refused(doc, "body.fields[2].type", fragment)
        _assert_refused(doc, "body.fields[2].type", "must be one of text, number, boolean, choice")

    def test_missing_type(self, edit_health: Any) -> None:
        """TR-2: a field with no type is refused at its `type`."""
        _assert_refused(edit_health(_drop(2, "type")), "body.fields[2].type", "is required")

    @pytest.mark.parametrize("kind", ["text", "number", "boolean", "choice"])
    def test_each_type_decodes(self, kind: str) -> None:
        """TR-2: each of the four types decodes."""
        field: Doc = {"name": "f", "description": "", "type": kind}
        if kind == "choice":
            field["choices"] = ["a"]
        doc = {
            "id": "t",
            "name": "T",
            "description": "",
            "body": {"layout": "record", "fields": [field], "note": ""},
        }
        assert decode_tracker(doc).fields[0].type == kind


class TestChoices:
    """TR-3: a choice field has at least one choice, no repeats; no other type has choices."""

    @pytest.mark.parametrize(
        ("change", "path", "fragment"),
        [
            (_field(2, choices=[]), "body.fields[2].choices", "needs at least one choice"),
            (
                _field(2, choices=["a", "b", "a"]),
                "body.fields[2].choices[2]",
                'repeats the choice "a"',
            ),
            (_field(2, choices=["a", 3]), "body.fields[2].choices[1]", "must be text; found 3"),
            (_field(2, choices="calm"), "body.fields[2].choices", "must be a list"),
            (_drop(2, "choices"), "body.fields[2].choices", "is required"),
            (
                _field(0, choices=["a"]),
                "body.fields[0].choices",
                "belongs to choice fields, not to a number field",
            ),
            (
                _field(2, type="text"),
                "body.fields[2].choices",
                "belongs to choice fields, not to a text field",
            ),
        ],
        ids=["empty", "repeated", "not-text", "not-a-list", "missing", "on-number", "on-text"],
    )
    def test_refused(
        self, edit_health: Any, change: Callable[[Doc], None], path: str, fragment: str
    ) -> None:
        """TR-3: each broken choices rule is refused at its path."""
        _assert_refused(edit_health(change), path, fragment)

    def test_case_differs_is_not_a_repeat(self, edit_health: Any) -> None:
        """TR-3: choices are compared exactly; "Calm" and "calm" are two choices."""
        tracker = decode_tracker(edit_health(_field(2, choices=["calm", "Calm"])))
        assert tracker.fields[2].choices == ["calm", "Calm"]  # type: ignore[union-attr]


class TestRange:
    """TR-4: a number may have min and/or max with min <= max; no other type has them."""

    @pytest.mark.parametrize(
        ("keys", "fragment"),
        [
            ({"min": 5, "max": 1}, "must be at most max (1); found 5"),
            ({"min": 0.5, "max": 0.25}, "found 0.5"),
        ],
        ids=["ints", "floats"],
    )
    def test_min_above_max(self, edit_health: Any, keys: Doc, fragment: str) -> None:
        """TR-4: min above max is refused at `min`."""
        _assert_refused(edit_health(_field(1, **keys)), "body.fields[1].min", fragment)

    @pytest.mark.parametrize(
        ("keys", "low", "high"),
        [
            ({"min": 3, "max": 3}, 3, 3),
            ({"min": -2.5}, -2.5, None),
            ({"max": 9}, None, 9),
            ({}, None, None),
        ],
        ids=["equal", "only-min", "only-max", "neither"],
    )
    def test_accepted(self, health: Doc, keys: Doc, low: object, high: object) -> None:
        """TR-4: either end may be left out, and they may meet."""
        health["body"]["fields"][1] = {
            "name": "hp_max",
            "description": "",
            "type": "number",
            **keys,
        }
        field = decode_tracker(health).fields[1]
        assert (field.min, field.max) == (low, high)  # type: ignore[union-attr]

    @pytest.mark.parametrize("key", ["min", "max"])
    @pytest.mark.parametrize(("index", "kind"), [(2, "choice")], ids=["choice"])
    def test_only_numbers(self, edit_health: Any, key: str, index: int, kind: str) -> None:
        """TR-4: min and max on a non-number field are refused, naming the field's type."""
        _assert_refused(
            edit_health(_field(index, **{key: 1})),
            f"body.fields[{index}].{key}",
            f"belongs to number fields, not to a {kind} field",
        )

    def test_on_boolean(self, health: Doc) -> None:
        """TR-4: a boolean field with max is refused."""
        health["body"]["fields"].append(
            {"name": "ok", "description": "", "type": "boolean", "max": 1}
        )
        _assert_refused(health, "body.fields[3].max", "not to a boolean field")


class TestTops:
    """TR-5: maxField names another number field of the tracker, not with max, never a loop."""

    @pytest.mark.parametrize(
        ("change", "path", "fragment"),
        [
            (
                _field(0, maxField="hp_maxx"),
                "body.fields[0].maxField",
                'names "hp_maxx", which is not a field of this tracker',
            ),
            (
                _field(0, maxField="mood"),
                "body.fields[0].maxField",
                'names "mood", which is a choice field, not a number',
            ),
            (_field(0, maxField="hp"), "body.fields[0].maxField", "cannot name the field itself"),
            (_field(0, max=10), "body.fields[0].maxField", "cannot come with max"),
            (
                _field(1, maxField="hp"),
                "body.fields[0].maxField",
                "makes a loop of tops: hp -> hp_max -> hp",
            ),
            (
                _field(2, maxField="hp"),
                "body.fields[2].maxField",
                "belongs to number fields, not to a choice field",
            ),
            (_field(0, maxField="HP"), "body.fields[0].maxField", "must be a lowercase letter"),
        ],
        ids=[
            "no-such-field",
            "not-a-number",
            "itself",
            "with-max",
            "loop",
            "on-choice",
            "bad-name",
        ],
    )
    def test_refused(
        self, edit_health: Any, change: Callable[[Doc], None], path: str, fragment: str
    ) -> None:
        """TR-5: each broken top is refused at the field's `maxField`."""
        _assert_refused(edit_health(change), path, fragment)

    def test_three_field_loop(self) -> None:
        """TR-5: a -> b -> c -> a is refused once, at the loop's first field in the document."""
        fields = [
            {"name": n, "description": "", "type": "number", "maxField": top}
            for n, top in (("a", "b"), ("b", "c"), ("c", "a"))
        ]
        doc = {
            "id": "t",
            "name": "T",
            "description": "",
            "body": {"layout": "record", "fields": fields, "note": ""},
        }
        assert _refusals(doc) == [
            ("body.fields[0].maxField", "makes a loop of tops: a -> b -> c -> a")
        ]

    def test_loop_entered_from_outside(self) -> None:
        """TR-5: a field whose top leads into a loop is not in it; the loop is named from its
        first field in the document, whichever field the walk entered it from."""
        fields = [
            {"name": n, "description": "", "type": "number", "maxField": top}
            for n, top in (("x", "c"), ("b", "c"), ("a", "b"), ("c", "a"), ("y", "x"))
        ]
        doc = {
            "id": "t",
            "name": "T",
            "description": "",
            "body": {"layout": "record", "fields": fields, "note": ""},
        }
        assert _refusals(doc) == [
            ("body.fields[1].maxField", "makes a loop of tops: b -> c -> a -> b")
        ]

    def test_two_loops_each_once(self) -> None:
        """TR-5: two separate loops are two problems, one each."""
        fields = [
            {"name": n, "description": "", "type": "number", "maxField": top}
            for n, top in (("a", "b"), ("c", "d"), ("b", "a"), ("d", "c"))
        ]
        doc = {
            "id": "t",
            "name": "T",
            "description": "",
            "body": {"layout": "record", "fields": fields, "note": ""},
        }
        assert _refusals(doc) == [
            ("body.fields[0].maxField", "makes a loop of tops: a -> b -> a"),
            ("body.fields[1].maxField", "makes a loop of tops: c -> d -> c"),
        ]

    def test_itself_on_a_repeated_name(self) -> None:
        """TR-5: a field naming itself is refused even when an earlier field has its name."""
        fields = [
            {"name": "a", "description": "", "type": "number"},
            {"name": "a", "description": "", "type": "number", "maxField": "a"},
        ]
        doc = {
            "id": "t",
            "name": "T",
            "description": "",
            "body": {"layout": "record", "fields": fields, "note": ""},
        }
        assert ("body.fields[1].maxField", "cannot name the field itself") in _refusals(doc)

    def test_chain_without_loop(self) -> None:
        """TR-5: a chain of tops that ends (a -> b -> c) decodes, in any order in the list."""
        fields = [
            {"name": "a", "description": "", "type": "number", "maxField": "b"},
            {"name": "c", "description": "", "type": "number", "default": 10},
            {"name": "b", "description": "", "type": "number", "maxField": "c"},
        ]
        doc = {
            "id": "t",
            "name": "T",
            "description": "",
            "body": {"layout": "record", "fields": fields, "note": ""},
        }
        assert decode_tracker(doc).fields[0].max_field == "b"  # type: ignore[union-attr]


class TestIcons:
    """TR-6: `lucide:<name>` or `mdi:<name>`, shape only, on fields and on the tracker."""

    @pytest.mark.parametrize(
        "icon",
        [
            "lucide:heart",
            "mdi:sword",
            "lucide:cloud-sun",
            "mdi:book-open-page-variant",
            "lucide:x2",
            "mdi:no-such-glyph-at-all",
        ],
        ids=["lucide", "mdi", "hyphen", "hyphens", "digit", "unknown-glyph-is-fine"],
    )
    def test_accepted(self, edit_health: Any, icon: str) -> None:
        """TR-6: a well-formed id decodes, whether or not a glyph table knows it."""
        doc = edit_health(_field(2, icon=icon))
        doc["body"]["icon"] = icon
        tracker = decode_tracker(doc)
        assert (tracker.fields[2].icon, tracker.body.icon) == (icon, icon)

    @pytest.mark.parametrize(
        "icon",
        [
            "heart",
            "lucide:",
            "lucide:Heart",
            "fa:heart",
            "lucide:heart--x",
            "lucide:-heart",
            "lucide:heart-",
            "lucide:he art",
            "LUCIDE:heart",
            5,
        ],
        ids=[
            "no-set",
            "no-name",
            "upper",
            "other-set",
            "double-hyphen",
            "lead-hyphen",
            "trail-hyphen",
            "space",
            "upper-set",
            "number",
        ],
    )
    def test_refused(self, edit_health: Any, icon: object) -> None:
        """TR-6: anything else is refused, on a field and on the tracker, at its path."""
        doc = edit_health(_field(2, icon=icon))
        doc["body"]["icon"] = icon
        problems = _refusals(doc)
        assert {p for p, _ in problems} == {"body.fields[2].icon", "body.icon"}
        assert all("must be an icon id such as lucide:heart" in m for _, m in problems)

    def test_absent_means_none(self, health: Doc) -> None:
        """TR-6: absent or null means no icon."""
        tracker = decode_tracker(health)
        assert tracker.fields[1].icon is None
        assert tracker.body.icon is None
        assert tracker.field_icons() == {"hp": "lucide:heart"}


class TestDefaults:
    """TR-7: a default fits its field's type, choices and range."""

    @pytest.mark.parametrize(
        ("index", "default", "fragment"),
        [
            (1, 0, "must be at least 1; found 0"),
            (1, True, "must be a finite number; found true"),
            (1, "30", 'found the text "30"'),
            (1, math.nan, "must be a finite number; found nan"),
            (1, math.inf, "must be a finite number; found inf"),
            (1, 2**53, "is unusually large"),
            (2, "angry", 'must be one of calm|tense; found "angry"'),
            (2, 1, "must be text"),
            (0, None, ""),
        ],
        ids=[
            "below-min",
            "bool-not-number",
            "text-not-number",
            "nan",
            "inf",
            "past-2^53",
            "not-a-choice",
            "choice-not-text",
            "null-is-absent",
        ],
    )
    def test_table(self, edit_health: Any, index: int, default: object, fragment: str) -> None:
        """TR-7: a default that does not fit is refused at `default`; null means no default."""
        doc = edit_health(_field(index, default=default))
        if default is None:
            decode_tracker(doc)
            return
        _assert_refused(doc, f"body.fields[{index}].default", fragment)

    def test_above_max(self, edit_health: Any) -> None:
        """TR-7: a default above max is refused."""
        doc = edit_health(_field(1, max=20))
        _assert_refused(doc, "body.fields[1].default", "must be at most 20; found 30")

    @pytest.mark.parametrize(
        ("field", "fragment"),
        [
            ({"type": "boolean", "default": 0}, "must be true or false; found 0"),
            (
                {"type": "boolean", "default": "true"},
                'must be true or false; found the text "true"',
            ),
            ({"type": "text", "default": 0}, "must be text; found 0"),
            ({"type": "text", "default": False}, "must be text; found false"),
        ],
        ids=["bool-zero", "bool-text", "text-number", "text-false"],
    )
    def test_other_types(self, health: Doc, field: Doc, fragment: str) -> None:
        """TR-7: boolean and text defaults must be of their type."""
        health["body"]["fields"].append({"name": "extra", "description": "", **field})
        _assert_refused(health, "body.fields[3].default", fragment)

    def test_default_above_a_top_field_is_fine(self, edit_health: Any) -> None:
        """TR-7: a top from another field is no range; the read holds the value to it (TR-18)."""
        assert decode_tracker(edit_health(_field(0, default=999))).fields[0].default == 999


class TestNumbers:
    """TR-8's number traps, as `is_number` sees them."""

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (0, True),
            (-1.5, True),
            (MAX_SAFE_INTEGER, True),
            (-MAX_SAFE_INTEGER, True),
            (MAX_SAFE_INTEGER + 1, False),
            (float(2**53), False),
            (True, False),
            (False, False),
            (math.nan, False),
            (math.inf, False),
            (-math.inf, False),
            ("1", False),
            (None, False),
        ],
        ids=[
            "zero",
            "float",
            "max-safe",
            "min-safe",
            "past-safe",
            "float-2^53",
            "true",
            "false",
            "nan",
            "inf",
            "-inf",
            "text",
            "null",
        ],
    )
    def test_is_number(self, value: object, expected: bool) -> None:
        """TR-8: True is not a number, NaN and the infinities are not, nor past 2^53-1."""
        assert is_number(value) is expected

    @pytest.mark.parametrize(
        ("value", "shown"),
        [
            (None, "null"),
            (True, "true"),
            (3, "3"),
            ("x" * 50, '"' + "x" * 37 + '..."'),
            ([], "a list"),
            ({}, "an object"),
            (10**4_400, "a whole number of 4,401 digits"),
            (-(2**100), "a negative whole number of 31 digits"),
            ("hp\ud800", 'the text "hp\\ud800"'),
            ("two\nlines\x00", 'the text "two\\nlines\\x00"'),
        ],
        ids=[
            "null",
            "bool",
            "int",
            "long-text",
            "list",
            "object",
            "huge",
            "negative",
            "surrogate",
            "control",
        ],
    )
    def test_describe_value(self, value: object, shown: str) -> None:
        """Messages show what was found in short plain words, bounded and printable as UTF-8."""
        described = describe_value(value)
        assert shown in described
        assert len(described.encode("utf-8")) < 200

    @settings(max_examples=200, deadline=None)
    @given(st.integers(min_value=2**99, max_value=10**4_000), st.booleans())
    def test_describe_counts_digits(self, value: int, negative: bool) -> None:
        """A whole number past 2^99 is described by its exact count of digits."""
        shown = describe_value(-value if negative else value)
        assert shown.endswith(f"whole number of {len(str(value)):,} digits")
