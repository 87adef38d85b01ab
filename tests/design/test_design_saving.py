"""Saving from the designer: a new tracker's id, every outcome in words, stale saves keep the draft (TR-50)."""

from __future__ import annotations

import json

import pytest

from trackerkit import Draft, Library
from trackerkit.design import holds, id_problem, save, suggest_id
from trackerkit.formats import export_wtracker


class TestIds:
    @pytest.mark.parametrize(
        ("name", "taken", "suggested"),
        [
            ("Mana", (), "mana"),
            ("Mana Pool!", (), "mana-pool"),
            ("Mana", ("mana",), "mana-2"),
            ("Mana", ("mana", "mana-2"), "mana-3"),
            ("???", (), "tracker"),
            ("Élan", (), "elan"),
            ("Vitals ❤️ Ærin", (), "vitals-heart-aerin"),
            ("李 Li", ("li-li",), "li-li-2"),
        ],
        ids=["word", "words", "taken", "twice taken", "no letters", "accent", "emoji", "chinese"],
    )
    def test_suggested_from_the_name(
        self, name: str, taken: tuple[str, ...], suggested: str
    ) -> None:
        """The suggestion is the name's lowercase words joined by -, free in the library."""
        assert suggest_id(name, taken) == suggested
        assert id_problem(suggested, taken) is None

    @pytest.mark.parametrize("name", ["Vitals ❤️ Ærin", "Élan Vital", "李 好感度", "Mana Pool!"])
    def test_the_wtracker_export_keeps_the_id(self, name: str) -> None:
        """`trackerkit export --to wtracker` keys a tracker's preset by its id, not by its name
        (the import reads the key back as the id, so a scene still links the tracker)."""
        exported = export_wtracker([Draft.blank("x", name).tracker()])
        assert list(exported.settings["schemaPresets"]) == ["x"]

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            ("", "is not a tracker id"),
            ("a/b", "is not a tracker id"),
            ("-x", "is not a tracker id"),
            ("health", "already holds"),
        ],
        ids=["empty", "slash", "leading dash", "taken"],
    )
    def test_refused(self, text: str, words: str) -> None:
        """An id that cannot name a file, or names one that exists, is refused in words."""
        problem = id_problem(text, ["health"])
        assert problem is not None
        assert words in problem


