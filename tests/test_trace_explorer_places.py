"""The trace explorer's bundled sample days are found by the data folder's rule
(`trackerkit.workspace.BUNDLED`), as the other apps find the bundled trackers and scenes, not
through the notebook's own folder (trial nu4, finding 4: run from another checkout with
trackerkit installed from this one, the explorer named a second "bundled" folder)."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from loaded import load_module

# The module, not the function `trackerkit.workspace` that the package binds over its name.
RULE = importlib.import_module("trackerkit.workspace")
NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "trace_explorer.py"
SAMPLES = "Bundled sample days"


def _run(path: Path, name: str) -> dict[str, Any]:
    _, defs = load_module(path, name).app.run()
    return dict(defs)


class TestBundledSampleDays:
    def test_follow_the_rules_bundled_folder(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With the rule's bundled folder elsewhere, "Bundled sample days" is its trace/."""
        bundled = tmp_path / "data"
        (bundled / "trace").mkdir(parents=True)
        monkeypatch.setattr(RULE, "BUNDLED", bundled)
        defs = _run(NOTEBOOK, "notebook_trace_explorer_places")
        assert defs["place"].options[SAMPLES] == str(bundled / "trace")
        assert defs["folder"].value == str(bundled / "trace")

    def test_the_notebooks_own_folder_plays_no_part(self, tmp_path: Path) -> None:
        """The notebook run from another checkout still offers the installed package's samples."""
        clone = tmp_path / "clone"
        (clone / "notebooks").mkdir(parents=True)
        (clone / "data" / "trace").mkdir(parents=True)
        copy = clone / "notebooks" / NOTEBOOK.name
        shutil.copy(NOTEBOOK, copy)
        defs = _run(copy, "notebook_trace_explorer_clone")
        assert defs["place"].options[SAMPLES] == str(RULE.BUNDLED / "trace")
