"""A chat on a scene: turns, swipes, continues, cuts, forks, the panel and a person's edits (TR-23..TR-27, TR-33..TR-41).

TR-39 (the tool loop's large-answer shortening and the tool time budget) and TR-41 (a model that
refuses tools) belong to the simulator's tool loop in `trackerkit/simulate/session.py`; here they are tested as far as
the turn goes: the answer has no size cap, a call on a closed turn keeps nothing, a continue offers
no tool, and the update tool is the only way a turn writes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from conftest import BAG, HEALTH

from trackerkit import (
    BadRequestError,
    Chat,
    EditRefusedError,
    NotFoundError,
    Scene,
    TurnError,
    tracker_changes_between,
)
from trackerkit.formats import strict_arguments
from trackerkit.scene import Prompting

HP = "tracker-record:health"


def _pieces() -> dict[str, Any]:
    broken = copy.deepcopy(BAG)
    broken.update(id="broken", name="Broken")
    broken["body"]["fields"][0]["type"] = "money"
    hero = {**copy.deepcopy(HEALTH), "id": "hero", "name": "Hero"}
    return {"health": HEALTH, "bag": BAG, "broken": broken, "hero": hero}


def _chat(*ids: str, tool_access: bool = True) -> Chat:
    links = ids or ("health", "bag", "broken")
    scene = Scene(
        id="s", title="S", prompting=Prompting(trackers=list(links)), toolAccess=tool_access
    )
    return Chat(scene, _pieces())


def _say(chat: Chat, *updates: dict[str, Any], text: str = "ok") -> str:
    """Add a user message and a reply that makes `updates`; returns the reply's id."""
    chat.add_user("go")
    turn = chat.begin_turn()
    if updates:
        assert turn.call({"updates": list(updates)}).ok
    return turn.commit(text).id


def _hp(chat: Chat, message_id: str | None = None) -> object:
    return chat.values(message_id)["Health"]["hp"]


def _set_hp(value: int) -> dict[str, Any]:
    return {"tracker": "Health", "set": {"hp": value}}


class TestTurn:
    """TR-38: a turn's deltas stay pending until commit stamps them on the reply; fail drops them."""

    def test_commit_stamps_the_pending_deltas(self) -> None:
        """A call's deltas are seen by the turn at once and by the chat only after commit."""
        chat = _chat()
        chat.add_user("hit her")
        turn = chat.begin_turn()
        result = turn.call({"updates": [_set_hp(20)]})
        assert result.answer == "Health: hp 0 -> 20"
        assert turn.values()["Health"]["hp"] == 20
        assert _hp(chat) == 0
        message = turn.commit("Ouch.")
        assert message.version.deltas == result.deltas
        assert _hp(chat) == 20
        assert not chat.turn_open

    def test_later_call_sees_earlier_call(self) -> None:
        """TR-32: a second call in the same reply sees what the first wrote."""
        chat = _chat()
        turn = chat.begin_turn()
        turn.call({"updates": [{"tracker": "Health", "set": {"hp_max": 50}}]})
        assert turn.call({"updates": [_set_hp(45)]}).answer == "Health: hp 0 -> 45"

    def test_fail_drops_pending(self) -> None:
        """A failed turn keeps nothing: no message, no change."""
        chat = _chat()
        chat.add_user("go")
        turn = chat.begin_turn()
        turn.call({"updates": [_set_hp(9)]})
        turn.fail()
        assert (len(chat.messages), _hp(chat), chat.turn_open) == (1, 0, False)

    @pytest.mark.parametrize("close", ["commit", "fail"])
    def test_call_on_a_closed_turn_keeps_nothing(self, close: str) -> None:
        """TR-39: a call after the turn closed is a failure the model is told of, with nothing kept."""
        chat = _chat()
        turn = chat.begin_turn()
        turn.commit("done") if close == "commit" else turn.fail()
        version = chat.take.version
        result = turn.call({"updates": [_set_hp(9)]})
        assert not result.ok
        assert "nothing was kept" in result.answer
        assert (chat.take.version, _hp(chat), result.deltas) == (version, 0, ())

    def test_closed_turn_cannot_commit(self) -> None:
        """Committing a closed turn is an error."""
        turn = _chat().begin_turn()
        turn.commit("a")
        with pytest.raises(TurnError, match="closed already"):
            turn.commit("b")

    def test_no_size_cap(self) -> None:
        """TR-39: a 1,000-item call on a turn is applied whole and its answer is never shortened."""
        chat = _chat()
        turn = chat.begin_turn()
        updates = [{"tracker": "Bag", "row": f"coin {i}", "set": {"qty": i}} for i in range(1000)]
        result = turn.call({"updates": updates})
        assert result.change_count == 1000
        assert result.answer.count("added row") == 1000
        turn.commit("Rich.")
        assert len(chat.values()["Bag"]) == 1000

    def test_tool_is_the_only_write_and_touches_only_trackers(self) -> None:
        """TR-40: a reply's writes come only from its update calls, all on tracker slots."""
        chat = _chat()
        message_id = _say(chat, _set_hp(3), {"tracker": "Bag", "row": "Rope", "set": {"qty": 1}})
        deltas = chat.take.message(message_id).deltas()
        assert deltas
        assert all(d.is_tracker for d in deltas)
        assert chat.take.message(_say(chat)).deltas() == []

    def test_each_turn_reloads_the_trackers(self) -> None:
        """TR-25: a turn reads the pieces when it loads, so a piece gone since is left out."""
        pieces = _pieces()
        scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "bag", "broken"]))
        chat = Chat(scene, pieces)
        first = chat.begin_turn()
        assert [t.name for t in first.trackers] == ["Health", "Bag"]
        first.fail()
        del pieces["bag"]
        turn = chat.begin_turn()
        assert [t.name for t in turn.trackers] == ["Health"]
        assert [lo.tracker_id for lo in turn.linked.left_out] == ["bag", "broken"]


