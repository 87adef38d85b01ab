"""What a person typed on the simulator page and has not sent, kept per scene while it is open."""

from __future__ import annotations

from trackerkit.simulate import Unsent


class TestUnsent:
    """Found by a designer: text typed in the turn boxes, or an edit not sent, was gone after
    switching scenes and back, while the steps and the slider were kept per scene."""

    def test_a_box_starts_as_given_until_typed(self) -> None:
        """Nothing typed: the box's own start."""
        assert Unsent().text("fight", "user", "I check my wounds.") == "I check my wounds."

    def test_each_scene_keeps_its_own_text(self) -> None:
        """Typed in fight, then in shop: each scene reads back its own, the other's start stays."""
        unsent = Unsent()
        unsent.keep("fight", "user", "I duck behind the cart.")
        assert unsent.text("shop", "user", "I check my wounds.") == "I check my wounds."
        unsent.keep("shop", "user", "I haggle.")
        assert unsent.text("fight", "user", "start") == "I duck behind the cart."
        assert unsent.text("shop", "user", "start") == "I haggle."
        assert unsent.text("fight", "reply", "start") == "start"

    def test_an_emptied_box_stays_empty(self) -> None:
        """Text deleted on purpose is kept as empty, not put back to the start."""
        unsent = Unsent()
        unsent.keep("fight", "reply", "")
        assert unsent.text("fight", "reply", "You bind the cut.") == ""

    def test_an_edit_form_is_kept_per_tracker_and_dropped_once_sent(self) -> None:
        """The edit boxes of Health and Stamina are apart; sending Health's forgets only those."""
        unsent = Unsent()
        health_row, health_set = Unsent.edit_boxes("Health")
        stamina_row, stamina_set = Unsent.edit_boxes("Stamina")
        assert len({health_row, health_set, stamina_row, stamina_set}) == 4
        unsent.keep("fight", health_set, '{"hp": 7}')
        unsent.keep("fight", stamina_set, '{"stamina": 3}')
        unsent.drop("fight", health_row, health_set)
        assert unsent.text("fight", health_set, '{"hp": 40}') == '{"hp": 40}'
        assert unsent.text("fight", stamina_set, "{}") == '{"stamina": 3}'
        unsent.drop("shop", health_set)  # a scene with nothing kept: nothing to forget
