"""Provider exports of the update tool, each held to its provider's checker (TR-34..TR-37)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from state_strategies import batches, linked, stored_states

from trackerkit import Tracker, apply_tracker_updates, decode_tracker
from trackerkit.formats.checkers import (
    check_anthropic,
    check_gemini,
    check_openai,
    check_provider_tool,
)
from trackerkit.formats.providers import (
    PROVIDERS,
    STRICT_SENTENCE,
    anthropic_tool,
    export_costs,
    gemini_tool,
    openai_tool,
    provider_tool,
    strict_arguments,
    strict_parameters,
)
from trackerkit.tokens import count_tokens
from trackerkit.tool import TOOL_SENTENCE, tracker_line, update_trackers_tool

DATA = Path(__file__).resolve().parents[2] / "data" / "trackers"
BUNDLED = [decode_tracker(json.loads(p.read_text())) for p in sorted(DATA.glob("*.json"))]


def _bundled(ids: list[str]) -> list[Tracker]:
    return [t for t in BUNDLED if t.id in ids]


def _gemini_as_json_schema(schema: Any) -> Any:
    """Gemini's OpenAPI dialect read as JSON Schema (nullable becomes a null branch), to validate calls."""
    if isinstance(schema, list):
        return [_gemini_as_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _gemini_as_json_schema(v) for k, v in schema.items() if k != "nullable"}
    if "properties" in schema:
        out["properties"] = {k: _gemini_as_json_schema(v) for k, v in schema["properties"].items()}
    if schema.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


