"""The tracker piece and its strict decoder (TR-9..TR-12, TR-19): shape, blank, ceilings, traps."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import json_values, tracker_docs, trackers

from trackerkit import (
    Problem,
    Tracker,
    TrackerDecodeError,
    blank_tracker,
    decode_tracker,
    encode_tracker,
)
from trackerkit.errors import render_location
from trackerkit.tracker import MAX_ITEMS, MAX_TEXT

Doc = dict[str, Any]


def _problems(doc: object) -> list[tuple[str, str]]:
    with pytest.raises(TrackerDecodeError) as caught:
        decode_tracker(doc)
    return [(p.path, p.message) for p in caught.value.problems]


def _set(path: str, value: object) -> Callable[[Doc], None]:
    """An edit that sets a dotted key (`body.note`) of the document."""

    def change(doc: Doc) -> None:
        *parents, last = path.split(".")
        at = doc
        for part in parents:
            at = at[part]
        at[last] = value

    return change


def _drop(path: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        *parents, last = path.split(".")
        at = doc
        for part in parents:
            at = at[part]
        del at[last]

    return change


class TestShape:
    """TR-9: name, description, layout, fields, note, template, icon, changes style."""

    def test_issue_example_decodes(self, health: Doc) -> None:
        """TR-9: the piece of issue 2 decodes with every key where it belongs."""
        tracker = decode_tracker(health)
        assert (tracker.kind, tracker.id, tracker.revision, tracker.name) == (
            "tracker",
            "health",
            0,
            "Health",
        )
        assert tracker.layout == "record"
        assert [f.name for f in tracker.fields] == ["hp", "hp_max", "mood"]
        assert tracker.body.note == "Lower hp when Vera is hurt."
        assert tracker.body.template is None
        assert tracker.field("hp_max") is tracker.fields[1]
        assert tracker.field("nope") is None

    @pytest.mark.parametrize(
        ("changes", "style"),
        [
            (None, "chips"),
            ("chips", "chips"),
            ("card", "card"),
            ("toast", "toast"),
            ("hidden", "hidden"),
        ],
        ids=["absent-is-chips", "chips", "card", "toast", "hidden"],
    )
    def test_changes_style(self, health: Doc, changes: str | None, style: str) -> None:
        """TR-9: the changes style is chips when absent, else one of the four."""
        if changes is None:
            del health["body"]["changes"]
        else:
            health["body"]["changes"] = changes
        assert decode_tracker(health).style == style

    def test_optional_keys(self, health: Doc) -> None:
        """TR-9: kind, revision, template, icon and changes may be left out."""
        for key in ("kind", "revision"):
            del health[key]
        for key in ("template", "icon", "changes"):
            del health["body"][key]
        tracker = decode_tracker(health)
        assert (tracker.kind, tracker.revision, tracker.style) == ("tracker", 0, "chips")

    def test_template_and_icon(self, health: Doc) -> None:
        """TR-9: a template and an icon are kept as written."""
        health["body"]["template"] = "{{tracker::Health::hp}}/{{tracker::Health::hp_max}}"
        health["body"]["icon"] = "lucide:heart-pulse"
        tracker = decode_tracker(health)
        assert tracker.body.template == "{{tracker::Health::hp}}/{{tracker::Health::hp_max}}"
        assert tracker.body.icon == "lucide:heart-pulse"

    def test_is_frozen(self, health: Doc) -> None:
        """A decoded tracker cannot be changed in place."""
        tracker = decode_tracker(health)
        with pytest.raises(ValueError, match="frozen"):
            tracker.name = "Other"  # type: ignore[misc]

    def test_absent_and_null_are_the_same_piece(self, health: Doc) -> None:
        """An absent optional key and an explicit null decode to equal trackers."""
        without = copy.deepcopy(health)
        del without["body"]["template"]
        assert decode_tracker(without) == decode_tracker(health)


class TestBlank:
    """TR-10: a record with one number field, value, starting at 0."""

    def test_blank(self) -> None:
        """TR-10: the blank tracker decodes and has exactly one number field `value`."""
        tracker = blank_tracker("t1")
        assert tracker.layout == "record"
        assert [(f.name, f.type) for f in tracker.fields] == [("value", "number")]
        assert (tracker.id, tracker.name, tracker.revision) == ("t1", "Tracker", 0)
        assert decode_tracker(encode_tracker(tracker)) == tracker

    def test_blank_starts_at_zero(self) -> None:
        """TR-10: `value` starts at 0."""
        from trackerkit import initial_value

        assert initial_value(blank_tracker("t").fields[0]) == 0

    def test_bad_id_refused(self) -> None:
        """TR-10: the blank tracker goes through the decoder, so a bad id is refused."""
        with pytest.raises(TrackerDecodeError, match="id"):
            blank_tracker("no spaces")


class TestStrictDecoder:
    """TR-12: every problem at once, each with a path; unknown keys refused."""

    @pytest.mark.parametrize(
        ("change", "path", "fragment"),
        [
            (_set("extra", 1), "extra", "is not a known key"),
            (_set("body.colour", "red"), "body.colour", "is not a known key"),
            (_set("body.fields", []), "body.fields", "needs at least one field"),
            (_set("body.fields", {}), "body.fields", "must be a list; found an object"),
            (_set("body.layout", "grid"), "body.layout", "must be one of 'record' or 'list'"),
            (
                _set("body.changes", "popup"),
                "body.changes",
                "must be one of 'chips', 'card', 'toast' or 'hidden'",
            ),
            (_set("body.note", None), "body.note", "must be text; found null"),
            (_set("body.template", 5), "body.template", "must be text; found 5"),
            (_set("body", None), "body", "must be an object; found null"),
            (_drop("body"), "body", "is required"),
            (_drop("name"), "name", "is required"),
            (_drop("description"), "description", "is required"),
            (_drop("body.note"), "body.note", "is required"),
            (_set("name", "  "), "name", "must not be blank"),
            (_set("name", 7), "name", "must be text; found 7"),
            (_set("kind", "tool"), "kind", "must be one of 'tracker'"),
            (_set("id", "-x"), "id", "must be an id of letters, digits"),
            (_set("id", "a" * 129), "id", "1 to 128 characters"),
            (_set("id", "a b"), "id", 'found the text "a b"'),
            (_set("revision", True), "revision", "must be a whole number"),
            (_set("revision", -1), "revision", "must be a whole number, 0 or more; found -1"),
            (_set("revision", 1.0), "revision", "found 1.0"),
        ],
        ids=[
            "unknown-key",
            "unknown-body-key",
            "no-fields",
            "fields-object",
            "bad-layout",
            "bad-changes",
            "note-null",
            "template-number",
            "body-null",
            "no-body",
            "no-name",
            "no-description",
            "no-note",
            "blank-name",
            "name-number",
            "wrong-kind",
            "id-hyphen-first",
            "id-too-long",
            "id-space",
            "revision-bool",
            "revision-negative",
            "revision-float",
        ],
    )
    def test_refusal_table(
        self, edit_health: Any, change: Callable[[Doc], None], path: str, fragment: str
    ) -> None:
        """TR-12: each refusal is reported at its exact path, in plain words."""
        problems = _problems(edit_health(change))
        assert any(p == path and fragment in m for p, m in problems), problems

    @pytest.mark.parametrize(
        "data",
        [[1], "x", None, 3, True],
        ids=["list", "text", "null", "number", "bool"],
    )
    def test_not_an_object(self, data: object) -> None:
        """TR-12: a document that is not an object is refused at the root."""
        assert _problems(data) == [("", f"must be a JSON object; found {_shown(data)}")]

    def test_every_problem_at_once(self, health: Doc) -> None:
        """TR-12: a document with several problems reports all of them, with their paths."""
        health["extra"] = 1
        health["name"] = ""
        health["body"]["fields"][0]["maxField"] = "hp_maxx"
        health["body"]["fields"][1]["default"] = 0
        health["body"]["fields"][2]["choices"] = ["calm", "calm"]
        paths = {p for p, _ in _problems(health)}
        assert {
            "extra",
            "body.fields[0].maxField",
            "body.fields[1].default",
            "body.fields[2].choices[1]",
        } <= paths

    def test_cross_field_rules_when_another_key_fails(self, health: Doc) -> None:
        """TR-12: a bad top is still reported when an unrelated key is refused too."""
        health["name"] = 7
        health["body"]["fields"][0]["maxField"] = "nope"
        paths = {p for p, _ in _problems(health)}
        assert paths == {"name", "body.fields[0].maxField"}

    def test_error_message_lists_problems(self, health: Doc) -> None:
        """TR-12: the error's text names the source, the count and each path."""
        health["body"]["layout"] = "grid"
        with pytest.raises(TrackerDecodeError) as caught:
            decode_tracker(health, source="health.json")
        assert str(caught.value).startswith(
            "health.json: tracker refused with 1 problem: body.layout: "
        )


