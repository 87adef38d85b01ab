"""What the update tool costs for the typical scene, against the seed's finding (TR-36).

Measured with cl100k_base (the bundled offline encoding) on `data/scenes/typical.json`
(Health: a record with hp out of hp_max and a choice; Pack: a list; Scene: a record of two
choices), counting the JSON a client sends for the tool (type, name, description, parameters):

    tool (description + parameters)   305 tokens   (seed: about 280)
    tool without the field meanings   272 tokens   (seed: about 200)
    anyOf alternative in the schema   387 tokens   (seed: about 430)

The shape of the seed's finding holds: lines cost less than the anyOf, and leaving the meanings
out costs less again. Exact counts are pinned in `tests/golden/typical/tokens.json`; this module
checks the shape and a generous band around the seed's numbers.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import DATA_TRACKERS, REPO

from trackerkit.prompt import tool_token_costs
from trackerkit.scene import load_linked, load_scene, source_for
from trackerkit.tokens import count_tokens, count_tool_tokens, tool_json
from trackerkit.tool import anyof_parameters, tracker_line, update_trackers_tool

SCENE = load_scene(REPO / "data" / "scenes" / "typical.json")
TRACKERS = load_linked(SCENE, source_for(DATA_TRACKERS)).trackers


@pytest.fixture(scope="module")
def costs() -> dict[str, Any]:
    """The typical scene's tool costs, counted once."""
    return tool_token_costs(TRACKERS)


class TestTypicalScene:
    """TR-36 on the bundled three-tracker scene."""

    def test_scene_is_the_typical_three(self) -> None:
        """The scene links a record with a top, a list, and a record with choices."""
        assert [(t.name, t.layout) for t in TRACKERS] == [
            ("Health", "record"),
            ("Pack", "list"),
            ("Scene", "record"),
        ]
        assert TRACKERS[0].fields[0].max_field == "hp_max"  # type: ignore[union-attr]

    def test_lines_cost_less_than_anyof(self, costs: dict[str, Any]) -> None:
        """The description lines cost less than giving each tracker's fields as an anyOf."""
        assert costs["tool"] < costs["anyof"]

    def test_meanings_cost_something(self, costs: dict[str, Any]) -> None:
        """The tool without field meanings costs less than the tool with them."""
        assert costs["without_meanings"] < costs["tool"]

    @pytest.mark.parametrize(
        ("key", "low", "high"),
        [("tool", 200, 400), ("without_meanings", 150, 320), ("anyof", 300, 560)],
        ids=["tool-about-280", "without-meanings-about-200", "anyof-about-430"],
    )
    def test_in_the_seeds_neighbourhood(
        self, costs: dict[str, Any], key: str, low: int, high: int
    ) -> None:
        """Each count lies in a generous band around the seed's figure."""
        assert low <= costs[key] <= high

    def test_counts_are_the_json_a_client_sends(self, costs: dict[str, Any]) -> None:
        """Each cost is `count_tokens` of the tool's JSON, named with its encoding."""
        full = update_trackers_tool(TRACKERS)
        bare = update_trackers_tool(TRACKERS, meanings=False)
        alt = anyof_parameters(TRACKERS)
        assert costs["encoding"] == "cl100k_base"
        for key, tool in [("tool", full), ("without_meanings", bare), ("anyof", alt)]:
            sent = tool_json(tool.name, tool.description, tool.parameters)
            assert (
                costs[key]
                == count_tokens(sent)
                == count_tool_tokens(tool.name, tool.description, tool.parameters)
            )
        assert costs["lines"] == {t.name: count_tokens(tracker_line(t)) for t in TRACKERS}

    def test_every_field_reaches_the_model(self) -> None:
        """The description names every field of every tracker and each note: nothing is cut."""
        description = update_trackers_tool(TRACKERS).description
        for tracker in TRACKERS:
            assert tracker_line(tracker) in description.splitlines()
            for field in tracker.fields:
                assert f"{field.name} (" in description
