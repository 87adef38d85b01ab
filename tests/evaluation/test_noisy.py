"""Issue 17 item 6: truth for the harness. A noisy model with known error rates, and the metrics
that must recover them within their intervals; the scripted model scores 100%."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.intervals import wilson
from trackerkit.evaluation.noisy import Noise, serving_noisy
from trackerkit.evaluation.results import read_results
from trackerkit.evaluation.variants import Variant

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "data" / "scenes"
BUNDLED = [p for p in sorted(SCENES.glob("*.json")) if '"turns"' in p.read_text()]
LONG = [SCENES / "eval-long.json"]
KEY_ENV = "TRACKERKIT_EVAL_TEST_KEY"


def _noisy(url: str, **options: Any) -> Variant:
    return Variant(name="noisy", model="openai", base_url=url, model_name="noisy", **options)


def _steps(path: Path) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = json.loads(path.read_text())["turns"]
    return steps


def _first_round(step: dict[str, Any]) -> list[dict[str, Any]]:
    calls = step.get("calls") or (step.get("rounds") or [[]])[0]
    return [item for c in calls for item in c["arguments"]["updates"]]


def test_scripted_scores_everything_right() -> None:
    """The scripted model: 100% joint accuracy on every bundled scenario, in both modes."""
    for mode in ("free", "forced"):
        turns = evaluate(BUNDLED, mode=mode).turns  # type: ignore[arg-type]
        assert turns["joint"].all(), turns[~turns["joint"]]
        assert set(turns["scenario"]) == {json.loads(p.read_text())["id"] for p in BUNDLED}
        # Its deliberate refusals (a field that does not exist, a choice it does not have) show.
        assert turns["refused_calls"].sum() == 3


def test_a_quiet_noisy_model_plays_as_the_scripted_one() -> None:
    """With every rate at 0 the loopback server answers the scripted calls: the same table."""
    with serving_noisy(BUNDLED) as server:
        both = evaluate(BUNDLED, [_noisy(server.url), Variant(name="scripted")], mode="free")
    columns = ["scenario", "step", "joint", "update_calls", "refused_calls", "clamps"]
    noisy, scripted = (
        both.turns[both.turns["variant"] == v][columns] for v in ("noisy", "scripted")
    )
    pd.testing.assert_frame_equal(noisy.reset_index(drop=True), scripted.reset_index(drop=True))
    assert server.injected == []


def _run(noise: Noise, scenes: list[Path], runs: int = 4) -> tuple[pd.DataFrame, list[Any]]:
    with serving_noisy(scenes, noise) as server:
        results = evaluate(scenes, [_noisy(server.url)], runs=runs, mode="forced", concurrency=4)
    return results.turns, server.injected


def _covers(hits: pd.Series, rate: float) -> None:
    interval = wilson(int(hits.sum()), len(hits))
    assert interval.low <= rate <= interval.high, (rate, interval, len(hits))


def test_missed_calls_are_recovered() -> None:
    """No call at all at 30%: the share of turns that should call and did not."""
    turns, injected = _run(Noise(no_call=0.3, seed=1), LONG)
    should = turns[turns["expected_calls"]]
    _covers(should["update_calls"] == 0, 0.3)
    assert (should["update_calls"] == 0).sum() == sum(k == "no_call" for *_, k in injected)


def test_malformed_arguments_are_recovered() -> None:
    """Malformed arguments at 30%: refused batches, answered and corrected in the next round."""
    turns, _ = _run(Noise(malformed=0.3, seed=2), LONG)
    should = turns[turns["expected_calls"]]
    _covers(should["refused_calls"] > 0, 0.3)
    # Each malformed call is one refused batch beside the good one: p / (1 + p) of the calls.
    _covers(
        pd.Series(
            [True] * int(should["refused_calls"].sum())
            + [False] * int(should["update_calls"].sum() - should["refused_calls"].sum())
        ),
        0.3 / 1.3,
    )
    assert should["joint"].all()  # corrected in the next round


def test_rate_limits_are_retried() -> None:
    """A 429 (Retry-After: 0) on 30% of turns: retried, counted, and the turns still right."""
    turns, _ = _run(Noise(rate_limit=0.3, seed=3), LONG)
    _covers(turns["retries"] > 0, 0.3)
    assert turns["joint"].all()


@pytest.mark.parametrize("kind", ["off_by_one", "miss"])
def test_wrong_values_are_recovered(kind: str) -> None:
    """A number off by one, or a field left out, at 30%: joint accuracy falls by that much."""
    steps = _steps(LONG[0])
    numeric = {
        i
        for i, s in enumerate(steps)
        if any(
            isinstance(v, int | float)
            for item in _first_round(s)
            for v in (item.get("set") or {}).values()
        )
    }
    turns, _ = _run(Noise(**{kind: 0.3}, seed=4), LONG)  # type: ignore[arg-type]
    eligible = (
        turns[turns["step"].isin(numeric)]
        if kind == "off_by_one"
        else turns[turns["expected_calls"]]
    )
    _covers(~eligible["joint"], 0.3)


def test_writes_that_should_not_happen_are_recovered() -> None:
    """A field that should not change written at 30%: wrong turns, and no-call turns that called."""
    turns, _ = _run(Noise(extra_write=0.3, seed=5), LONG)
    _covers(~turns["joint"], 0.3)
    quiet = turns[turns["expect_no_call"]]
    assert len(quiet) > 0
    assert (quiet["update_calls"] > 0).equals(~quiet["joint"])


def test_concurrency_changes_nothing(tmp_path: Path) -> None:
    """Choices are seeded by (scenario, step, run) from the request: 1 thread or 6, one table."""
    noise = Noise(
        no_call=0.2, malformed=0.2, off_by_one=0.2, extra_write=0.2, rate_limit=0.2, seed=9
    )
    tables = []
    for concurrency in (1, 6):
        with serving_noisy(BUNDLED, noise) as server:
            results = evaluate(
                BUNDLED, [_noisy(server.url)], runs=2, mode="free", concurrency=concurrency
            )
        tables.append(results)
    drop = ["latency_s"]
    pd.testing.assert_frame_equal(
        tables[0].turns.drop(columns=drop), tables[1].turns.drop(columns=drop)
    )
    pd.testing.assert_frame_equal(tables[0].fields, tables[1].fields)
    path = tables[0].to_parquet(tmp_path / "results.parquet")
    back = read_results(path)
    pd.testing.assert_frame_equal(back.turns, tables[0].turns)
    pd.testing.assert_frame_equal(back.fields, tables[0].fields)


def test_the_key_never_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The API key goes in the Authorization header only: not in results, Parquet or the trace."""
    from trackerkit.trace import TraceWriter

    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv(KEY_ENV, secret)
    writer = TraceWriter(tmp_path / "data", timezone="UTC")
    with serving_noisy(LONG, Noise(malformed=0.5, rate_limit=0.5)) as server:
        results = evaluate(LONG, [_noisy(server.url, api_key_env=KEY_ENV)], trace=writer)
    writer.close()
    assert server.authorizations == {f"Bearer {secret}"}
    days = list((tmp_path / "data" / "trace").glob("*.jsonl"))
    assert days
    assert all(secret not in d.read_text() for d in days)
    parquet = results.to_parquet(tmp_path / "r.parquet").read_bytes()
    assert secret.encode() not in parquet
    assert secret not in results.turns.to_csv() + results.fields.to_csv()
    assert os.environ[KEY_ENV] == secret