def _outcome(data: object) -> list[Problem] | None:
    """None when `data` decodes, else the problems; any other exception escapes the test."""
    try:
        decode_tracker(data)
    except TrackerDecodeError as exc:
        return exc.problems
    return None


def _shown(value: object) -> str:
    from trackerkit.fields import describe_value

    return describe_value(value)


class TestStructuredProblems:
    """Issue 15, item 4: a problem carries its location as a tuple and a code; the path string and
    the sentence are rendered from them, so code never parses a message."""

    def test_location_code_and_other(self, bag: Doc) -> None:
        """A repeated name is located by keys and indexes, coded, and names the first field."""
        bag["body"]["fields"][1]["name"] = "qty"
        with pytest.raises(TrackerDecodeError) as caught:
            decode_tracker(bag)
        (problem,) = [p for p in caught.value.problems if p.code == "name_repeated"]
        assert problem.where == ("body", "fields", 1, "name")
        assert problem.other == ("body", "fields", 0)
        assert problem.path == "body.fields[1].name"
        assert str(problem) == 'body.fields[1].name: repeats the name "qty" of fields[0]'

    @pytest.mark.parametrize(
        ("where", "path"),
        [
            ((), ""),
            (("name",), "name"),
            (("body", "fields", 2, "maxField"), "body.fields[2].maxField"),
            (("body", "fields", 0, "choices", 3), "body.fields[0].choices[3]"),
            ((4, "x"), "[4].x"),
        ],
    )
    def test_path_rendered_from_the_location(self, where: tuple[str | int, ...], path: str) -> None:
        assert render_location(where) == path
        assert Problem(where, "m").path == path

    @pytest.mark.parametrize(
        ("edit", "code"),
        [
            (_set("body.fields", []), "no_fields"),
            (_set("name", " "), "blank"),
            (_drop("body.layout"), "required"),
            (_set("body.extra", 1), "unknown_key"),
            (_set("body.layout", "grid"), "not_one_of"),
            (_set("body.note", 3), "wrong_type"),
        ],
    )
    def test_codes(self, health: Doc, edit: Callable[[Doc], None], code: str) -> None:
        """Each kind of problem has its own code."""
        edit(health)
        with pytest.raises(TrackerDecodeError) as caught:
            decode_tracker(health)
        assert code in {p.code for p in caught.value.problems}

    def test_ceiling_codes(self) -> None:
        """A ceiling passed is coded with what it is (`too_large`, `too_deep`), located by tuple."""
        deep: Any = 1
        for _ in range(40):
            deep = [deep]
        with pytest.raises(TrackerDecodeError) as caught:
            decode_tracker({"name": "x" * (MAX_TEXT + 1), "body": {"deep": deep}})
        found = {(p.where[:2], p.code) for p in caught.value.problems}
        assert (("name",), "too_large") in found
        assert any(code == "too_deep" and where[:1] == ("body",) for where, code in found)


