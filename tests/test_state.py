"""Deltas, messages, versions and takes: the fold of the visible history (TR-21, TR-23)."""

from __future__ import annotations

import itertools

import pytest

from trackerkit import BadRequestError, Delta, Message, NotFoundError, Take, Version
from trackerkit.state import apply_deltas, copy_state, fold, is_message_id, new_message_id

REC = "tracker-record:health"
LST = "tracker-list:bag"


def _reply(*deltas: Delta, text: str = "ok") -> Message:
    return Message(new_message_id(), "assistant", [Version(text, tuple(deltas))])


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

    def test_copy_is_independent(self) -> None:
        """A copied message takes new versions and edits without changing the original."""
        message = _reply(Delta(REC, "hp", 1))
        copied = message.copy()
        copied.versions.append(Version("x"))
        copied.edits.append(Delta(REC, "hp", 5))
        assert (len(message.versions), message.edits) == (1, [])

    @pytest.mark.parametrize(
        ("text", "ok"),
        [("m12", True), ("m", False), ("x12", False), ("m1a", False), (12, False)],
        ids=["good", "bare-m", "wrong-letter", "not-digits", "not-text"],
    )
    def test_message_id_shape(self, text: object, ok: bool) -> None:
        """A message id is m followed by digits."""
        assert is_message_id(text) is ok

    def test_new_ids_are_unique(self) -> None:
        """Every new message id is fresh."""
        assert len({new_message_id() for _ in range(100)}) == 100


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
        """append, changed and cut each move the take's version."""
        take = Take("t1")
        take.append(_reply())
        take.append(_reply())
        take.changed(1)
        take.cut(1)
        assert take.version == 4

    def test_takes_sharing_stamps_never_share_a_version(self) -> None:
        """TR-27: takes drawing versions from one counter never hold the same version, so a version names its take."""
        stamps = itertools.count()
        first = Take("t1", stamps=stamps)
        second = Take("t2", stamps=stamps)
        versions = {("t1", first.version), ("t2", second.version)}
        for take in (first, second, second, first, first):
            take.append(_reply())
            versions.add((take.id, take.version))
        second.touch()
        versions.add(("t2", second.version))
        assert len({version for _, version in versions}) == len(versions) == 8

    def test_cut_drops_the_message_and_after(self) -> None:
        """cut returns what it dropped, and the dropped ids are no longer live."""
        messages = [_reply(Delta(REC, "hp", i)) for i in range(4)]
        take = Take("t1", messages)
        dropped = take.cut(2)
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
        take.messages[200].edits.append(Delta(LST, "r1", None))
        take.changed(200)
        for end in (128, 200, 201, 256, 600):
            assert take.state_before(end) == _naive(take, end)
        take.cut(300)
        take.append(_reply(Delta(REC, "k0", "new")))
        assert take.state_at() == _naive(take, len(take))