class TestToolOffered:
    """TR-34: the tool is offered with tool access, a connection that takes tools, no continue, and a linked tracker."""

    @pytest.mark.parametrize(
        ("make", "kind", "supported", "offered"),
        [
            (lambda: _chat(), "reply", True, True),
            (lambda: _chat(tool_access=False), "reply", True, False),
            (lambda: _chat(), "reply", False, False),
            (lambda: _chat("broken"), "reply", True, False),
            (lambda: _chat(), "continue", True, False),
        ],
        ids=["offered", "no-tool-access", "connection-without-tools", "nothing-loaded", "continue"],
    )
    def test_offered_when(
        self, make: Callable[[], Chat], kind: Any, supported: bool, offered: bool
    ) -> None:
        """The turn carries the tool only when every condition holds; a turn without it refuses calls."""
        chat = make()
        if kind == "continue":
            _say(chat)
        turn = chat.begin_turn(kind, tools_supported=supported)
        assert (turn.tool is not None) is offered
        if not offered:
            result = turn.call({"updates": [_set_hp(1)]})
            assert not result.ok
            assert result.deltas == ()

    def test_numbered_when_taken(self) -> None:
        """The turn's tool is numbered past names already taken in the request."""
        turn = _chat().begin_turn(taken={"update_trackers"})
        assert turn.tool is not None
        assert turn.tool.name == "update_trackers_2"


class TestWhatATurnSees:
    """TR-23 and TR-33: a swipe or regenerate sees the state before the reply it replaces; a continue sees it as it stands."""

    @pytest.mark.parametrize("kind", ["swipe", "regenerate"])
    def test_swipe_sees_state_before_the_reply(self, kind: Any) -> None:
        """The new version starts from the state before the replaced reply, and the trackers follow the version shown."""
        chat = _chat()
        _say(chat, _set_hp(10))
        reply = _say(chat, _set_hp(20))
        turn = chat.begin_turn(kind)
        assert turn.values()["Health"]["hp"] == 10
        turn.call({"updates": [_set_hp(15)]})
        turn.commit("again")
        assert (_hp(chat), chat.take.message(reply).shown) == (15, 1)
        chat.show_version(reply, 0)
        assert _hp(chat) == 20

    def test_continue_sees_state_as_it_stands(self) -> None:
        """A continue sees the reply's own writes, offers no tool and extends the reply's text."""
        chat = _chat()
        reply = _say(chat, _set_hp(20), text="Ouch")
        turn = chat.begin_turn("continue")
        assert turn.values()["Health"]["hp"] == 20
        assert turn.tool is None
        turn.commit(", that hurt.")
        message = chat.take.message(reply)
        assert (message.text, len(message.versions), _hp(chat)) == ("Ouch, that hurt.", 1, 20)

    @pytest.mark.parametrize("kind", ["swipe", "regenerate", "continue"])
    def test_nothing_to_replace(self, kind: Any) -> None:
        """A swipe, regenerate or continue needs a reply at the end of the take."""
        chat = _chat()
        chat.add_user("hi")
        with pytest.raises(TurnError, match=f"nothing to {kind}"):
            chat.begin_turn(kind)

    def test_unknown_kind(self) -> None:
        """An unknown turn kind is refused."""
        with pytest.raises(TurnError, match="unknown turn kind"):
            _chat().begin_turn("rewind")  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        "action",
        [
            lambda c: c.add_user("x"),
            lambda c: c.begin_turn(),
            lambda c: c.cut(c.messages[0].id),
            lambda c: c.fork(c.messages[0].id),
            lambda c: c.show_version(c.messages[0].id, 0),
            lambda c: c.use("t1"),
        ],
        ids=["add-user", "begin-turn", "cut", "fork", "show-version", "use"],
    )
    def test_open_turn_blocks_history_changes(self, action: Callable[[Chat], object]) -> None:
        """While a reply is being written, the history cannot change."""
        chat = _chat()
        _say(chat)
        chat.begin_turn()
        with pytest.raises(TurnError, match="while a reply is being written"):
            action(chat)