def test_slow_answers_show_in_latency() -> None:
    """Answers slowed by 0.3 s on half the turns: those turns take at least that long, and the
    share of slowed turns covers the rate."""
    turns, injected = _run(
        Noise(slow=0.5, slow_seconds=0.3, seed=6), [SCENES / "eval-flags.json"], runs=3
    )
    slowed = {(s, step, run) for s, step, run, kind in injected if kind == "slow"}
    marked = [(r.scenario, r.step, r.run) in slowed for r in turns.itertuples()]
    _covers(pd.Series(marked), 0.5)
    assert (turns.loc[marked, "latency_s"] >= 0.3).all()


def test_the_tokenizer_is_loaded_before_the_first_turn_is_timed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wire trial: the first turn's latency held the tokenizer's load (a second or more
    against a server answering in 1 ms). evaluate loads it before any turn is timed."""
    from trackerkit import tokens
    from trackerkit.evaluation import runs

    tokens.load_encoding.cache_clear()
    loaded_when_timed: list[bool] = []
    clock = runs.time.perf_counter

    def perf_counter() -> float:
        loaded_when_timed.append(tokens.load_encoding.cache_info().currsize > 0)
        return clock()

    monkeypatch.setattr(runs.time, "perf_counter", perf_counter)
    evaluate([SCENES / "fight.json"])
    assert loaded_when_timed
    assert all(loaded_when_timed)


def test_a_call_to_a_tool_not_offered_is_no_quiet_turn(tmp_path: Path) -> None:
    """A wire trial: a server answering `update_tracker` (misspelt) or `get_weather` on quiet
    turns scored as a correct no-call, and no metric showed the calls. They are counted now."""
    scene = json.loads((SCENES / "eval-quiet.json").read_text())
    scene["turns"][1]["calls"] = [{"name": "update_tracker", "arguments": {"updates": []}}]
    scene["turns"][2]["calls"] = [{"name": "get_weather", "arguments": {}}]
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    (scenes / "eval-quiet.json").write_text(json.dumps(scene))
    results = evaluate([scenes / "eval-quiet.json"], trackers=SCENES.parent / "trackers")
    turns = results.turns.set_index("step")
    assert turns.loc[1, "unknown_calls"] == 1
    assert turns.loc[2, "unknown_calls"] == 1
    assert int(turns["unknown_calls"].sum()) == 2
    summary = results.summary().set_index("metric")
    quiet = int(turns["expect_no_call"].sum())
    assert summary.loc["no_call_correctness", "estimate"] == pytest.approx((quiet - 2) / quiet)
    assert summary.loc["unknown_calls_per_turn", "estimate"] == pytest.approx(2 / len(turns))
    back = read_results(results.to_parquet(tmp_path / "r.parquet"))
    assert int(back.turns["unknown_calls"].sum()) == 2


def test_an_update_tool_call_under_the_text_protocol_is_a_call_not_offered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A trial: a server answering with `update_trackers` tool calls to a variant on the text
    protocol (no tool offered) had those calls scored as refused batches. They are calls to a
    tool not offered: no update call, no refused batch."""
    from trackerkit.simulate.model import ModelReply, ToolCall

    class Caller:
        def complete(self, request: object) -> ModelReply:
            call = ToolCall("c1", "update_trackers", '{"updates": []}')
            return ModelReply("Hm.", (call,), "tool_calls")

    monkeypatch.setattr(Variant, "make_model", lambda self, design: Caller())
    turns = evaluate([SCENES / "eval-numbers.json"], [Variant(name="text", protocol="text")]).turns
    assert len(turns)
    assert (turns["unknown_calls"] == 1).all()
    assert int(turns["update_calls"].sum()) == 0
    assert int(turns["refused_calls"].sum()) == 0


