"""Headless checks of the marimo notebooks: `marimo check --strict`, run as a script, and `app.run()`.

Every notebook in `notebooks/*.py` is checked; the simulator and the trace explorer also have
their definitions asserted (the simulator reaches the end of a bundled scenario, the explorer
finds the bundled turns).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from loaded import load_module

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
MARIMO = Path(sys.executable).parent / "marimo"


def _load(path: Path) -> ModuleType:
    return load_module(path, f"notebook_{path.stem}")


def _run(path: Path) -> dict[str, Any]:
    _, defs = _load(path).app.run()
    return dict(defs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
class TestEveryNotebook:
    def test_marimo_check_strict(self, path: Path) -> None:
        """`marimo check --strict` finds nothing to complain about."""
        done = subprocess.run(
            [str(MARIMO), "check", "--strict", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def test_runs_as_a_script(self, path: Path, tmp_path: Path) -> None:
        """`python notebooks/x.py` runs every cell without an error, from any working folder."""
        done = subprocess.run(
            [sys.executable, str(path)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]


def test_simulator_reaches_the_end_of_the_scenario() -> None:
    """The simulator plays the whole fight scenario and shows its final values and a figure."""
    defs = _run(ROOT / "notebooks" / "simulator.py")
    session = defs["session"]
    assert session.done
    assert session.mismatches == []
    assert session.values()["Health"] == {"hp": 40, "hp_max": 40, "mood": "calm"}
    assert defs["figure"] is not None
    assert len(defs["frame"]) > 0


def test_trace_explorer_finds_the_bundled_turns() -> None:
    """The trace explorer loads the bundled days, keeps the broken lines apart and lists their turns."""
    defs = _run(ROOT / "notebooks" / "trace_explorer.py")
    events, errors, turns = defs["events"], defs["errors"], defs["turns"]
    assert len(events) > 500
    assert errors, "the sample days carry a few broken lines on purpose"
    assert {"chat", "night"} <= set(turns["kind"])
    assert defs["picked_turn"] in set(turns["name"])
    assert len(defs["step_table"]) > 0


def test_library_lists_every_bundled_tracker() -> None:
    """The library notebook reads every bundled tracker and none is refused."""
    defs = _run(ROOT / "notebooks" / "library.py")
    assert len(defs["verdicts"]) == len(list((ROOT / "data" / "trackers").glob("*.json")))
    assert defs["refused"] == []


def test_designer_opens_a_tracker_with_its_rail() -> None:
    """The designer opens the first library tracker, finds it decodes, and shows its rail."""
    defs = _run(ROOT / "notebooks" / "designer.py")
    assert defs["verdict"].ok
    assert defs["the_rail"].tokens > 0
    assert defs["the_rail"].block.startswith("### Trackers")
    assert str(defs["links"]).startswith(("linked in", "not linked"))
