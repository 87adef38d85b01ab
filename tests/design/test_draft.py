"""Draft editing, the verdict, the patch and save, the rail (TR-46..TR-51)."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Mapping
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from conftest import BAG, DATA_TRACKERS, HEALTH
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit import (
    Draft,
    Library,
    StaleRevisionError,
    TrackerDecodeError,
    decode_tracker,
    rail,
    save_draft,
)
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.tokens import count_tokens
from trackerkit.tool import tracker_line
from trackerkit.tracker import encode_tracker

TEMPLATE = (
    "HP {{tracker::Vitals::hp}}/{{tracker::Vitals::hp_max}}, ward {{ tracker :: Vitals :: ward }}, "
    "{{tracker::Vitals::mood}}; {{tracker::Stamina::stamina}}"
)

#: hp is out of hp_max and ward is out of hp: a sibling's name to type through, with its own links.
VITALS: dict[str, Any] = {
    "id": "vitals",
    "name": "Vitals",
    "description": "How Vera is.",
    "body": {
        "layout": "record",
        "fields": [
            {
                "name": "hp",
                "description": "Hit points.",
                "type": "number",
                "min": 0,
                "maxField": "hp_max",
            },
            {
                "name": "hp_max",
                "description": "Most hit points.",
                "type": "number",
                "min": 1,
                "default": 30,
            },
            {"name": "ward", "description": "A shield.", "type": "number", "maxField": "hp"},
            {
                "name": "mood",
                "description": "",
                "type": "choice",
                "choices": ["calm", "tense"],
                "default": "tense",
            },
        ],
        "note": "Lower hp when Vera is hurt.",
        "template": TEMPLATE,
    },
}


def _draft(doc: Mapping[str, Any] = VITALS) -> Draft:
    return Draft.open(decode_tracker(copy.deepcopy(dict(doc))))


def _tops(draft: Draft) -> dict[str, str | None]:
    return {f["name"]: f.get("maxField") for f in draft.to_piece()["body"]["fields"]}


class TestOpen:
    """A draft opens from a tracker or blank, and reads back as the piece it was opened from."""

    @pytest.mark.parametrize("path", sorted(DATA_TRACKERS.glob("*.json")), ids=lambda p: p.stem)
    def test_bundled_round_trip(self, path: Path) -> None:
        """An unedited draft is the piece as stored, with an empty patch."""
        tracker = Library(DATA_TRACKERS).get(path.stem)
        draft = Draft.open(tracker)
        assert draft.to_piece() == encode_tracker(tracker)
        assert draft.tracker() == tracker
        assert draft.patch() == {}

    def test_blank(self) -> None:
        """A blank draft is the blank record with one number field, value."""
        draft = Draft.blank("new")
        assert [(f.name, f.type) for f in draft.fields] == [("value", "number")]
        assert draft.revision == 0
        assert draft.id == "new"

    def test_keys_are_stable_and_lookups_fail_plainly(self) -> None:
        """Keys survive edits; an unknown key or name is a plain not-found error."""
        draft = _draft()
        key = draft.key("hp_max")
        assert draft.rename_field(key, "top").field(key).name == "top"
        with pytest.raises(NotFoundError, match="key '#99'"):
            draft.field("#99")
        with pytest.raises(NotFoundError, match='called "nope"'):
            draft.key("nope")

    def test_edits_return_new_drafts(self) -> None:
        """An edit leaves the draft it was made on as it was."""
        draft = _draft()
        draft.rename_field(draft.key("hp"), "life").set(note="x")
        assert draft.to_piece() == encode_tracker(decode_tracker(VITALS))


class TestRenameField:
    """TR-47: a field rename moves its tops and macros, a keystroke at a time, by identity."""

    def test_through_a_siblings_name(self) -> None:
        """Renaming hp_max to hp_top through hp moves hp_max's links only; hp keeps its own."""
        draft = _draft()
        key = draft.key("hp_max")
        # Backspace down to "hp" (the sibling's name), then type on to "hp_top".
        for name in ["hp_ma", "hp_m", "hp_", "hp", "hp_", "hp_t", "hp_to", "hp_top"]:
            draft = draft.rename_field(key, name)
        assert _tops(draft) == {"hp": "hp_top", "hp_top": None, "ward": "hp", "mood": None}
        assert draft.template == TEMPLATE.replace("Vitals::hp_max", "Vitals::hp_top")

    def test_sibling_through_the_other_siblings_name(self) -> None:
        """Renaming hp to health through hp_max leaves hp_max's dependents and macros alone."""
        draft = _draft()
        key = draft.key("hp")
        for name in ["hp_", "hp_m", "hp_ma", "hp_max", "hp_ma", "h", "he", "health"]:
            draft = draft.rename_field(key, name)
        assert _tops(draft) == {"health": "hp_max", "hp_max": None, "ward": "health", "mood": None}
        assert draft.template == (
            "HP {{tracker::Vitals::health}}/{{tracker::Vitals::hp_max}}, ward "
            "{{ tracker :: Vitals :: ward }}, {{tracker::Vitals::mood}}; {{tracker::Stamina::stamina}}"
        )

    def test_spaces_in_a_macro_are_kept(self) -> None:
        """A macro written with spaces keeps them around the new name."""
        draft = _draft()
        draft = draft.rename_field(draft.key("ward"), "shield")
        assert "{{ tracker :: Vitals :: shield }}" in (draft.template or "")

    def test_template_edited_while_two_fields_share_a_name(self) -> None:
        """Editing the template mid-rename keeps each macro bound to the field it read."""
        draft = _draft()
        key = draft.key("hp_max")
        draft = draft.rename_field(key, "hp")
        draft = draft.set(template=(draft.template or "") + " !")
        draft = draft.rename_field(key, "hp_top")
        assert draft.template == TEMPLATE.replace("Vitals::hp_max", "Vitals::hp_top") + " !"

    def test_list_row_macro(self) -> None:
        """A `{{tracker::Name::row::field}}` macro follows its field too."""
        doc = copy.deepcopy(BAG)
        doc["body"]["template"] = "{{tracker::Bag::Sword::qty}} {{tracker::Bag}}"
        draft = _draft(doc)
        draft = draft.rename_field(draft.key("qty"), "count")
        assert draft.template == "{{tracker::Bag::Sword::count}} {{tracker::Bag}}"

    def test_new_template_binds_by_name(self) -> None:
        """A template typed later binds its macros to the fields named at that moment."""
        draft = _draft().set(template="{{tracker::Vitals::mood}}")
        draft = draft.rename_field(draft.key("mood"), "feeling")
        assert draft.template == "{{tracker::Vitals::feeling}}"


