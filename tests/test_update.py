"""Applying update items: clamps and tops, all or nothing, and the answer (TR-13..TR-22, TR-35..TR-40)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conftest import BAG, HEALTH

from trackerkit import (
    Delta,
    Tracker,
    UpdateResult,
    apply_tracker_updates,
    decode_tracker,
    tracker_value,
)
from trackerkit.state import fold
from trackerkit.update import ItemRefusal, UpdateItem, read_updates, slot_of
from trackerkit.values import initial_value

HP = "tracker-record:health"
BAGS = "tracker-list:bag"


def _doc(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    doc.update(changes)
    return doc


def _number(name: str, **keys: Any) -> dict[str, Any]:
    return {"name": name, "description": "", "type": "number", **keys}


def _record(name: str, *fields: dict[str, Any], layout: str = "record") -> Tracker:
    return decode_tracker(
        {
            "id": name.lower(),
            "name": name,
            "description": "",
            "body": {"layout": layout, "fields": list(fields), "note": ""},
        }
    )


HEALTH_T = decode_tracker(HEALTH)
BAG_T = decode_tracker(BAG)
HERO = decode_tracker(_doc(HEALTH, id="hero", name="Hero"))
#: A list whose rows each hold hp out of their own hp_max.
PARTY = _record(
    "Party",
    _number("hp", min=0, maxField="hp_max"),
    _number("hp_max", min=1, default=10),
    layout="list",
)


def _apply(
    state: dict[str, dict[str, object]], *items: dict[str, Any], trackers: Any = None
) -> UpdateResult:
    return apply_tracker_updates(
        trackers or [HEALTH_T, BAG_T], state, {"updates": [dict(i) for i in items]}
    )


def _health(**values: object) -> dict[str, dict[str, object]]:
    return {HP: dict(values)}


class TestClamps:
    """TR-13: a number outside its range, or past a top from another field, is clamped, never refused."""

    @pytest.mark.parametrize(
        ("sent", "stored"),
        [(-5, 0), (99, 30), (12.5, 12.5), (30, 30)],
        ids=["below-min", "past-top", "inside", "at-top"],
    )
    def test_hp_is_held_inside(self, sent: float, stored: float) -> None:
        """hp is held between its min 0 and the top hp_max=30 and the batch succeeds."""
        result = _apply({}, {"tracker": "Health", "set": {"hp": sent}})
        assert result.ok
        assert tracker_value(HEALTH_T, fold(result.deltas))["hp"] == stored

    def test_fixed_max_is_clamped(self) -> None:
        """A number past its own fixed max is stored at the max."""
        weight = _record("Load", _number("kg", min=0, max=500))
        result = _apply({}, {"tracker": "Load", "set": {"kg": 900}}, trackers=[weight])
        assert result.deltas == (Delta("tracker-record:load", "kg", 500),)


class TestTopFirst:
    """TR-14: tops are settled before their dependents; a later item sees an earlier item's top."""

    @pytest.mark.parametrize(
        "values",
        [{"hp_max": 30, "hp": 25}, {"hp": 25, "hp_max": 30}],
        ids=["top-named-first", "top-named-last"],
    )
    def test_either_key_order(self, values: dict[str, int]) -> None:
        """{hp_max: 30, hp: 25} over hp_max 10 writes hp=25 whatever order the keys come in."""
        result = _apply(_health(hp=5, hp_max=10), {"tracker": "Health", "set": values})
        assert tracker_value(HEALTH_T, fold(result.deltas, _health(hp=5, hp_max=10))) == {
            "hp": 25,
            "hp_max": 30,
            "mood": "calm",
        }

    def test_later_item_sees_earlier_top(self) -> None:
        """An item is held to the top an earlier item of the same call set."""
        result = _apply(
            {},
            {"tracker": "Health", "set": {"hp_max": 40}},
            {"tracker": "Health", "set": {"hp": 35}},
        )
        assert tracker_value(HEALTH_T, fold(result.deltas))["hp"] == 35

    def test_list_row_held_to_its_own_top(self) -> None:
        """In a list each row's number is held to that row's own top."""
        result = _apply(
            {},
            {"tracker": "Party", "row": "Ann", "set": {"hp_max": 5, "hp": 9}},
            {"tracker": "Party", "row": "Bo", "set": {"hp_max": 20, "hp": 9}},
            trackers=[PARTY],
        )
        rows = tracker_value(PARTY, fold(result.deltas))
        assert rows == {"Ann": {"hp": 5, "hp_max": 5}, "Bo": {"hp": 9, "hp_max": 20}}


