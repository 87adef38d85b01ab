"""Trial des3: a designer save records the field renames it made, beside the pieces, so the
simulator's history can follow them (TR-44); the tracker files are as every reader knows them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA_TRACKERS

from trackerkit import Draft, Library, check_paths, decode_tracker
from trackerkit.design import save
from trackerkit.renames import RECORDS, FieldRenames, read_renames, record_renames


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    """A library holding copies of the bundled health and stamina trackers."""
    for name in ("health", "stamina"):
        shutil.copy(DATA_TRACKERS / f"{name}.json", tmp_path / f"{name}.json")
    return Library(tmp_path)


def _renamed(lib: Library, draft: Draft, **renames: str) -> Draft:
    keys = {draft.key(old): new for old, new in renames.items()}
    for key, new in keys.items():
        draft = draft.rename_field(key, new)
    outcome = save(draft, lib)
    assert outcome.kind == "saved", outcome.message
    return outcome.draft


class TestRenamesRecorded:
    def test_a_save_records_the_fields_it_renamed(self, lib: Library) -> None:
        """Renaming hp_max to hp_top is recorded under the revision the save made; the piece
        file holds only the keys it held, and the record is no piece of the library."""
        keys = set(json.loads((lib.path / "health.json").read_text()))
        _renamed(lib, Draft.open(lib.get("health")), hp_max="hp_top")
        assert read_renames(lib.path, "health").revisions == ((1, {"hp_max": "hp_top"}),)
        stored = json.loads((lib.path / "health.json").read_text())
        assert set(stored) == keys
        assert decode_tracker(stored).revision == 1
        assert lib.ids() == ["health", "stamina"]
        assert all(v.ok for v in lib.verdicts())
        assert [len(found) for _, found in check_paths([lib.path])] == [2]

    def test_each_save_of_one_draft_records_only_its_own_renames(self, lib: Library) -> None:
        """A field added at the top and saved, then a rename saved: the second save records that
        rename alone (fields are followed by identity across a save, not by place)."""
        draft = Draft.open(lib.get("health")).add_field("armor", "number", index=0)
        outcome = save(draft, lib)
        assert outcome.kind == "saved"
        _renamed(lib, outcome.draft, hp_max="hp_top")
        assert read_renames(lib.path, "health").revisions == ((2, {"hp_max": "hp_top"}),)

    def test_a_new_piece_starts_with_no_history(self, lib: Library) -> None:
        """A record left for an id (its piece deleted by hand) is dropped when a new piece of
        that id is saved at revision 0."""
        record_renames(lib.path, "vita", 3, {"hp": "life"})
        assert (lib.path / RECORDS / "vita.json").is_file()
        outcome = save(Draft.blank("tracker", "Vita"), lib, new_id="vita")
        assert outcome.kind == "saved", outcome.message
        assert read_renames(lib.path, "vita") == FieldRenames()
        assert not (lib.path / RECORDS / "vita.json").exists()

    def test_an_unreadable_record_gives_no_renames_and_is_written_anew(self, lib: Library) -> None:
        """A record that is not JSON is read as no renames (never raised), and the next save
        writes a readable one."""
        (lib.path / RECORDS).mkdir()
        (lib.path / RECORDS / "health.json").write_text("{not json")
        assert read_renames(lib.path, "health") == FieldRenames()
        _renamed(lib, Draft.open(lib.get("health")), mood="feeling")
        assert read_renames(lib.path, "health").revisions == ((1, {"mood": "feeling"}),)


class TestFieldRenames:
    def test_a_name_is_carried_through_the_renames_after_its_revision(self) -> None:
        """Each rename saved after `since` and up to `until` applies, in order."""
        history = FieldRenames(((2, {"hp_max": "hp_top"}), (4, {"hp_top": "cap", "hp": "life"})))
        assert history.name_now("hp_max", 1, 4) == "cap"
        assert history.name_now("hp_max", 2, 4) == "hp_max"
        assert history.name_now("hp_max", 1, 3) == "hp_top"
        assert history.values_now({"hp_max": 40, "hp": 35}, 0, 4) == {"cap": 40, "life": 35}
