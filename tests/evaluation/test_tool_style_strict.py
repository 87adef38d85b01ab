"""The strict tool styles: a variant offered the tool `export --to openai` or `--to gemini` writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.noisy import Noise, serving_noisy
from trackerkit.evaluation.tool_style import (
    StrictTools,
    strict_parameters_offered,
    strict_shape,
)
from trackerkit.evaluation.variants import Variant, read_variants
from trackerkit.formats.providers import gemini_tool, openai_tool, strict_arguments
from trackerkit.library import Library
from trackerkit.simulate.completion import ModelReply, ModelRequest, ToolCall
from trackerkit.simulate.model import ScriptedModel
from trackerkit.simulate.session import Session
from trackerkit.tokens import count_tool_tokens
from trackerkit.tool import TOOL_NAME, update_trackers_tool
from trackerkit.tracker import Tracker
from trackerkit.update import apply_tracker_updates

DATA = Path(__file__).resolve().parents[2] / "data"
FIGHT = DATA / "scenes" / "fight.json"
QUIET = DATA / "scenes" / "eval-quiet.json"
STYLES = ("strict", "gemini")


def _trackers(*ids: str) -> list[Tracker]:
    library = Library(DATA / "trackers")
    return [library.get(i) for i in ids]


def _offered(style: str, trackers: list[Tracker]) -> dict[str, Any]:
    """The export a style offers, as a chat-completions `tools` entry."""
    if style == "strict":
        return openai_tool(trackers)
    return {"type": "function", "function": gemini_tool(trackers)["functionDeclarations"][0]}


def _tool_tokens(tool: dict[str, Any]) -> int:
    function = tool["function"]
    return count_tool_tokens(function["name"], function["description"], function["parameters"])


def _found(results: Any, variant: str) -> list[tuple[object, ...]]:
    fields = results.fields[results.fields["variant"] == variant]
    return list(
        fields[["scenario", "step", "tracker", "row", "field", "found"]].itertuples(index=False)
    )


class TestTheStyleIsOffered:
    @pytest.mark.parametrize("style", STYLES)
    def test_the_export_is_offered_under_the_update_tools_name(self, style: str) -> None:
        """The model is offered the export itself, in the update tool's place, others untouched."""
        trackers = _trackers("health", "stamina")
        seen: list[ModelRequest] = []

        class Quiet:
            name = "quiet"

            def complete(self, request: ModelRequest) -> ModelReply:
                seen.append(request)
                return ModelReply("ok", (), "stop")

        other = {"type": "function", "function": {"name": "look", "parameters": {}}}
        lines = update_trackers_tool(trackers).to_openai()
        StrictTools(Quiet(), trackers, style).complete(ModelRequest([], [lines, other]))
        assert seen[0].tools == [_offered(style, trackers), other]
        assert seen[0].tools[0]["function"]["name"] == TOOL_NAME

    @pytest.mark.parametrize("style", STYLES)
    def test_tokens_in_differ_by_exactly_the_two_tools(self, style: str) -> None:
        """With no `usage`, tokens in are the session's count with the tool swapped."""
        trackers = _trackers("health", "stamina")
        lines = update_trackers_tool(trackers).to_openai()
        difference = _tool_tokens(_offered(style, trackers)) - _tool_tokens(lines)
        assert difference > 0

        class Quiet:
            name = "quiet"

            def complete(self, request: ModelRequest) -> ModelReply:
                return ModelReply("ok", (), "stop")

        reply = StrictTools(Quiet(), trackers, style).complete(
            ModelRequest([{"role": "user", "content": "hi"}], [lines], counted=1000)
        )
        assert reply.usage_in == 1000 + difference

    @pytest.mark.parametrize("style", STYLES)
    def test_a_turn_without_calls_costs_exactly_the_tools_difference(self, style: str) -> None:
        """In an evaluation, a one-round turn's tokens in differ from the lines by the tools alone."""
        trackers = _trackers("health", "relationships")  # eval-quiet's links
        lines = update_trackers_tool(trackers).to_openai()
        difference = _tool_tokens(_offered(style, trackers)) - _tool_tokens(lines)
        both = evaluate([QUIET], [Variant(name="lines"), Variant(name=style, tool_style=style)])
        quiet = both.turns[both.turns["expect_no_call"]]
        assert len(quiet) >= 2 * 2
        by_style = quiet.pivot_table(index="step", columns="variant", values="tokens_in")
        assert (by_style[style] - by_style["lines"] == difference).all()