class TestBundledTrackers:
    """Every bundled tracker, alone and all together, passes each provider's checker."""

    @pytest.mark.parametrize("provider", PROVIDERS)
    @pytest.mark.parametrize("tracker", BUNDLED, ids=[t.id for t in BUNDLED])
    def test_each_tracker_alone(self, provider: str, tracker: Tracker) -> None:
        """A one-tracker export passes its checker."""
        assert check_provider_tool(provider, provider_tool(provider, [tracker])) == []  # type: ignore[arg-type]

    @pytest.mark.parametrize("provider", PROVIDERS)
    def test_all_together(self, provider: str) -> None:
        """All bundled trackers in one export (shared field names such as qty) pass too, but
        for the length of OpenAI's description: nine trackers' lines are over 1,024 characters."""
        tool = provider_tool(provider, BUNDLED)  # type: ignore[arg-type]
        found = [str(p) for p in check_provider_tool(provider, tool)]  # type: ignore[arg-type]
        if provider == "openai":
            length = len(tool["function"]["description"])
            assert found == [
                f"function.description: is {length:,} characters; OpenAI has refused tool "
                "descriptions over 1,024 characters (string_above_max_length); newer models may "
                "take it (to be safe, link fewer trackers or shorten their field meanings)"
            ]
        else:
            assert found == []

    def test_openai_refuses_a_description_over_1024_characters(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A wire trial: OpenAI answers 400 `string_above_max_length` to eval-flags' tool (1,339
        characters), and nothing said so; `export` now warns of it (newer models may take it,
        so it exits 0), and 1,024 exactly passes."""
        tool = provider_tool("openai", _bundled(["health"]))
        tool["function"]["description"] = "x" * 1024
        assert check_provider_tool("openai", tool) == []
        tool["function"]["description"] += "x"
        assert [p.path for p in check_provider_tool("openai", tool)] == ["function.description"]
        from trackerkit.cli import main

        scene = Path(__file__).parents[2] / "data" / "scenes" / "eval-flags.json"
        assert main(["export", "--to", "openai", str(scene)]) == 0
        err = capsys.readouterr().err
        assert (
            "trackerkit: warning: OpenAI may refuse this tool: function.description: is 1,339 "
            "characters" in err
        )

    def test_the_schemas_are_json_schema(self) -> None:
        """OpenAI's and Anthropic's parameters are valid JSON Schema (draft 2020-12)."""
        jsonschema.Draft202012Validator.check_schema(strict_parameters(BUNDLED))
        jsonschema.Draft202012Validator.check_schema(anthropic_tool(BUNDLED)["input_schema"])
        declaration = gemini_tool(BUNDLED)["functionDeclarations"][0]
        jsonschema.Draft202012Validator.check_schema(
            _gemini_as_json_schema(declaration["parameters"])
        )


class TestShapes:
    """What each export sends, on the Health and Inventory trackers."""

    TRACKERS = _bundled(["health", "inventory"])

    def test_openai_is_strict_with_every_field_listed(self) -> None:
        """`set` lists every field, all required and nullable; null rides in a choice's enum too (TR-35)."""
        tool = openai_tool(self.TRACKERS)
        function = tool["function"]
        assert tool["type"] == "function"
        assert function["strict"] is True
        assert function["name"] == "update_trackers"
        item = function["parameters"]["properties"]["updates"]["items"]
        assert item["required"] == ["tracker", "row", "remove", "set"]
        assert item["properties"]["tracker"] == {"type": "string", "enum": ["Health", "Inventory"]}
        fields = item["properties"]["set"]
        assert fields["required"] == ["hp", "hp_max", "mood", "qty", "weight", "equipped", "notes"]
        assert fields["additionalProperties"] is False
        assert fields["properties"]["mood"] == {
            "type": ["string", "null"],
            "enum": ["calm", "tense", None],
        }
        assert fields["properties"]["weight"] == {"type": ["number", "null"]}

    def test_ranges_are_in_the_description_not_the_schema(self) -> None:
        """No export carries minimum or maximum: the tracker lines say them, the clamps hold them (TR-13)."""
        for provider in PROVIDERS:
            text = json.dumps(provider_tool(provider, self.TRACKERS))  # type: ignore[arg-type]
            assert '"minimum"' not in text
            assert '"maximum"' not in text
            assert "weight (number 0-500: Weight of one, in pounds.)" in text

    def test_strict_description(self) -> None:
        """The strict description is the fixed sentence, the null rule, then one line per tracker (TR-36)."""
        description = openai_tool(self.TRACKERS)["function"]["description"]
        assert description.split("\n") == [
            f"{TOOL_SENTENCE} {STRICT_SENTENCE}",
            *(tracker_line(t) for t in self.TRACKERS),
        ]

    def test_anthropic_is_the_line_tool(self) -> None:
        """Anthropic takes the line-per-tracker tool as it is, under input_schema."""
        line = update_trackers_tool(self.TRACKERS)
        assert anthropic_tool(self.TRACKERS) == {
            "name": line.name,
            "description": line.description,
            "input_schema": line.parameters,
        }

    def test_gemini_uses_nullable_and_no_additional_properties(self) -> None:
        """Gemini gets one type per schema with nullable, and no additionalProperties anywhere."""
        declaration = gemini_tool(self.TRACKERS)["functionDeclarations"][0]
        item = declaration["parameters"]["properties"]["updates"]["items"]
        assert item["properties"]["row"] == {"type": "string", "nullable": True}
        assert item["properties"]["set"]["properties"]["mood"] == {
            "type": "string",
            "enum": ["calm", "tense"],
            "nullable": True,
        }
        assert "additionalProperties" not in json.dumps(declaration)

    def test_a_record_only_export_has_no_row(self) -> None:
        """With no list linked, row and remove are left out of every item."""
        item = strict_parameters(_bundled(["health"]))["properties"]["updates"]["items"]
        assert item["required"] == ["tracker", "set"]

    def test_a_shared_name_of_two_types_takes_both(self) -> None:
        """A field name that is a number in one tracker and text in another takes either, or null."""
        a = decode_tracker(
            {"id": "a", "name": "A", "description": "", "body": {"layout": "record", "note": "",
             "fields": [{"name": "x", "description": "", "type": "number"}]}}
        )  # fmt: skip
        b = decode_tracker(
            {"id": "b", "name": "B", "description": "", "body": {"layout": "record", "note": "",
             "fields": [{"name": "x", "description": "", "type": "text"}]}}
        )  # fmt: skip
        fields = strict_parameters([a, b])["properties"]["updates"]["items"]["properties"]["set"]
        assert fields["properties"]["x"] == {"type": ["number", "string", "null"]}
        gemini = gemini_tool([a, b])["functionDeclarations"][0]["parameters"]
        gem_x = gemini["properties"]["updates"]["items"]["properties"]["set"]["properties"]["x"]
        assert gem_x == {"anyOf": [{"type": "number"}, {"type": "string"}], "nullable": True}
        assert check_openai(openai_tool([a, b])) == []
        assert check_gemini(gemini_tool([a, b])) == []

    def test_the_name_is_numbered_past_taken_ones(self) -> None:
        """Every export numbers the tool past a taken name (TR-34)."""
        taken = ["update_trackers"]
        assert openai_tool(self.TRACKERS, taken)["function"]["name"] == "update_trackers_2"
        assert anthropic_tool(self.TRACKERS, taken)["name"] == "update_trackers_2"
        declaration = gemini_tool(self.TRACKERS, taken)["functionDeclarations"][0]
        assert declaration["name"] == "update_trackers_2"


