"""The text protocol as an evaluation variant (issue 17, item 4): tools and text side by side."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.noisy import Noise, serving_noisy
from trackerkit.evaluation.variants import Variant, read_variants

SCENES = Path(__file__).resolve().parents[2] / "data" / "scenes"


def _retries(path: Path) -> list[int]:
    """The indexes of the steps whose plan sends a second round (a refused batch sent again)."""
    steps = json.loads(path.read_text("utf-8")).get("turns", [])
    return [i for i, s in enumerate(steps) if len(s.get("rounds", [])) > 1]


PLAYED = [p for p in sorted(SCENES.glob("*.json")) if json.loads(p.read_text("utf-8")).get("turns")]
SINGLE_ROUND = [p for p in PLAYED if not _retries(p)]
TOOLS = Variant(name="tools")
TEXT = Variant(name="text", protocol="text")


def test_the_scripted_model_scores_every_turn_on_the_text_protocol() -> None:
    """Scenarios without a retried batch: 100% joint accuracy under both protocols, side by side."""
    assert len(SINGLE_ROUND) >= 6
    results = evaluate(SINGLE_ROUND, [TOOLS, TEXT])
    turns = results.turns
    assert set(turns["variant"]) == {"tools", "text"}
    assert turns.groupby("variant")["joint"].all().to_dict() == {"text": True, "tools": True}
    assert turns.groupby("variant").size()["text"] == turns.groupby("variant").size()["tools"]
    table = results.table()
    joint = table.loc["joint_accuracy"]
    assert joint["text (free)"].startswith("1 [")
    assert joint["tools (free)"].startswith("1 [")


def test_forced_mode_scores_every_single_round_step_alike() -> None:
    """Each turn from the expected state: only the retried batches differ, and by design."""
    results = evaluate(PLAYED, [TOOLS, TEXT], mode="forced")
    turns = results.turns
    tools = turns[turns["variant"] == "tools"].set_index(["scenario", "step"])
    text = turns[turns["variant"] == "text"].set_index(["scenario", "step"])
    assert tools["joint"].all()
    retried = {(p.stem, i) for p in PLAYED for i in _retries(p)}
    scenario_ids = {p.stem: json.loads(p.read_text("utf-8"))["id"] for p in PLAYED}
    retried = {(scenario_ids[s], i) for s, i in retried}
    assert retried
    for key, row in text.iterrows():
        if key in retried:
            # The first round's batch is refused and the turn writes nothing; no second round.
            assert not row["joint"], key
            assert row["refused_calls"] == 1
            assert row["update_calls"] == 1
        else:
            assert row["joint"], key
            assert row["update_calls"] == tools.loc[key, "update_calls"], key
            assert row["refused_calls"] == tools.loc[key, "refused_calls"], key


def test_a_variants_file_takes_the_protocol(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text(json.dumps([{"name": "t"}, {"name": "x", "protocol": "text"}]))
    tools, text = read_variants(path)
    assert (tools.protocol, text.protocol) == ("tools", "text")
    path.write_text(json.dumps([{"name": "x", "protocol": "smoke"}]))
    with pytest.raises(BadRequestError, match=re.escape("variants[0].protocol")):
        read_variants(path)


def _endpoint(url: str, name: str, protocol: str) -> Variant:
    return Variant(name=name, model="openai", base_url=url, model_name="noisy", protocol=protocol)  # type: ignore[arg-type]


def test_an_endpoint_on_the_text_protocol_side_by_side_with_tools() -> None:
    """The loopback noisy model with no noise: both protocols score every single-round turn, and no tool is sent under text."""
    with serving_noisy(SINGLE_ROUND) as server:
        results = evaluate(
            SINGLE_ROUND,
            [_endpoint(server.url, "tools", "tools"), _endpoint(server.url, "text", "text")],
            concurrency=4,
        )
    turns = results.turns
    assert turns.groupby("variant")["joint"].all().to_dict() == {"text": True, "tools": True}
    calls = turns.groupby("variant")["update_calls"].sum()
    assert calls["text"] == calls["tools"] > 0


def test_a_malformed_block_is_a_refused_batch_not_retried() -> None:
    """Malformed arguments every turn: the tool path corrects them in a second round, the text protocol cannot."""
    scenes = [SCENES / "eval-numbers.json"]
    with serving_noisy(scenes, Noise(malformed=1.0)) as server:
        results = evaluate(
            scenes, [_endpoint(server.url, "tools", "tools"), _endpoint(server.url, "text", "text")]
        )
    turns = results.turns
    text = turns[turns["variant"] == "text"]
    tools = turns[turns["variant"] == "tools"]
    sent = text["expected_calls"]
    assert (text.loc[sent, "refused_calls"] == 1).all()
    assert not text.loc[sent, "joint"].any()
    assert tools["joint"].all()
