"""Found by the "conn" trial of `trackerkit eval` (findings 3, 4 and 11); each fixed here."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from trackerkit import decode_tracker
from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.results import read_results
from trackerkit.evaluation.scoring import moved_by, score_turn, scripted_state

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "data" / "scenes"
TRACKERS = ROOT / "data" / "trackers"
NUMBERS = SCENES / "eval-numbers.json"
HEALTH = decode_tracker(json.loads((TRACKERS / "health.json").read_text()))

#: A tracker of one field from 0 to 1 (trust), as the trial's `Bond`.
BOND: dict[str, Any] = {
    "kind": "tracker",
    "id": "bond",
    "revision": 0,
    "name": "Bond",
    "description": "Trust between them",
    "body": {
        "layout": "record",
        "fields": [
            {
                "name": "trust",
                "description": "0 none, 1 complete.",
                "type": "number",
                "min": 0,
                "max": 1,
                "default": 0.5,
            }
        ],
        "note": "",
        "template": None,
        "icon": None,
        "changes": "chips",
    },
}


def _set(trust: float) -> list[dict[str, Any]]:
    return [
        {
            "name": "update_trackers",
            "arguments": {"updates": [{"tracker": "Bond", "set": {"trust": trust}}]},
        }
    ]


def _trust_scene(tmp_path: Path) -> Path:
    """The trial's scenario: 0.9 written where 0.0 is expected, 0.1 where 1.0 is."""
    (tmp_path / "trackers").mkdir()
    (tmp_path / "trackers" / "bond.json").write_text(json.dumps(BOND))
    scene = {
        "id": "eval-trust", "title": "trust", "card": "Narrate.", "user": "U", "char": "N",
        "prompting": {"trackers": ["bond"]}, "window": 8192, "reserve": 1024, "toolAccess": True,
        "turns": [
            {"user": "She betrays you.", "calls": _set(0.9), "reply": "...",
             "expect": {"Bond": {"trust": 0.0}}},
            {"user": "She saves you.", "calls": _set(0.1), "reply": "...",
             "expect": {"Bond": {"trust": 1.0}}},
        ],
    }  # fmt: skip
    path = tmp_path / "scenes" / "eval-trust.json"
    path.parent.mkdir()
    path.write_text(json.dumps(scene))
    return path


def _scene(tmp_path: Path, name: str, change: Any) -> Path:
    """eval-numbers, changed by `change(doc)`, written as scenes/`name`.json (id `name`)."""
    doc = json.loads(NUMBERS.read_text())
    doc["id"] = name
    change(doc)
    path = tmp_path / "scenes" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