class TestRenameTracker:
    """TR-47: renaming the tracker rewrites the macros that name it (case-sensitive)."""

    def test_rewrites_own_macros(self) -> None:
        """Own macros follow through another tracker's name; other trackers' macros stay."""
        draft = _draft()
        for name in ["Stamina", "Stamin", "V", "Vigour"]:
            draft = draft.rename_tracker(name)
        assert draft.template == (
            "HP {{tracker::Vigour::hp}}/{{tracker::Vigour::hp_max}}, ward "
            "{{ tracker :: Vigour :: ward }}, {{tracker::Vigour::mood}}; {{tracker::Stamina::stamina}}"
        )
        assert draft.patch()["name"] == "Vigour"

    def test_case_sensitive(self) -> None:
        """A macro naming the tracker in another case is not the tracker's, and is not rewritten."""
        draft = _draft().set(template="{{tracker::vitals::hp}} {{tracker::Vitals::hp}}")
        assert (
            draft.rename_tracker("Life").template == "{{tracker::vitals::hp}} {{tracker::Life::hp}}"
        )

    def test_set_name_is_a_rename(self) -> None:
        """`set(name=...)` renames the tracker the same way."""
        assert "{{tracker::Life::hp}}" in (_draft().set(name="Life").template or "")


class TestDeleteAndRetype:
    """TR-48: a delete frees the tops that named the field; a type change drops the old type's keys."""

    def test_delete_frees_tops(self) -> None:
        """Deleting hp frees ward's top; the macro reading it keeps the old name and is held back."""
        draft = _draft()
        draft = draft.delete_field(draft.key("hp"))
        assert _tops(draft) == {"hp_max": None, "ward": None, "mood": None}
        verdict = draft.verdict(["Stamina"])
        assert verdict.lines() == [
            'template: Vitals has no field "hp" (in {{tracker::Vitals::hp}})'
        ]

    def test_number_to_text_frees_dependents(self) -> None:
        """hp_max as text loses min and default, and hp's top is freed."""
        draft = _draft()
        key = draft.key("hp_max")
        draft = draft.set_type(key, "text")
        assert draft.to_piece()["body"]["fields"][1] == {
            "name": "hp_max",
            "description": "Most hit points.",
            "type": "text",
        }
        assert _tops(draft)["hp"] is None
        assert _tops(draft)["ward"] == "hp"

    def test_number_keeps_its_top_away_from_number(self) -> None:
        """A number's own top and range go when it becomes a choice; it needs a choice then."""
        draft = _draft()
        draft = draft.set_type(draft.key("hp"), "choice")
        field = draft.to_piece()["body"]["fields"][0]
        assert field == {
            "name": "hp",
            "description": "Hit points.",
            "type": "choice",
            "choices": [],
        }
        assert _tops(draft)["ward"] is None
        assert 'field "hp": Choices needs at least one choice' in draft.verdict().lines()

    @pytest.mark.parametrize(
        ("to", "default"),
        [("text", "tense"), ("boolean", None), ("number", None)],
        ids=["text-keeps-fitting-default", "boolean-drops", "number-drops"],
    )
    def test_choice_drops_choices_and_misfit_default(self, to: Any, default: str | None) -> None:
        """Choices go; the default stays only where it still fits."""
        draft = _draft()
        key = draft.key("mood")
        field = draft.set_type(key, to).field(key)
        assert (field.type, field.choices, field.default) == (to, (), default)

    def test_same_type_is_no_edit(self) -> None:
        """Setting the type a field has changes nothing."""
        draft = _draft()
        assert draft.set_type(draft.key("hp"), "number") is draft


