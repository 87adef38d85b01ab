"""Found by the testers' trials of `trackerkit eval` and the evaluate page; each fixed here."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest
from loopback import ask

from trackerkit.cli import main
from trackerkit.errors import BadRequestError, ModelError
from trackerkit.evaluation.client import EndpointModel
from trackerkit.evaluation.figures import drift_figure, field_heatmap
from trackerkit.evaluation.harness import MAX_RUNS, evaluate
from trackerkit.evaluation.page import (
    RunGuard,
    endpoint_name_clash,
    play_with_progress,
    read_scenarios,
)
from trackerkit.evaluation.variants import Variant, read_variants

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "data" / "scenes"
TRACKERS = ROOT / "data" / "trackers"
NUMBERS = SCENES / "eval-numbers.json"


def _typo(tmp_path: Path, change: dict[str, str] | None = None, value: object = None) -> Path:
    """eval-numbers with Health -> Helth and stamina -> stamnia in every expect (the trial)."""
    doc = json.loads(NUMBERS.read_text())
    for step in doc["turns"]:
        expect = step["expect"]
        if change is None:
            expect["Helth"] = expect.pop("Health")
            expect["Stamina"]["stamnia"] = expect["Stamina"].pop("stamina")
        if value is not None:
            expect["Health"]["hp"] = value
    path = tmp_path / "scenes" / "typo.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def test_an_expectation_naming_an_unknown_tracker_or_field_is_refused(tmp_path: Path) -> None:
    """The trial: scores went up (joint 1) when `Helth` and `stamnia` were skipped unscored."""
    path = _typo(tmp_path)
    with pytest.raises(BadRequestError) as caught:
        evaluate([path], trackers=TRACKERS)
    text = str(caught.value)
    assert text.startswith(f"{path}: ")
    assert "nothing was played" in text
    assert (
        "turns[0].expect.Helth: the scene links no tracker named Helth (it links Health, Stamina)"
        in text
    )
    assert "turns[0].expect.Stamina.stamnia: Stamina has no field stamnia" in text


def test_an_expected_value_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    path = _typo(tmp_path, change={}, value="thirty")
    with pytest.raises(
        BadRequestError,
        match=r'turns\[0\]\.expect\.Health\.hp: must be a number; found the text "thirty"',
    ):
        evaluate([path], trackers=TRACKERS)


def test_the_cli_refuses_a_misnamed_expectation_before_any_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _typo(tmp_path)
    code = main(["eval", str(path), "--trackers", str(TRACKERS), "--data", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code != 0
    assert f"{path}: " in err
    assert "turns[0].expect.Helth" in err
    assert not list((tmp_path / "d").rglob("*.jsonl"))  # no turn was played


def test_the_bundled_scenarios_pass_the_check() -> None:
    """Every bundled scenario names only what its trackers have (no false refusal)."""
    from trackerkit.evaluation.scoring import expectation_problems
    from trackerkit.evaluation.variants import load_design
    from trackerkit.scene import load_scene

    for path in sorted(SCENES.glob("*.json")):
        scene = load_scene(path)
        assert expectation_problems(scene, load_design(scene, TRACKERS)) == [], path.name


def test_runs_are_bounded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trial: `--runs 100000000000` built every job up front and grew without limit."""

    def no_play() -> None:  # reached only if the runs were not refused (the jobs come next)
        raise AssertionError("the runs were not refused before the jobs were built")

    monkeypatch.setattr("trackerkit.evaluation.harness.load_encoding", no_play)
    with pytest.raises(SystemExit):
        main(["eval", str(NUMBERS), "--runs", "100000000000", "--no-trace"])
    assert f"give 1 to {MAX_RUNS}" in capsys.readouterr().err
    with pytest.raises(BadRequestError, match=f"runs must be a whole number from 1 to {MAX_RUNS}"):
        evaluate([NUMBERS], runs=MAX_RUNS + 1)