class TestLayouts:
    """TR-19: a record is one set of fields; a list reserves `name` for its rows."""

    def test_list_decodes(self, bag: Doc) -> None:
        """TR-19: a list tracker decodes."""
        assert decode_tracker(bag).layout == "list"

    def test_list_reserves_name(self, bag: Doc) -> None:
        """TR-19: no list field is called `name`."""
        bag["body"]["fields"].append({"name": "name", "description": "", "type": "text"})
        assert (
            "body.fields[2].name",
            'is reserved on a list: the row name is "name"',
        ) in _problems(bag)

    def test_record_may_have_name(self, health: Doc) -> None:
        """TR-19: on a record, `name` is an ordinary field name."""
        health["body"]["fields"].append({"name": "name", "description": "", "type": "text"})
        assert decode_tracker(health).fields[3].name == "name"

    def test_unique_names(self, bag: Doc) -> None:
        """TR-9: field names are unique within a tracker."""
        bag["body"]["fields"][1]["name"] = "qty"
        assert ("body.fields[1].name", 'repeats the name "qty" of fields[0]') in _problems(bag)


def _tracker_with(**body: Any) -> Doc:
    doc: Doc = {
        "id": "t",
        "name": "T",
        "description": "",
        "body": {
            "layout": "record",
            "fields": [{"name": "v", "description": "", "type": "number"}],
            "note": "",
        },
    }
    doc["body"].update(body)
    return doc