class TestStoredEqualsRead:
    """TR-15 and TR-16: a write that moves a top stores its clamped dependents in the same batch."""

    def test_lowering_the_top_writes_the_dependent(self) -> None:
        """TR-15: hp=25, {hp_max: 10} writes hp_max=10 and hp=10, and the answer names both."""
        result = _apply(_health(hp=25), {"tracker": "Health", "set": {"hp_max": 10}})
        assert set(result.deltas) == {Delta(HP, "hp_max", 10), Delta(HP, "hp", 10)}
        assert result.answer == "Health: hp 25 -> 10, hp_max 30 -> 10"

    def test_raising_the_top_again_keeps_the_clamped_value(self) -> None:
        """TR-15: after the top went down to 10, raising it to 30 leaves hp at 10."""
        state = fold(_apply(_health(hp=25), {"tracker": "Health", "set": {"hp_max": 10}}).deltas)
        state = fold(_apply(state, {"tracker": "Health", "set": {"hp_max": 30}}).deltas, state)
        assert tracker_value(HEALTH_T, state)["hp"] == 10

    def test_stale_dependent_is_written_from_what_was_shown(self) -> None:
        """TR-16: hp stored 25 over hp_max 10 reads 10, and {hp_max: 40} writes hp_max=40 and hp=10."""
        state = _health(hp=25, hp_max=10)
        assert tracker_value(HEALTH_T, state)["hp"] == 10
        result = _apply(state, {"tracker": "Health", "set": {"hp_max": 40}})
        assert set(result.deltas) == {Delta(HP, "hp_max", 40), Delta(HP, "hp", 10)}
        assert tracker_value(HEALTH_T, fold(result.deltas, state))["hp"] == 10

    def test_unstored_default_over_its_top_is_written(self) -> None:
        """TR-16: a dependent never stored, whose default passes the top, is stored as shown when the top rises."""
        doc = copy.deepcopy(HEALTH)
        doc["body"]["fields"][0]["default"] = 30
        doc["body"]["fields"][1]["default"] = 20
        tracker = decode_tracker(doc)
        assert tracker_value(tracker, {})["hp"] == 20
        result = _apply({}, {"tracker": "Health", "set": {"hp_max": 40}}, trackers=[tracker])
        assert tracker_value(tracker, fold(result.deltas))["hp"] == 20

    def test_untouched_top_leaves_a_stale_value_alone(self) -> None:
        """An item that does not name the top does not rewrite a stale dependent; the read still holds it."""
        state = _health(hp=25, hp_max=10)
        result = _apply(state, {"tracker": "Health", "set": {"mood": "tense"}})
        assert result.deltas == (Delta(HP, "mood", "tense"),)