class TestFieldEdits:
    """Adding, moving and setting fields."""

    def test_add_and_move(self) -> None:
        """New fields get fresh names and keys; a move clamps to the list."""
        draft = Draft.blank("t")
        draft = draft.add_field().add_field(type="boolean").add_field("first", index=0)
        assert [f.name for f in draft.fields] == ["first", "value", "field", "field_2"]
        assert len({f.key for f in draft.fields}) == 4
        draft = draft.move_field(draft.key("first"), 99)
        assert [f.name for f in draft.fields][-1] == "first"
        draft = draft.delete_field(draft.key("first")).add_field("again")
        assert draft.key("again") not in {"#1", "#2", "#3", "#4"}

    def test_top_by_name_or_key(self) -> None:
        """A top is set by key or name; setting max clears it and setting a top clears max."""
        draft = _draft()
        ward = draft.key("ward")
        draft = draft.set_field(ward, max_field=draft.key("hp_max"))
        assert draft.top_of(ward) == "hp_max"
        draft = draft.set_field(ward, max=5)
        assert (draft.top_of(ward), draft.field(ward).max) == (None, 5)
        draft = draft.set_field(ward, max_field="hp")
        assert (draft.top_of(ward), draft.field(ward).max) == ("hp", None)

    def test_settings(self) -> None:
        """Description, icon, min, default and choices are set; None clears."""
        draft = _draft()
        mood = draft.key("mood")
        draft = draft.set_field(mood, description="Feel.", icon="lucide:smile", choices=["a", "b"])
        draft = draft.set_field(mood, default=None)
        assert draft.to_piece()["body"]["fields"][3] == {
            "name": "mood",
            "description": "Feel.",
            "icon": "lucide:smile",
            "type": "choice",
            "choices": ["a", "b"],
        }

    def test_setting_the_type_lacks(self) -> None:
        """A text field has no min; a number has no choices."""
        draft = _draft()
        with pytest.raises(BadRequestError, match='"mood" is a choice field and has no min'):
            draft.set_field(draft.key("mood"), min=1)
        with pytest.raises(BadRequestError, match="has no choices"):
            draft.set_field(draft.key("hp"), choices=["a"])

    def test_tracker_settings_and_cleared_template(self) -> None:
        """Settings change; an empty template is removed so the plain line is used."""
        draft = _draft().set(
            description="d", note="n", layout="list", icon="lucide:heart", changes="card"
        )
        draft = draft.set(template="  ")
        body = draft.to_piece()["body"]
        assert "template" not in body
        assert (body["layout"], body["note"], body["icon"], body["changes"]) == (
            "list",
            "n",
            "lucide:heart",
            "card",
        )


