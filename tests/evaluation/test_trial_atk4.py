"""Found by the "atk4" trial of `trackerkit eval` (findings 1, 4, 8, 9 and 10's `--out`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from trackerkit import decode_tracker, load_scene
from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.runs import play_run
from trackerkit.evaluation.scoring import score_turn
from trackerkit.simulate.model import ScriptedModel
from trackerkit.steps import TurnPlan

from .test_trial_conn import BOND, NUMBERS, TRACKERS, _scene


def _partial2(doc: dict[str, Any]) -> None:
    """The trial's partial2: the first three turns, the middle one (hp 30 -> 26) without expect."""
    doc["turns"] = doc["turns"][:3]
    doc["turns"][1].pop("expect")


def _partial(doc: dict[str, Any]) -> None:
    """The trial's partial: every odd turn without expect."""
    for step in doc["turns"][1::2]:
        step.pop("expect")


def _metric(results: Any, name: str) -> tuple[float, int]:
    row = results.summary().set_index("metric").loc[name]
    return float(row["estimate"]), int(row["n"])


class _Skips(ScriptedModel):
    """The scripted model, but the turn numbered `skip` (from 0) makes no call."""

    def __init__(self, skip: int) -> None:
        super().__init__()
        self.skip, self.seen = skip, 0

    def plan(self, plan: TurnPlan) -> None:
        if self.seen == self.skip:
            plan = TurnPlan(plan.reply, [], plan.refuses_tools)
        self.seen += 1
        super().plan(plan)


class TestChangeRecallWithoutExpect:
    """Finding 1: a change made on a turn without `expect` is not charged to the next turn."""

    @pytest.mark.parametrize("mode", ["free", "forced"])
    @pytest.mark.parametrize("shape", [_partial2, _partial], ids=["partial2", "partial"])
    def test_a_right_model_recalls_every_change(
        self, tmp_path: Path, mode: Any, shape: Any
    ) -> None:
        """The scripted model, right on every turn, scores change recall 1 (it scored 0.667 and
        0.778), and its changes are still counted."""
        path = _scene(tmp_path, "partial", shape)
        results = evaluate([path], trackers=TRACKERS, trace=None, mode=mode)
        assert results.turns["joint"].all()
        recall, n = _metric(results, "change_recall")
        assert recall == 1
        assert n > 0
        assert _metric(results, "change_precision")[0] == 1

    def test_the_turn_after_a_change_without_expect_need_not_change(self, tmp_path: Path) -> None:
        """partial2: hp went 30 -> 26 on the turn without expect; the next turn keeps it."""
        path = _scene(tmp_path, "partial", _partial2)
        results = evaluate([path], trackers=TRACKERS, trace=None)
        hp = results.fields[results.fields["field"] == "hp"].set_index("step")
        assert not bool(hp.loc[2, "should_change"])
        stamina = results.fields[results.fields["field"] == "stamina"].set_index("step")
        assert bool(stamina.loc[2, "should_change"])

    @pytest.mark.parametrize("mode", ["free", "forced"])
    def test_every_model_has_the_same_denominator(self, tmp_path: Path, mode: Any) -> None:
        """A model that misses the change on the turn without expect is held to the same
        fields as the right one; its miss shows as a wrong value, not as a missed change."""
        scene = load_scene(_scene(tmp_path, "partial", _partial))
        design = [
            decode_tracker(json.loads((TRACKERS / f"{n}.json").read_text()))
            for n in ("health", "stamina")
        ]
        runs = {
            name: play_run(scene, design, model, mode=mode)
            for name, model in (("right", ScriptedModel()), ("missed", _Skips(1)))
        }
        should = {
            name: [(k[4], s.tracker, s.row, s.field, s.should_change) for k, s in run.fields]
            for name, run in runs.items()
        }
        assert should["right"] == should["missed"]
        assert all(t.joint for t in runs["right"].turns)
        assert not all(t.joint for t in runs["missed"].turns)