def _deep(levels: int) -> Doc:
    root: Doc = {}
    at = root
    for _ in range(levels):
        at["a"] = {}
        at = at["a"]
    return root


class TestCeilings:
    """TR-11: no product limits; only ceilings a hostile file could use, refused as unusually large."""

    def test_ten_thousand_fields_accepted(self) -> None:
        """TR-11: 10,000 fields is at the ceiling and decodes."""
        fields = [{"name": f"f{i}", "description": "", "type": "number"} for i in range(MAX_ITEMS)]
        assert len(decode_tracker(_tracker_with(fields=fields)).fields) == MAX_ITEMS

    def test_ten_thousand_and_one_fields_refused(self) -> None:
        """TR-11: 10,001 fields is refused as unusually large, at `body.fields`."""
        fields = [
            {"name": f"f{i}", "description": "", "type": "text"} for i in range(MAX_ITEMS + 1)
        ]
        assert _problems(_tracker_with(fields=fields)) == [
            (
                "body.fields",
                "is unusually large: a list of 10,001 items passes the ceiling of 10,000",
            )
        ]

    def test_text_at_ceiling_accepted(self) -> None:
        """TR-11: a 1,000,000-character note decodes (no product limit on a note)."""
        assert len(decode_tracker(_tracker_with(note="n" * MAX_TEXT)).body.note) == MAX_TEXT

    def test_text_past_ceiling_refused(self) -> None:
        """TR-11: a 1,000,001-character note is refused (its time is a row of `make bench`)."""
        problems = _problems(_tracker_with(note="n" * (MAX_TEXT + 1)))
        assert problems == [
            (
                "body.note",
                "is unusually large: a text of 1,000,001 characters passes the ceiling of 1,000,000",
            )
        ]

    def test_choices_past_ceiling_refused(self) -> None:
        """TR-11: 10,001 choices is refused at the field's `choices`."""
        field = {
            "name": "c",
            "description": "",
            "type": "choice",
            "choices": [f"c{i}" for i in range(MAX_ITEMS + 1)],
        }
        (problem,) = _problems(_tracker_with(fields=[field]))
        assert problem[0] == "body.fields[0].choices"
        assert "is unusually large: a list of 10,001 items" in problem[1]

    @pytest.mark.parametrize(
        ("value", "ok"),
        [
            (2**53 - 1, True),
            (-(2**53 - 1), True),
            (2**53, False),
            (-(2**53), False),
            (10**400, False),
            (2.0**53, False),
        ],
        ids=["max-safe", "min-safe", "2^53", "-2^53", "huge", "float-2^53"],
    )
    def test_whole_numbers(self, value: int | float, ok: bool) -> None:
        """TR-11: whole numbers past 2^53-1 in magnitude are refused as unusually large."""
        doc = _tracker_with(
            fields=[{"name": "v", "description": "", "type": "number", "default": value}]
        )
        if ok:
            assert decode_tracker(doc).fields[0].default == value
            return
        (problem,) = _problems(doc)
        assert problem[0] == "body.fields[0].default"
        assert "is unusually large" in problem[1]

    def test_big_number_anywhere(self, health: Doc) -> None:
        """TR-11: the ceiling applies in any key, even one that is not known."""
        health["revision"] = 2**60
        assert _problems(health)[0][0] == "revision"

    def test_deep_nesting_refused_quickly(self) -> None:
        """TR-11: a 5,000-level nested object is refused without a RecursionError (its time is a
        row of `make bench`)."""
        doc = _tracker_with()
        doc["body"]["extra"] = _deep(5000)
        problems = _problems(doc)
        assert len(problems) == 1
        assert problems[0][1].startswith("is unusually deep")
        assert problems[0][0].startswith("body.extra.a.a")

    def test_deep_nesting_at_root(self) -> None:
        """TR-11: nesting alone, no tracker keys at all, is refused as unusually deep."""
        (problem,) = _problems(_deep(5000))
        assert "is unusually deep" in problem[1]

    def test_problems_capped(self) -> None:
        """TR-11: a file full of oversized texts reports a bounded number of problems."""
        doc = _tracker_with()
        doc["body"]["extra"] = ["x" * (MAX_TEXT + 1)] * 1000
        assert 0 < len(_problems(doc)) <= 1000

    def test_inf_is_not_unusually_large(self) -> None:
        """TR-8: infinity is not a number, and is not reported as a large one."""
        doc = _tracker_with(
            fields=[{"name": "v", "description": "", "type": "number", "min": math.inf}]
        )
        assert _problems(doc) == [("body.fields[0].min", "must be a finite number; found inf")]

    def test_refused_ten_thousand_fields_for_one_key(self) -> None:
        """TR-11: a 10,000-field file refused for one other key names only that key (its time is
        a row of `make bench`)."""
        fields = [{"name": f"f{i}", "description": "", "type": "number"} for i in range(MAX_ITEMS)]
        doc = _tracker_with(fields=fields)
        doc["name"] = 7
        assert _problems(doc) == [("name", "must be text; found 7")]