class TestVerdict:
    """TR-49: a draft the decoder refuses is held back, naming the wrong field by its name."""

    def test_ok(self) -> None:
        """A sound draft with a template reading a library tracker may be saved."""
        verdict = _draft().verdict(["Stamina"])
        assert verdict.ok
        assert verdict.tracker is not None

    @pytest.mark.parametrize(
        ("edit", "line"),
        [
            (
                lambda d: d.set_field(d.key("hp"), max_field="hp_maxx"),
                'field "hp": To (another field) names "hp_maxx", which is not a field of this tracker',
            ),
            (
                lambda d: d.rename_field(d.key("hp_max"), "hp"),
                'field "hp" (number 2): name repeats the name "hp" of field number 1',
            ),
            (
                lambda d: d.rename_field(d.key("mood"), "Mood"),
                'field "Mood": name must be a lowercase letter, then lowercase letters, digits or _, '
                'at most 64 characters; found "Mood"',
            ),
            (
                lambda d: d.set_field(d.key("hp_max"), default=0),
                'field "hp_max": Starts at must be at least 1; found 0',
            ),
            (
                lambda d: d.set_field(d.key("hp"), max_field="hp"),
                'field "hp": To (another field) cannot name the field itself',
            ),
            (lambda d: d.rename_tracker(" "), "tracker name: must not be blank"),
        ],
        ids=["unknown-top", "repeated-name", "bad-name", "default-below-min", "self-top", "blank"],
    )
    def test_names_the_field(self, edit: Any, line: str) -> None:
        """Each decoder problem is one plain line naming the field by its name."""
        verdict = edit(_draft()).verdict(["Stamina"])
        assert not verdict.ok
        assert verdict.tracker is None
        assert line in verdict.lines()

    @pytest.mark.parametrize(
        ("name", "line"),
        [
            (
                "Stamina ",
                "tracker name: must not start or end with a space: macros read the name without it",
            ),
            (
                " Stamina",
                "tracker name: must not start or end with a space: macros read the name without it",
            ),
            (
                "Sta}}mina",
                'tracker name: must not hold "}}": macros such as {{tracker::Name::field}} use them',
            ),
            (
                "A::B",
                'tracker name: must not hold "::": macros such as {{tracker::Name::field}} use them',
            ),
        ],
        ids=["trailing-space", "leading-space", "closing-braces", "double-colon"],
    )
    def test_a_name_macros_cannot_write_is_held_back(self, name: str, line: str) -> None:
        """Found when tried: `Stamina ` (or `Sta}}mina`) decoded and saved, and the prompt line,
        whose macros name the tracker, read blank or garbled."""
        verdict = _draft().rename_tracker(name).verdict(["Stamina"])
        assert not verdict.ok
        assert line in verdict.lines()

    def test_problems_by_field_key(self) -> None:
        """Problems are also given by field key, for showing beside the field."""
        draft = _draft()
        draft = draft.set_field(draft.key("hp"), max_field="nope")
        assert draft.verdict().by_field == {
            draft.key("hp"): (
                'To (another field) names "nope", which is not a field of this tracker',
            )
        }

    def test_unknown_tracker_held_back(self) -> None:
        """A macro naming a tracker the library lacks is held back; one it holds is not."""
        assert _draft().verdict(["Stamina"]).ok
        assert _draft().verdict(["Health"]).lines() == [
            'template: no linked tracker is called "Stamina" (in {{tracker::Stamina::stamina}})'
        ]

    def test_a_sentence_that_spells_a_path_is_not_reworded(self) -> None:
        """The verdict reads each problem's location and code, never its sentence: a top typed as
        `fields[0]` is quoted as typed, not turned into `field number 1` (issue 15, item 4)."""
        draft = _draft()
        draft = draft.set_field(draft.key("hp"), max_field="fields[0]")
        (line,) = draft.verdict(["Stamina"]).lines()
        assert line.startswith('field "hp": To (another field) ')
        assert '"fields[0]"' in line
        assert "field number" not in line

    def test_problems_keep_their_codes(self) -> None:
        """A problem keeps its code through the verdict: a repeated name, a macro's unknown tracker."""
        draft = _draft().rename_field(_draft().key("hp_max"), "hp")
        assert "name_repeated" in [p.code for p in draft.verdict(["Stamina"]).problems]
        assert [p.code for p in _draft().verdict(["Health"]).problems] == ["no_tracker"]

    def test_other_template_errors_held_back(self) -> None:
        """An unknown macro or field of this tracker is held back even with library names."""
        draft = _draft().set(template="{{nope}} {{tracker::Vitals::hpx}}")
        assert draft.verdict(["Stamina", "Vitals"]).lines() == [
            'template: unknown macro "nope"; it was left as written (in {{nope}})',
            'template: Vitals has no field "hpx" (in {{tracker::Vitals::hpx}})',
        ]

    def test_list_rows_named_in_the_template(self) -> None:
        """A list template reading a named row is checked with that row present."""
        doc = copy.deepcopy(BAG)
        doc["body"]["template"] = "{{tracker::Bag::Sword::qty}} {{tracker::Bag::Sword::nope}}"
        assert _draft(doc).verdict().lines() == [
            'template: Bag has no field "nope" (in {{tracker::Bag::Sword::nope}})'
        ]