def test_results_written_over_keep_the_old_file_when_a_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found when tried: `eval --out` on a full disk deleted the results already there."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    results = evaluate([SCENES / "eval-quiet.json"])
    path = results.to_parquet(tmp_path / "r.parquet")
    before = path.read_bytes()

    def full(table: object, where: object, **options: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    with pytest.raises(OSError, match=r"cannot write .*r\.parquet: No space left"):
        results.to_parquet(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.parquet"]


class TestNoiseRefusesBadSettings:
    """A new-user trial: `Noise(slow=1, slow_seconds=-3)` made the loopback server print a
    traceback per request, and a rate of 2, -1 or NaN was taken without a word."""

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            ({"miss": 2}, "Noise.miss must be a rate from 0 to 1; found 2"),
            ({"miss": -1}, "Noise.miss must be a rate from 0 to 1; found -1"),
            ({"off_by_one": 5}, "Noise.off_by_one must be a rate from 0 to 1; found 5"),
            (
                {"off_by_one": float("nan")},
                "Noise.off_by_one must be a rate from 0 to 1; found nan",
            ),
            ({"slow": True}, "Noise.slow must be a rate from 0 to 1; found true"),
            (
                {"slow": 1, "slow_seconds": -3},
                "Noise.slow_seconds must be a finite number of seconds, 0 or more; found -3",
            ),
            (
                {"delay": float("nan")},
                "Noise.delay must be a finite number of seconds, 0 or more; found nan",
            ),
            (
                {"delay": float("inf")},
                "Noise.delay must be a finite number of seconds, 0 or more; found inf",
            ),
        ],
        ids=["miss-2", "miss-neg", "off-5", "off-nan", "slow-bool", "slow-neg", "delay-nan", "inf"],
    )
    def test_refused_when_made(self, options: dict[str, Any], message: str) -> None:
        """Each bad field is named with the range it must be in, before any server starts."""
        with pytest.raises(BadRequestError) as caught:
            Noise(**options)
        assert str(caught.value) == message

    def test_the_ends_of_each_range_are_taken(self) -> None:
        """0 and 1 are rates; 0 seconds is a wait."""
        noise = Noise(miss=0, no_call=1.0, slow=1, slow_seconds=0, delay=0.0)
        assert (noise.miss, noise.no_call, noise.slow_seconds) == (0, 1.0, 0)
