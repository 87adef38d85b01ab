"""The simulator page's refusals, a person's edit beside the reply's writes, and a reply to a
message a cut left unanswered (trial des8, findings 1, 2 and 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit import tracker_changes_between
from trackerkit.changes import FieldChange, MessageChanges
from trackerkit.simulate.edits import changes_apart
from trackerkit.simulate.page import steps_html
from trackerkit.simulate.playback import play_page

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "data" / "scenes" / "fight.json"


def _calls(updates: str) -> str:
    return '[{"name": "update_trackers", "arguments": {"updates": [' + updates + "]}}]"


def _turn(calls: str, user: str = "A rat bites me.", reply: str = "Ouch.") -> dict[str, str]:
    return {"user": user, "reply": reply, "callsText": calls}


BITE = _turn(_calls('{"tracker": "Health", "set": {"hp": 14, "mood": "tense"}}'))
#: A typo in the version box: message 13 has one version.
TYPO = {"action": "show_version", "message": "m13", "version": 7}


class TestRefusalsOfEarlierSteps:
    """Finding 1: a refused step stayed above the chat for good, one banner per typo, even after
    its message was cut away; only Undo removed it."""

    def test_a_refusal_the_page_showed_when_it_was_added_folds_away(self) -> None:
        """A typo refused when it was added is shown at its control while it is the last step;
        once a later step is written (a cut of its message), it is no longer said above the chat."""
        steps = [BITE, TYPO, {**TYPO, "version": 8}, {"action": "cut", "message": "m13"}]
        playback = play_page(FIGHT, steps)
        noted = playback.refused_when_added([])
        assert noted == [False, True, True, False]
        assert playback.refusals(noted) == []
        # Without what the page noted, every earlier refusal is listed, as before.
        assert [o.number for o in playback.refusals()] == [8, 9]

    def test_stacked_typos_are_never_stacked_above_the_chat(self) -> None:
        """Two typos in a row: the last is shown at its control, the first nowhere above the chat."""
        playback = play_page(FIGHT, [BITE, TYPO, {**TYPO, "version": 8}])
        assert playback.refusals(playback.refused_when_added([])) == []
        assert playback.page_outcomes[-1].refused is not None

    def test_a_step_written_when_added_and_refused_on_a_replay_is_said(self) -> None:
        """A swipe written on m12 is refused when the slider leaves m12 out: it was not refused
        when added, so it is said above the chat even after a later step was written."""
        swipe = {
            "action": "swipe",
            "reply": "A rat.",
            "callsText": "[]",
            "baseStep": 0,
            "baseMessage": "m12",
        }
        steps = [swipe, {"action": "use", "take": "t1"}]
        noted = play_page(FIGHT, steps).refused_when_added([])
        assert noted == [False, False]
        replayed = play_page(FIGHT, steps, scripted=3)
        assert replayed.refused_when_added(noted) == noted
        assert [o.kind for o in replayed.refusals(noted)] == ["swipe"]

    def test_what_was_noted_is_kept_and_steps_gone_are_forgotten(self) -> None:
        """The steps noted before keep their note; an undone step's is dropped, a new one noted."""
        playback = play_page(FIGHT, [BITE, TYPO])
        assert playback.refused_when_added([False, False, True]) == [False, False]
        assert playback.refused_when_added([True]) == [True, True]

    def test_the_steps_list_keeps_every_refusal(self) -> None:
        """Each of the person's steps is listed with its outcome; a refused one stays there."""
        playback = play_page(FIGHT, [BITE, TYPO, {"action": "cut", "message": "m13"}])
        html = steps_html(playback.page_outcomes)
        assert html.count('<li class="tk-step ') == 3
        assert html.count("tk-step tk-step-refused") == 1
        assert "Step 8 (show_version) was refused, nothing was written: message 13 has 1" in html
        assert "Step 9 (cut) done." in html
        assert steps_html([]) == ""


def _fields(entry: MessageChanges | None) -> list[tuple[str, str, object, object]]:
    if entry is None:
        return []
    return [
        (t.name, c.field, c.before, c.after)
        for t in entry.trackers
        for c in t.changes
        if isinstance(c, FieldChange)
    ]


