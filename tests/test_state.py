"""Deltas, messages, versions and takes: the fold of the visible history (TR-21, TR-23)."""

from __future__ import annotations

import itertools

import pytest

from trackerkit import BadRequestError, Delta, Message, NotFoundError, Take, Version
from trackerkit.state import apply_deltas, copy_state, fold, is_message_id

REC = "tracker-record:health"
LST = "tracker-list:bag"


_IDS = itertools.count(1)


def _reply(*deltas: Delta, text: str = "ok") -> Message:
    return Message(f"m{next(_IDS)}", "assistant", [Version(text, tuple(deltas))])


def _naive(take: Take, end: int) -> dict[str, dict[str, object]]:
    return fold(d for m in take.messages[:end] for d in m.deltas())


class TestDelta:
    """TR-21: a delta writes one key of one slot; only tracker slots count as tracker deltas."""

    @pytest.mark.parametrize(
        ("slot", "tracker"),
        [(REC, True), (LST, True), ("skill:open", False), ("tracker:x", False)],
        ids=["record-slot", "list-slot", "other-slot", "near-miss-prefix"],
    )
    def test_is_tracker(self, slot: str, tracker: bool) -> None:
        """Only tracker-record: and tracker-list: slots are tracker slots."""
        assert Delta(slot, "k", 1).is_tracker is tracker

    def test_list_none_removes_the_row(self) -> None:
        """A None value on a list slot removes the row; on a record it is stored."""
        state = fold([Delta(LST, "Rope", {"qty": 1}), Delta(REC, "hp", 3)])
        apply_deltas(
            state, [Delta(LST, "Rope", None), Delta(LST, "Gone", None), Delta(REC, "hp", None)]
        )
        assert state == {LST: {}, REC: {"hp": None}}

    def test_fold_does_not_change_its_start(self) -> None:
        """fold returns a new state and leaves the start as it was."""
        start = {REC: {"hp": 1}}
        assert fold([Delta(REC, "hp", 2)], start) == {REC: {"hp": 2}}
        assert start == {REC: {"hp": 1}}

    def test_copy_state_copies_slots(self) -> None:
        """A copied state's slots can be written without touching the original."""
        original = {REC: {"hp": 1}}
        copied = copy_state(original)
        copied[REC]["hp"] = 2
        assert original == {REC: {"hp": 1}}


class TestMessage:
    """TR-23: a message writes its shown version's deltas, then its own (a person's edits)."""

    def test_deltas_are_shown_version_then_edits(self) -> None:
        """The shown version's deltas come first, so a message-level edit wins on its message."""
        message = Message(
            "m1",
            "assistant",
            [Version("a", (Delta(REC, "hp", 1),)), Version("b", (Delta(REC, "hp", 2),))],
            shown=1,
            edits=[Delta(REC, "hp", 9)],
        )
        assert message.deltas() == [Delta(REC, "hp", 2), Delta(REC, "hp", 9)]
        assert message.text == "b"

    def test_a_message_cannot_be_written_in_place(self) -> None:
        """A message is a value: its versions and edits are tuples and its fields cannot be set, so only a take writes history."""
        message = Message("m1", "assistant", [Version("a")], edits=[Delta(REC, "hp", 5)])
        assert (message.versions, message.edits) == ((Version("a"),), (Delta(REC, "hp", 5),))
        with pytest.raises(AttributeError):
            message.shown = 1  # type: ignore[misc]
        with pytest.raises(AttributeError):
            message.version.text = "b"  # type: ignore[misc]

    def test_a_shown_version_that_is_not_there(self) -> None:
        """A message cannot show a version it does not have."""
        with pytest.raises(BadRequestError, match="has 1 versions; it cannot show version 1"):
            Message("m1", "assistant", [Version("a")], shown=1)

    @pytest.mark.parametrize(
        ("text", "ok"),
        [("m12", True), ("m", False), ("x12", False), ("m1a", False), (12, False)],
        ids=["good", "bare-m", "wrong-letter", "not-digits", "not-text"],
    )
    def test_message_id_shape(self, text: object, ok: bool) -> None:
        """A message id is m followed by digits."""
        assert is_message_id(text) is ok

    def test_ids_count_per_chat_not_per_process(self) -> None:
        """Takes sharing an id counter never reuse an id; a take of its own counts from 1, or on from its messages."""
        ids = itertools.count(1)
        first = Take("t1", ids=ids)
        made = [first.add("user", "a").id, first.add("assistant", "b").id]
        second = first.fork("t2", made[-1])
        made += [second.add("user", "c").id, first.add("user", "d").id]
        assert made == ["m1", "m2", "m3", "m4"]
        assert Take("t9").add("user", "x").id == "m1"
        assert Take("t9", [Message("m7", "user", [Version("x")])]).add("user", "y").id == "m8"

    def test_append_refuses_an_id_it_holds(self) -> None:
        """Two live messages of a take never share an id."""
        take = Take("t1")
        message = take.add("user", "a")
        with pytest.raises(BadRequestError, match="holds a message 'm1' already"):
            take.append(message)