class TestToleranceIsChecked:
    """Finding 4: `evaluate(tolerance=...)` is refused as the CLI refuses it, before any turn."""

    @pytest.mark.parametrize(
        ("tolerance", "why"),
        [
            (math.nan, "tolerance nan is not a finite number; give a number of 0 or more"),
            (math.inf, "tolerance inf is not a finite number; give a number of 0 or more"),
            (-1.0, "tolerance -1.0 is out of range; give a number of 0 or more"),
            ("1", "tolerance '1' is not a number; give a number of 0 or more"),
            (True, "tolerance True is not a number; give a number of 0 or more"),
        ],
        ids=["nan", "inf", "negative", "text", "bool"],
    )
    def test_a_bad_tolerance_is_refused_before_any_turn(self, tolerance: Any, why: str) -> None:
        """The sentence is the CLI's; no turn was played (progress was never called)."""
        played: list[int] = []
        with pytest.raises(BadRequestError) as caught:
            evaluate(
                [NUMBERS], trace=None, tolerance=tolerance, progress=lambda d, t: played.append(d)
            )
        assert str(caught.value) == why
        assert played == []

    def test_zero_and_whole_numbers_are_accepted(self) -> None:
        """0 (exact numbers only) and an int are tolerances."""
        assert evaluate([NUMBERS], trace=None, tolerance=0).tolerance == 0
        assert evaluate([NUMBERS], trace=None, tolerance=2).tolerance == 2


def _quiet(tmp_path: Path, *, expect: dict[str, Any] | None) -> Path:
    """Two quiet turns (`expect_no_call`), with `expect` when given."""
    doc = json.loads(NUMBERS.read_text())
    doc["id"] = "quiet"
    doc["turns"] = [
        {"user": "I look around.", "reply": "Nothing happens.", "expect_no_call": True},
        {"user": "I wait.", "reply": "Still nothing.", "expect_no_call": True},
    ]
    if expect is not None:
        for step in doc["turns"]:
            step["expect"] = expect
    path = tmp_path / "scenes" / "quiet.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


class _Writes(ScriptedModel):
    """The scripted model, but its first turn sets hp to 3."""

    def __init__(self) -> None:
        super().__init__()
        self.first = True

    def plan(self, plan: TurnPlan) -> None:
        if self.first:
            call = {
                "name": "update_trackers",
                "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 3}}]},
            }
            plan = TurnPlan(plan.reply, [[call]], plan.refuses_tools)
        self.first = False
        super().plan(plan)


