"""Variants: read strictly from a file, and the anyOf tool style offered in place of the lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.noisy import serving_noisy
from trackerkit.evaluation.variants import Variant, read_variants

SCENES = Path(__file__).resolve().parents[2] / "data" / "scenes"
FIGHT = SCENES / "fight.json"


def test_read_variants(tmp_path: Path) -> None:
    """Keys as documented; a relative trackers folder is read from the file's folder."""
    path = tmp_path / "v.json"
    path.write_text(
        json.dumps(
            [
                {
                    "name": "local",
                    "model": "openai",
                    "base_url": "http://127.0.0.1:11434/v1",
                    "model_name": "q",
                },
                {"name": "other design", "trackers": "designs/b", "tool_style": "anyOf"},
            ]
        )
    )
    local, other = read_variants(path)
    assert local.model == "openai"
    assert local.api_key_env == "OPENAI_API_KEY"
    assert other.trackers == tmp_path / "designs" / "b"
    assert other.tool_style == "anyOf"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([{"name": "a", "api_key": "sk-1"}], "variants[0].api_key: is not a known key"),
        ([{"name": "a", "model": "openai"}], "needs base_url"),
        # A new-user trial: pydantic's "String should have at least 1 character".
        ([{"name": ""}], "variants[0].name: must not be empty"),
        ([{"name": "a"}, {"name": "a"}], "two variants are named 'a'"),
        ([], "lists no variant"),
        ({"name": "a"}, "variants: must be a list"),
        # Found when tried: pydantic's "Input is not a valid path for <class 'pathlib.Path'>".
        (
            [{"name": "a", "trackers": ["designs/a"]}],
            'variants[0].trackers: must be the path of a tracker folder, as text (such as "data/trackers"); found a list',
        ),
        (
            [{"name": "a", "trackers": 3}],
            "variants[0].trackers: must be the path of a tracker folder",
        ),
    ],
)
def test_bad_variants(tmp_path: Path, content: object, message: str) -> None:
    """Each problem named, after the file's path."""
    path = tmp_path / "v.json"
    path.write_text(json.dumps(content))
    with pytest.raises(BadRequestError, match=re.escape(message)) as caught:
        read_variants(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_anyof_tool_style() -> None:
    """The model is offered the anyOf design under the same name; the calls run and score the same."""
    with serving_noisy([FIGHT]) as server:
        lines = Variant(name="lines", model="openai", base_url=server.url, model_name="n")
        results = evaluate([FIGHT], [lines])
        assert "anyOf" not in json.dumps(server.first_tools)
    with serving_noisy([FIGHT]) as server:
        anyof = Variant(
            name="anyOf", model="openai", base_url=server.url, model_name="n", tool_style="anyOf"
        )
        both = evaluate([FIGHT], [anyof, Variant(name="scripted-anyOf", tool_style="anyOf")])
        assert server.first_tools is not None
        assert server.first_tools[0]["function"]["name"] == "update_trackers"
        assert "anyOf" in json.dumps(server.first_tools)
    assert both.turns["joint"].all()
    assert results.turns["joint"].all()
    # The anyOf design costs more prompt tokens than one line per tracker (TR-36).
    mine = both.turns[both.turns["variant"] == "anyOf"]["tokens_in"].to_numpy()
    assert (mine > results.turns["tokens_in"].to_numpy()).all()


def test_the_anyof_tool_is_counted_as_the_session_counts_its_own() -> None:
    """Found when tried: on the scripted model both styles showed the same tokens in (the style
    was ignored), and on a server without `usage` the two were counted two different ways. Now a
    scripted anyOf variant is offered the anyOf tool, and with no `usage` its tokens in are the
    session's count with the tool swapped: each round differs by exactly the two tools' tokens."""
    from trackerkit.evaluation.tool_style import AnyOfTools
    from trackerkit.library import Library
    from trackerkit.simulate.completion import ModelReply, ModelRequest
    from trackerkit.tokens import count_tool_tokens
    from trackerkit.tool import anyof_parameters, update_trackers_tool

    library = Library(SCENES.parent / "trackers")
    trackers = [library.get("health"), library.get("stamina")]  # fight's links
    lines_tool = update_trackers_tool(trackers)
    anyof_tool = anyof_parameters(trackers)
    difference = count_tool_tokens(
        anyof_tool.name, anyof_tool.description, anyof_tool.parameters
    ) - count_tool_tokens(lines_tool.name, lines_tool.description, lines_tool.parameters)
    assert difference > 0

    class Quiet:
        name = "quiet"

        def complete(self, request: ModelRequest) -> ModelReply:
            return ModelReply("ok", (), "stop")

    reply = AnyOfTools(Quiet(), trackers).complete(
        ModelRequest([{"role": "user", "content": "hi"}], [lines_tool.to_openai()], counted=1000)
    )
    assert reply.usage_in == 1000 + difference

    both = evaluate([FIGHT], [Variant(name="lines"), Variant(name="anyOf", tool_style="anyOf")])
    assert both.turns["failed"].eq("").all()
    assert both.turns["joint"].all()
    by_style = both.turns.pivot_table(
        index=["scenario", "step"], columns="variant", values="tokens_in"
    )
    extra = by_style["anyOf"] - by_style["lines"]
    assert (extra > 0).all()
    assert (extra % difference == 0).all()  # a whole number of rounds, each with the tool


def test_nothing_to_evaluate_is_refused(tmp_path: Path) -> None:
    """Found when tried: `evaluate(scenes, [])` scored the scripted model no one asked for, and
    `evaluate([])` returned empty results on which the figures failed with numpy's errors."""
    from trackerkit.evaluation.results import read_results

    with pytest.raises(BadRequestError, match="no variant to evaluate"):
        evaluate([FIGHT], [])
    with pytest.raises(BadRequestError, match="no scenario to evaluate"):
        evaluate([], None)
    text = tmp_path / "x.jsonl"
    text.write_text('{"a": 1}\n')
    with pytest.raises(ValueError, match="is not a trackerkit evaluation's results"):
        read_results(text)


@pytest.mark.parametrize("url", ["127.0.0.1:11434/v1", "localhost/v1", "ftp://host/v1"])
def test_a_base_url_without_http_is_refused_when_the_variant_is_made(url: str) -> None:
    """A wire trial: the page played every variant, then failed all of the endpoint's turns."""
    with pytest.raises(BadRequestError, match="is not an http\\(s\\) address"):
        Variant(name="endpoint", model="openai", base_url=url)
    assert (
        Variant(name="endpoint", model="openai", base_url="https://h/v1").base_url == "https://h/v1"
    )


class TestVariantMadeInPython:
    """A new-user trial: `Variant(...)` with a wrong value raised pydantic's ValidationError, in
    pydantic's words with an errors.pydantic.dev link; it says it as a variants file does."""

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            (
                {"name": "s", "tool_style": "xml"},
                "Variant.tool_style: must be 'lines', 'anyOf', 'strict' or 'gemini'; found the "
                'text "xml"',
            ),
            (
                {"name": "o", "model": "openai"},
                "Variant: a variant with model openai needs base_url (the API root)",
            ),
            ({"name": ""}, "Variant.name: must not be empty"),
            ({"name": "k", "api_key": "sk-1"}, "Variant.api_key: is not a known key"),
        ],
        ids=["tool-style", "no-base-url", "empty-name", "unknown-key"],
    )
    def test_refused_in_the_toolkits_words(self, options: dict[str, object], message: str) -> None:
        """A BadRequestError, each problem after its path from `Variant`."""
        with pytest.raises(BadRequestError) as caught:
            Variant(**options)  # type: ignore[arg-type]
        assert str(caught.value) == message