class TestHistory:
    """TR-23: show-version, cut and fork leave every tracker where the shown history says."""

    def test_cut(self) -> None:
        """Cutting a reply drops its writes and everything after it."""
        chat = _chat()
        _say(chat, _set_hp(10))
        second = _say(chat, _set_hp(20))
        _say(chat, _set_hp(30))
        dropped = chat.cut(second)
        assert next(m.id for m in dropped) == second
        assert (_hp(chat), len(chat.messages)) == (10, 3)

    def test_fork_shares_history_and_goes_its_own_way(self) -> None:
        """A fork starts from the history up to a message; writes on either take stay on it."""
        chat = _chat()
        first = _say(chat, _set_hp(10))
        _say(chat, _set_hp(20))
        original = chat.current
        forked = chat.fork(first)
        assert (chat.current, len(forked), _hp(chat)) == (forked.id, 2, 10)
        _say(chat, _set_hp(5))
        assert _hp(chat) == 5
        chat.use(original)
        assert _hp(chat) == 20
        assert _hp(chat, first) == 10

    def test_show_version_out_of_range(self) -> None:
        """Showing a version the message does not have is not found."""
        chat = _chat()
        reply = _say(chat)
        with pytest.raises(NotFoundError, match="there is no version 3"):
            chat.show_version(reply, 3)

    def test_unknown_take(self) -> None:
        """Switching to a take the chat does not have is not found."""
        with pytest.raises(NotFoundError, match="no take 't9'"):
            _chat().use("t9")


class TestMessageIds:
    def test_ids_count_per_chat(self) -> None:
        """Each chat counts its message ids from m1, so the same steps played again give the same ids."""
        first, second = _chat(), _chat()
        ids = [_say(first, _set_hp(20)), _say(first)]
        assert ids == ["m2", "m4"]
        assert [_say(second, _set_hp(20)), _say(second)] == ids

    def test_a_fork_keeps_the_shared_ids_and_counts_on(self) -> None:
        """A fork shares the ids of the history it copies; a new message there takes the chat's next id."""
        chat = _chat()
        shared = _say(chat)
        chat.fork(shared)
        assert [m.id for m in chat.messages] == ["m1", "m2"]
        assert _say(chat) == "m4"


class TestPanel:
    """TR-26: one read gives each linked tracker's value at the tip and the reply that last changed it."""

    def test_values_and_last_change(self) -> None:
        """Each loaded tracker shows its tip value and the id of the last message that wrote it."""
        chat = _chat()
        first = _say(chat, _set_hp(10), {"tracker": "Bag", "row": "Rope", "set": {"qty": 1}})
        second = _say(chat, _set_hp(12))
        _say(chat)
        panel = {entry.tracker.name: entry for entry in chat.panel()}
        assert list(panel) == ["Health", "Bag"]
        assert panel["Health"].value == {"hp": 12, "hp_max": 30, "mood": "calm"}
        assert (panel["Health"].changed_by, panel["Bag"].changed_by) == (second, first)

    def test_untouched_tracker_has_no_last_change(self) -> None:
        """A tracker nothing wrote shows its initial values and no message."""
        entry = _chat().panel()[0]
        assert (entry.value["hp"], entry.changed_by) == (0, None)

    def test_follows_the_version_shown(self) -> None:
        """Showing a version that wrote nothing moves the last change back to the earlier reply."""
        chat = _chat()
        first = _say(chat, _set_hp(10))
        second = _say(chat, _set_hp(20))
        chat.begin_turn("swipe").commit("calm")
        assert chat.panel()[0].changed_by == first
        chat.show_version(second, 0)
        assert chat.panel()[0].changed_by == second