class TestTolerance:
    """Finding 3: the tolerance is shown, and a narrow field is not within it whatever it holds."""

    def test_a_field_of_range_one_is_held_to_a_tenth_of_it(self) -> None:
        """0.9 for 0 on a 0-1 field is not within tolerance (it was, at a tolerance of 1)."""
        bond = decode_tracker(BOND)
        far = score_turn([bond], {}, {"Bond": {"trust": 0.0}}, {"Bond": {"trust": 0.9}})
        near = score_turn([bond], {}, {"Bond": {"trust": 0.0}}, {"Bond": {"trust": 0.1}})
        assert far[0].within_tolerance is False
        assert near[0].within_tolerance is True

    def test_a_field_without_both_bounds_keeps_the_tolerance(self) -> None:
        """hp (min 0, top from hp_max) is within 1; hp_max (min 1, no max) too."""
        before = {"Health": {"hp": 30, "hp_max": 30, "mood": "calm"}}
        found = {"Health": {"hp": 21, "hp_max": 31, "mood": "calm"}}
        expected = {"Health": {"hp": 20, "hp_max": 30, "mood": "calm"}}
        scores = {s.field: s for s in score_turn([HEALTH], before, expected, found)}
        assert scores["hp"].within_tolerance is True
        assert scores["hp_max"].within_tolerance is True
        wider = score_turn([HEALTH], before, expected, found, tolerance=0.5)
        assert not any(s.within_tolerance for s in wider if s.kind == "number")

    def test_the_results_say_which_tolerance(self, tmp_path: Path) -> None:
        """The table's row and the summary name the tolerance; the Parquet file keeps it."""
        results = evaluate([_trust_scene(tmp_path)], trace=None, tolerance=0.5)
        assert results.tolerance == 0.5
        table = results.table()
        label = next(m for m in table.index if m.startswith("within_tolerance"))
        assert label == "within_tolerance (±0.5, range/10 if less)"
        assert table.loc[label].iloc[0].startswith("0 [")
        summary = results.summary().set_index("metric")
        assert summary.loc["within_tolerance", "tolerance"] == 0.5
        back = read_results(results.to_parquet(tmp_path / "r.parquet"))
        assert back.tolerance == 0.5
        assert list(back.table().index) == list(table.index)

    def test_the_cli_shows_the_default_and_scores_the_trial_zero(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`--help` gives the default; the trial's wholly wrong 0-1 field scores 0, not 1."""
        with pytest.raises(SystemExit):
            main(["eval", "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert "(default 1; a field with min and max is held to a tenth of its range" in help_text
        assert main(["eval", str(_trust_scene(tmp_path)), "--no-trace"]) == 0
        lines = capsys.readouterr().out.splitlines()
        row = next(line for line in lines if line.startswith("within_tolerance"))
        assert row.startswith("within_tolerance (±1, range/10 if less)")
        assert row.split(")", 1)[1].split()[0] == "0"


class TestNoExpect:
    """Finding 4: a scenario with no `expect` is refused before anything is played."""

    def _bare(self, tmp_path: Path) -> Path:
        def strip(doc: dict[str, Any]) -> None:
            for step in doc["turns"]:
                step.pop("expect", None)

        return _scene(tmp_path, "bare", strip)

    def test_evaluate_refuses_it(self, tmp_path: Path) -> None:
        """The sentence names the scene; no turn is played."""
        path = self._bare(tmp_path)
        with pytest.raises(BadRequestError) as caught:
            evaluate([path], trackers=TRACKERS, trace=None)
        assert str(caught.value).startswith(f"no step of {path} carries expect: nothing to score")

    def test_the_cli_exits_1_and_writes_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """One line, exit 1, no table and no Parquet file (it printed an empty DataFrame, exit 0)."""
        path = self._bare(tmp_path)
        out = tmp_path / "r.parquet"
        argv = ["eval", str(path), "--trackers", str(TRACKERS), "--no-trace", "--out", str(out)]
        assert main(argv) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert f"no step of {path} carries expect: nothing to score" in captured.err
        assert "Traceback" not in captured.err
        assert not out.exists()


class TestShouldChange:
    """Finding 11: "should change" is read from the scenario, so one early miss is one miss."""

    def _pair(self, tmp_path: Path) -> tuple[Path, Path]:
        def miss(doc: dict[str, Any]) -> None:
            doc["turns"][1]["calls"] = []  # hp 30 -> 26 is missed; it stays 30 until step 3

        return _scene(tmp_path, "right", lambda doc: None), _scene(tmp_path, "missed", miss)

    def test_an_early_miss_is_counted_once(self, tmp_path: Path) -> None:
        """Free mode: step 2 does not change hp in the script, so it is no missed change there."""
        right, missed = self._pair(tmp_path)
        results = evaluate([right, missed], trackers=TRACKERS, trace=None)
        cells = results.fields[results.fields["field"] == "hp"].set_index(["scenario", "step"])
        assert bool(cells.loc[("missed", 1), "should_change"])
        assert not bool(cells.loc[("missed", 1), "changed"])
        assert not bool(cells.loc[("missed", 2), "should_change"])
        keys = ["step", "tracker", "row", "field"]
        should = {
            name: group.set_index(keys)["should_change"].to_dict()
            for name, group in results.fields.groupby("scenario")
        }
        assert should["missed"] == should["right"]
        summary = results.summary().set_index("metric")
        recall = summary.loc["change_recall"]
        assert recall["n"] == 2 * sum(should["right"].values())
        assert recall["estimate"] < 1

    def test_free_and_forced_agree_on_what_should_change(self, tmp_path: Path) -> None:
        """Both modes read it from the scenario: the same fields, the same denominator."""
        right, missed = self._pair(tmp_path)
        keys = ["scenario", "step", "tracker", "row", "field"]
        free = evaluate([right, missed], trackers=TRACKERS, trace=None)
        forced = evaluate([right, missed], trackers=TRACKERS, trace=None, mode="forced")
        assert (
            free.fields.set_index(keys)["should_change"].to_dict()
            == forced.fields.set_index(keys)["should_change"].to_dict()
        )
        assert not math.isnan(free.summary().set_index("metric").loc["change_recall", "estimate"])

    def test_a_persons_edit_moves_what_the_scenario_starts_from(self, tmp_path: Path) -> None:
        """An edit sets hp to 10; the next turn keeps it: no change was due, in either mode."""

        def edit(doc: dict[str, Any]) -> None:
            doc["turns"].insert(2, {"action": "edit", "tracker": "Health", "set": {"hp": 10}})
            doc["turns"][3]["expect"]["Health"]["hp"] = 10  # the stairs: hp stays as edited

        path = _scene(tmp_path, "edited", edit)
        for mode in ("free", "forced"):
            results = evaluate([path], trackers=TRACKERS, trace=None, mode=mode)
            hp = results.fields[results.fields["field"] == "hp"].set_index("step")
            assert not bool(hp.loc[3, "should_change"]), mode
            assert results.turns["joint"].all(), mode


class TestScriptedState:
    """The scenario's own state: expectations put over the start, moved by other steps."""

    def test_a_record_keeps_what_the_expectation_does_not_name(self) -> None:
        """Only the named fields take the expected values; other trackers stay."""
        start = {"Health": {"hp": 30, "hp_max": 30, "mood": "calm"}, "Other": {"x": 1}}
        state = scripted_state([HEALTH], start, {"Health": {"hp": 26}})
        assert state == {"Health": {"hp": 26, "hp_max": 30, "mood": "calm"}, "Other": {"x": 1}}
        assert start["Health"]["hp"] == 30

    def test_a_list_becomes_the_rows_named(self) -> None:
        """A row not named, or named null, is gone; a named row's fields go over its old ones."""
        inventory = decode_tracker(json.loads((TRACKERS / "inventory.json").read_text()))
        start = {"Inventory": {"Torch": {"qty": 3, "notes": "old"}, "Rope": {"qty": 1}}}
        expected = {"Inventory": {"torch": {"qty": 2}, "Lamp": {"qty": 1}, "Rope": None}}
        state = scripted_state([inventory], start, expected)
        assert state["Inventory"] == {"torch": {"qty": 2, "notes": "old"}, "Lamp": {"qty": 1}}

    def test_moved_by_takes_only_what_changed(self) -> None:
        """A field the step changed takes its new value; the others keep the scenario's."""
        state = {"Health": {"hp": 26, "hp_max": 30, "mood": "calm"}}
        before = {"Health": {"hp": 30, "hp_max": 30, "mood": "calm"}}
        after = {"Health": {"hp": 30, "hp_max": 30, "mood": "tense"}}
        moved = moved_by([HEALTH], state, before, after)
        assert moved == {"Health": {"hp": 26, "hp_max": 30, "mood": "tense"}}