class TestCheckers:
    """Each checker finds every broken rule, with its path."""

    TRACKERS = _bundled(["health", "inventory"])

    def _openai(self) -> dict[str, Any]:
        return copy.deepcopy(openai_tool(self.TRACKERS))

    def test_openai_rules(self) -> None:
        """Not strict, an open object, a missing required, allOf and a root anyOf are each named."""
        tool = self._openai()
        function = tool["function"]
        function["strict"] = False
        function["name"] = "update trackers!"
        item = function["parameters"]["properties"]["updates"]["items"]
        item["properties"]["set"]["additionalProperties"] = True
        item["required"].remove("row")
        item["properties"]["row"]["allOf"] = [{"type": "string"}]
        function["parameters"]["anyOf"] = [{"type": "boolean"}]
        items = "function.parameters.properties.updates.items"
        found = {(p.path, p.message.split(";")[0]) for p in check_openai(tool)}
        assert found == {
            ("function.name", "must match ^[a-zA-Z0-9_-]{1,64}$"),
            ("function.strict", "must be true for strict mode"),
            ("function.parameters.anyOf", "is refused at the root"),
            (f"{items}.properties.set.additionalProperties", "must be false on every object in strict mode"),
            (f"{items}.required", 'must list every property in strict mode (an optional one is typed with "null")'),
            (f"{items}.properties.row.allOf", "is not supported in strict mode"),
        }  # fmt: skip

    def test_openai_limits(self) -> None:
        """More than 1,000 enum values in all, or nesting past 10 levels, is refused."""
        tool = self._openai()
        schema = tool["function"]["parameters"]
        schema["properties"]["many"] = {"type": "string", "enum": [str(i) for i in range(1001)]}
        schema["required"].append("many")
        deep: dict[str, Any] = {"type": "string"}
        for _ in range(11):
            deep = {
                "type": "object",
                "properties": {"d": deep},
                "required": ["d"],
                "additionalProperties": False,
            }
        schema["properties"]["deep"] = deep
        schema["required"].append("deep")
        messages = [p.message for p in check_openai(tool)]
        assert "has 1,006 enum values; strict mode allows 1,000" in messages  # 1,001 + 5 already
        assert [m for m in messages if m.startswith("is nested")] == [
            "is nested 11 levels deep; strict mode allows 10"
        ]

    def test_openai_nullable_enum_needs_null(self) -> None:
        """A nullable enum without null in it could never send null, so it is named."""
        tool = self._openai()
        item = tool["function"]["parameters"]["properties"]["updates"]["items"]
        item["properties"]["set"]["properties"]["mood"]["enum"] = ["calm", "tense"]
        problems = check_openai(tool)
        assert [p.path.rsplit(".", 2)[-2:] for p in problems] == [["mood", "enum"]]

    def test_anthropic_rules(self) -> None:
        """A bad name, an unknown key and a non-object root are each named."""
        tool = copy.deepcopy(anthropic_tool(self.TRACKERS))
        tool["name"] = "x" * 65
        tool["parameters"] = {}
        tool["input_schema"]["type"] = "array"
        paths = [p.path for p in check_anthropic(tool)]
        assert paths == ["name", "", "input_schema"]
        assert check_anthropic({"name": "t"}) == [
            check_anthropic({"name": "t"})[0],
        ]
        assert check_anthropic({"name": "t"})[0].path == "input_schema"

    def test_gemini_rules(self) -> None:
        """additionalProperties, type arrays, const, $ref, number enums and bad names are named."""
        tool = copy.deepcopy(gemini_tool(self.TRACKERS))
        declaration = tool["functionDeclarations"][0]
        declaration["name"] = "9lives"
        set_ = declaration["parameters"]["properties"]["updates"]["items"]["properties"]["set"]
        set_["additionalProperties"] = False
        set_["properties"]["hp"] = {"type": ["number", "null"]}
        set_["properties"]["mood"]["const"] = "calm"
        set_["properties"]["qty"] = {"$ref": "#/$defs/qty"}
        set_["properties"]["weight"] = {"type": "number", "enum": [1, 2]}
        at = "functionDeclarations[0].parameters.properties.updates.items.properties.set"
        found = {(p.path, p.message.split(";")[0]) for p in check_gemini(tool)}
        assert found == {
            ("functionDeclarations[0].name", "must match a letter or _, then letters, digits, _ . : or -, 64 at most"),
            (f"{at}.additionalProperties", "is not in Gemini's schema subset (OpenAPI 3.0)"),
            (f"{at}.properties.hp.type", "must be one type (use nullable: true for null)"),
            (f"{at}.properties.mood.const", "is not in Gemini's schema subset (OpenAPI 3.0)"),
            (f"{at}.properties.qty.$ref", "is not in Gemini's schema subset (OpenAPI 3.0)"),
            (f"{at}.properties.qty", "has no type"),
            (f"{at}.properties.weight.enum", "must list strings only"),
        }  # fmt: skip

    @pytest.mark.parametrize("provider", PROVIDERS)
    @pytest.mark.parametrize(
        "tool",
        [None, [], "tool", {"type": "function", "function": 3}, {"functionDeclarations": [7]}],
        ids=["null", "list", "text", "bad-function", "bad-declaration"],
    )
    def test_garbage_is_problems_not_a_crash(self, provider: str, tool: object) -> None:
        """A checker reads anything and answers with problems, never an exception."""
        assert check_provider_tool(provider, tool) != []  # type: ignore[arg-type]