class TestEdit:
    """TR-27: a person's edit uses the tool's item shape and clamps, on the tip message, refused whole when it must be."""

    def test_edit_survives_swipe_and_regenerate(self) -> None:
        """The edit is a message-level delta on the tip reply, so every new version of it keeps it."""
        chat = _chat()
        reply = _say(chat, _set_hp(20), {"tracker": "Health", "set": {"mood": "tense"}})
        result = chat.edit("Health", set={"hp": 7}, base_version=chat.take.version)
        assert chat.take.message(reply).edits == tuple(result.deltas)
        for kind in ("swipe", "regenerate"):
            turn = chat.begin_turn(kind)
            assert turn.values()["Health"] == {"hp": 0, "hp_max": 30, "mood": "calm"}
            turn.call({"updates": [_set_hp(25)]})
            turn.commit(kind)
            assert _hp(chat) == 7
        chat.show_version(reply, 0)
        assert chat.values()["Health"] == {"hp": 7, "hp_max": 30, "mood": "tense"}

    def test_edit_is_clamped_not_refused(self) -> None:
        """An edit out of range is held inside it, like the tool's update."""
        chat = _chat()
        _say(chat)
        chat.edit("Health", set={"hp": 999})
        assert _hp(chat) == 30

    def test_edit_list_row(self) -> None:
        """An edit on a list names its row and may remove it."""
        chat = _chat()
        _say(chat)
        chat.edit("Bag", row="Rope", set={"qty": 2})
        chat.edit("Bag", row="rope", remove=True)
        assert chat.values()["Bag"] == {}

    def test_edit_moves_the_version(self) -> None:
        """An edit that writes moves the take's version, so an edit read before it is refused."""
        chat = _chat()
        _say(chat)
        version = chat.take.version
        chat.edit("Health", set={"hp": 3}, base_version=version)
        assert chat.take.version == version + 1
        with pytest.raises(EditRefusedError, match="moved on"):
            chat.edit("Health", set={"hp": 4}, base_version=version)

    @pytest.mark.parametrize(
        ("tracker", "values", "setup", "reason"),
        [
            ("Hero", {"hp": 1}, None, "the scene does not link it"),
            ("Broken", {"qty": 1}, None, "a turn leaves it out: the decoder refused it"),
            ("Health", {"hp": 1}, "turn", "a reply is being written"),
            ("Health", {"hp": 1}, "stale", "the take moved on since it was read"),
            ("Health", {"hpp": 1}, None, "Health has no field 'hpp'"),
            ("Health", {"mood": "sad"}, None, "must be one of calm|tense"),
            ("Health", {"hp": 1}, "empty", "no message to write the edit on"),
        ],
        ids=[
            "unlinked",
            "left-out",
            "turn-open",
            "stale-base-version",
            "unknown-field",
            "bad-choice",
            "empty-take",
        ],
    )
    def test_refused_whole(
        self, tracker: str, values: dict[str, Any], setup: str | None, reason: str
    ) -> None:
        """The edit is refused with its reason and nothing is written."""
        chat = _chat()
        if setup != "empty":
            _say(chat, _set_hp(5))
        version = chat.take.version
        state = chat.take.state_at()
        base = version
        if setup == "turn":
            chat.begin_turn()
        elif setup == "stale":
            base = version - 1
        with pytest.raises(EditRefusedError, match=reason):
            chat.edit(tracker, set=values, base_version=base)
        assert (chat.take.version, chat.take.state_at()) == (version, state)
        assert all(not m.edits for m in chat.messages)

    def test_version_read_on_another_take_after_a_fork_is_refused(self) -> None:
        """TR-27: a version names its take; after a fork, an edit carrying the first take's version is refused on the new one."""
        chat = _chat()
        first = _say(chat, _set_hp(5))
        _say(chat, _set_hp(9))
        origin, read = chat.take.id, chat.take.version
        chat.fork(first)
        while chat.take.version < read:  # writes on the new take, as many as it takes
            chat.add_user("more")
        state = chat.take.state_at()
        with pytest.raises(EditRefusedError, match=f"was read on take '{origin}'"):
            chat.edit("Health", set={"hp": 1}, base_version=read)
        assert chat.take.state_at() == state
        assert all(not m.edits for m in chat.messages)
        chat.use(origin)
        chat.edit("Health", set={"hp": 1}, base_version=read)
        assert _hp(chat) == 1

    def test_version_read_before_use_is_refused(self) -> None:
        """TR-27: a version read on one take never matches another after `use`, however many writes each saw."""
        chat = _chat()
        start = _say(chat)
        a = chat.take.id
        b = chat.fork(start).id
        seen: set[tuple[str, int]] = set()
        for i in range(6):
            chat.use(a if i % 2 else b)
            _say(chat, _set_hp(i))
            seen.add((chat.take.id, chat.take.version))
        assert len({version for _, version in seen}) == len(seen)
        chat.use(a)
        read = chat.take.version
        chat.use(b)
        with pytest.raises(EditRefusedError, match="the take shown is"):
            chat.edit("Health", set={"hp": 20}, base_version=read)
        assert _hp(chat) == 4

    @pytest.mark.parametrize(
        ("item", "reason"),
        [
            ({"row": "Rope", "remove": "false"}, "remove must be true or false; found the text"),
            ({"row": "Rope", "remove": 1}, "remove must be true or false; found 1"),
            ({"row": "Rope", "set": [1]}, "set must be an object of field values; found a list"),
            ({"row": 5, "set": {"qty": 1}}, "row must be text; found 5"),
            ({"row": "\ud800", "set": {"qty": 1}}, r"row is not valid Unicode: .*\\ud800"),
        ],
        ids=["remove-text", "remove-number", "set-list", "row-number", "row-lone-surrogate"],
    )
    def test_item_read_as_the_tool_reads_it(self, item: dict[str, Any], reason: str) -> None:
        """TR-27: an edit's item goes through the tool's item reader, so a misshapen one is refused whole."""
        chat = _chat()
        _say(chat, {"tracker": "Bag", "row": "Rope", "set": {"qty": 2}})
        version, state = chat.take.version, chat.take.state_at()
        with pytest.raises(EditRefusedError, match=reason):
            chat.edit("Bag", **item)
        assert (chat.take.version, chat.take.state_at()) == (version, state)
        assert chat.values()["Bag"] == {"Rope": {"qty": 2, "equipped": False}}

    def test_record_item_read_as_the_tool_reads_it(self) -> None:
        """TR-27: `set=[1]` on a record is refused with the tool's sentence, not an AttributeError."""
        chat = _chat()
        _say(chat, _set_hp(5))
        with pytest.raises(EditRefusedError, match="set must be an object"):
            chat.edit("Health", set=[1])  # type: ignore[arg-type]
        assert _hp(chat) == 5

    def test_edit_of_the_stored_value_writes_nothing(self) -> None:
        """An edit to the value already stored leaves the take and its version as they were."""
        chat = _chat()
        _say(chat, _set_hp(5))
        version = chat.take.version
        assert chat.edit("Health", set={"hp": 5}).answer == "Health: no change"
        assert chat.take.version == version