class TestNoChange:
    """TR-17: an update is judged against what is stored; writing the stored value is no change."""

    def test_writing_the_stored_value_is_no_change(self) -> None:
        """Hero: no change, and no delta, for a batch that wrote the values already stored."""
        result = apply_tracker_updates(
            [HERO],
            {"tracker-record:hero": {"hp": 20, "hp_max": 30}},
            {"updates": [{"tracker": "Hero", "set": {"hp": 20, "hp_max": 30}}]},
        )
        assert result.ok
        assert result.deltas == ()
        assert result.answer == "Hero: no change"

    def test_writing_the_initial_value_is_no_change(self) -> None:
        """A never-stored field set to its initial value writes nothing."""
        result = _apply({}, {"tracker": "Health", "set": {"hp_max": 30, "mood": "calm"}})
        assert (result.deltas, result.answer) == ((), "Health: no change")

    def test_only_the_changed_tracker_is_detailed(self) -> None:
        """The answer gives each touched tracker's changes, or says it had none."""
        result = apply_tracker_updates(
            [HEALTH_T, HERO],
            {},
            [UpdateItem("Health", set={"hp": 3}), UpdateItem("Hero", set={"mood": "calm"})],
        )
        assert result.answer == "Health: hp 0 -> 3\nHero: no change"

    def test_a_batch_that_ends_where_it_began_is_no_change(self) -> None:
        """hp_max 30 -> 40 -> 30 in one batch reads as before: "no change", never "hp_max 30 -> 30"."""
        result = _apply(
            {},
            {"tracker": "Health", "set": {"hp_max": 40}},
            {"tracker": "Health", "set": {"hp_max": 30}},
        )
        assert result.ok
        assert result.answer == "Health: no change"
        assert (result.changes, result.change_count) == ((), 0)
        assert tracker_value(HEALTH_T, fold(result.deltas))["hp_max"] == 30

    def test_a_row_set_back_as_it_was_is_no_change(self) -> None:
        """A row changed and set back in one batch is left out of the answer."""
        state = {BAGS: {"Rope": {"qty": 2, "equipped": False}}}
        result = _apply(
            state,
            {"tracker": "Bag", "row": "Rope", "set": {"qty": 5}},
            {"tracker": "Bag", "row": "Rope", "set": {"qty": 2}},
            {"tracker": "Bag", "row": "Torch", "set": {"qty": 1}},
        )
        assert result.answer == 'Bag: added row "Torch" (qty=1, equipped=false)'
        assert result.change_count == 1

    def test_rewriting_a_row_as_it_is_is_no_change(self) -> None:
        """A list row set to the values it holds writes no delta."""
        state = {BAGS: {"Rope": {"qty": 2, "equipped": False}}}
        result = _apply(state, {"tracker": "Bag", "row": "rope", "set": {"qty": 2}})
        assert (result.deltas, result.answer) == ((), "Bag: no change")


class TestReadSafetyNet:
    """TR-18 and TR-22: the read fills initial values, reads misfits as initial, and applies tops."""

    @pytest.mark.parametrize(
        ("keys", "start"),
        [({"min": 5}, 5), ({"max": -3}, -3), ({}, 0), ({"min": -2, "max": 9}, 0)],
        ids=["min-5", "max-minus-3", "no-range", "range-around-0"],
    )
    def test_number_starts_inside_its_range(self, keys: dict[str, int], start: int) -> None:
        """TR-8/TR-18: a number with no default starts at 0 held inside its range (min 5 at 5, max -3 at -3)."""
        tracker = _record("N", _number("n", **keys))
        assert initial_value(tracker.fields[0]) == start
        assert tracker_value(tracker, {}) == {"n": start}

    def test_top_below_min_leaves_the_min(self) -> None:
        """A top below the field's own min leaves the min: the value is never below it."""
        tracker = _record("T", _number("hp", min=5, maxField="cap"), _number("cap"))
        result = apply_tracker_updates(
            [tracker], {}, {"updates": [{"tracker": "T", "set": {"cap": 2, "hp": 4}}]}
        )
        assert tracker_value(tracker, fold(result.deltas)) == {"hp": 5, "cap": 2}

    def test_default_is_held_to_its_top(self) -> None:
        """A number default past a top from another field reads as the top."""
        doc = copy.deepcopy(HEALTH)
        doc["body"]["fields"][0]["default"] = 50
        assert tracker_value(decode_tracker(doc), {})["hp"] == 30

    @pytest.mark.parametrize(
        ("stored", "read"),
        [
            ({}, {"hp": 0, "hp_max": 30, "mood": "calm"}),
            ({"hp": "ten", "mood": "angry"}, {"hp": 0, "hp_max": 30, "mood": "calm"}),
            ({"hp": True, "hp_max": 0}, {"hp": 0, "hp_max": 30, "mood": "calm"}),
            ({"hp": 99, "other": 1}, {"hp": 30, "hp_max": 30, "mood": "calm"}),
        ],
        ids=["empty", "wrong-kind-and-choice", "bool-and-below-min", "over-top-and-stale-key"],
    )
    def test_record_read(self, stored: dict[str, object], read: dict[str, object]) -> None:
        """TR-22: a stored value that does not fit its field reads as the field's initial value."""
        assert tracker_value(HEALTH_T, {HP: stored}) == read

    def test_list_read_skips_rows_that_are_not_rows(self) -> None:
        """A list reads each row with initial values filled, in row order."""
        state = {BAGS: {"b": {"qty": 3}, "junk": 7, "a": {}}}
        assert tracker_value(BAG_T, state) == {
            "b": {"qty": 3, "equipped": False},
            "a": {"qty": 0, "equipped": False},
        }