def test_deeply_nested_variants_are_refused_in_words(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text("[" * 10000)
    with pytest.raises(BadRequestError, match="the variants are not valid JSON"):
        read_variants(path)


def test_one_scene_path_alone_is_one_scenario() -> None:
    """The trial: a str where a list was expected read as its letters ("no scene file at d")."""
    results = evaluate(str(SCENES / "eval-flags.json"))
    assert set(results.turns["scenario"]) == {"eval-flags"}
    with pytest.raises(BadRequestError, match="a scenario must be a scene file's path"):
        evaluate([3])  # type: ignore[list-item]


def test_failed_turns_fields_have_no_score_in_the_file(tmp_path: Path) -> None:
    """The trial: the Parquet file's `correct` was filled for failed turns (0.883 vs 0.926)."""
    absent = Variant(
        name="absent", model="openai", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=5
    )
    results = evaluate([SCENES / "eval-flags.json"], [Variant(name="scripted"), absent])
    assert (results.turns.loc[results.turns["variant"] == "absent", "failed"] != "").all()
    tidy = pq.read_table(results.to_parquet(tmp_path / "r.parquet")).to_pandas()
    failed = tidy["turn_failed"] != ""
    assert failed.any()
    assert tidy.loc[failed, "correct"].isna().all()
    assert tidy.loc[~failed, "correct"].notna().all()
    slots = ~failed & (tidy["kind"] != "row")
    shown = (
        results.summary()
        .set_index(["variant", "metric"])
        .loc[("scripted", "slot_accuracy"), "estimate"]
    )
    assert tidy.loc[tidy["kind"] != "row", "correct"].astype(float).mean() == pytest.approx(
        tidy.loc[slots, "correct"].astype(float).mean()
    )
    assert shown == pytest.approx(1.0)


def test_a_timeout_says_the_seconds_given() -> None:
    """The trial: "did not answer within 0.999999 s" for a one-second timeout."""
    with socket.socket() as listener:  # accepts the connection, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        model = EndpointModel(
            f"http://127.0.0.1:{port}/v1", "m", "NO_SUCH_KEY", timeout=0.3, max_retries=0
        )
        with pytest.raises(ModelError) as caught:
            model.complete(ask())
    assert str(caught.value).endswith("did not answer within 0.3 s")


def test_two_variants_with_one_name_are_named() -> None:
    with pytest.raises(BadRequestError, match="two variants are named 'scripted'"):
        evaluate([NUMBERS], [Variant(name="scripted"), Variant(name="scripted")])


def test_two_scene_files_with_one_id_are_named(tmp_path: Path) -> None:
    copy = tmp_path / "copy.json"
    copy.write_text(NUMBERS.read_text())
    with pytest.raises(BadRequestError, match=f"two scenarios have the id 'eval-numbers' .*{copy}"):
        evaluate([NUMBERS, copy], trackers=TRACKERS)


# The page's own logic (notebooks/evaluate.py draws it).


def test_a_broken_scene_file_is_listed_and_the_rest_offered(tmp_path: Path) -> None:
    """The trial: one broken file left the page with "Could not read the scenarios" only."""
    folder = tmp_path / "scenes"
    folder.mkdir()
    for name in ("eval-flags.json", "eval-numbers.json"):
        (folder / name).write_text((SCENES / name).read_text())
    (folder / "zz-broken.json").write_text('{"id":"oops","turns":[')
    (folder / "zz-twin.json").write_text((SCENES / "eval-flags.json").read_text())
    found = read_scenarios(folder)
    assert found.scenes == {
        "eval-flags": folder / "eval-flags.json",
        "eval-numbers": folder / "eval-numbers.json",
    }
    refused = dict(found.refused)
    assert "not valid JSON" in refused[folder / "zz-broken.json"]
    assert "has the id 'eval-flags', as eval-flags.json has" in refused[folder / "zz-twin.json"]


def test_an_endpoint_named_like_another_variant_says_where_its_name_comes_from() -> None:
    why = endpoint_name_clash(["scripted", "endpoint"], "scripted")
    assert why is not None
    assert "model-name box" in why
    assert endpoint_name_clash(["scripted", "endpoint"], "qwen") is None
    assert endpoint_name_clash(["scripted"], "scripted") is None


def test_progress_reaches_the_page_thread() -> None:
    """The page moves its bar from its own thread while the evaluation plays on another."""
    import threading

    seen: list[tuple[int, int, str]] = []
    results = play_with_progress(
        lambda progress: evaluate([SCENES / "eval-flags.json"], progress=progress),
        lambda done, total: seen.append((done, total, threading.current_thread().name)),
    )
    assert seen
    assert seen[-1][:2] == (len(results.turns), len(results.turns))
    assert {name for _, _, name in seen} == {threading.current_thread().name}
    with pytest.raises(BadRequestError):
        play_with_progress(
            lambda progress: evaluate([SCENES / "eval-flags.json"], runs=0), lambda d, t: None
        )


def test_a_press_during_a_run_is_not_played_again() -> None:
    now = [100.0]
    guard = RunGuard(clock=lambda: now[0])
    assert not guard.is_echo(("a",))
    guard.ended(("a",))
    now[0] += 0.05  # marimo delivers the queued press as the run ends
    assert guard.is_echo(("a",))
    assert not guard.is_echo(("b",))  # other settings: a new run
    now[0] += 5
    assert not guard.is_echo(("a",))  # pressed again later: played


def test_every_field_is_labelled_and_turns_are_whole() -> None:
    results = evaluate([SCENES / "eval-lists.json", SCENES / "eval-flags.json", NUMBERS])
    figure = field_heatmap(results)
    rows = list(figure.data[0].y)
    assert list(figure.layout.yaxis.tickvals) == rows
    assert figure.layout.height >= 24 * len(rows)
    drift = drift_figure(results, "eval-flags")
    assert drift.layout.xaxis.dtick == 1
    assert drift.layout.xaxis.tickformat == "d"