class TestTheCallsAreReadAsTheExportSays:
    @pytest.mark.parametrize("style", STYLES)
    def test_nulls_for_untouched_fields_change_only_the_given_ones(self, style: str) -> None:
        """A call with every field listed, null where not given, writes only the given fields."""
        strict = {
            "updates": [
                {
                    "tracker": "Health",
                    "set": {
                        "hp": 20,
                        "hp_max": None,
                        "mood": "tense",
                        "stamina": None,
                        "stamina_max": None,
                        "winded": None,
                    },
                },
                {
                    "tracker": "Stamina",
                    "set": dict.fromkeys(("hp", "hp_max", "mood", "stamina_max", "winded"))
                    | {"stamina": 7},
                },
            ]
        }

        class Strict:
            name = "strict"

            def complete(self, request: ModelRequest) -> ModelReply:
                if request.messages[-1]["role"] == "tool":
                    return ModelReply("Done.", (), "stop")
                call = ToolCall("c1", TOOL_NAME, json.dumps(strict))
                return ModelReply("", (call,), "tool_calls")

        trackers = _trackers("health", "stamina")
        session = Session.from_scene(FIGHT, StrictTools(Strict(), trackers, style))
        before = session.values()
        report = session.turn("A blow lands.")
        assert report.failed is None
        assert [c.ok for c in report.calls] == [True]
        assert json.loads(report.calls[0].arguments) == strict  # kept as the model sent it
        after = session.values()
        assert after["Health"] == {**before["Health"], "hp": 20, "mood": "tense"}
        assert after["Stamina"] == {**before["Stamina"], "stamina": 7}

    def test_the_same_call_is_refused_by_the_line_tool(self) -> None:
        """Only a strict variant reads null as absent: the line tool refuses a null (TR-37)."""
        session = Session.from_scene(FIGHT)
        call = {
            "name": TOOL_NAME,
            "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 20, "mood": None}}]},
        }
        report = session.turn("A blow lands.", {"rounds": [[call]], "reply": "Ow."})
        assert [c.ok for c in report.calls] == [False]


