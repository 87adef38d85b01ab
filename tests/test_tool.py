"""The update_trackers tool definition: name, description lines, JSON schema (TR-34..TR-36)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from conftest import BAG, HEALTH

from trackerkit import Tracker, accepted_text, decode_tracker, update_trackers_tool
from trackerkit.tokens import count_tool_tokens
from trackerkit.tool import (
    TOOL_NAME,
    TOOL_SENTENCE,
    anyof_parameters,
    field_phrase,
    tool_name,
    tracker_line,
)

HEALTH_T = decode_tracker(HEALTH)
BAG_T = decode_tracker(BAG)


def _tracker(
    *fields: dict[str, Any], name: str = "T", note: str = "", layout: str = "record"
) -> Tracker:
    return decode_tracker(
        {
            "id": name.lower(),
            "name": name,
            "description": "",
            "body": {"layout": layout, "fields": list(fields), "note": note},
        }
    )


def _phrase(**keys: Any) -> str:
    field = {"name": "hp", "description": "Hit points.", "type": "number", **keys}
    tracker = _tracker(field, {"name": "hp_max", "description": "", "type": "number"})
    return field_phrase(tracker.fields[0])


class TestName:
    """TR-34: update_trackers, numbered when the name is taken."""

    @pytest.mark.parametrize(
        ("taken", "name"),
        [
            ((), "update_trackers"),
            (("search",), "update_trackers"),
            (("update_trackers",), "update_trackers_2"),
            (("update_trackers", "update_trackers_2"), "update_trackers_3"),
        ],
        ids=["free", "other-taken", "taken", "taken-twice"],
    )
    def test_numbered_when_taken(self, taken: tuple[str, ...], name: str) -> None:
        """The tool takes the first free name of update_trackers, update_trackers_2, ..."""
        assert tool_name(taken) == name
        assert update_trackers_tool([HEALTH_T], taken).name == name


class TestDescription:
    """TR-36: one fixed sentence, then one line per tracker with every field and the note."""

    def test_seed_line(self) -> None:
        """The health tracker's line reads as the seed shows it."""
        assert tracker_line(HEALTH_T) == (
            "Health (record): hp (number 0 to hp_max: Hit points.), "
            "hp_max (number from 1: Most hit points.), "
            "mood (calm|tense: How she feels.). Lower hp when Vera is hurt."
        )

    @pytest.mark.parametrize(
        ("keys", "phrase"),
        [
            ({"min": 0, "max": 100}, "hp (number 0-100: Hit points.)"),
            ({"min": 0, "maxField": "hp_max"}, "hp (number 0 to hp_max: Hit points.)"),
            ({"maxField": "hp_max"}, "hp (number up to hp_max: Hit points.)"),
            ({"max": 100}, "hp (number up to 100: Hit points.)"),
            ({"min": 5}, "hp (number from 5: Hit points.)"),
            ({"min": -5, "max": 5}, "hp (number -5 to 5: Hit points.)"),
            ({}, "hp (number: Hit points.)"),
        ],
        ids=["range", "top-with-min", "top-no-min", "max-only", "min-only", "negative", "bare"],
    )
    def test_number_phrases(self, keys: dict[str, Any], phrase: str) -> None:
        """A number names its range or its top field: hp (number 0 to hp_max), hp (number up to hp_max) with no min."""
        assert _phrase(**keys) == phrase

    def test_other_types_and_no_meaning(self) -> None:
        """Choices are joined by |, booleans read true/false, text reads text, and no meaning leaves no colon."""
        tracker = _tracker(
            {"name": "ok", "description": "", "type": "boolean"},
            {"name": "note", "description": "Said.", "type": "text"},
            {"name": "mood", "description": "", "type": "choice", "choices": ["a", "b"]},
        )
        assert (
            tracker_line(tracker) == "T (record): ok (true/false), note (text: Said.), mood (a|b)."
        )

    def test_description_is_sentence_then_lines(self) -> None:
        """The description is the fixed sentence, then each tracker's line in link order."""
        tool = update_trackers_tool([HEALTH_T, BAG_T])
        assert tool.description.splitlines() == [
            TOOL_SENTENCE,
            tracker_line(HEALTH_T),
            "Bag (list): qty (number from 0: How many.), equipped (true/false: In hand.). "
            "Add a row per item.",
        ]

    def test_never_cut(self) -> None:
        """Every field of 40 trackers of 30 fields reaches the description."""
        trackers = [
            _tracker(
                *({"name": f"f{j}", "description": "x" * 50, "type": "text"} for j in range(30)),
                name=f"T{i}",
            )
            for i in range(40)
        ]
        description = update_trackers_tool(trackers).description
        assert all(f"T{i} (record): " in description for i in range(40))
        assert description.count("f29 (text: ") == 40

    def test_line_breaks_stay_on_one_line(self) -> None:
        """A note or meaning with line breaks stays on its tracker's one line."""
        tracker = _tracker(
            {"name": "a", "description": "one\ntwo", "type": "text"}, note="Keep\n### it"
        )
        assert tracker_line(tracker) == "T (record): a (text: one two). Keep ### it"

    def test_meanings_can_be_left_out(self) -> None:
        """meanings=False drops the field meanings but keeps the note."""
        assert tracker_line(HEALTH_T, meanings=False) == (
            "Health (record): hp (number 0 to hp_max), hp_max (number from 1), "
            "mood (calm|tense). Lower hp when Vera is hurt."
        )