class TestEvaluateTakesVariants:
    """A new-user trial: `evaluate([...], ["scripted"])` raised `AttributeError: 'str' object
    has no attribute 'name'`."""

    @pytest.mark.parametrize(
        ("variants", "message"),
        [
            (
                ["scripted"],
                'variants must be Variant objects; found the text "scripted" at variants[0]',
            ),
            ([Variant(name="a"), 3], "variants must be Variant objects; found 3 at variants[1]"),
            ("scripted", 'variants must be a list of Variant objects; found the text "scripted"'),
            (
                Variant(name="a"),
                "variants must be a list of Variant objects; found one Variant (put it in a list)",
            ),
        ],
        ids=["text", "number", "text-alone", "variant-alone"],
    )
    def test_what_is_no_variant_is_refused(self, variants: object, message: str) -> None:
        """Refused before anything plays, naming where it is."""
        with pytest.raises(BadRequestError, match=re.escape(message)):
            evaluate([FIGHT], variants, trace=None)  # type: ignore[arg-type]

    def test_a_variants_missing_folder_names_the_variant(self, tmp_path: Path) -> None:
        """The refusal of a variant's own tracker folder says which variant gave it."""
        nowhere = tmp_path / "nope"
        with pytest.raises(NotFoundError) as caught:
            evaluate([FIGHT], [Variant(name="a"), Variant(name="b", trackers=nowhere)])
        assert str(caught.value) == (
            f"variants[1].trackers: the tracker folder {nowhere} does not exist (scene fight "
            "links health, stamina)"
        )
