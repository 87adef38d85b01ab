"""Trial ui9: a cut, fork or version the person made on one of their own messages stays on that
message when "Scripted steps played" moves (the ids of their messages move with the slider), and
one made on a scripted message the slider leaves out is refused, never moved to another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trackerkit.simulate.playback import Playback, play_page

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "data" / "scenes" / "fight.json"
MINE = {"user": "MY MESSAGE", "reply": "MY REPLY", "callsText": "[]"}


def _texts(playback: Playback) -> list[str]:
    return [m.text for m in playback.session.chat.take.messages]


def _picked(playback: Playback, text: str, action: str) -> dict[str, Any]:
    """The step the page adds when the person picks the message reading `text`."""
    (message_id,) = [m.id for m in playback.session.chat.take.messages if m.text == text]
    return {"action": action, "message": message_id, **playback.origin(message_id)}


def test_a_cut_of_my_reply_stays_on_it_when_more_scripted_steps_play() -> None:
    """Found: the cut named m10, the person's reply at slider 4 and the scripted reply at 5,
    so at 5 it cut the scripted reply and the person's turn was gone without a word."""
    cut = _picked(play_page(FIGHT, [MINE], scripted=4), "MY REPLY", "cut")
    assert cut["messageStep"] == 0
    at_four = play_page(FIGHT, [MINE, cut], scripted=4)
    at_five = play_page(FIGHT, [MINE, cut], scripted=5)
    for playback in (at_four, at_five):
        assert all(o.refused is None for o in playback.page_outcomes)
        assert _texts(playback)[-1] == "MY MESSAGE"
    scripted_five = play_page(FIGHT, [], scripted=5)
    assert _texts(at_five)[:-1] == _texts(scripted_five)


def test_a_fork_and_a_version_follow_my_message_too() -> None:
    base = play_page(FIGHT, [MINE], scripted=4)
    fork = _picked(base, "MY MESSAGE", "fork")
    shown = {**_picked(base, "MY REPLY", "show_version"), "version": 1}
    playback = play_page(FIGHT, [MINE, shown, fork], scripted=6)
    assert [o.refused for o in playback.page_outcomes] == [None, None, None]
    assert _texts(playback)[-1] == "MY MESSAGE"
    point = playback.forks[playback.session.chat.current]
    assert point.message_id == playback.made[0][0]


def test_a_cut_of_a_scripted_message_the_slider_leaves_out_is_refused() -> None:
    """At a lower slider the scripted message's id is one of the person's: refused, not cut."""
    full = play_page(FIGHT, [MINE])
    scripted_reply = full.session.chat.take.messages[3]
    cut = {"action": "cut", "message": scripted_reply.id, **full.origin(scripted_reply.id)}
    assert cut["messageScripted"] is True
    low = play_page(FIGHT, [MINE, cut], scripted=1)
    refused = low.page_outcomes[-1].refused
    assert refused is not None
    assert "scripted steps played here stop before it" in refused
    assert _texts(low)[-2:] == ["MY MESSAGE", "MY REPLY"]


def test_a_message_my_step_no_longer_writes_is_refused() -> None:
    """The turn that wrote the message is refused on this replay (its calls are not JSON):
    the cut says so instead of cutting whatever message took its place."""
    base = play_page(FIGHT, [MINE], scripted=2)
    cut = _picked(base, "MY REPLY", "cut")
    broken = {**MINE, "callsText": "[not json"}
    playback = play_page(FIGHT, [broken, cut], scripted=2)
    refused = playback.page_outcomes[-1].refused
    assert refused is not None
    assert "writes no such message" in refused
    assert "Step 3" not in refused
    assert "step 3 wrote" in refused


def test_the_heading_numbers_the_message_as_the_chat_does() -> None:
    """Found: the heading said "wrote m17" while the chat and the picker said message 8."""
    playback = play_page(FIGHT, [MINE], scripted=4)
    number = len(playback.session.chat.take.messages)
    assert playback.last_turn_heading().endswith(f"· wrote message {number}")


def test_a_turn_with_a_blank_user_message_is_not_sent() -> None:
    """Found: Send turn with an empty User message added `15 · user:` with nothing after it."""
    for user in ("", "   \n"):
        playback = play_page(FIGHT, [{**MINE, "user": user}])
        refused = playback.page_outcomes[-1].refused
        assert refused is not None
        assert refused.startswith("Type a user message")
        assert _texts(playback) == _texts(play_page(FIGHT, []))
