"""Every public `Chat` method checks its arguments' types and ranges: a wrong one is a clear
`BadRequestError` (or the documented error) and changes nothing, never a TypeError later.

A found defect: `show_version(-1, 1.5)` was accepted, and every `values()` after it raised
TypeError; a boolean passed for an integer is refused too.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from conftest import BAG, HEALTH, REPO

from trackerkit import BadRequestError, Chat, NotFoundError, Scene, Session
from trackerkit.scene import Prompting


def _chat() -> Chat:
    scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "bag"]))
    chat = Chat(scene, {"health": copy.deepcopy(HEALTH), "bag": copy.deepcopy(BAG)})
    chat.add_user("go")
    for hp in (5, 7):
        turn = chat.begin_turn("reply" if hp == 5 else "swipe")
        assert turn.call({"updates": [{"tracker": "Health", "set": {"hp": hp}}]}).ok
        turn.commit(f"hp {hp}")
    return chat


WRONG: dict[str, Callable[[Chat], object]] = {
    "show_version index float": lambda c: c.show_version(-1, 1.5),
    "show_version index whole float": lambda c: c.show_version(-1, 0.0),
    "show_version index bool": lambda c: c.show_version(-1, True),
    "show_version index text": lambda c: c.show_version(-1, "0"),
    "show_version index None": lambda c: c.show_version(-1, None),
    "show_version message None": lambda c: c.show_version(None, 0),
    "show_version message float": lambda c: c.show_version(1.0, 0),
    "show_version message bool": lambda c: c.show_version(False, 0),
    "cut None": lambda c: c.cut(None),
    "cut list": lambda c: c.cut([]),
    "fork dict": lambda c: c.fork({}),
    "message_id float": lambda c: c.message_id(0.5),
    "use None": lambda c: c.use(None),
    "use int": lambda c: c.use(5),
    "get_take int": lambda c: c.get_take(1),
    "values int": lambda c: c.values(5),
    "values bool": lambda c: c.values(True),
    "add_user None": lambda c: c.add_user(None),
    "add_user int": lambda c: c.add_user(5),
    "commit None": lambda c: c.begin_turn("swipe").commit(None),
    "commit bytes": lambda c: c.begin_turn("swipe").commit(b"hi"),
    "begin_turn tools_supported text": lambda c: c.begin_turn(tools_supported="no"),
    "begin_turn taken one name": lambda c: c.begin_turn(taken="update_trackers"),
    "begin_turn taken numbers": lambda c: c.begin_turn(taken=[1]),
    "begin_turn taken None": lambda c: c.begin_turn(taken=None),
    "edit base_version text": lambda c: c.edit("Health", {"hp": 1}, base_version="3"),
    "edit base_version bool": lambda c: c.edit("Health", {"hp": 1}, base_version=True),
    "edit base_version float": lambda c: c.edit("Health", {"hp": 1}, base_version=3.0),
}


@pytest.mark.parametrize("call", WRONG.values(), ids=WRONG.keys())
def test_a_wrong_argument_is_a_bad_request_and_changes_nothing(call: Callable[[Chat], Any]) -> None:
    chat = _chat()
    before = (
        chat.values(),
        [m.shown for m in chat.messages],
        len(chat.messages),
        chat.take.version,
    )
    with pytest.raises(BadRequestError) as caught:
        call(chat)
    assert "found" in str(caught.value)
    if chat.turn_open:  # the commit refused keeps its turn open; close it as a caller would
        assert chat._turn is not None
        chat._turn.fail()
    after = (chat.values(), [m.shown for m in chat.messages], len(chat.messages), chat.take.version)
    assert after == before
    chat.values()  # every read still works


@pytest.mark.parametrize("index", [2, -1, 10**30])
def test_a_version_out_of_range_is_not_found(index: int) -> None:
    chat = _chat()
    with pytest.raises(NotFoundError, match="there is no version"):
        chat.show_version(-1, index)
    assert chat.values()["Health"]["hp"] == 7


def test_a_right_call_still_works() -> None:
    chat = _chat()
    assert chat.show_version(-1, 0).shown == 0
    assert chat.values()["Health"]["hp"] == 5
    assert chat.use("t1") is chat.take
    assert chat.get_take(None) is chat.take
    turn = chat.begin_turn(tools_supported=False, taken=("update_trackers",))
    assert turn.tool is None
    turn.fail()
    turn = chat.begin_turn(taken={"update_trackers"})
    assert turn.tool is not None
    assert turn.tool.name == "update_trackers_2"
    turn.fail()


def test_the_take_refuses_a_version_index_that_is_no_integer() -> None:
    chat = _chat()
    with pytest.raises(BadRequestError, match=r"found float 1\.5"):
        chat.take.show(chat.messages[-1].id, 1.5)  # type: ignore[arg-type]


def test_a_chat_needs_a_scene() -> None:
    with pytest.raises(BadRequestError, match="needs a Scene"):
        Chat("data/scenes/typical.json", {})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.turn(None),
        lambda s: s.turn(5),
        lambda s: s.turn("go", script=5),
        lambda s: s.turn("go", script="reply"),
        lambda s: s.swipe(script=["reply"]),
    ],
    ids=["text-none", "text-int", "script-int", "script-text", "swipe-script-list"],
)
def test_a_session_turn_refuses_wrong_arguments_before_adding_anything(
    call: Callable[[Session], object],
) -> None:
    session = Session.from_scene(REPO / "data" / "scenes" / "typical.json")
    with pytest.raises(BadRequestError, match="found"):
        call(session)
    assert session.chat.messages == []
    assert not session.chat.turn_open
