"""Trial des6: a field deleted and saved in the designer keeps the rest of the simulator's past
(TR-44): an old step's writes to the deleted field are dropped, its other values are kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from trackerkit import Draft, design
from trackerkit.library import Library
from trackerkit.renames import RECORDS, FieldRenames, read_renames
from trackerkit.simulate.playback import pinned, play_page

ROOT = Path(__file__).resolve().parents[2]


def _turn(*items: dict[str, Any]) -> dict[str, Any]:
    calls = [{"name": "update_trackers", "arguments": {"updates": list(items)}}]
    return {"user": "I run.", "reply": "She runs.", "callsText": json.dumps(calls)}


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene (Health, Stamina)."""
    for part in ("scenes", "trackers"):
        shutil.copytree(ROOT / "data" / part, tmp_path / part)
    return tmp_path / "scenes" / "fight.json"


def _library(scene: Path) -> Library:
    return Library(scene.parent.parent / "trackers")


def _save(draft: Draft, library: Library) -> Draft:
    outcome = design.save(draft, library)
    assert outcome.kind == "saved", outcome.message
    return outcome.draft


def _all_ok(steps: list[dict[str, Any]], scene: Path) -> dict[str, Any]:
    playback = play_page(scene, steps, scripted=0)
    assert [o.sentence for o in playback.page_outcomes] == [
        f"Step {i} ({'edit' if 'setText' in s else 'turn'}) done." for i, s in enumerate(steps, 1)
    ]
    assert all(c.ok for o in playback.outcomes if o.report for c in o.report.calls)
    return dict(playback.session.values()["Stamina"])


class TestDeletedFieldsFollowHistory:
    """Found in trial des6: a turn set Stamina's stamina 45, stamina_max 50 and winded true; winded
    was deleted in the designer and saved, and the replay refused the whole turn ("Stamina has no
    field 'winded'"), losing 45 and 50."""

    def test_a_deleted_field_drops_only_its_own_writes(self, scene: Path) -> None:
        """The repro's turn, plus an edit of winded and stamina: after the save both still play,
        with stamina 45 -> 40 and stamina_max 50 as seen; the record names the field deleted."""
        turn = pinned(
            _turn(
                {"tracker": "Stamina", "set": {"stamina_max": 50, "stamina": 45, "winded": True}}
            ),
            scene,
        )
        edit = pinned(
            {
                "action": "edit",
                "tracker": "Stamina",
                "setText": '{"winded": false, "stamina": 40}',
                "baseStep": 1,
            },
            scene,
        )
        seen = _all_ok([turn, edit], scene)
        assert seen["winded"] is False
        library = _library(scene)
        draft = Draft.open(library.get("stamina")).set(template=None)
        _save(draft.delete_field(draft.key("winded")), library)
        assert read_renames(library.path, "stamina").deleted == ((1, frozenset({"winded"})),)
        record = json.loads((library.path / RECORDS / "stamina.json").read_text())
        assert record["revisions"] == [{"revision": 1, "renames": {}, "deleted": ["winded"]}]
        after = _all_ok([turn, edit], scene)
        assert after == {"stamina": 40, "stamina_max": 50}

    def test_a_rename_then_a_delete_across_two_saves(self, scene: Path) -> None:
        """winded renamed to puffed (saved), then puffed deleted (saved): the old turn's winded
        write is dropped, a turn written between the saves loses its puffed write, the rest stay."""
        library = _library(scene)
        old = pinned(
            _turn(
                {"tracker": "Stamina", "set": {"winded": True, "stamina": 45, "stamina_max": 50}}
            ),
            scene,
        )
        draft = Draft.open(library.get("stamina")).set(template=None)
        draft = _save(draft.rename_field(draft.key("winded"), "puffed"), library)
        middle = pinned(
            _turn({"tracker": "Stamina", "set": {"puffed": False, "stamina_max": 60}}), scene
        )
        assert _all_ok([old, middle], scene)["puffed"] is False
        _save(draft.delete_field(draft.key("puffed")), library)
        history = read_renames(library.path, "stamina")
        assert history.revisions == ((1, {"winded": "puffed"}),)
        assert history.deleted == ((2, frozenset({"puffed"})),)
        assert _all_ok([old, middle], scene) == {"stamina": 45, "stamina_max": 60}

    def test_a_name_deleted_then_given_to_another_field_in_one_save(self) -> None:
        """Deleting hp and renaming hp_max to hp in one save: an old hp write is dropped, an old
        hp_max write lands on hp; a record written before deletions were recorded reads as before."""
        history = FieldRenames(((3, {"hp_max": "hp"}),), ((3, frozenset({"hp"})),))
        assert history.values_now({"hp": 30, "hp_max": 40, "mood": "calm"}, 2, 3) == {
            "hp": 40,
            "mood": "calm",
        }
        assert history.name_now("hp", 2, 3) is None
        assert history.name_now("hp", 3, 3) == "hp"
        assert FieldRenames(((3, {"hp_max": "hp"}),)).name_now("hp_max", 0, 3) == "hp"
