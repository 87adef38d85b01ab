"""Scenes for the eval3 trial's tests (findings 1, 2 and 5): small scene files over the bundled
trackers, and their joint accuracy per turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trackerkit.evaluation.harness import evaluate

ROOT = Path(__file__).resolve().parents[2]
TRACKERS = ROOT / "data" / "trackers"
HEALTH_30 = {"hp": 30, "hp_max": 30, "mood": "calm"}
HEALTH_25 = {"hp": 25, "hp_max": 30, "mood": "calm"}
TORCH = {"qty": 3, "weight": 1, "equipped": False, "notes": ""}


def scene(tmp_path: Path, turns: list[dict[str, Any]], trackers: list[str] | None = None) -> Path:
    """A scene file over the bundled trackers, with `turns`."""
    doc = {
        "id": "trial",
        "title": "trial",
        "card": "Narrate.",
        "user": "Vera",
        "char": "Narrator",
        "prompting": {"trackers": trackers or ["health"]},
        "window": 8192,
        "reserve": 1024,
        "toolAccess": True,
        "turns": turns,
    }
    path = tmp_path / "trial.json"
    path.write_text(json.dumps(doc))
    return path


def call(*updates: dict[str, Any]) -> list[dict[str, Any]]:
    """One scripted round: the update tool called with `updates`."""
    return [{"name": "update_trackers", "arguments": {"updates": list(updates)}}]


def joint(path: Path, mode: str) -> list[bool]:
    """Each scored turn's joint accuracy when the scripted model plays `path` in `mode`."""
    turns = evaluate([path], trackers=TRACKERS, mode=mode, trace=None).turns  # type: ignore[arg-type]
    return [bool(j) for j in turns["joint"]]
