"""A chat pickles and deep-copies, and the copy goes on as the original does (ids, versions, values)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable

import pytest
from conftest import BAG, HEALTH

from trackerkit import Chat, Scene
from trackerkit.scene import Prompting


def _reply(chat: Chat, hp: int, kind: str = "reply") -> None:
    if kind == "reply":
        chat.add_user(f"hp {hp}")
    turn = chat.begin_turn(kind)  # type: ignore[arg-type]
    assert turn.call({"updates": [{"tracker": "Health", "set": {"hp": hp}}]}).ok
    turn.commit(f"hp is {hp}")


def _played() -> Chat:
    """A chat with three replies, a swipe of the last, and a fork at the first reply."""
    scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "bag"]))
    chat = Chat(scene, {"health": HEALTH, "bag": BAG})
    for hp in (5, 6, 7):
        _reply(chat, hp)
    _reply(chat, 8, "swipe")
    chat.fork(1)
    chat.use("t1")
    return chat


def _go_on(chat: Chat) -> list[object]:
    """The same steps on any chat, and what they made: message and take ids, versions, values."""
    made: list[object] = []
    _reply(chat, 9)
    made += [chat.messages[-1].id, chat.take.version, chat.values()]
    chat.use("t2")
    _reply(chat, 10)
    _reply(chat, 11, "swipe")
    made += [chat.messages[-1].id, chat.take.version, chat.values()]
    made += [chat.fork(-1).id, chat.take.version]
    _reply(chat, 12)
    made += [[m.id for m in t.messages] for t in chat.takes.values()]
    return made


def _pickled(chat: Chat) -> Chat:
    restored: Chat = pickle.loads(pickle.dumps(chat))
    return restored


class TestCopies:
    """A stored chat is the chat: its counters come back where they were, still shared by its takes."""

    @pytest.mark.parametrize("copier", [_pickled, copy.deepcopy], ids=["pickle", "deepcopy"])
    def test_copy_goes_on_like_the_original(self, copier: Callable[[Chat], Chat]) -> None:
        """After the round trip the next ids, versions and values are the original's."""
        chat = _played()
        copied = copier(chat)
        assert copied.values() == chat.values()
        assert _go_on(copied) == _go_on(chat)

    def test_no_itertools_object_is_stored(self) -> None:
        """The pickle holds no itertools object (they no longer pickle from Python 3.14)."""
        assert b"itertools" not in pickle.dumps(_played())