class TestRows:
    """TR-19, TR-20, TR-21: rows keyed by name, found whatever the case, kept in their first spelling."""

    def test_slots(self) -> None:
        """TR-21: a record lives in tracker-record:<id>, a list in tracker-list:<id>."""
        assert (slot_of(HEALTH_T), slot_of(BAG_T)) == (HP, BAGS)

    def test_new_row_starts_from_initial_values(self) -> None:
        """TR-19: a new row holds every field, the unnamed ones at their initial values; the delta is the whole row."""
        result = _apply({}, {"tracker": "Bag", "row": "Rope", "set": {"qty": 2}})
        assert result.deltas == (Delta(BAGS, "Rope", {"qty": 2, "equipped": False}),)
        assert result.answer == 'Bag: added row "Rope" (qty=2, equipped=false)'

    def test_row_found_whatever_the_case_keeps_first_spelling(self) -> None:
        """TR-20: ROPE finds the row made as Rope, and the row keeps the name Rope."""
        state = fold(_apply({}, {"tracker": "Bag", "row": "Rope", "set": {"qty": 2}}).deltas)
        result = _apply(state, {"tracker": "Bag", "row": "ROPE", "set": {"qty": 5}})
        assert result.deltas == (Delta(BAGS, "Rope", {"qty": 5, "equipped": False}),)
        assert list(tracker_value(BAG_T, fold(result.deltas, state))) == ["Rope"]

    def test_same_call_finds_a_row_it_made(self) -> None:
        """A row made by an earlier item is found by a later item in another case."""
        result = _apply(
            {},
            {"tracker": "Bag", "row": "Torch", "set": {"qty": 1}},
            {"tracker": "Bag", "row": "torch", "set": {"equipped": True}},
        )
        assert result.deltas == (Delta(BAGS, "Torch", {"qty": 1, "equipped": True}),)

    def test_remove_deletes_the_row(self) -> None:
        """remove: true writes a None delta on the row's stored key and the answer says removed."""
        state = {BAGS: {"Rope": {"qty": 2, "equipped": False}}}
        result = _apply(state, {"tracker": "Bag", "row": "rope", "remove": True})
        assert result.deltas == (Delta(BAGS, "Rope", None),)
        assert result.answer == 'Bag: removed row "Rope"'
        assert tracker_value(BAG_T, fold(result.deltas, state)) == {}

    def test_set_row_answer(self) -> None:
        """A changed existing row is answered as set, with the whole row."""
        state = {BAGS: {"Rope": {"qty": 2, "equipped": False}}}
        result = _apply(state, {"tracker": "Bag", "row": "Rope", "set": {"equipped": True}})
        assert result.answer == 'Bag: set row "Rope" (qty=2, equipped=true)'


def _refusals() -> list[Any]:
    rope = {BAGS: {"Rope": {"qty": 1, "equipped": False}}}
    return [
        pytest.param(
            {},
            {"tracker": "Bag", "row": "Rope", "remove": True, "set": {"qty": 1}},
            "remove cannot come with set",
            id="remove-with-set",
        ),
        pytest.param(
            {},
            {"tracker": "Health", "row": "x", "set": {"hp": 1}},
            "row is only for list trackers",
            id="row-on-record",
        ),
        pytest.param(
            {},
            {"tracker": "Health", "remove": True},
            "remove is only for list trackers",
            id="remove-on-record",
        ),
        pytest.param(
            rope, {"tracker": "Bag", "set": {"qty": 1}}, "needs row", id="row-missing-on-list"
        ),
        pytest.param(
            rope,
            {"tracker": "Bag", "row": "Lamp", "remove": True},
            "no row is called 'Lamp'",
            id="remove-missing-row",
        ),
        pytest.param(
            {},
            {"tracker": "Bag", "row": "  ", "set": {"qty": 1}},
            "row must not be blank",
            id="blank-row",
        ),
        pytest.param(
            {},
            {"tracker": "Mana", "set": {"mp": 1}},
            "no linked tracker is called 'Mana'",
            id="unknown-tracker",
        ),
        pytest.param(
            {},
            {"tracker": "Health", "set": {"hpp": 1}},
            "Health has no field 'hpp'",
            id="unknown-field",
        ),
        pytest.param(
            {},
            {"tracker": "Health", "set": {"hp": "10"}},
            "must be a number",
            id="number-as-text",
        ),
        pytest.param(
            {},
            {"tracker": "Health", "set": {"hp": True}},
            "must be a number",
            id="number-as-bool",
        ),
        pytest.param(
            {},
            {"tracker": "Health", "set": {"mood": "angry"}},
            "must be one of calm|tense",
            id="choice-not-in-list",
        ),
        pytest.param(
            {},
            {"tracker": "Bag", "row": "a", "set": {"equipped": 1}},
            "must be true or false",
            id="boolean-as-number",
        ),
        pytest.param({}, {"tracker": "Health"}, "needs set", id="record-without-set"),
        pytest.param(
            {},
            {"tracker": "Bag", "row": "a"},
            "needs set (the row's field values) or remove",
            id="list-without-set-or-remove",
        ),
    ]


