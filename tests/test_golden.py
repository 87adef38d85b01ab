"""Golden files: what the bundled trackers and the typical scene put in front of the model.

`tests/golden/trackers/<id>.block.txt` is each bundled tracker's `### Trackers` block at its
starting values (a list with one sample row, `Sample`), `<id>.line.txt` its line in the update
tool (`tracker_line`); `tests/golden/typical/` holds the typical scene's block, the whole tool
definition (`tool.json`: name, description, parameters) and its token table (`tokens.json`,
cl100k_base); `tests/golden/changes/<scene>.json` is the changes read of a bundled scene played to
its end (`to_json`, every take). A change to rendering, the tool, token counts or the changes read
shows up here as a diff.

To accept a deliberate change, regenerate the files and review the diff before committing:

    TRACKERKIT_UPDATE_GOLDENS=1 .venv/bin/pytest tests/test_golden.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_TRACKERS, REPO

from trackerkit import Session, tracker_changes_between
from trackerkit.prompt import PromptContext, preview_prompt, render_trackers_block
from trackerkit.scene import load_linked, load_scene, source_for
from trackerkit.state import State
from trackerkit.tokens import count_tokens
from trackerkit.tool import tracker_line
from trackerkit.tracker import Tracker, decode_tracker
from trackerkit.update import slot_of

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("TRACKERKIT_UPDATE_GOLDENS") == "1"
SAMPLE_ROW = "Sample"


def _bundled() -> list[Tracker]:
    return [
        decode_tracker(json.loads(path.read_text()), source=path.name)
        for path in sorted(DATA_TRACKERS.glob("*.json"))
    ]


def _tracker_goldens(tracker: Tracker) -> dict[str, str]:
    state: State = {slot_of(tracker): {SAMPLE_ROW: {}}} if tracker.layout == "list" else {}
    block = render_trackers_block([tracker], state)
    assert block.report.ok, block.report.errors
    assert block.text is not None
    return {
        f"trackers/{tracker.id}.block.txt": block.text,
        f"trackers/{tracker.id}.line.txt": tracker_line(tracker),
    }


def _typical_goldens() -> dict[str, str]:
    scene = load_scene(REPO / "data" / "scenes" / "typical.json")
    trackers = load_linked(scene, source_for(DATA_TRACKERS)).trackers
    preview = preview_prompt(trackers, scene.card, context=PromptContext(scene.user, scene.char))
    assert preview.tool is not None
    assert preview.block.text is not None
    tool = {
        "name": preview.tool.name,
        "description": preview.tool.description,
        "parameters": preview.tool.parameters,
    }
    tokens = {
        "encoding": preview.encoding,
        **preview.tokens,
        "lines": {name: count_tokens(line) for name, line in preview.lines.items()},
    }
    return {
        "typical/block.txt": preview.block.text,
        "typical/tool.json": json.dumps(tool, indent=2, ensure_ascii=False),
        "typical/tokens.json": json.dumps(tokens, indent=2),
    }


GOLDENS: dict[str, str] = {
    name: text
    for goldens in [*map(_tracker_goldens, _bundled()), _typical_goldens()]
    for name, text in goldens.items()
}


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_matches_golden(name: str) -> None:
    """The rendered text equals its golden file (regenerated with TRACKERKIT_UPDATE_GOLDENS=1)."""
    path = GOLDEN / name
    text = GOLDENS[name] + "\n"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


#: Bundled scenes whose changes read (`changes/<scene>.json`, every take) was recorded in the seed's
#: shape from the untyped read, before it became dataclasses with `to_json`.
CHANGES_SCENES = ("branching", "fight", "shop")


def _scene_changes(name: str) -> str:
    """The changes read of every take of a bundled scene played to its end, `to_json` as JSON text;
    message ids become positions in their take, so how ids are numbered does not matter."""
    session = Session.from_scene(REPO / "data" / "scenes" / f"{name}.json")
    session.run()
    chat = session.chat
    takes: dict[str, Any] = {}
    for take_id, take in chat.takes.items():
        if not take.messages:
            continue
        position = {m.id: i for i, m in enumerate(take.messages)}
        shape = tracker_changes_between(chat, take_id, take.messages[0].id).to_json()
        for message in shape["messages"]:
            message["messageId"] = position[message["messageId"]]
        takes[str(len(takes))] = shape
    return json.dumps(takes, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", CHANGES_SCENES)
def test_changes_match_golden(name: str) -> None:
    """`to_json` of each bundled scene's changes read equals the dicts the untyped read gave (TR-42)."""
    path = GOLDEN / "changes" / f"{name}.json"
    text = _scene_changes(name)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert json.loads(text) == json.loads(path.read_text(encoding="utf-8"))


def test_no_stale_goldens() -> None:
    """Every golden file on disk is one this module renders, so a removed tracker leaves none behind."""
    on_disk = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    assert on_disk == set(GOLDENS) | {f"changes/{name}.json" for name in CHANGES_SCENES}