class TestQuietAndEmpty:
    """Finding 8: quiet turns alone are scored; expectations that name nothing are refused."""

    def test_quiet_turns_alone_are_scored(self, tmp_path: Path) -> None:
        """No `expect`, only `expect_no_call`: no-call correctness is scored, and the state each
        turn should leave is the one it starts from (nothing should change)."""
        results = evaluate([_quiet(tmp_path, expect=None)], trackers=TRACKERS, trace=None)
        assert len(results.turns) == 2
        assert _metric(results, "no_call_correctness") == (1.0, 2)
        assert results.turns["joint"].all()
        assert not results.fields.empty
        assert not results.fields["should_change"].any()

    @pytest.mark.parametrize(
        ("mode", "joint"), [("free", [False, False]), ("forced", [False, True])]
    )
    def test_a_quiet_turn_that_writes_is_wrong(
        self, tmp_path: Path, mode: Any, joint: list[bool]
    ) -> None:
        """A model that writes hp 3 (the start holds 0) on the first quiet turn fails no-call
        correctness and the joint state there (free-running, the next turn too: it carries)."""
        scene = load_scene(_quiet(tmp_path, expect=None))
        design = [
            decode_tracker(json.loads((TRACKERS / f"{n}.json").read_text()))
            for n in ("health", "stamina")
        ]
        run = play_run(scene, design, _Writes(), mode=mode)
        assert [t.joint for t in run.turns] == joint
        assert [t.update_calls for t in run.turns] == [1, 0]
        hp = [s for k, s in run.fields if k[4] == 0 and s.field == "hp"]
        assert [(s.expected, s.found, s.should_change) for s in hp] == [("0", "3", False)]

    def test_the_cli_scores_quiet_turns_alone(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """It was refused with "nothing to score", exit 1."""
        argv = ["eval", str(_quiet(tmp_path, expect=None)), "--trackers", str(TRACKERS)]
        assert main([*argv, "--no-trace"]) == 0
        row = next(
            line
            for line in capsys.readouterr().out.splitlines()
            if line.startswith("no_call_correctness")
        )
        assert row.split()[1] == "1"

    @pytest.mark.parametrize("quiet", [False, True], ids=["plain", "quiet"])
    def test_expectations_that_name_nothing_are_refused(self, tmp_path: Path, quiet: bool) -> None:
        """Every `expect` is `{}`: refused as a scene without `expect` is (it scored joint 1);
        quiet turns with `{}` are scored (nothing should change)."""

        def empty(doc: dict[str, Any]) -> None:
            for step in doc["turns"]:
                step["expect"] = {}

        path = _quiet(tmp_path, expect={}) if quiet else _scene(tmp_path, "empty", empty)
        if quiet:
            results = evaluate([path], trackers=TRACKERS, trace=None)
            assert _metric(results, "no_call_correctness") == (1.0, 2)
            return
        with pytest.raises(BadRequestError) as caught:
            evaluate([path], trackers=TRACKERS, trace=None)
        assert str(caught.value) == (
            f"every expect of {path} is empty (it names no tracker): nothing to score; give "
            "its turns the values each should leave"
        )

    def test_the_cli_refuses_empty_expectations(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """One line, exit 1, no table."""

        def empty(doc: dict[str, Any]) -> None:
            for step in doc["turns"]:
                step["expect"] = {}

        path = _scene(tmp_path, "empty", empty)
        assert main(["eval", str(path), "--trackers", str(TRACKERS), "--no-trace"]) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert f"every expect of {path} is empty" in captured.err


class TestToleranceEdge:
    """Finding 9: a one-step miss on the tolerance's edge scores alike wherever it falls."""

    @pytest.mark.parametrize(
        ("want", "have"),
        [(0.2, 0.3), (0.3, 0.4), (0.7, 0.8), (0.9, 1.0), (0.1, 0.0)],
    )
    def test_a_miss_of_exactly_the_tolerance_is_within(self, want: float, have: float) -> None:
        """A 0-1 field is held to 0.1: 0.3 -> 0.4 was out (0.10000000000000003), 0.2 -> 0.3 in."""
        bond = decode_tracker(BOND)
        (score,) = score_turn([bond], {}, {"Bond": {"trust": want}}, {"Bond": {"trust": have}})
        assert score.within_tolerance is True

    def test_a_miss_past_the_edge_is_not(self) -> None:
        """The epsilon is for rounding only: 0.3 -> 0.41 is out."""
        bond = decode_tracker(BOND)
        (score,) = score_turn([bond], {}, {"Bond": {"trust": 0.3}}, {"Bond": {"trust": 0.41}})
        assert score.within_tolerance is False


class TestOutSuffix:
    """Finding 10: `eval --out results.csv` wrote Parquet under a .csv name."""

    def test_a_suffix_other_than_parquet_is_refused_before_any_run(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """One sentence, exit 1, no run played, nothing written."""
        import trackerkit.evaluation.harness as harness

        def played(*args: object, **kwargs: object) -> None:
            raise AssertionError("a run was played")

        monkeypatch.setattr(harness, "evaluate", played)
        out = tmp_path / "results.csv"
        assert main(["eval", str(NUMBERS), "--no-trace", "--out", str(out)]) == 1
        assert capsys.readouterr() == (
            "",
            f"trackerkit: --out {out}: the results are written as Parquet; give a file name "
            f"ending in .parquet, such as {tmp_path / 'results.parquet'}\n",
        )
        assert not out.exists()

    def test_parquet_in_any_case_is_written(self, tmp_path: Path) -> None:
        """results.PARQUET is a Parquet file's name too."""
        out = tmp_path / "results.PARQUET"
        assert main(["eval", str(NUMBERS), "--no-trace", "--out", str(out)]) == 0
        assert out.read_bytes()[:4] == b"PAR1"