class TestAllOrNothing:
    """TR-35 and TR-37: a refused item refuses the whole batch and nothing is written."""

    @pytest.mark.parametrize(("state", "item", "reason"), _refusals())
    def test_refused_item(self, state: Any, item: dict[str, Any], reason: str) -> None:
        """The item is refused with a plain reason, no delta and an answer that says nothing was written."""
        result = _apply(state, {"tracker": "Health", "set": {"hp": 4}}, item)
        assert not result.ok
        assert result.deltas == ()
        assert [e.index for e in result.errors] == [1]
        assert reason in str(result.errors[0])
        assert result.answer.startswith(
            "Nothing was written: 1 error. Fix it and send the whole call again."
        )

    def test_every_items_error_is_listed(self) -> None:
        """A refused batch lists every item's error, each named by its item number, and writes nothing."""
        result = _apply(
            {},
            {"tracker": "Health", "set": {"hp": "x"}},
            {"tracker": "Health", "set": {"hp": 3}},
            {"tracker": "Bag", "set": {"qty": 1}},
            {"tracker": "Health", "set": {"mood": "sad", "bogus": 1}},
        )
        assert not result.ok
        assert result.deltas == ()
        assert [(e.index, e.field) for e in result.errors] == [
            (0, "hp"),
            (2, None),
            (3, "mood"),
            (3, "bogus"),
        ]
        lines = result.answer.splitlines()
        assert lines[0] == "Nothing was written: 4 errors. Fix them and send the whole call again."
        assert lines[1].startswith("- item 1 (Health, hp): must be a number")
        assert lines[2].startswith("- item 3 (Bag): needs row")

    def test_state_given_is_not_changed(self) -> None:
        """Applying a batch never changes the state it was given."""
        state = {HP: {"hp": 25}, BAGS: {"Rope": {"qty": 1, "equipped": False}}}
        before = copy.deepcopy(state)
        _apply(
            state,
            {"tracker": "Health", "set": {"hp_max": 5}},
            {"tracker": "Bag", "row": "Rope", "remove": True},
        )
        assert state == before