def _chain(count: int, *, tops: bool = True, loop: bool = False) -> Doc:
    """`count` number fields f0 -> f1 -> ... (each the next one's dependent), closed if `loop`."""
    fields: list[Doc] = [
        {"name": f"f{i}", "description": "", "type": "number"} for i in range(count)
    ]
    if tops:
        for i, field in enumerate(fields[:-1]):
            field["maxField"] = f"f{i + 1}"
    if loop:
        fields[-1]["maxField"] = "f0"
    return _tracker_with(fields=fields)


class TestChainsOfTops:
    """TR-5, TR-11, TR-14: a chain of 10,000 tops is read in one pass; a loop is named once."""

    def test_chain_at_the_ceiling_decodes(self) -> None:
        """TR-14: f0 -> ... -> f9999 decodes, and the top order puts each top before its dependent."""
        tracker = decode_tracker(_chain(MAX_ITEMS))
        assert tracker.order == tuple(reversed(range(MAX_ITEMS)))

    def test_loop_at_the_ceiling_reported_once(self) -> None:
        """TR-5: a loop of 10,000 tops is one problem, its message bounded (first names, then a count)."""
        problems = _problems(_chain(MAX_ITEMS, loop=True))
        assert problems == [
            (
                "body.fields[0].maxField",
                "makes a loop of 10,000 tops: f0 -> f1 -> f2 -> f3 -> f4 -> f5 -> f6 -> f7 -> "
                "… and 9,992 more -> f0",
            )
        ]

    def test_loop_at_the_ceiling_in_bounded_memory(self) -> None:
        """TR-11: refusing the 10,000-field loop allocates a few MB, not a message per field."""
        import tracemalloc

        doc = _chain(MAX_ITEMS, loop=True)
        tracemalloc.start()
        try:
            with pytest.raises(TrackerDecodeError) as caught:
                decode_tracker(doc)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert len(str(caught.value)) < 1_000
        assert peak < 64 * 2**20

    def test_loop_behind_a_long_chain(self) -> None:
        """TR-5: a chain leading into a loop of two: the loop is named, the chain is not."""
        doc = _chain(MAX_ITEMS)
        doc["body"]["fields"][-1]["maxField"] = f"f{MAX_ITEMS - 2}"
        assert _problems(doc) == [
            (
                f"body.fields[{MAX_ITEMS - 2}].maxField",
                f"makes a loop of tops: f{MAX_ITEMS - 2} -> f{MAX_ITEMS - 1} -> f{MAX_ITEMS - 2}",
            )
        ]


