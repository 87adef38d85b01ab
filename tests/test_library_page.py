"""The library page run headless (`app.run()` with `-- --data DIR`): what testers found.

Two trackers of one name (a copied file, an import made twice) were one entry of the "Tracker"
picker, keyed by name, so the second could never be opened; a mistyped `--data` folder read as
"0 trackers ... all decode" without saying the folder is not there.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from loaded import load_module

from trackerkit import decode_tracker
from trackerkit.views import md_text

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "notebooks" / "library.py"


def _page() -> ModuleType:
    return load_module(PAGE, "notebook_library_page")


def _run(monkeypatch: pytest.MonkeyPatch, data: Path) -> dict[str, Any]:
    """The page's definitions after a run with `-- --data DATA`."""
    monkeypatch.setattr(sys, "argv", [str(PAGE), "--data", str(data)])
    _, defs = _page().app.run()
    return dict(defs)


@pytest.fixture
def twins(tmp_path: Path) -> Path:
    """A copy of the bundled data with health.json copied as health-copy.json (both "Health")."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "trackers", data / "trackers")
    piece = json.loads((data / "trackers" / "health.json").read_text())
    piece["id"] = "health-copy"
    (data / "trackers" / "health-copy.json").write_text(json.dumps(piece))
    return data


def test_the_picker_names_each_tracker_with_its_id(twins: Path) -> None:
    """Each tracker is its own option, "Name (id)", whose value is its id."""
    trackers = [
        decode_tracker(json.loads(p.read_text()))
        for p in sorted((twins / "trackers").glob("*.json"))
    ]
    choices = _page().tracker_choices(trackers)
    assert choices["Health (health)"] == "health"
    assert choices["Health (health-copy)"] == "health-copy"
    assert sorted(choices.values()) == sorted(t.id for t in trackers)


def test_two_trackers_of_one_name_are_both_offered(
    monkeypatch: pytest.MonkeyPatch, twins: Path
) -> None:
    """Run on a library holding two "Health" trackers: both are options, each opening its own
    piece; the first label is open."""
    defs = _run(monkeypatch, twins)
    options = defs["picked"].options
    assert options["Health (health)"] == "health"
    assert options["Health (health-copy)"] == "health-copy"
    assert len(options) == len(list((twins / "trackers").glob("*.json")))
    assert defs["picked"].value == "health"
    assert defs["decoded"]["health-copy"].tracker.id == "health-copy"
    assert defs["missing"] == ""


def test_a_data_folder_that_is_not_there_is_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A mistyped --data folder: the page says the folder is not there, naming it."""
    typo = tmp_path / "dta"
    defs = _run(monkeypatch, typo)
    assert defs["missing"] == (
        f"**The data folder is not there:** nothing is at <code>{md_text(typo)}</code> (from the "
        "--data option), so there are no trackers to read. Check the path."
    )
    assert defs["verdicts"] == []


def test_a_data_folder_without_trackers_is_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A folder that is there but holds no trackers/ folder: said, naming where it looked."""
    (tmp_path / "scenes").mkdir()
    defs = _run(monkeypatch, tmp_path)
    assert defs["missing"].startswith("**No trackers folder:** the data folder")
    assert f"<code>{md_text(tmp_path / 'trackers')}</code>" in defs["missing"]


def test_the_page_shows_what_check_warns_of(twins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found when tried: the page said "all decode" for a folder `trackerkit check` gave
    warnings for (two trackers of one name here); it shows the same warnings."""
    monkeypatch.setattr(sys, "argv", [str(PAGE), "--data", str(twins)])
    outputs, _ = _page().app.run()
    shown = " ".join(str(getattr(o, "text", o)) for o in outputs)
    assert "2 warnings" in shown
    assert md_text("is the name of") in shown or "is the name of" in shown