class TestPatch:
    """TR-50: a save is a patch of the edits; nothing edited, nothing to send."""

    def test_empty_when_nothing_edited(self) -> None:
        """An edit undone leaves nothing to send."""
        draft = _draft()
        key = draft.key("hp")
        assert draft.rename_field(key, "life").rename_field(key, "hp").patch() == {}
        assert draft.set(note=draft.note).patch() == {}

    def test_only_changed_keys(self) -> None:
        """Head keys and body keys that changed, and no others."""
        draft = _draft().set(description="New.", note="New note.")
        assert draft.patch() == {"description": "New.", "body": {"note": "New note."}}

    def test_field_rename_sends_fields_and_template(self) -> None:
        """A field rename changes the fields and the template."""
        draft = _draft()
        draft = draft.rename_field(draft.key("mood"), "feeling")
        assert set(draft.patch()["body"]) == {"fields", "template"}

    def test_cleared_template_is_sent_as_null(self) -> None:
        """A removed template is sent as None, which clears it."""
        assert _draft().set(template="").patch() == {"body": {"template": None}}


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    """A library holding copies of the bundled health and stamina trackers."""
    for name in ("health", "stamina"):
        shutil.copy(DATA_TRACKERS / f"{name}.json", tmp_path / f"{name}.json")
    return Library(tmp_path)


class _Spy(Library):
    """A library that counts the patches sent to it."""

    sent = 0

    def patch(
        self, tracker_id: str, base_revision: int, changes: Mapping[str, Any], **given: Any
    ) -> Any:
        self.sent += 1
        return super().patch(tracker_id, base_revision, changes, **given)