def _piece(**changes: object) -> Doc:
    """The health piece with top-level keys set."""
    from conftest import HEALTH

    doc = copy.deepcopy(HEALTH)
    doc.update(changes)
    return doc


def _with_field(i: int, **keys: object) -> Doc:
    doc = _piece()
    doc["body"]["fields"][i].update(keys)
    return doc


def _as_list(doc: Doc, **body: object) -> Doc:
    doc["body"].update(layout="list", **body)
    return doc


_HUGE = 10**4_400  # past Python's 4,300-digit limit for turning an int into text


class TestHostileValues:
    """TR-12: any JSON value where text or a number is expected is a TrackerDecodeError with a
    path, never a TypeError, ValueError or UnicodeEncodeError; every message prints as UTF-8."""

    @pytest.mark.parametrize(
        ("doc", "path", "fragment"),
        [
            (_piece(type=[1]), "type", "is not a known key"),
            (_piece(type={"a": 1}), "type", "is not a known key"),
            (_with_field(0, type=[1]), "body.fields[0].type", "found a list"),
            (_with_field(2, type={"x": 1}, choices=[1]), "body.fields[2].type", "found an object"),
            (_piece(revision=_HUGE), "revision", "a whole number of 4,401 digits"),
            (_piece(name=-_HUGE), "name", "a negative whole number of 4,401 digits"),
            (_piece(id=_HUGE), "id", "passes the ceiling of 2^53-1"),
            (_with_field(0, min=_HUGE), "body.fields[0].min", "4,401 digits"),
            (_with_field(0, maxField=_HUGE), "body.fields[0].maxField", "4,401 digits"),
            (_with_field(1, default=-_HUGE), "body.fields[1].default", "4,401 digits"),
            (_piece(id="a\ud800"), "id", "lone surrogate (U+D800) at character 1"),
            (_piece(name="Vera\udc00"), "name", 'found "Vera\\udc00"'),
            (_with_field(0, name="hp\ud83d"), "body.fields[0].name", "lone surrogate"),
            (_with_field(0, maxField="\udfff"), "body.fields[0].maxField", "lone surrogate"),
            (_with_field(0, icon="lucide:\ud800"), "body.fields[0].icon", "lone surrogate"),
            (_with_field(2, choices=["a", "\ud800"]), "body.fields[2].choices[1]", "surrogate"),
            (_piece(**{"x\ud800": 1}), "", "has a key that is not valid text"),
            (_with_field(0, **{"\ud800": 1}), "body.fields[0]", "has a key that is not valid"),
        ],
        ids=[
            "top-type-list",
            "top-type-object",
            "field-type-list",
            "field-type-object",
            "huge-revision",
            "huge-negative-name",
            "huge-id",
            "huge-min",
            "huge-max-field",
            "huge-default",
            "surrogate-id",
            "surrogate-name",
            "surrogate-field-name",
            "surrogate-max-field",
            "surrogate-icon",
            "surrogate-choice",
            "surrogate-key",
            "surrogate-field-key",
        ],
    )
    def test_refused_with_a_path(self, doc: Doc, path: str, fragment: str) -> None:
        """TR-12: the value is refused at its path, in plain words that print as UTF-8."""
        with pytest.raises(TrackerDecodeError) as caught:
            decode_tracker(doc, source="health.json")
        problems = [(p.path, p.message) for p in caught.value.problems]
        assert any(p == path and fragment in m for p, m in problems), problems
        str(caught.value).encode("utf-8")

    def test_key_that_is_not_text(self) -> None:
        """TR-12: an object key that is not text (possible only from Python) is refused by path."""
        doc = _with_field(0, **{"min": 0})
        doc["body"]["fields"][0][_HUGE] = 1
        assert (
            "body.fields[0]",
            "has a key that is not text; found a whole number of 4,401 digits",
        ) in _problems(doc)