class TestShape:
    """TR-37: only the call's shape is checked when it is read; contents are checked as each item runs."""

    @pytest.mark.parametrize(
        ("arguments", "reason"),
        [
            (
                {"updates": {"tracker": "Health"}},
                "updates must be a list of items; found an object",
            ),
            ({"updates": [], "extra": 1}, "the call takes only updates; found extra"),
            ({"updates": ["Health"]}, "must be an object"),
            ({"updates": [{"tracker": 3}]}, "tracker must be a tracker's name; found 3"),
            ({"updates": [{"tracker": "Bag", "row": 2}]}, "row must be text"),
            ({"updates": [{"tracker": "Bag", "remove": "yes"}]}, "remove must be true or false"),
            ({"updates": [{"tracker": "Health", "set": [1]}]}, "set must be an object"),
            ({"updates": [{"tracker": "Health", "fields": {}}]}, "has unknown keys fields"),
            (None, "updates must be a list of items; found null"),
            ({}, 'updates is missing; it is required: send {"updates": [...]}'),
        ],
        ids=[
            "updates-not-list",
            "extra-key",
            "item-not-object",
            "tracker-not-text",
            "row-not-text",
            "remove-not-bool",
            "set-not-object",
            "unknown-item-key",
            "no-arguments",
            "empty-object",
        ],
    )
    def test_malformed_call(self, arguments: object, reason: str) -> None:
        """A malformed call is answered with a plain error and nothing is written."""
        result = apply_tracker_updates([HEALTH_T, BAG_T], {}, arguments)
        assert not result.ok
        assert result.deltas == ()
        assert reason in result.answer

    def test_call_level_error_names_the_call(self) -> None:
        """An error in the call's own shape is named as the call's, not as an item's."""
        result = apply_tracker_updates([HEALTH_T], {}, {"updates": "hp 3"})
        assert result.answer.splitlines()[1] == (
            '- the call: updates must be a list of items; found the text "hp 3"'
        )

    def test_an_empty_object_never_says_null(self) -> None:
        """`{}` names updates as missing; it held no null."""
        result = apply_tracker_updates([HEALTH_T], {}, {})
        assert "null" not in result.answer

    def test_empty_call_is_answered(self) -> None:
        """A call with no updates succeeds, writes nothing and still answers in words."""
        result = apply_tracker_updates([HEALTH_T], {}, {"updates": []})
        assert result.ok
        assert (result.deltas, result.answer) == ((), "No change: the call held no updates.")

    def test_contents_are_not_checked_when_read(self) -> None:
        """read_updates accepts an unknown tracker and field: contents wait for the item to run."""
        items, errors = read_updates([{"tracker": "Nobody", "set": {"x": "y"}, "remove": None}])
        assert errors == []
        assert items == [UpdateItem("Nobody", None, False, {"x": "y"})]

    def test_error_text_names_item_tracker_row_and_field(self) -> None:
        """An error reads as item number, tracker, row and field, then the reason."""
        error = ItemRefusal(1, "Bag", "must be a number", field="qty", row="Rope")
        assert str(error) == "item 2 (Bag, row 'Rope', qty): must be a number"


class TestAnswer:
    """TR-38, TR-39, TR-40: the answer holds only what changed; no size cap; only tracker slots."""

    def test_answer_follows_the_change_not_the_tracker(self) -> None:
        """Changing one row of a 500-row list answers with that row alone."""
        state = {BAGS: {f"item{i}": {"qty": i, "equipped": False} for i in range(500)}}
        result = _apply(state, {"tracker": "Bag", "row": "item7", "set": {"qty": 8}})
        assert result.answer == 'Bag: set row "item7" (qty=8, equipped=false)'

    def test_thousand_items_are_answered_whole(self) -> None:
        """TR-39: a 1,000-item batch is applied and answered in full, never shortened."""
        items = [{"tracker": "Bag", "row": f"gem {i}", "set": {"qty": i + 1}} for i in range(1000)]
        result = _apply({}, *items)
        assert result.ok
        assert result.change_count == 1000
        assert all(f'"gem {i}" (qty={i + 1},' in result.answer for i in range(1000))

    def test_deltas_touch_only_tracker_slots(self) -> None:
        """TR-40: the tool's deltas only ever write tracker slots."""
        result = _apply(
            {"other:slot": {"x": 1}},
            {"tracker": "Health", "set": {"hp": 1}},
            {"tracker": "Bag", "row": "a", "set": {"qty": 1}},
        )
        assert result.deltas
        assert all(d.is_tracker for d in result.deltas)

    def test_values_are_shown_on_one_line(self) -> None:
        """A model-written text with line breaks is answered on one line."""
        notes = _record("Notes", {"name": "text", "description": "", "type": "text"})
        result = apply_tracker_updates(
            [notes], {}, {"updates": [{"tracker": "Notes", "set": {"text": "a\n### b"}}]}
        )
        assert result.answer == 'Notes: text "" -> "a ### b"'


#: A record with one free text field, for text the model writes.
NOTES = _record("Notes", {"name": "text", "description": "", "type": "text"})
LOAD = _record("Load", _number("kg", min=0, max=500))
HUGE = 10**5000