class TestSave:
    """TR-50: saves through a real library, on the revision opened."""

    def test_patch_saved(self, lib: Library) -> None:
        """An edit is saved at the next revision and the draft keeps its keys."""
        draft = Draft.open(lib.get("health"))
        key = draft.key("hp_max")
        saved = save_draft(draft.rename_field(key, "hp_top"), lib)
        stored = lib.get("health")
        assert stored.revision == 1
        assert stored.fields[0].max_field == "hp_top"
        assert (saved.revision, saved.patch(), saved.field(key).name) == (1, {}, "hp_top")

    def test_nothing_edited_nothing_sent(self, lib: Library) -> None:
        """With no edit the library is not called."""
        spy = _Spy(lib.path)
        before = (lib.path / "health.json").read_bytes()
        draft = Draft.open(spy.get("health"))
        assert save_draft(draft, spy) is draft
        assert spy.sent == 0
        assert (lib.path / "health.json").read_bytes() == before

    def test_stale_revision_refused_nothing_lost(self, lib: Library) -> None:
        """A save on a revision that moved is refused; the draft and the stored piece are kept."""
        first = Draft.open(lib.get("health"))
        second = first.set(note="Second edit.")
        save_draft(first.set(note="First edit."), lib)
        with pytest.raises(StaleRevisionError):
            save_draft(second, lib)
        assert second.patch() == {"body": {"note": "Second edit."}}
        assert lib.get("health").body.note == "First edit."

    def test_held_back_not_sent(self, lib: Library) -> None:
        """A draft with a problem is not saved; a template reading a library tracker is."""
        spy = _Spy(lib.path)
        draft = Draft.open(spy.get("health"))
        with pytest.raises(TrackerDecodeError, match="Nowhere"):
            save_draft(draft.set(template="{{tracker::Nowhere}}"), spy)
        assert spy.sent == 0
        saved = save_draft(draft.set(template="{{tracker::Stamina::stamina}}"), spy)
        assert saved.revision == 1

    def test_new_piece_saved_whole(self, lib: Library) -> None:
        """A blank draft the library does not hold is created."""
        save_draft(Draft.blank("fresh", "Fresh"), lib)
        assert lib.get("fresh").name == "Fresh"


class TestRail:
    """TR-51: the block at starting values, the plain line, its tokens, the tool line."""

    def test_record(self) -> None:
        """A record shows its starting values."""
        tracker = decode_tracker(HEALTH)
        shown = rail(tracker)
        assert shown.block == "### Trackers\nHealth: hp=0, hp_max=30, mood=calm"
        assert shown.plain == "Health: hp=0, hp_max=30, mood=calm"
        assert shown.tokens == count_tokens(shown.block) == shown.plain_tokens
        assert shown.encoding == "cl100k_base"
        assert shown.tool_line == tracker_line(tracker)

    def test_list_has_one_sample_row(self) -> None:
        """A list shows one sample row filled from the initial values."""
        shown = rail(Draft.open(decode_tracker(BAG)))
        assert shown.block == "### Trackers\nBag:\n- Sample: qty=0, equipped=false"
        assert shown.plain == "Bag:\n- Sample: qty=0, equipped=false"

    def test_a_list_says_its_row_is_a_sample_and_shows_its_start(self) -> None:
        """The block with a sample row is headed as such, and the empty list a chat starts with is
        shown with its cost (a trial: "Sample" was priced "per reply" without a word, TR-19)."""
        shown = rail(decode_tracker(BAG))
        assert shown.prompt_heading() == (
            f"**Prompt, with one sample row** · {shown.tokens} tokens per reply with that row "
            "(cl100k_base)"
        )
        assert shown.empty_block == "### Trackers\nBag: (none)"
        assert shown.empty_tokens == count_tokens(shown.empty_block)
        assert shown.empty_heading() == (
            f"**A chat starts with no rows**, and the block then reads · {shown.empty_tokens} tokens"
        )

    def test_a_list_line_of_row_macros_is_left_out_at_the_start(self) -> None:
        """A template reading only a row writes nothing while the list is empty."""
        draft = Draft.open(decode_tracker(BAG)).set(template="{{tracker::Bag::Rope::qty}}")
        shown = rail(draft)
        assert shown.empty_block is None
        assert "leaves it out" in shown.empty_heading()

    def test_a_record_has_no_sample(self) -> None:
        shown = rail(decode_tracker(HEALTH))
        assert (shown.sample, shown.empty_block, shown.empty_heading()) == (False, None, "")
        assert (
            shown.prompt_heading() == f"**Prompt** · {shown.tokens} tokens per reply (cl100k_base)"
        )

    def test_template_and_its_plain_fallback(self) -> None:
        """With a template the block is its output; the plain line is the fallback."""
        draft = _draft().set(template="{{char}} has {{tracker::Vitals::hp}} hp")
        shown = rail(draft)
        assert shown.block == "### Trackers\nAssistant has 0 hp"
        assert shown.plain == "Vitals: hp=0, hp_max=30, ward=0, mood=tense"
        assert shown.plain_tokens == count_tokens("### Trackers\n" + shown.plain)
        assert shown.report.ok

    def test_the_plain_line_is_counted_alone_and_in_its_block(self) -> None:
        """The plain line's heading says what each count counts: the line alone, and the block."""
        shown = rail(decode_tracker(HEALTH))
        assert shown.line_tokens == count_tokens(shown.plain) < shown.plain_tokens
        assert shown.plain_heading() == (
            f"**The plain line it falls back to** · {shown.line_tokens} tokens for the line alone "
            f"({shown.plain_tokens} for the block with this line)"
        )

    def test_refused_draft_raises(self) -> None:
        """A draft the decoder refuses has no rail."""
        draft = _draft()
        with pytest.raises(TrackerDecodeError):
            rail(draft.rename_field(draft.key("hp"), "HP"))


