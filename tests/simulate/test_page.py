"""What the simulator page draws: notes under a reply, a step's outcome, a failure, the edit form's start."""

from __future__ import annotations

from pathlib import Path

from trackerkit.simulate.page import (
    calls_example,
    edit_prefill,
    failure_html,
    outcome_html,
    played_marker,
    reply_notes_html,
)
from trackerkit.simulate.playback import play_page

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "data" / "scenes" / "fight.json"
SHOP = ROOT / "data" / "scenes" / "shop.json"


class TestReplyNotes:
    def test_a_refused_batch_shows_its_errors(self) -> None:
        """The scripted fight's round-1 batch is drawn as refused, with the rule's sentence."""
        html = reply_notes_html(play_page(FIGHT, []).reply_outcome("m6", 0))
        assert (
            'class="tk-note tk-refused" role="alert">Refused batch (round 1, update_trackers)'
            in html
        )
        assert "Health has no field &#x27;morale&#x27;" in html

    def test_a_clamp_shows_asked_and_written(self) -> None:
        """A clamped value is a note naming the field, what was asked and what was written."""
        html = reply_notes_html(play_page(FIGHT, []).reply_outcome("m10", 0))
        assert (
            '<div class="tk-note tk-clamped" data-field="hp">Clamped: Health · hp: asked 55, written 40</div>'
            in html
        )

    def test_a_plain_reply_has_no_notes(self) -> None:
        """A reply whose batch was accepted as asked draws nothing, nor does a message no turn wrote."""
        playback = play_page(FIGHT, [])
        assert reply_notes_html(playback.reply_outcome("m2", 0)) == ""
        assert reply_notes_html(playback.reply_outcome("m1", 0)) == ""


class TestOutcome:
    def test_a_refusal_is_an_alert_with_its_sentence(self) -> None:
        """A refused step is drawn as an alert holding its sentence, escaped."""
        outcome = play_page(
            SHOP, [{"action": "edit", "tracker": "<b>", "setText": '{"hp": 1}'}]
        ).page_outcomes[0]
        html = outcome_html(outcome)
        assert 'class="tk-note tk-outcome tk-refused" role="alert"' in html
        assert "Cannot edit &#x27;&lt;b&gt;&#x27;: the scene does not link it." in html

    def test_a_step_done_is_a_status(self) -> None:
        """A step that was done is a status line; no outcome draws nothing."""
        outcome = play_page(FIGHT, [{"action": "fork", "message": "m2"}]).page_outcomes[0]
        assert (
            'class="tk-note tk-outcome tk-done" role="status">Step 7 (fork) done.</div>'
            in outcome_html(outcome)
        )
        assert outcome_html(None) == ""


class TestFailure:
    def test_an_exception_is_a_sentence_in_its_section(self) -> None:
        """The section, the exception's kind and its message, escaped; never a traceback."""
        html = failure_html("The chat", ValueError("bad <thing>"))
        assert (
            'role="alert">The chat could not be shown: ValueError: bad &lt;thing&gt;</div>' in html
        )
        assert "(no message)" in failure_html("The bars", RuntimeError())
        from trackerkit.errors import NotFoundError

        told = failure_html("The data folder", NotFoundError("--data: x is not there"))
        assert "NotFoundError" not in told
        assert "could not be shown: --data: x is not there" in told

    def test_the_played_marker_carries_the_count(self) -> None:
        """The marker a journey waits on holds the number of steps played and shows nothing."""
        assert played_marker(7) == '<span class="tk-played" data-played="7" hidden></span>'


class TestEditPrefill:
    def test_a_record_starts_from_its_first_field(self) -> None:
        """Health on the fight starts from hp as it stands."""
        assert edit_prefill(play_page(FIGHT, []).session.chat, "Health") == ("", '{"hp": 40}')

    def test_a_list_starts_from_its_first_row(self) -> None:
        """Inventory on the shop starts from its first row and that row's first field."""
        assert edit_prefill(play_page(SHOP, []).session.chat, "Inventory") == (
            "Torch",
            '{"qty": 1}',
        )

    def test_an_empty_list_starts_a_new_row_with_the_initial_value(self) -> None:
        """A list with no rows yet starts a new row with the field's initial value, never null."""
        assert edit_prefill(play_page(SHOP, [], scripted=0).session.chat, "Inventory") == (
            "New row",
            '{"qty": 1}',
        )

    def test_a_tracker_the_scene_does_not_link_starts_empty(self) -> None:
        """Health on the shop (which does not link it), or no tracker, starts from nothing."""
        chat = play_page(SHOP, []).session.chat
        assert edit_prefill(chat, "Health") == ("", "{}")
        assert edit_prefill(chat, None) == ("", "{}")


class TestCallsExample:
    def _call(self, updates: str) -> str:
        return '[{"name": "update_trackers", "arguments": {"updates": [' + updates + "]}}]"

    def test_a_record_number_is_halved(self) -> None:
        """The fight's example sets Health hp to half of its 40."""
        assert calls_example(play_page(FIGHT, []).session.chat) == self._call(
            '{"tracker": "Health", "set": {"hp": 20}}'
        )

    def test_a_list_uses_its_first_row(self) -> None:
        """The shop's example halves the first row's qty; with no row yet, a new row."""
        assert calls_example(play_page(SHOP, []).session.chat) == self._call(
            '{"tracker": "Inventory", "row": "Torch", "set": {"qty": 0}}'
        )
        assert calls_example(play_page(SHOP, [], scripted=0).session.chat) == self._call(
            '{"tracker": "Inventory", "row": "New row", "set": {"qty": 0}}'
        )

    def test_a_scene_with_no_tracker_makes_no_call(self, tmp_path: Path) -> None:
        """A scene that links nothing gets an empty list of calls."""
        scene = tmp_path / "scenes" / "empty.json"
        scene.parent.mkdir()
        scene.write_text('{"id": "empty", "title": "Empty"}')
        assert (
            calls_example(play_page(scene, [], trackers=ROOT / "data" / "trackers").session.chat)
            == "[]"
        )
