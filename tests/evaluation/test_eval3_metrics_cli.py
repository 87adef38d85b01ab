"""Found by the "eval3" trial of `trackerkit eval` (findings 3, 6, 7, 8b): metrics and the CLI."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from trackerkit import decode_tracker
from trackerkit.cli import main
from trackerkit.evaluation import EvaluationResults
from trackerkit.evaluation.metrics import TurnRecord, field_frame, summarize_runs, turn_frame
from trackerkit.evaluation.scoring import score_turn

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "data" / "scenes"
FIGHT = str(SCENES / "fight.json")
QUIET = str(SCENES / "eval-quiet.json")
HEALTH = decode_tracker(json.loads((ROOT / "data/trackers/health.json").read_text()))
INVENTORY = decode_tracker(json.loads((ROOT / "data/trackers/inventory.json").read_text()))
TORCH = {"qty": 3, "weight": 1, "equipped": False, "notes": ""}
ROPE = {"qty": 1, "weight": 5, "equipped": False, "notes": ""}
#: What the model left: Torch off by one, and Rope forgotten, or added off by one.
FORGOT = {"Torch": {**TORCH, "qty": 4}}
OFF_BY_ONE = {"Torch": {**TORCH, "qty": 4}, "Rope": {**ROPE, "qty": 2}}


def _results(found: dict[str, Any]) -> EvaluationResults:
    """One turn expecting Torch and Rope; `found` is what the model left."""
    before = {"Inventory": {"Torch": TORCH}}
    expected = {"Inventory": {"Torch": TORCH, "Rope": ROPE}}
    scores = score_turn([INVENTORY], before, expected, {"Inventory": found})
    cells = field_frame((("v", "s", 0, "free", 0, 0), s) for s in scores)
    turn = TurnRecord("v", "s", 0, "free", 0, 0, "turn", False, False, True, 1, 0, 0, 0, 9, 9, 0.1)
    return EvaluationResults(turn_frame([turn]), cells)


def _estimates(results: EvaluationResults) -> dict[str, float]:
    summary = results.summary()
    return dict(zip(summary["metric"], summary["estimate"], strict=True))


class TestNumbersMissing:
    """Finding 3: `number_mae` left out a forgotten row's numbers, so forgetting the row scored a
    lower error than adding it off by one; the numbers left out are now counted beside it."""

    def test_forgetting_a_row_never_scores_better_than_adding_it_off_by_one(self) -> None:
        """On the MAE and the numbers missing beside it, the forgotten row is never the better."""
        forgot, off = _estimates(_results(FORGOT)), _estimates(_results(OFF_BY_ONE))
        assert forgot["numbers_missing"] == pytest.approx(2 / 4)
        assert off["numbers_missing"] == 0
        better_or_equal = all(forgot[m] <= off[m] for m in ("number_mae", "numbers_missing"))
        assert not better_or_equal
        assert forgot["within_tolerance"] < off["within_tolerance"]

    def test_the_mae_and_the_missing_share_split_within_tolerances_numbers(self) -> None:
        """Every expected number is either given (in the MAE's n) or missing; per run too."""
        results = _results(FORGOT)
        summary = results.summary().set_index("metric")
        given, within = summary.loc["number_mae", "n"], summary.loc["within_tolerance", "n"]
        assert (given, summary.loc["numbers_missing", "n"], within) == (2, 4, 4)
        assert summary.loc["number_mae", "estimate"] == pytest.approx(1 / 2)
        run = summarize_runs(results.turns, results.fields).iloc[0]
        assert (run["number_mae"], run["numbers_missing"]) == (pytest.approx(1 / 2), 0.5)

    def test_the_table_says_what_the_mae_is_over_and_shows_the_missing_beside_it(self) -> None:
        """The MAE's row says it is over the numbers given; `numbers_missing` is the next row."""
        rows = list(_results(FORGOT).table().index)
        at = rows.index("number_mae (over the numbers given)")
        assert rows[at + 1] == "numbers_missing (row or value left out)"

    def test_the_help_says_so(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`eval --help` names numbers_missing beside the numbers' error."""
        with pytest.raises(SystemExit):
            main(["eval", "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert "numbers' mean error over the numbers the model gave, and the share it left" in (
            help_text
        )


class TestQuantityAccuracy:
    """Finding 8: `quantity_accuracy` counts every number field of a list row (weight as well as
    qty): the tracker model marks no field as a quantity (TR-2), so its label says so."""

    def test_weight_counts_and_the_label_says_every_number_of_a_list_row(self) -> None:
        """A wrong weight lowers it as a wrong qty does; the table's row says what it counts."""
        results = _results({"Torch": {**TORCH, "weight": 2}, "Rope": ROPE})
        assert _estimates(results)["quantity_accuracy"] == pytest.approx(3 / 4)
        assert "quantity_accuracy (every number field of a list row)" in results.table().index

    def test_the_help_says_what_it_counts(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`eval --help` says every number field of a list row counts."""
        with pytest.raises(SystemExit):
            main(["eval", "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert "(quantity_accuracy: every one, a weight as well as a qty)" in help_text


class _Terminal(io.StringIO):
    """A standard error that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class TestProgress:
    """Finding 6: on a terminal, eval shows turns played of the total on standard error."""

    def test_a_terminal_sees_turns_played_of_the_total(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """eval-quiet's 8 turns twice: the bar ends at 16 of 16 turns played, then is cleared."""
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        assert main(["eval", QUIET, "--runs", "2", "--no-trace"]) == 0
        shown = terminal.getvalue()
        assert "1 of 16 turns played" in shown
        assert "16 of 16 turns played" in shown
        assert "joint_accuracy" in capsys.readouterr().out

    def test_no_terminal_no_bar(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Standard error to a file or a pipe: nothing but what is said at the end."""
        assert main(["eval", QUIET, "--no-trace"]) == 0
        assert capsys.readouterr().err == ""


class TestModelName:
    """Finding 7: `--model openai` without `--model-name` asked a local server for gpt-4o-mini
    and named the column so; eval now needs the name, before any turn is played."""

    def test_openai_without_a_model_name_is_refused(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """One line, exit 1, the fix named."""
        argv = ["eval", FIGHT, "--model", "openai", "--base-url", "http://127.0.0.1:9/v1"]
        assert main([*argv, "--no-trace"]) == 1
        err = capsys.readouterr().err
        assert err == (
            "trackerkit: --model openai needs --model-name: the model the server at "
            "http://127.0.0.1:9/v1 knows (such as qwen2.5:7b on Ollama); it also names the "
            "results and the trace's model\n"
        )

    def test_the_scripted_model_needs_no_name_and_help_says_so(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The scripted model plays without one; `--help` says openai needs it."""
        assert main(["eval", QUIET, "--no-trace"]) == 0
        capsys.readouterr()
        with pytest.raises(SystemExit):
            main(["eval", "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert "--model openai needs --model-name" in help_text