class TestSave:
    def test_a_new_tracker_under_its_id(self, library: Library) -> None:
        """A new draft is created under the chosen id at revision 0; the draft follows the saved piece."""
        draft = Draft.blank("tracker", "Mana").rename_field("#1", "mp")
        outcome = save(draft, library, "mana-pool")
        assert outcome.kind == "saved"
        assert outcome.message == 'Saved as a new tracker "mana-pool" at revision 0.'
        assert library.get("mana-pool").fields[0].name == "mp"
        assert outcome.draft.id == "mana-pool"
        assert outcome.draft.patch() == {}

    def test_a_copy_under_a_new_id_names_its_namesake(self, library: Library) -> None:
        """Saving an opened tracker as new keeps its name: the outcome says which tracker shares it
        (a scene linking both would leave one out), matched as the tool matches names."""
        outcome = save(Draft.open(library.get("health")), library, "health-mine")
        assert outcome.kind == "saved"
        assert outcome.message.startswith('Saved as a new tracker "health-mine" at revision 0. ')
        assert 'already holds a tracker of this name: "Health" (health).' in outcome.message
        renamed = Draft.open(library.get("health")).rename_tracker("HEALTH")
        assert (
            '"Health" (health), "Health" (health-mine).'
            in save(renamed, library, "health-3").message
        )
        assert "of this name" not in save(Draft.blank("tracker", "Mana"), library, "mana").message

    def test_an_opened_tracker_saved_as_new_keeps_the_opened_one(self, library: Library) -> None:
        """Save as new on an unedited opened tracker copies it under the new id, at revision 0; the
        tracker opened is left as it is, and the draft now edits the copy."""
        before = (library.path / "health.json").read_bytes()
        draft = Draft.open(library.get("health"))
        new_id = suggest_id(draft.name, library.ids())
        assert new_id == "health-2"
        outcome = save(draft, library, new_id)
        assert outcome.kind == "saved"
        copy = library.get("health-2")
        assert (copy.name, copy.revision, copy.fields) == (
            "Health",
            0,
            library.get("health").fields,
        )
        assert (library.path / "health.json").read_bytes() == before
        assert (outcome.draft.id, outcome.draft.patch()) == ("health-2", {})
        assert (
            save(outcome.draft.set(description="Mine."), library).message
            == 'Saved "health-2" at revision 1.'
        )
        assert library.get("health").description != "Mine."

    def test_a_new_tracker_never_overwrites(self, library: Library) -> None:
        """An id the library holds is refused and the file is untouched (TR-50)."""
        before = (library.path / "health.json").read_bytes()
        draft = Draft.blank("tracker", "Mana")
        outcome = save(draft, library, "health")
        assert outcome.kind == "taken"
        assert outcome.draft is draft
        assert (library.path / "health.json").read_bytes() == before

    def test_a_held_back_draft(self, library: Library) -> None:
        """A draft the decoder refuses is not saved; the outcome names the field."""
        draft = Draft.open(library.get("health"))
        draft = draft.set_type(draft.key("mood"), "choice").set_field(draft.key("mood"), choices=[])
        outcome = save(draft, library)
        assert outcome.kind == "refused"
        assert 'field "mood"' in outcome.message
        assert outcome.draft is draft
        assert library.get("health").revision == 0

    def test_nothing_edited(self, library: Library) -> None:
        """Nothing edited, nothing sent."""
        outcome = save(Draft.open(library.get("health")), library)
        assert outcome.kind == "unchanged"
        assert outcome.ok

    def test_a_patch(self, library: Library) -> None:
        """An edit is saved as a patch at the next revision."""
        outcome = save(Draft.open(library.get("health")).set(description="Vera, now."), library)
        assert (outcome.kind, outcome.draft.revision) == ("saved", 1)
        assert library.get("health").description == "Vera, now."

    def test_stale_keeps_the_draft_and_shows_the_newer(self, library: Library) -> None:
        """A stale save writes nothing, keeps the draft and carries the newer revision to show."""
        draft = Draft.open(library.get("health")).set(description="Mine.")
        library.patch("health", 0, {"name": "Vitality"})
        outcome = save(draft, library)
        assert outcome.kind == "stale"
        assert outcome.draft is draft
        assert outcome.newer is not None
        assert outcome.newer.name == "Vitality"
        assert "revision 1" in outcome.message
        assert holds(outcome.newer)[0] == "Vitality at revision 1: Vera's condition"
        stored = json.loads((library.path / "health.json").read_text())
        assert (stored["name"], stored["description"], stored["revision"]) == (
            "Vitality",
            "Vera's condition",
            1,
        )

    def test_stale_then_saved_as_new(self, library: Library) -> None:
        """The kept draft saves under another id; the newer revision is left as it is."""
        draft = Draft.open(library.get("health")).set(description="Mine.")
        library.patch("health", 0, {"name": "Vitality"})
        outcome = save(save(draft, library).draft, library, "health-mine")
        assert outcome.kind == "saved"
        assert library.get("health-mine").description == "Mine."
        assert library.get("health").name == "Vitality"


class TestNameClash:
    """A draft named as another library tracker is told so before saving (a warning, not a refusal)."""

    def test_a_new_tracker_of_a_held_name(self, library: Library) -> None:
        """A new blank tracker named `health` (any case) names the library's Health; it still decodes."""
        draft = Draft.blank("tracker", "New tracker").rename_tracker("health")
        said = draft.name_clash(library.trackers(), new=True)
        assert said.startswith(
            'The library already holds a tracker of this name: "Health" (health). '
        )
        assert "leaves one of them out of every turn" in said
        assert draft.verdict([t.name for t in library.trackers()]).ok
        assert Draft.blank("tracker", "Mana").name_clash(library.trackers(), new=True) == ""

    def test_the_tracker_opened_is_not_its_own_namesake(self, library: Library) -> None:
        """An opened tracker does not clash with itself, but does with a copy of it."""
        draft = Draft.open(library.get("health"))
        assert draft.name_clash(library.trackers()) == ""
        save(draft, library, "health-copy")
        assert '"Health" (health-copy)' in draft.name_clash(library.trackers())

    def test_a_new_draft_under_a_held_id_clashes_with_that_tracker(self, library: Library) -> None:
        """A new draft (an import opened) whose id the library already holds is not that tracker."""
        draft = Draft.open(library.get("health"))
        assert '"Health" (health)' in draft.name_clash(library.trackers(), new=True)

    @pytest.mark.parametrize("blank", ["", "   "])
    def test_a_blank_name_clashes_with_nothing_and_heads_as_no_name(self, blank: str) -> None:
        draft = Draft.blank("tracker", "x").rename_tracker(blank)
        other = Draft.blank("other", "x").base.model_copy(update={"name": blank})
        assert draft.name_clash([other]) == ""
        assert draft.title == "(no name)"
        assert draft.verdict().lines() == ["tracker name: must not be blank"]

    def test_the_title_is_the_name_without_outer_spaces(self) -> None:
        assert Draft.blank("t", "x").rename_tracker("  Health ").title == "Health"
