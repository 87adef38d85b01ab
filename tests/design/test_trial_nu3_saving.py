"""Trial nu3, finding 2: "Save the draft as a new tracker" wrote `inventory-2.json` named
"Inventory" beside Inventory, and only said so after writing. The copy now takes a name of its
own, proposed free ("Inventory 2"), and a name the library holds is refused before anything is
written, in the words Import's refusal uses."""

from __future__ import annotations

import pytest

from trackerkit import Draft, Library
from trackerkit.design import duplicates, save, suggest_id, suggest_name
from trackerkit.formats.imported import Imported, ImportReport


class TestSuggestName:
    @pytest.mark.parametrize(
        ("name", "held", "suggested"),
        [
            ("Mana", ["Health"], "Mana"),
            ("Inventory", ["Inventory"], "Inventory 2"),
            ("Inventory", ["Inventory", "inventory 2"], "Inventory 3"),
            ("Inventory 2", ["Inventory", "Inventory 2"], "Inventory 3"),
            ("HEALTH", ["Health"], "HEALTH 2"),
            ("  Mana  ", ["Mana"], "Mana 2"),
            ("", ["Health"], ""),
        ],
        ids=["free", "held", "held twice", "numbered", "any case", "outer spaces", "blank"],
    )
    def test_a_free_name(self, name: str, held: list[str], suggested: str) -> None:
        """The name itself when no tracker is called by it, else the next free "Name N" (matched
        as the update tool matches names, so `inventory 2` holds "Inventory 2")."""
        trackers = [Draft.blank(f"t{i}", n).tracker() for i, n in enumerate(held)]
        assert suggest_name(name, trackers) == suggested


class TestSaveAsNewNamed:
    def test_the_copy_takes_the_name_given(self, library: Library) -> None:
        """The trial's steps with the name proposed: inventory-2.json is "Inventory 2", and no
        namesake is said."""
        draft = Draft.open(library.get("inventory")).add_field(type="number")
        new_id = suggest_id(draft.name, library.ids())
        name = suggest_name(draft.name, library.trackers())
        assert (new_id, name) == ("inventory-2", "Inventory 2")
        outcome = save(draft, library, new_id, name=name)
        assert outcome.kind == "saved"
        assert outcome.message == 'Saved as a new tracker "inventory-2" at revision 0.'
        assert library.get("inventory-2").name == "Inventory 2"
        assert library.get("inventory").name == "Inventory"
        assert (outcome.draft.name, outcome.draft.patch()) == ("Inventory 2", {})

    @pytest.mark.parametrize("typed", ["Inventory", "INVENTORY", " inventory "])
    def test_a_held_name_is_refused_and_nothing_written(self, library: Library, typed: str) -> None:
        """A name the library holds (any case) is refused before writing, the draft kept; the
        sentence is the one Import's refusal opens with."""
        before = sorted(p.name for p in library.path.iterdir())
        draft = Draft.open(library.get("inventory")).add_field(type="number")
        outcome = save(draft, library, "inventory-2", name=typed)
        assert outcome.kind == "refused"
        assert outcome.draft is draft
        assert sorted(p.name for p in library.path.iterdir()) == before
        clash = (
            f'"{typed.strip()}" (would be `inventory-2.json`): the library already holds a '
            'tracker of this name: "Inventory" (inventory)'
        )
        assert outcome.message == (
            f"Not saved: {clash}; nothing was written. Give the new tracker another name, or "
            "rename the one there."
        )
        inventory = library.get("inventory")
        imported = Imported((inventory,), ("inventory",), ImportReport("x.json", "x", ()))
        assert duplicates(imported, library)[0].split(": ", 1)[1] == clash.split(": ", 1)[1]

    def test_a_blank_name_is_held_back(self, library: Library) -> None:
        """A blank name is refused as the verdict refuses it; nothing is written."""
        draft = Draft.open(library.get("inventory"))
        outcome = save(draft, library, "inventory-2", name="  ")
        assert outcome.kind == "refused"
        assert "must not be blank" in outcome.message
        assert "inventory-2" not in library.ids()

    def test_without_a_name_the_draft_keeps_its_own(self, library: Library) -> None:
        """A new tracker's Save (no name given) is as before: the draft's name, the namesake said
        after (and before, under the verdict)."""
        outcome = save(Draft.open(library.get("inventory")), library, "inventory-2")
        assert outcome.kind == "saved"
        assert "already holds a tracker of this name" in outcome.message