class TestTake:
    """TR-23: the state at a message is the fold of every live message up to it."""

    def test_state_at_and_before(self) -> None:
        """state_at includes a message's writes; state_before stops just before it."""
        take = Take("t1")
        first, second = _reply(Delta(REC, "hp", 1)), _reply(Delta(REC, "hp", 2))
        take.append(first)
        take.append(second)
        assert take.state_at(first.id) == {REC: {"hp": 1}}
        assert take.state_before(1) == {REC: {"hp": 1}}
        assert take.state_at() == {REC: {"hp": 2}}
        assert take.state_before(0) == {}

    def test_returned_state_is_a_copy(self) -> None:
        """Changing a state a take returned does not change the take."""
        take = Take("t1", [_reply(Delta(REC, "hp", 1))])
        take.state_at()[REC]["hp"] = 99
        assert take.state_at() == {REC: {"hp": 1}}

    def test_every_write_moves_the_version(self) -> None:
        """Each write moves the take's version, even one that changes no fold (a continue's text)."""
        take = Take("t1")
        first = take.add("user", "a")
        reply = take.add("assistant", "b")
        take.add_version(reply.id, "c", [Delta(REC, "hp", 1)])
        take.extend_shown(reply.id, " more")
        take.show(reply.id, 0)
        take.add_edits(reply.id, [Delta(REC, "hp", 2)])
        take.cut(first.id)
        assert take.version == 7

    def test_writes_that_change_nothing_keep_the_version(self) -> None:
        """Showing the version shown, or adding no edits, writes nothing."""
        take = Take("t1")
        reply = take.add("assistant", "a")
        version = take.version
        assert take.show(reply.id, 0) is reply
        assert take.add_edits(reply.id, []) is reply
        assert take.version == version

    def test_writes_give_the_new_message_and_keep_the_old(self) -> None:
        """A write puts a new message in place; one held from before (or by a fork) is unchanged."""
        take = Take("t1")
        reply = take.add("assistant", "a", [Delta(REC, "hp", 1)])
        forked = take.fork("t2", reply.id)
        swiped = take.add_version(reply.id, "b", [Delta(REC, "hp", 2)])
        continued = take.extend_shown(reply.id, "!", [Delta(REC, "mood", "x")])
        edited = take.add_edits(reply.id, [Delta(REC, "hp", 9)])
        assert (swiped.text, swiped.shown, continued.text, edited.deltas()) == (
            "b",
            1,
            "b!",
            [Delta(REC, "hp", 2), Delta(REC, "mood", "x"), Delta(REC, "hp", 9)],
        )
        assert take.message(reply.id) is edited
        assert (reply.text, len(reply.versions), forked.message(reply.id)) == ("a", 1, reply)
        assert forked.state_at() == {REC: {"hp": 1}}
        assert take.state_at() == {REC: {"hp": 9, "mood": "x"}}

    def test_show_a_version_that_is_not_there(self) -> None:
        """Showing a version past the message's versions is NotFoundError, and writes nothing."""
        take = Take("t1")
        reply = take.add("assistant", "a")
        with pytest.raises(NotFoundError, match="has 1 versions; there is no version 3"):
            take.show(reply.id, 3)

    def test_takes_sharing_stamps_never_share_a_version(self) -> None:
        """TR-27: takes drawing versions from one counter never hold the same version, so a version names its take."""
        stamps = itertools.count()
        first = Take("t1", stamps=stamps)
        second = Take("t2", stamps=stamps)
        versions = {("t1", first.version), ("t2", second.version)}
        for take in (first, second, second, first, first):
            take.append(_reply())
            versions.add((take.id, take.version))
        second.extend_shown(second.messages[-1].id, "!")
        versions.add(("t2", second.version))
        assert len({version for _, version in versions}) == len(versions) == 8

    def test_cut_drops_the_message_and_after(self) -> None:
        """cut returns what it dropped, and the dropped ids are no longer live."""
        messages = [_reply(Delta(REC, "hp", i)) for i in range(4)]
        take = Take("t1", messages)
        dropped = take.cut(messages[2].id)
        assert dropped == messages[2:]
        assert take.state_at() == {REC: {"hp": 1}}
        with pytest.raises(NotFoundError, match="no live message"):
            take.index_of(messages[3].id)

    @pytest.mark.parametrize(
        ("message_id", "error"),
        [("nope", BadRequestError), ("m999999999", NotFoundError)],
        ids=["malformed-id", "unknown-id"],
    )
    def test_index_of_errors(self, message_id: str, error: type[Exception]) -> None:
        """A malformed id is a bad request; an id the take does not hold is not found."""
        with pytest.raises(error):
            Take("t1").index_of(message_id)

    def test_long_take_folds_through_checkpoints(self) -> None:
        """On a 600-message take every prefix's state equals a refold from scratch, before and after a change."""
        take = Take("t1")
        for i in range(600):
            take.append(_reply(Delta(REC, f"k{i % 7}", i), Delta(LST, f"r{i % 5}", {"n": i})))
        for end in (0, 1, 127, 128, 129, 300, 599, 600):
            assert take.state_before(end) == _naive(take, end)
        take.add_edits(take.messages[200].id, [Delta(LST, "r1", None)])
        for end in (128, 200, 201, 256, 600):
            assert take.state_before(end) == _naive(take, end)
        take.cut(take.messages[300].id)
        take.append(_reply(Delta(REC, "k0", "new")))
        assert take.state_at() == _naive(take, len(take))

    @pytest.mark.parametrize("at", [0, 127, 128, 255, -1], ids=lambda a: f"at-{a}")
    @pytest.mark.parametrize("write", ["add_version", "extend_shown", "show", "add_edits", "cut"])
    def test_each_write_keeps_warm_folds_right(self, write: str, at: int) -> None:
        """After every prefix's fold is cached, one write at or around a checkpoint leaves every prefix equal to a fresh fold."""
        take = Take("t1")
        for i in range(300):
            take.add(
                "assistant", "", [Delta(REC, f"k{i % 9}", i), Delta(LST, f"r{i % 4}", {"n": i})]
            )
        target = take.messages[at].id
        take.add_version(target, "", [Delta(REC, "k0", "first")])
        take.add_edits(take.messages[-1].id, [Delta(REC, "k1", "edit")])
        for end in range(len(take) + 1):
            assert take.state_before(end) == _naive(take, end)  # every fold warm
        written = [Delta(REC, "k2", write), Delta(LST, "r1", None)]
        if write == "add_version":
            take.add_version(target, "", written)
        elif write == "extend_shown":
            take.extend_shown(target, "!", written)
        elif write == "show":
            take.show(target, 0)
        elif write == "add_edits":
            take.add_edits(target, written)
        else:
            take.cut(target)
        for end in range(len(take) + 1):
            assert take.state_before(end) == _naive(take, end), end
