"""The macro buttons the designer offers under the prompt line."""

from __future__ import annotations

from conftest import BAG, HEALTH

from trackerkit import Draft, decode_tracker
from trackerkit.design import macro_suggestions


class TestMacroSuggestions:
    def test_a_record(self) -> None:
        """A record offers the user, the character, the tracker, then each field by name."""
        assert macro_suggestions(Draft.open(decode_tracker(HEALTH))) == [
            "{{user}}",
            "{{char}}",
            "{{tracker::Health}}",
            "{{tracker::Health::hp}}",
            "{{tracker::Health::hp_max}}",
            "{{tracker::Health::mood}}",
        ]

    def test_a_list_reads_the_sample_row(self) -> None:
        """A list's field macros read the sample row the rail shows."""
        draft = Draft.open(decode_tracker(BAG))
        field = draft.fields[0].name
        assert f"{{{{tracker::{draft.name}::Sample::{field}}}}}" in macro_suggestions(draft)

    def test_follows_renames(self) -> None:
        """A renamed tracker and field are offered under their new names."""
        draft = Draft.open(decode_tracker(HEALTH)).rename_tracker("Vitals").rename_field("#1", "life")
        assert "{{tracker::Vitals::life}}" in macro_suggestions(draft)

    def test_every_suggestion_renders(self) -> None:
        """Each suggestion, as the whole prompt line, keeps the draft saveable."""
        draft = Draft.open(decode_tracker(HEALTH))
        for macro in macro_suggestions(draft):
            assert draft.set(template=macro).verdict().ok, macro