class TestStrictExportCalls:
    """A call made through the OpenAI strict or Gemini export lists every field, null when not
    given: `Turn.call(..., null_is_absent=True)` runs it as the line-per-tracker call it means."""

    def test_a_strict_call_is_run_as_its_line_call(self) -> None:
        chat = _chat("health", "bag")
        chat.add_user("go")
        turn = chat.begin_turn()
        line_call = {"updates": [{"tracker": "Health", "set": {"hp": 4}}]}
        strict = strict_arguments(turn.trackers, line_call)
        assert None in strict["updates"][0]["set"].values()  # every other field, null
        assert not turn.call(strict).ok  # null is no value of a number or a choice
        result = turn.call(strict, null_is_absent=True)
        assert result.ok, result.answer
        assert result.answer == "Health: hp 0 -> 4"
        turn.commit("ok")
        assert _hp(chat) == 4

    def test_the_switch_is_a_boolean(self) -> None:
        chat = _chat("health")
        chat.add_user("go")
        turn = chat.begin_turn()
        with pytest.raises(BadRequestError, match="null_is_absent must be True or False"):
            turn.call({"updates": []}, null_is_absent="yes")  # type: ignore[arg-type]


class TestPanelAgreesWithTheChangesRead:
    """TR-26 with TR-43: the panel's last change is a message the changes read lists for it."""

    def test_a_change_an_edit_undid_is_not_the_last(self) -> None:
        """A reply set hp 10 -> 20 and a person's edit set it back: the earlier reply changed it."""
        chat = _chat()
        first = _say(chat, _set_hp(10))
        second = _say(chat, _set_hp(20))
        chat.edit("Health", set={"hp": 10})
        assert tracker_changes_between(chat, None, first).of(second) is None
        assert chat.panel()[0].changed_by == first

    def test_a_write_of_the_same_value_is_not_a_change(self) -> None:
        """A reply that writes the value already there changed nothing."""
        chat = _chat()
        first = _say(chat, _set_hp(10))
        _say(chat, _set_hp(10))
        assert chat.panel()[0].changed_by == first