class TestHostileValues:
    """TR-13, TR-37: any value a model writes is applied (a huge number clamped where its field has a range) or refused with an answer."""

    @pytest.mark.parametrize(
        ("tracker", "item", "key", "stored"),
        [
            (HEALTH_T, {"tracker": "Health", "set": {"hp": HUGE}}, "hp", 30),
            (HEALTH_T, {"tracker": "Health", "set": {"hp": -HUGE}}, "hp", 0),
            (LOAD, {"tracker": "Load", "set": {"kg": HUGE}}, "kg", 500),
            (LOAD, {"tracker": "Load", "set": {"kg": 1e300}}, "kg", 500),
            (LOAD, {"tracker": "Load", "set": {"kg": float("inf")}}, "kg", 500),
            (LOAD, {"tracker": "Load", "set": {"kg": 2**53}}, "kg", 500),
            (LOAD, {"tracker": "Load", "set": {"kg": -(10**30)}}, "kg", 0),
        ],
        ids=["huge-to-top", "huge-negative-to-min", "huge-to-max", "1e300", "inf", "2^53", "-1e30"],
    )
    def test_huge_number_is_clamped(
        self, tracker: Tracker, item: dict[str, Any], key: str, stored: float
    ) -> None:
        """TR-13: a number past the safe range is held inside a field that has a bound on its side."""
        result = _apply({}, item, trackers=[tracker])
        assert result.ok, result.answer
        assert tracker_value(tracker, fold(result.deltas))[key] == stored

    @pytest.mark.parametrize(
        ("item", "reason"),
        [
            ({"tracker": "Bag", "row": "Rope", "set": {"qty": HUGE}}, "has no max to hold it to"),
            ({"tracker": "Health", "set": {"mood": HUGE}}, "found a whole number of 5,001 digits"),
            (
                {"tracker": "Health", "set": {"mood": -HUGE}},
                "found a negative whole number of 5,001 digits",
            ),
            ({"tracker": "Bag", "row": "Rope", "set": {"equipped": HUGE}}, "must be true or false"),
            ({"tracker": "Bag", "row": "Rope", "set": {"qty": float("nan")}}, "must be a number"),
            (
                {"tracker": "Bag", "row": HUGE},
                "row must be text; found a whole number of 5,001 digits",
            ),
            ({"tracker": "Health", "set": {"mood": float("inf")}}, "a number too large to hold"),
        ],
        ids=[
            "no-max",
            "huge-in-choice",
            "negative-in-choice",
            "huge-in-boolean",
            "nan",
            "huge-row",
            "inf-in-choice",
        ],
    )
    def test_huge_number_is_refused_with_an_answer(self, item: dict[str, Any], reason: str) -> None:
        """TR-37: a huge number with nothing to hold it to is refused in words; nothing is written."""
        result = _apply({}, item)
        assert not result.ok
        assert result.deltas == ()
        assert reason in result.answer

    @pytest.mark.parametrize(
        ("item", "reason"),
        [
            ({"tracker": "Bag", "row": "R\ud800", "set": {"qty": 1}}, "row is not valid Unicode"),
            (
                {"tracker": "Notes", "set": {"text": "a\udfffb"}},
                "lone surrogate \\udfff at character 1",
            ),
            ({"tracker": "Health", "set": {"mood": "\ud83d"}}, "mood): is not valid Unicode"),
            ({"tracker": "He\udc00", "set": {"hp": 1}}, "no linked tracker is called"),
            ({"tracker": "Health", "set": {"h\udc00": 1}}, "has no field"),
            ({"tracker": "Health", "set": {"hp": 1}, "\udc00": 1}, "has unknown keys"),
        ],
        ids=["row", "text-value", "choice", "tracker", "field", "item-key"],
    )
    def test_lone_surrogate_is_refused(self, item: dict[str, Any], reason: str) -> None:
        """TR-37: text that is not valid Unicode is never stored; the answer shows it escaped and is valid Unicode."""
        result = _apply({}, item, trackers=[HEALTH_T, BAG_T, NOTES])
        assert not result.ok
        assert result.deltas == ()
        assert reason in result.answer
        result.answer.encode("utf-8")

    def test_answer_of_an_applied_call_is_valid_unicode(self) -> None:
        """Astral text (a real surrogate pair, decoded) is stored and answered as written."""
        result = _apply({}, {"tracker": "Notes", "set": {"text": "😀"}}, trackers=[NOTES])
        assert result.ok
        assert result.answer == 'Notes: text "" -> "😀"'