class TestEveryRuleChecked:
    """TR-12: a problem in one key hides no rule that can still be checked on the others."""

    @pytest.mark.parametrize(
        ("doc", "expected"),
        [
            (
                _with_field(0, name="HP", max=-5),
                {
                    ("body.fields[0].name", "must be a lowercase letter"),
                    ("body.fields[0].min", "must be at most max (-5); found 0"),
                    ("body.fields[0].maxField", "cannot come with max"),
                },
            ),
            (
                _with_field(1, name=7, min=10, max=5, default=30),
                {
                    ("body.fields[1].name", "must be a field name; found 7"),
                    ("body.fields[1].min", "must be at most max (5); found 10"),
                    ("body.fields[1].default", "must be at most 5; found 30"),
                    ("body.fields[0].maxField", 'names "hp_max", which is not a field'),
                },
            ),
            (
                _with_field(1, min="one", max=5),
                {
                    ("body.fields[1].min", "must be a finite number"),
                    ("body.fields[1].default", "must be at most 5; found 30"),
                },
            ),
            (
                _with_field(0, description=None, maxField="mood"),
                {
                    ("body.fields[0].description", "must be text; found null"),
                    ("body.fields[0].maxField", 'names "mood", which is a choice field'),
                },
            ),
            (
                _with_field(2, icon="heart", choices=["calm", "calm"], default="angry"),
                {
                    ("body.fields[2].icon", "must be an icon id"),
                    ("body.fields[2].choices[1]", 'repeats the choice "calm"'),
                    ("body.fields[2].default", 'must be one of calm|calm; found "angry"'),
                },
            ),
            (
                _with_field(2, name="hp", min=3, choices=[]),
                {
                    ("body.fields[2].min", "belongs to number fields, not to a choice field"),
                    ("body.fields[2].choices", "needs at least one choice"),
                    ("body.fields[2].name", 'repeats the name "hp" of fields[0]'),
                },
            ),
            (
                _with_field(2, type="dice", name="hp_max"),
                {
                    ("body.fields[2].type", "must be one of text, number, boolean, choice"),
                    ("body.fields[2].name", 'repeats the name "hp_max" of fields[1]'),
                },
            ),
            (
                _as_list(_with_field(2, name="name", min=1), note=5),
                {
                    ("body.note", "must be text; found 5"),
                    ("body.fields[2].min", "belongs to number fields, not to a choice field"),
                    ("body.fields[2].name", 'is reserved on a list: the row name is "name"'),
                },
            ),
            (
                _piece(name="  ", kind="tool"),
                {("kind", "must be one of 'tracker'"), ("name", "must not be blank")},
            ),
        ],
        ids=[
            "bad-name-and-min-above-max",
            "name-not-text-range-and-default",
            "bad-min-still-checks-default-against-max",
            "bad-description-and-top-not-a-number",
            "bad-icon-repeated-choice-and-default",
            "key-of-another-type-empty-choices-repeated-name",
            "unknown-type-still-counts-its-name",
            "list-reserved-name-beside-a-bad-note",
            "blank-name-beside-a-bad-kind",
        ],
    )
    def test_every_problem(self, doc: Doc, expected: set[tuple[str, str]]) -> None:
        """TR-12: each expected problem is reported, and nothing beyond the document's problems."""
        problems = _problems(doc)
        for path, fragment in expected:
            assert any(p == path and fragment in m for p, m in problems), (path, problems)
        assert len(problems) == len(expected), problems

    def test_one_bad_field_among_ten_thousand(self) -> None:
        """TR-12: a bad name in a 10,000-field chain still has its range checked, the chain too."""
        doc = _chain(MAX_ITEMS)
        doc["body"]["fields"][5].update(name="F5", min=2, max=1)
        problems = _problems(doc)
        assert ("body.fields[5].min", "must be at most max (1); found 2") in problems
        assert (
            "body.fields[4].maxField",
            'names "f5", which is not a field of this tracker',
        ) in problems


