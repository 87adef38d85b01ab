"""The macro buttons the designer offers under the prompt line."""

from __future__ import annotations

from typing import Any

import pytest
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

    def test_a_list_offers_its_whole_text_and_no_row(self) -> None:
        """A list starts with no rows (TR-19): no button names the rail's invented sample row,
        whose macro writes nothing in a chat (a trial: the button's line left Pack out of the
        block); the list's own macro, `{{tracker::Bag}}`, is offered (TR-32)."""
        draft = Draft.open(decode_tracker(BAG))
        assert macro_suggestions(draft) == ["{{user}}", "{{char}}", "{{tracker::Bag}}"]

    def test_follows_renames(self) -> None:
        """A renamed tracker and field are offered under their new names."""
        draft = (
            Draft.open(decode_tracker(HEALTH)).rename_tracker("Vitals").rename_field("#1", "life")
        )
        assert "{{tracker::Vitals::life}}" in macro_suggestions(draft)

    @pytest.mark.parametrize("piece", [HEALTH, BAG], ids=["record", "list"])
    def test_every_suggestion_renders_without_a_warning(self, piece: dict[str, Any]) -> None:
        """Each suggestion, as the whole prompt line, keeps the draft saveable and unwarned."""
        draft = Draft.open(decode_tracker(piece))
        for macro in macro_suggestions(draft):
            verdict = draft.set(template=macro).verdict()
            assert verdict.ok, macro
            assert verdict.warnings == (), macro