class TestGenerated:
    """Generated trackers: every export passes its checker, and strict calls do what line calls do."""

    @settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(linked(max_trackers=3, max_fields=5))
    def test_every_export_passes_its_checker(self, trackers: list[Tracker]) -> None:
        """1,000 generated sets of linked trackers pass OpenAI's, Anthropic's and Gemini's rules;
        the one OpenAI rule a large set may break is the description's 1,024 characters, and the
        checker says so exactly when the description is longer (a real limit, told on export)."""
        tool = openai_tool(trackers)
        long = len(tool["function"]["description"]) > 1024
        problems = check_openai(tool)
        assert [p.where for p in problems] == ([("function", "description")] if long else [])
        assert check_anthropic(anthropic_tool(trackers)) == []
        assert check_gemini(gemini_tool(trackers)) == []

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_strict_call_does_what_the_line_call_does(self, data: st.DataObject) -> None:
        """A batch sent through a strict export (every field, null when not given) validates and applies the same (TR-37)."""
        trackers = data.draw(linked())
        state = data.draw(stored_states(trackers))
        arguments = {"updates": data.draw(batches(trackers))}
        strict = strict_arguments(trackers, arguments)
        jsonschema.validate(strict, strict_parameters(trackers))
        declaration = gemini_tool(trackers)["functionDeclarations"][0]
        jsonschema.validate(strict, _gemini_as_json_schema(declaration["parameters"]))
        jsonschema.validate(arguments, anthropic_tool(trackers)["input_schema"])
        plain = apply_tracker_updates(trackers, state, arguments)
        through_strict = apply_tracker_updates(trackers, state, strict, null_is_absent=True)
        assert through_strict == plain


class TestNullIsAbsent:
    """The reader treats null as not given only for calls made through a strict export (TR-37)."""

    TRACKERS = _bundled(["health", "inventory"])

    def test_null_is_refused_elsewhere(self) -> None:
        """Without the switch a null value is the wrong type, and nothing is written."""
        result = apply_tracker_updates(
            self.TRACKERS, {}, {"updates": [{"tracker": "Health", "set": {"hp": 3, "mood": None}}]}
        )
        assert not result.ok
        assert "mood" in result.answer

    def test_null_is_not_given_through_a_strict_export(self) -> None:
        """With the switch the null fields are left alone and the others written."""
        call = {"tracker": "Health", "row": None, "remove": None, "set": {"hp": 3, "mood": None}}
        result = apply_tracker_updates(self.TRACKERS, {}, {"updates": [call]}, null_is_absent=True)
        assert result.ok
        assert result.answer == "Health: hp 0 -> 3"

    def test_a_remove_with_a_set_of_nulls(self) -> None:
        """A strict remove sends set with every field null, which is no set at all."""
        state = {"tracker-list:inventory": {"Rope": {"qty": 1}}}
        call = {"tracker": "Inventory", "row": "rope", "remove": True, "set": {"qty": None}}
        result = apply_tracker_updates(
            self.TRACKERS, state, {"updates": [call]}, null_is_absent=True
        )
        assert result.ok
        assert result.answer == 'Inventory: removed row "Rope"'


class TestCosts:
    """Each export's token cost beside the others, in both OpenAI encodings."""

    def test_costs_of_the_typical_scene(self) -> None:
        """Every export is counted as the compact JSON of its tools entry; strictness costs more."""
        trackers = _bundled(["health", "pack", "scene-mood"])
        costs = {c.key: c for c in export_costs(trackers)}
        assert list(costs) == ["tool", "anyof", "openai", "anthropic", "gemini"]
        sent = json.dumps(openai_tool(trackers), ensure_ascii=False, separators=(",", ":"))
        assert costs["openai"].tokens == {
            "cl100k_base": count_tokens(sent, "cl100k_base"),
            "o200k_base": count_tokens(sent, "o200k_base"),
        }
        for encoding in ("cl100k_base", "o200k_base"):
            assert costs["openai"].tokens[encoding] > costs["tool"].tokens[encoding]
            assert costs["gemini"].tokens[encoding] > costs["anthropic"].tokens[encoding]
        assert "estimate" in costs["anthropic"].label
        assert "estimate" in costs["gemini"].label
