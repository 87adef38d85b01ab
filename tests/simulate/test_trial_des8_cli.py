"""Trial des8, finding 4: `trackerkit simulate` says why a scene's steps that name a field a
designer save renamed are refused and unmet, as the simulator page says it."""

from __future__ import annotations

from pathlib import Path

import pytest
from designer_saves import designer_save, fight_copy

from trackerkit.cli import main


def test_simulate_says_the_rename_before_the_unmet_expectations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in trial des8: `0/1 ok` and `expected 20, found None` lines, and no reason."""
    scene = fight_copy(tmp_path)
    designer_save(scene, "health", lambda d: d.rename_field(d.key("hp_max"), "hp_top"))
    code = main(["simulate", str(scene), "--no-trace"])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err[0] == (
        "trackerkit: Scene fight: its own scripted steps 1, 4 and 5 set Health.hp_max, which a "
        "designer save renamed to hp_top (the save that made revision 1): their calls are "
        "refused, so nothing of those batches is written; the expectations of steps 1, 2, 3, 4, "
        "5 and 6 name it and are not met. A scene's steps are played as written (its file does "
        "not say which revision of Health they were written for, so they are not renamed for "
        f"it). Edit the scene: in {scene}, write hp_top for hp_max in those steps' calls and "
        "expectations."
    )
    assert err[1].startswith("trackerkit: expectation not met: step 1: ")


def test_simulate_says_nothing_of_renames_without_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scene whose steps name no renamed field plays with nothing said."""
    scene = fight_copy(tmp_path)
    assert main(["simulate", str(scene), "--no-trace"]) == 0
    assert capsys.readouterr().err == ""