class TestLinked:
    """TR-46: where the draft's tracker is linked, from the scenes' settings alone."""

    def test_linked(self) -> None:
        """Live scenes that link the tracker are counted; a deleted one is left out."""
        scenes = [
            {"id": "a", "title": "A", "prompting": {"trackers": ["vitals"]}},
            {"id": "b", "title": "B", "prompting": {"trackers": ["vitals"]}, "deleted": True},
        ]
        assert str(_draft().linked(scenes)) == "linked in 1 scene"
        assert str(_draft().linked([])) == "not linked to a scene"


SIBLINGS = ["hp", "hp_max", "ward", "mood"]
NAMES = st.one_of(st.sampled_from(SIBLINGS), st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True))
FRESH = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda n: n not in SIBLINGS)


class TestRenameLaw:
    """TR-47 as a law: the names typed on the way never change where the links end up."""

    @settings(max_examples=80, deadline=None)
    @given(st.sampled_from(SIBLINGS), st.lists(NAMES, max_size=8), FRESH)
    def test_field_renames_equal_one_step(self, field: str, way: list[str], last: str) -> None:
        """Any sequence of field renames ending at a fresh name equals the one-step rename."""
        draft = _draft()
        key = draft.key(field)
        walked = reduce(lambda d, name: d.rename_field(key, name), [*way, last], draft)
        assert walked.to_piece() == draft.rename_field(key, last).to_piece()

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.sampled_from(["Stamina", "vitals", "V", "Vitals "]), max_size=5))
    def test_tracker_renames_equal_one_step(self, way: list[str]) -> None:
        """Any sequence of tracker renames ending at a fresh name equals the one-step rename."""
        draft = _draft()
        walked = reduce(lambda d, name: d.rename_tracker(name), [*way, "Fresh"], draft)
        assert walked.to_piece() == draft.rename_tracker("Fresh").to_piece()


class TestWithId:
    def test_a_new_piece_under_another_id(self) -> None:
        """with_id keeps the draft's fields and keys, under the new id at revision 0."""
        draft = Draft.open(decode_tracker(HEALTH)).rename_field("#1", "life")
        moved = draft.with_id("vitals-2")
        assert (moved.id, moved.revision) == ("vitals-2", 0)
        assert moved.fields == draft.fields
        assert moved.to_piece()["id"] == "vitals-2"

    def test_an_id_that_cannot_name_a_file(self) -> None:
        """An id with a slash is refused."""
        with pytest.raises(BadRequestError):
            Draft.open(decode_tracker(HEALTH)).with_id("../x")


class TestVerdictInTheEditorsWords:
    """Trial ui9: the boxes read From, To and Starts at, the verdict said min, max and default,
    and counted choices from 0 ("choices[3] repeats the choice")."""

    def test_a_range_the_wrong_way_round_names_the_boxes(self) -> None:
        draft = Draft.blank("t", "Mana").set_field("#1", min=100, max=10)
        assert draft.verdict().lines() == ['field "value": From must be at most To (10); found 100']

    def test_a_repeated_choice_is_counted_from_one(self) -> None:
        draft = (
            Draft.blank("t", "Mood")
            .set_type("#1", "choice")
            .set_field("#1", choices=("calm", "tense", "angry", "calm"))
        )
        assert 'field "value": choice 4 repeats the choice "calm"' in draft.verdict().lines()