class TestScriptedAndNoisyCallsTakeTheStrictShape:
    @pytest.mark.parametrize(
        "arguments",
        [
            {"updates": [{"tracker": "Health", "set": {"hp": 3}}]},
            {"updates": [{"tracker": "Relationships", "row": "Mara", "set": {"trust": 20}}]},
            {"updates": [{"tracker": "Relationships", "row": "Mara", "remove": True}]},
            {"updates": [{"tracker": "Health"}, {"tracker": "Health", "set": None}]},
        ],
        ids=["record", "list row", "remove", "no set"],
    )
    def test_a_well_formed_call_takes_the_exports_shape(self, arguments: dict[str, Any]) -> None:
        """For a well-formed call the shape is `strict_arguments`', and it does the same."""
        trackers = _trackers("health", "relationships")
        for style in STYLES:
            parameters = _offered(style, trackers)["function"]["parameters"]
            shaped = strict_shape(arguments, parameters)
            assert shaped == strict_arguments(trackers, arguments)
        through = apply_tracker_updates(trackers, {}, shaped, null_is_absent=True)
        plain = apply_tracker_updates(trackers, {}, arguments)
        assert (through.ok, through.deltas, through.answer) == (
            plain.ok,
            plain.deltas,
            plain.answer,
        )

    @pytest.mark.parametrize(
        "arguments",
        [
            '{"updates": [',
            {"updates": "Health"},
            {"updates": ["Health"]},
            {"updates": [{"set": {"hp": 3}}]},
            {"updates": [{"tracker": "Health", "set": "hp=3"}]},
        ],
        ids=[
            "not JSON",
            "updates not a list",
            "item not an object",
            "no tracker",
            "set not an object",
        ],
    )
    def test_a_planned_mistake_is_sent_as_planned(self, arguments: object) -> None:
        """What is no call of items with a tracker and an object `set` stays as it was."""
        parameters = strict_parameters_offered([openai_tool(_trackers("health"))])
        assert parameters is not None
        assert strict_shape(arguments, parameters) == arguments

    def test_an_unknown_field_stays_unknown(self) -> None:
        """A field the tool does not list is kept, so the refusal a scenario plans still comes."""
        trackers = _trackers("health")
        parameters = openai_tool(trackers)["function"]["parameters"]
        shaped = strict_shape(
            {"updates": [{"tracker": "Health", "set": {"morale": "low"}}]}, parameters
        )
        assert shaped == {
            "updates": [
                {
                    "tracker": "Health",
                    "set": {"hp": None, "hp_max": None, "mood": None, "morale": "low"},
                }
            ]
        }

    def test_only_the_exports_are_strict(self) -> None:
        """The line tool and the anyOf tool are not read as strict exports."""
        from trackerkit.tool import anyof_parameters

        trackers = _trackers("health")
        assert strict_parameters_offered([update_trackers_tool(trackers).to_openai()]) is None
        assert strict_parameters_offered([anyof_parameters(trackers).to_openai()]) is None
        assert strict_parameters_offered([]) is None
        for style in STYLES:
            assert strict_parameters_offered([_offered(style, trackers)]) is not None

    @pytest.mark.parametrize("style", STYLES)
    def test_the_scripted_model_sends_its_plan_in_the_strict_shape(self, style: str) -> None:
        """A scripted strict variant's calls carry a null for every untouched field."""
        trackers = _trackers("health", "stamina")
        plan = {
            "rounds": [
                [
                    {
                        "name": TOOL_NAME,
                        "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 3}}]},
                    }
                ]
            ],
            "reply": "Ow.",
        }
        session = Session.from_scene(
            FIGHT, StrictTools(ScriptedModel(), trackers, style, fill_calls=True)
        )
        report = session.turn("A blow lands.", plan)
        assert json.loads(report.calls[0].arguments) == {
            "updates": [
                {
                    "tracker": "Health",
                    "set": {
                        "hp": 3,
                        "hp_max": None,
                        "mood": None,
                        "stamina": None,
                        "stamina_max": None,
                        "winded": None,
                    },
                }
            ]
        }
        assert report.calls[0].ok
        assert session.values()["Health"]["hp"] == 3

    @pytest.mark.parametrize("scene", [FIGHT, QUIET], ids=["fight", "quiet"])
    def test_a_scripted_strict_run_keeps_the_lines_values(self, scene: Path) -> None:
        """Played through the null handling, the scene ends each turn with the lines' values."""
        variants = [Variant(name="lines"), *(Variant(name=s, tool_style=s) for s in STYLES)]
        results = evaluate([scene], variants)
        assert results.turns["failed"].eq("").all()
        for style in STYLES:
            assert _found(results, style) == _found(results, "lines")
            mine = results.turns[results.turns["variant"] == style]
            lines = results.turns[results.turns["variant"] == "lines"]
            assert mine["refused_calls"].tolist() == lines["refused_calls"].tolist()
            assert mine["joint"].tolist() == lines["joint"].tolist()
            # The nulls are sent: every turn with a call costs more tokens out.
            called = lines["update_calls"].to_numpy() > 0
            assert (
                mine["tokens_out"].to_numpy()[called] > lines["tokens_out"].to_numpy()[called]
            ).all()

    @pytest.mark.parametrize("style", STYLES)
    def test_the_noisy_model_sends_nulls_to_a_strict_tool(self, style: str) -> None:
        """The loopback answers a strict tool with a null for every field not given."""
        trackers = _trackers("health", "stamina")
        body = {"messages": [{"role": "user", "content": "go"}]}
        with serving_noisy([FIGHT]) as server:
            tag = "scenario=fight;step=0;run=0"
            _, strict, _ = server.answer(tag, {**body, "tools": [_offered(style, trackers)]})
            _, lines, _ = server.answer(
                tag, {**body, "tools": [update_trackers_tool(trackers).to_openai()]}
            )
        sent = [
            json.loads(c["function"]["arguments"])
            for c in strict["choices"][0]["message"]["tool_calls"]
        ]
        planned = [
            json.loads(c["function"]["arguments"])
            for c in lines["choices"][0]["message"]["tool_calls"]
        ]
        assert planned == [{"updates": [{"tracker": "Health", "set": {"hp_max": 30, "hp": 30}}]}]
        assert sent == [strict_arguments(trackers, planned[0])]

    @pytest.mark.parametrize("style", STYLES)
    def test_the_noisy_model_answers_in_the_shape_it_is_offered(self, style: str) -> None:
        """The loopback's spoiled calls, sent in the strict shape, score as its line calls do."""
        noise = Noise(miss=0.3, off_by_one=0.3, extra_write=0.3, malformed=0.2, seed=4)
        found = {}
        for name in ("lines", style):
            with serving_noisy([FIGHT, QUIET], noise) as server:
                variant = Variant(
                    name=name, model="openai", base_url=server.url, model_name="n", tool_style=name
                )
                results = evaluate([FIGHT, QUIET], [variant])
                assert server.injected
                assert (strict_parameters_offered(server.first_tools or []) is None) == (
                    name == "lines"
                )
            assert results.turns["failed"].eq("").all()
            found[name] = _found(results, name)
            if name != "lines":
                assert not results.turns["joint"].all()  # the noise shows
        assert found[style] == found["lines"]


class TestTheVariantsFile:
    def test_strict_and_gemini_are_styles(self, tmp_path: Path) -> None:
        """A variants file may name the two exports' styles."""
        path = tmp_path / "v.json"
        path.write_text(json.dumps([{"name": s, "tool_style": s} for s in STYLES]))
        assert [v.tool_style for v in read_variants(path)] == list(STYLES)

    def test_an_unknown_style_is_refused_naming_the_styles(self, tmp_path: Path) -> None:
        """The message names the path, what was found and every style there is."""
        path = tmp_path / "v.json"
        path.write_text(json.dumps([{"name": "a", "tool_style": "openai"}]))
        with pytest.raises(BadRequestError) as caught:
            read_variants(path)
        assert str(caught.value) == (
            f"{path}: variants[0].tool_style: must be 'lines', 'anyOf', 'strict' or 'gemini'; "
            'found the text "openai"'
        )

    def test_the_text_protocol_offers_no_tool_to_swap(self) -> None:
        """Under the text protocol no tool is sent, so the model is not wrapped (another style
        is refused there: see test_eval3_expectations)."""
        variant = Variant(name="t", protocol="text")
        assert isinstance(variant.make_model(_trackers("health")), ScriptedModel)