class TestRoundTrip:
    """TR-12: decode(encode(t)) == t."""

    @settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
    @given(trackers())
    def test_encode_decode(self, tracker: Tracker) -> None:
        """TR-12: encoding then decoding gives the same tracker, through JSON text too."""
        data = encode_tracker(tracker)
        assert decode_tracker(data) == tracker
        assert decode_tracker(orjson.loads(orjson.dumps(data))) == tracker
        assert encode_tracker(decode_tracker(data)) == data

    @given(tracker_docs())
    def test_decode_keeps_every_key(self, doc: Doc) -> None:
        """TR-12: what the decoder accepted encodes back to the document (nulls left out)."""
        encoded = encode_tracker(decode_tracker(doc))
        assert encoded["body"]["fields"] == doc["body"]["fields"]
        assert encoded["id"] == doc["id"]


class TestFuzz:
    """TR-12: any input is either a tracker or a TrackerDecodeError, never anything else."""

    @settings(max_examples=300)
    @given(json_values)
    def test_random_json(self, data: object) -> None:
        """TR-12: random JSON never raises anything but TrackerDecodeError."""
        problems = _outcome(data)
        assert problems is None or problems
        assert all(isinstance(p.path, str) and p.message for p in problems or [])

    @settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
    @given(tracker_docs(), st.data())
    def test_mutated_tracker(self, doc: Doc, data: st.DataObject) -> None:
        """TR-12: a valid tracker with one part swapped for random JSON decodes or is refused cleanly."""
        holders: list[Any] = [doc, doc["body"], *doc["body"]["fields"]]
        holder = data.draw(st.sampled_from(holders))
        keys = [*holder, "surprise"]
        holder[data.draw(st.sampled_from(keys))] = data.draw(json_values)
        problems = _outcome(doc)
        assert problems is None or problems


def test_every_problem_at_once_when_some_fields_do_not_parse() -> None:
    """TR-12: a field that does not parse hides none of the rules across the other fields."""
    from trackerkit import TrackerDecodeError, decode_tracker

    piece = {
        "id": "h",
        "name": "H",
        "description": "",
        "body": {
            "layout": "list",
            "note": "",
            "fields": [
                {"name": "name", "description": "", "type": "text"},
                {"name": "hp", "description": "", "type": "number", "maxField": "hp_maxx"},
                {"name": "luck", "description": "", "type": "dice"},
                {"name": "mood", "description": "", "type": "choice", "choices": ["a", "a"]},
                {"name": "x", "description": "", "type": "number", "maxField": "luck"},
                {"name": "hp", "description": "", "type": "text"},
            ],
        },
    }
    with pytest.raises(TrackerDecodeError) as caught:
        decode_tracker(piece)
    paths = {p.path for p in caught.value.problems}
    assert paths == {
        "body.fields[2].type",
        "body.fields[0].name",
        "body.fields[3].choices[1]",
        "body.fields[5].name",
        "body.fields[1].maxField",
    }