class TestTheReplysWritesBesideTheEdit:
    """Finding 2: an edit bringing hp back hid the reply's own hp change under message 14, and an
    edit of a field the reply left alone showed as the reply's change."""

    def test_an_edit_back_keeps_the_replys_change_and_says_the_edit_apart(self) -> None:
        """The reply wrote hp 40 → 14 and mood; the edit {"hp": 50} (clamped to 40) is apart."""
        edit = {"action": "edit", "tracker": "Health", "setText": '{"hp": 50}', "baseStep": 1}
        playback = play_page(FIGHT, [BITE, edit])
        chat = playback.session.chat
        apart = changes_apart(chat)["m14"]
        assert _fields(apart.reply) == [
            ("Health", "hp", 40, 14),
            ("Health", "mood", "calm", "tense"),
        ]
        assert _fields(apart.edit) == [("Health", "hp", 14, 40)]
        # TR-43: the message's change is still the net difference, the edit folded in.
        net = tracker_changes_between(chat, None, "m14").of("m14")
        assert _fields(net) == [("Health", "mood", "calm", "tense")]

    def test_an_edit_of_a_field_the_reply_left_alone_is_the_persons(self) -> None:
        """An edit of hp on a reply that wrote only mood is the person's change, not the reply's."""
        mood = _turn(_calls('{"tracker": "Health", "set": {"mood": "tense"}}'))
        edit = {"action": "edit", "tracker": "Health", "setText": '{"hp": 5}', "baseStep": 1}
        apart = changes_apart(play_page(FIGHT, [mood, edit]).session.chat)["m14"]
        assert _fields(apart.reply) == [("Health", "mood", "calm", "tense")]
        assert _fields(apart.edit) == [("Health", "hp", 40, 5)]

    def test_a_message_without_an_edit_is_its_net_change(self) -> None:
        """Every message but the edited one reads as the changes read gives it."""
        chat = play_page(FIGHT, [BITE]).session.chat
        apart = changes_apart(chat)
        net = tracker_changes_between(chat, None, chat.take.messages[0].id)
        assert {m.message_id: m for m in net.messages} == {
            message_id: entry.reply for message_id, entry in apart.items() if entry.reply
        }
        assert all(entry.edit is None for entry in apart.values())


CUT_REPLY = {"action": "cut", "message": "m14"}
ANSWER = {
    "action": "reply",
    "reply": "The rat flees.",
    "callsText": _calls('{"tracker": "Health", "set": {"hp": 12}}'),
}


class TestAReplyToAnUnansweredMessage:
    """Finding 7: after a cut left the take ending on the person's message, Swipe and Regenerate
    were refused and Send turn added another message, so it could never be answered."""

    def test_the_reply_answers_the_persons_last_message(self) -> None:
        """The reply is written after m13 (no new user message), with its calls."""
        playback = play_page(FIGHT, [BITE, CUT_REPLY, ANSWER])
        outcome = playback.page_outcomes[-1]
        assert outcome.refused is None
        assert outcome.sentence == "Step 9 (reply) done."
        take = playback.session.chat.take
        assert [(m.role, m.text) for m in take.messages[-2:]] == [
            ("user", "A rat bites me."),
            ("assistant", "The rat flees."),
        ]
        assert playback.session.values()["Health"]["hp"] == 12
        assert outcome.report is not None
        assert outcome.report.kind == "reply"

    def test_a_reply_on_a_take_that_ends_with_a_reply_is_refused(self) -> None:
        """Nothing to answer after a reply: refused in words, nothing written."""
        playback = play_page(FIGHT, [BITE, ANSWER])
        assert playback.page_outcomes[-1].refused == (
            "Nothing to answer: the last message (message 14) is already a reply. Send turn "
            "adds your message and its reply; Swipe or Regenerate writes this reply again."
        )
        assert len(playback.session.chat.take.messages) == 14

    @pytest.mark.parametrize("kind", ["swipe", "regenerate", "continue"])
    def test_swipe_regenerate_continue_on_the_persons_message_name_reply(self, kind: str) -> None:
        """Refused, as the chat rules say, with the control that answers the message."""
        step = {"action": kind, "reply": "A rat.", "callsText": "[]"}
        refused = play_page(FIGHT, [BITE, CUT_REPLY, step]).page_outcomes[-1].refused
        assert refused == (
            f"Nothing to {kind}: the last message (message 13) is yours, not a reply. "
            "Press Reply to last message to answer it."
        )

    def test_a_reply_made_before_a_later_step_is_refused(self) -> None:
        """Made on m13 with the page's base, it is refused when a step came first (a turn)."""
        based = {**ANSWER, "baseStep": 2}
        assert play_page(FIGHT, [BITE, CUT_REPLY, based]).page_outcomes[-1].refused is None
        moved = play_page(FIGHT, [BITE, CUT_REPLY, BITE, based])
        refused = moved.page_outcomes[-1].refused
        assert refused is not None
        assert refused.startswith("The reply was made on m13 of take 't1', but")

    def test_a_reply_to_a_scripted_message_the_slider_leaves_out_is_refused(self) -> None:
        """Made on m11 (cut of m12 left it unanswered), it is refused at 3 scripted steps."""
        steps = [
            {"action": "cut", "message": "m12"},
            {**ANSWER, "baseStep": 1, "baseMessage": "m11"},
        ]
        assert play_page(FIGHT, steps).page_outcomes[-1].refused is None
        refused = play_page(FIGHT, steps, scripted=3).page_outcomes[-1].refused
        assert refused is not None
        assert refused.startswith(
            "The reply was made on the message m11, which this replay does not play"
        )
        assert "and is not moved to another message." in refused
