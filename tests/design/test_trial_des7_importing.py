"""Trial des7, findings 4 and 5: the designer's Import… on a library that holds its names.

4. A WTracker preset `quest` opened in the draft beside the library's `quest` showed the old
   tracker's scene links (and could warn of breaks in its scenes): the draft kept the import's
   id, with the id it is saved under only beside it.
5. "Take into the library" wrote trackers named like the library's own ("Scene", "Inventory")
   and said so only after, where `trackerkit import` refuses the file unless
   --allow-duplicates.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA_TRACKERS

from trackerkit import Library, load_scenes
from trackerkit.design import (
    open_imported,
    read_path,
    scene_breaks,
)

DATA_SCENES = DATA_TRACKERS.parent / "scenes"

#: A WTracker preset keyed `quest`, the id of the bundled "Quest" that `shop` links.
WT = {
    "schemaPresets": {
        "quest": {
            "name": "Quest log",
            "value": {
                "type": "object",
                "properties": {
                    "gold": {"type": "integer", "minimum": 0, "maximum": 999, "default": 12},
                    "mood": {"type": "string", "enum": ["calm", "angry"], "default": "calm"},
                },
            },
        }
    }
}


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A copy of the bundled data folder (its trackers and scenes)."""
    shutil.copytree(DATA_TRACKERS, tmp_path / "data" / "trackers")
    shutil.copytree(DATA_SCENES, tmp_path / "data" / "scenes")
    return tmp_path / "data"


def _file(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


class TestOpenedImportIsTheNewTracker:
    def test_the_draft_carries_the_id_it_is_saved_under(self, place: Path, tmp_path: Path) -> None:
        """Opened beside the library's `quest`, the draft is `quest-2`: no scene links it."""
        view = read_path(_file(tmp_path, "wt.json", WT))
        library = Library(place / "trackers")
        draft, new_id = open_imported(view.imported, "quest", library.ids())  # type: ignore[arg-type]
        assert (draft.id, new_id) == ("quest-2", "quest-2")
        assert draft.revision == 0
        scenes = load_scenes(place / "scenes")
        assert len(draft.linked(scenes)) == 0
        assert draft.tracker() == view.trackers[0].model_copy(update={"id": "quest-2"})

    def test_no_break_is_said_of_the_old_trackers_scene(self, place: Path, tmp_path: Path) -> None:
        """Renamed "Quest" before its first save, the import breaks nothing in `shop`, which links
        the old `quest`, not this tracker (the old draft warned of 10 expectations missed in
        shop); what it says is the library's other "Quest", a tracker of the same name."""
        view = read_path(_file(tmp_path, "wt.json", WT))
        library = Library(place / "trackers")
        draft, _ = open_imported(view.imported, "quest", library.ids())  # type: ignore[arg-type]
        renamed = draft.rename_tracker("Quest")
        assert scene_breaks(renamed, load_scenes(place / "scenes"), library.trackers()) == [
            'Another tracker of the library is named "Quest" (quest); a scene that links both '
            "leaves one of them out."
        ]
