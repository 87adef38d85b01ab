"""A copy of the bundled data and what the designer's Save does to one of its trackers."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from trackerkit import Draft, design
from trackerkit.library import Library

ROOT = Path(__file__).resolve().parents[1]


def fight_copy(tmp_path: Path) -> Path:
    """A copy of the bundled scenes and trackers under `tmp_path`; its fight scene's path."""
    for part in ("scenes", "trackers"):
        shutil.copytree(ROOT / "data" / part, tmp_path / part)
    return tmp_path / "scenes" / "fight.json"


def designer_save(scene: Path, tracker_id: str, change: Callable[[Draft], Draft]) -> None:
    """What the designer does to `tracker_id` (`change(draft) -> draft`), then Save."""
    library = Library(scene.parent.parent / "trackers")
    outcome = design.save(change(Draft.open(library.get(tracker_id))), library)
    assert outcome.kind == "saved", outcome.message
