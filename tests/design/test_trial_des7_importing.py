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
from import_files import WT_QUEST

from trackerkit import Library, load_scenes
from trackerkit.design import (
    ALL_IMPORTED,
    duplicates,
    open_imported,
    read_path,
    scene_breaks,
    take_imported,
)

DATA_SCENES = DATA_TRACKERS.parent / "scenes"


#: An RPG Companion config: it makes "Scene" and "Inventory", names the bundled library holds.
RPG = {
    "trackerConfig": {
        "userStats": {"customStats": [{"id": "health", "name": "Health", "maxValue": 30}]},
        "statusSection": {"showMoodEmoji": True, "customFields": ["Conditions"]},
        "infoBox": {"widgets": {"date": {"enabled": True}, "location": {"enabled": True}}},
        "inventory": {"onPerson": [{"name": "Rope", "quantity": 2}]},
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
        view = read_path(_file(tmp_path, "wt.json", WT_QUEST))
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
        view = read_path(_file(tmp_path, "wt.json", WT_QUEST))
        library = Library(place / "trackers")
        draft, _ = open_imported(view.imported, "quest", library.ids())  # type: ignore[arg-type]
        renamed = draft.rename_tracker("Quest")
        assert scene_breaks(renamed, load_scenes(place / "scenes"), library.trackers()) == [
            'Another tracker of the library is named "Quest" (quest); a scene that links both '
            "leaves one of them out."
        ]


class TestTakingNamesakes:
    def test_the_clash_is_named_before_taking(self, place: Path, tmp_path: Path) -> None:
        """Each piece named like one already there is a sentence, with the file it would be."""
        view = read_path(_file(tmp_path, "rpg.json", RPG))
        library = Library(place / "trackers")
        said = duplicates(view.imported, library, ALL_IMPORTED, place / "scenes")  # type: ignore[arg-type]
        assert said == (
            '"Scene" (would be `scene.json`): the library already holds a tracker of this name: '
            '"Scene" (scene-mood)',
            '"Inventory" (would be `inventory-2.json`): the library already holds a tracker of '
            'this name: "Inventory" (inventory)',
        )
        one = duplicates(view.imported, library, "inventory", place / "scenes")  # type: ignore[arg-type]
        assert len(one) == 1
        assert one[0].startswith('"Inventory"')
        assert duplicates(view.imported, library, "user-stats", place / "scenes") == ()  # type: ignore[arg-type]

    def test_taking_them_is_refused_and_writes_nothing(self, place: Path, tmp_path: Path) -> None:
        """Without the explicit choice, nothing is written and the page says why, as the CLI."""
        view = read_path(_file(tmp_path, "rpg.json", RPG))
        library = Library(place / "trackers")
        before = sorted(p.name for p in place.rglob("*.json"))
        taken = take_imported(view.imported, library, ALL_IMPORTED, place / "scenes")  # type: ignore[arg-type]
        assert sorted(p.name for p in place.rglob("*.json")) == before
        assert not taken.ok
        assert taken.saved == ()
        said = taken.message()
        assert said.startswith("Nothing was taken.\n\n")
        assert (
            "- not taken: 2 pieces it would write bear the names of ones already in the library "
            "(listed above; was this file taken in before?); nothing was written. Rename or "
            'remove the ones there, or tick "Take them anyway, beside the ones of the same '
            'names" to write them anyway'
        ) in said
        assert '- "Scene" (would be `scene.json`): the library already holds' in said

    def test_taken_anyway_when_asked(self, place: Path, tmp_path: Path) -> None:
        """`allow_duplicates` writes them (as --allow-duplicates does), saying the clash after."""
        view = read_path(_file(tmp_path, "rpg.json", RPG))
        library = Library(place / "trackers")
        taken = take_imported(
            view.imported,  # type: ignore[arg-type]
            library,
            ALL_IMPORTED,
            place / "scenes",
            allow_duplicates=True,
        )
        assert taken.ok
        assert {"scene", "inventory-2"} <= {t.id for t in taken.saved}
        assert "the library already holds a tracker of this name" in taken.message()

    def test_a_scene_of_the_same_title_is_a_clash_too(self, place: Path, tmp_path: Path) -> None:
        """A second take of one file clashes on its scene's title too (the CLI refuses it)."""
        view = read_path(_file(tmp_path, "wt.json", WT_QUEST))
        library = Library(place / "trackers")
        scenes = place / "scenes"
        assert duplicates(view.imported, library, ALL_IMPORTED, scenes) == ()  # type: ignore[arg-type]
        first = take_imported(view.imported, library, ALL_IMPORTED, scenes)  # type: ignore[arg-type]
        assert first.ok
        assert first.scene is not None
        said = duplicates(view.imported, library, ALL_IMPORTED, scenes)  # type: ignore[arg-type]
        assert said[-1] == (
            f'the scene "Quest log" (would be `quest-log-2.json`): the scenes folder already '
            f"holds a scene of this title: `{first.scene.name}`"
        )
