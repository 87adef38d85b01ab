"""Trial nu3, finding 1: the designer's Import… offered a second take of what it had just taken.

After "Take into the library" succeeded, the page listed the trackers it had just written as
"named like ones already there" and kept the Take button and "Take them anyway": a second press
wrote copies (`li-2`, `shi-jian-2`, `lorebook-2`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DATA_TRACKERS

from trackerkit import Library
from trackerkit.design import ALL_IMPORTED, read_path, take_imported
from trackerkit.design.importing import taken_before

ROOT = DATA_TRACKERS.parents[1]
LOREBOOK = ROOT / "examples" / "lorebook.json"


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A copy of the bundled data folder (its trackers and scenes)."""
    shutil.copytree(DATA_TRACKERS, tmp_path / "data" / "trackers")
    shutil.copytree(DATA_TRACKERS.parent / "scenes", tmp_path / "data" / "scenes")
    return tmp_path / "data"


class TestTakenBefore:
    def test_a_take_says_what_it_wrote_and_a_second_is_not_offered(self, place: Path) -> None:
        """After a take, taking the same import again is refused in words naming the files written."""
        imported = read_path(str(LOREBOOK)).imported
        assert imported is not None
        library = Library(place / "trackers")
        assert taken_before(imported, ALL_IMPORTED, {}) is None
        taken = take_imported(imported, library, ALL_IMPORTED, place / "scenes")
        assert taken.ok, taken.message()
        assert taken.took == {t.id: t.id for t in imported.trackers}
        said = taken_before(imported, ALL_IMPORTED, taken.took)
        assert said is not None
        assert said.startswith("Already taken into the library from this file: ")
        for tracker in imported.trackers:
            assert f'"{tracker.name}" as `{tracker.id}.json`' in said
            assert taken_before(imported, tracker.id, taken.took) is not None
        assert "would write copies beside them, so it is not offered" in said

    def test_a_renamed_take_is_named_by_the_file_written(self, place: Path) -> None:
        """An id the library held is saved under a suffix; the sentence names that file."""
        imported = read_path(str(LOREBOOK)).imported
        assert imported is not None
        library = Library(place / "trackers")
        first = take_imported(imported, library, ALL_IMPORTED, place / "scenes")
        second = take_imported(
            imported, library, ALL_IMPORTED, place / "scenes", allow_duplicates=True
        )
        assert set(second.took) == set(first.took)
        assert all(now.endswith("-2") for now in second.took.values())
        said = taken_before(imported, ALL_IMPORTED, second.took)
        assert said is not None
        assert all(f"`{n}.json`" in said for n in second.took.values())

    def test_a_tracker_not_taken_yet_may_be_taken(self, place: Path) -> None:
        """Taking one tracker of a file leaves the others, and all of them, on offer."""
        imported = read_path(str(LOREBOOK)).imported
        assert imported is not None
        assert len(imported.trackers) > 1
        one, other = imported.trackers[0], imported.trackers[1]
        taken = take_imported(imported, Library(place / "trackers"), one.id)
        assert taken.ok, taken.message()
        assert taken_before(imported, other.id, taken.took) is None
        assert taken_before(imported, one.id, taken.took) is not None
        assert taken_before(imported, ALL_IMPORTED, taken.took) is None