class TestSchema:
    """TR-35: updates is a list of {tracker, row?, remove?, set?}; to_openai gives the function tool."""

    def test_to_openai_shape(self) -> None:
        """to_openai wraps name, description and parameters as an OpenAI function tool."""
        tool = update_trackers_tool([HEALTH_T])
        assert tool.to_openai() == {
            "type": "function",
            "function": {
                "name": TOOL_NAME,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }

    def test_parameters_name_the_trackers(self) -> None:
        """tracker is an enum of the linked names; row and remove appear only when a list is linked."""
        record_only = update_trackers_tool([HEALTH_T]).parameters
        item = record_only["properties"]["updates"]["items"]
        assert item["properties"]["tracker"]["enum"] == ["Health"]
        assert set(item["properties"]) == {"tracker", "set"}
        with_list = update_trackers_tool([HEALTH_T, BAG_T]).parameters
        assert set(with_list["properties"]["updates"]["items"]["properties"]) == {
            "tracker",
            "set",
            "row",
            "remove",
        }

    @pytest.mark.parametrize(
        ("call", "valid"),
        [
            ({"updates": [{"tracker": "Bag", "row": "Rope", "set": {"qty": 2}}]}, True),
            ({"updates": [{"tracker": "Bag", "row": "Rope", "remove": True}]}, True),
            ({"updates": [{"tracker": "Mana", "set": {}}]}, False),
            ({"updates": [{"set": {"hp": 1}}]}, False),
            ({"updates": [{"tracker": "Health", "set": {"hp": [1]}}]}, False),
            ({}, False),
        ],
        ids=["set-row", "remove-row", "unknown-tracker", "no-tracker", "list-value", "no-updates"],
    )
    def test_schema_checks_calls(self, call: dict[str, Any], valid: bool) -> None:
        """The parameters are a valid JSON Schema that accepts well-shaped calls only."""
        schema = update_trackers_tool([HEALTH_T, BAG_T]).parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert jsonschema.Draft202012Validator(schema).is_valid(call) is valid

    def test_lines_cost_less_than_anyof(self) -> None:
        """The description lines cost fewer tokens than the anyOf design, and more than without meanings."""
        trackers = [HEALTH_T, BAG_T, decode_tracker({**HEALTH, "id": "hero", "name": "Hero"})]

        def cost(tool: Any) -> int:
            return count_tool_tokens(tool.name, tool.description, tool.parameters)

        lines = cost(update_trackers_tool(trackers))
        assert cost(update_trackers_tool(trackers, meanings=False)) < lines
        assert lines < cost(anyof_parameters(trackers))
        jsonschema.Draft202012Validator.check_schema(anyof_parameters(trackers).parameters)


class TestAcceptedText:
    """What a field accepts, in words for a person (the library page's `accepts` column)."""

    @pytest.mark.parametrize(
        ("field", "text"),
        [
            (
                {"name": "hp", "type": "number", "min": 0, "maxField": "hp_max"},
                "a number from 0 to hp_max",
            ),
            ({"name": "n", "type": "number", "min": 1}, "a number, at least 1"),
            ({"name": "n", "type": "number", "max": 2.5}, "a number, at most 2.5"),
            ({"name": "n", "type": "number"}, "any number"),
            ({"name": "m", "type": "choice", "choices": ["calm", "tense"]}, "one of: calm, tense"),
            ({"name": "b", "type": "boolean"}, "true or false"),
            ({"name": "t", "type": "text"}, "any text"),
        ],
    )
    def test_words(self, field: dict[str, object], text: str) -> None:
        fields = [field]
        if field.get("maxField") == "hp_max":
            fields.append({"name": "hp_max", "type": "number", "min": 1})
        described = [{"description": "", **f} for f in fields]
        assert accepted_text(_tracker(*described).body.fields[0]) == text
