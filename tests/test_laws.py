"""The laws of updates and of the fold, stated with hypothesis (TR-13..TR-18, TR-23, TR-37)."""

from __future__ import annotations

import copy
from typing import Any

from conftest import BAG, HEALTH
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from state_strategies import (
    bad_items,
    batches,
    linked,
    naive_apply,
    reads,
    stored_states,
    topped,
)

from trackerkit import Chat, Delta, Message, Scene, Take, Tracker, apply_tracker_updates
from trackerkit.fields import NumberField
from trackerkit.scene import Prompting
from trackerkit.state import fold
from trackerkit.update import slot_of

LAWS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FOLDS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _scenes(draw: st.DrawFn) -> tuple[list[Tracker], dict[str, dict[str, object]]]:
    trackers = draw(linked())
    return trackers, draw(stored_states(trackers))


def _tidy(state: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    return {slot: keys for slot, keys in state.items() if keys}


def _numbers_in_range(tracker: Tracker, values: dict[str, Any]) -> None:
    for field in tracker.fields:
        if not isinstance(field, NumberField):
            continue
        value = values[field.name]
        low = field.min
        if low is not None:
            assert value >= low, (field.name, value)
        if field.max is not None:
            assert value <= field.max, (field.name, value)
        if field.max_field is not None:
            top = values[field.max_field]
            assert value <= top or value == low, (field.name, value, top)


class TestBatchLaws:
    """TR-37 and TR-13..TR-17: all or nothing, stored equals read, numbers in range."""

    @LAWS
    @given(data=st.data(), scene=_scenes())
    def test_refused_batch_writes_nothing(self, data: st.DataObject, scene: Any) -> None:
        """TR-37: a batch with a refused item returns no delta, leaves the state alone and names that item."""
        trackers, state = scene
        items = data.draw(batches(trackers))
        at = data.draw(st.integers(0, len(items)))
        items.insert(at, data.draw(bad_items(trackers)))
        before = copy.deepcopy(state)
        result = apply_tracker_updates(trackers, state, {"updates": items})
        assert not result.ok
        assert result.deltas == ()
        assert state == before
        assert at in {e.index for e in result.errors}

    @LAWS
    @given(data=st.data(), scene=_scenes())
    def test_stored_equals_read(self, data: st.DataObject, scene: Any) -> None:
        """TR-15/16: after a batch every tracker reads what the rules wrote, every delta holds what is read, and writing it back is no change."""
        trackers, state = scene
        items = data.draw(batches(trackers))
        result = apply_tracker_updates(trackers, state, {"updates": items})
        expected = naive_apply(trackers, reads(trackers, state), items)
        assert result.ok is (expected is not None)
        if expected is None:
            return
        after = fold(result.deltas, state)
        read = reads(trackers, after)
        assert read == expected
        again: list[dict[str, Any]] = []
        for tracker in trackers:
            mine = [d for d in result.deltas if d.slot == slot_of(tracker)]
            value = read[tracker.name]
            if tracker.layout == "record":
                for delta in mine:
                    assert delta.value == value[delta.key]
                if mine:
                    again.append(
                        {"tracker": tracker.name, "set": {d.key: value[d.key] for d in mine}}
                    )
            else:
                for delta in mine:
                    assert delta.value == value.get(delta.key)
                    if delta.value is not None:
                        again.append(
                            {"tracker": tracker.name, "row": delta.key, "set": value[delta.key]}
                        )
        if again:
            second = apply_tracker_updates(trackers, after, {"updates": again})
            assert second.ok
            assert second.deltas == ()

    @LAWS
    @given(data=st.data(), tracker=topped())
    def test_moving_a_top_keeps_what_was_shown(self, data: st.DataObject, tracker: Tracker) -> None:
        """TR-16: when an item sets only tops, every dependent reads afterwards what the model was shown, held to the new top."""
        state = data.draw(stored_states([tracker]))
        tops = sorted(
            {f.max_field for f in tracker.fields if isinstance(f, NumberField) and f.max_field}
        )
        values = {name: data.draw(st.integers(-3, 15)) for name in tops}
        item: dict[str, Any] = {"tracker": tracker.name, "set": values}
        if tracker.layout == "list":
            item["row"] = data.draw(st.sampled_from(["Rope", "new"]))
        result = apply_tracker_updates([tracker], state, {"updates": [item]})
        expected = naive_apply([tracker], reads([tracker], state), [item])
        assert result.ok
        assert reads([tracker], fold(result.deltas, state)) == expected

    @LAWS
    @given(data=st.data(), scene=_scenes())
    def test_numbers_stay_in_range(self, data: st.DataObject, scene: Any) -> None:
        """TR-13/TR-18: no number read after a batch leaves its range, passes its top or falls below its min."""
        trackers, state = scene
        result = apply_tracker_updates(trackers, state, {"updates": data.draw(batches(trackers))})
        after = fold(result.deltas, state)
        for tracker in trackers:
            value = reads(trackers, after)[tracker.name]
            rows = [value] if tracker.layout == "record" else list(value.values())
            for row in rows:
                _numbers_in_range(tracker, row)

    @LAWS
    @given(data=st.data(), scene=_scenes())
    def test_batch_equals_items_one_by_one(self, data: st.DataObject, scene: Any) -> None:
        """TR-14/TR-37: a batch's deltas give the state its items give applied one at a time, each on what the last left."""
        trackers, state = scene
        items = data.draw(batches(trackers))
        result = apply_tracker_updates(trackers, state, {"updates": items})
        one_by_one = state
        for item in items:
            step = apply_tracker_updates(trackers, one_by_one, {"updates": [item]})
            if not step.ok:
                assert not result.ok
                return
            one_by_one = fold(step.deltas, one_by_one)
        assert result.ok
        assert _tidy(fold(result.deltas, state)) == _tidy(one_by_one)


# --- the fold of the visible history ----------------------------------------------------------

REC = "tracker-record:x"
LST = "tracker-list:y"


def _writes(seed: int) -> tuple[Delta, ...]:
    # A key of its own per seed (so a stale fold shows) and a shared row (so writes overwrite).
    row = None if seed % 5 == 0 else {"n": seed}
    return (Delta(REC, f"k{seed}", seed), Delta(LST, f"r{seed % 6}", row))


def _naive(messages: list[Message], end: int | None = None) -> dict[str, dict[str, object]]:
    return fold(d for m in messages[:end] for d in m.deltas())


_fraction = st.floats(0, 1)
_take_ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 999)),
        st.tuples(st.just("swipe"), st.integers(0, 999)),
        st.tuples(st.just("continue"), st.integers(0, 999)),
        st.tuples(st.just("show"), _fraction, st.integers(0, 3)),
        st.tuples(st.just("cut"), _fraction),
        st.tuples(st.just("fork"), _fraction),
        st.tuples(st.just("edit"), st.integers(0, 999)),
        st.tuples(st.just("edit_at"), _fraction, st.integers(0, 999)),
        st.tuples(st.just("query"), _fraction),
    ),
    max_size=25,
)


def _at(take: Take, fraction: float) -> int:
    return min(len(take) - 1, int(fraction * len(take)))


class TestFoldLaws:
    """TR-23: swipe, show-version, cut, fork and edit always give the fold of the visible history."""

    @FOLDS
    @given(length=st.integers(130, 400), ops=_take_ops)
    def test_take_state_is_the_refold(self, length: int, ops: list[Any]) -> None:
        """On a long take (checkpoints in use), state_at and state_before equal a refold from scratch after every write.

        Every write goes through the take's own methods, and the folds are read between writes,
        so the checkpoints and the tip's fold are warm when the next write lands: a write that
        forgot to drop (or to extend) one shows here as a stale state.
        """
        take = Take("t1")
        for i in range(length):
            take.add("assistant", "", _writes(i))
        for op in ops:
            self._write(take, op)
            if op[0] == "fork" and len(take):
                take = take.fork("t2", take.messages[_at(take, op[1])].id)
            elif op[0] == "query" and len(take):
                at = _at(take, op[1])
                assert take.state_before(at) == _naive(take.messages, at)
            assert take.state_at() == _naive(take.messages)
            if len(take):
                assert take.state_before(len(take) - 1) == _naive(take.messages, -1)

    @staticmethod
    def _write(take: Take, op: tuple[Any, ...]) -> None:
        kind = op[0]
        if kind == "append":
            take.add("assistant", "", _writes(op[1]))
        elif not len(take):
            return
        last = take.messages[-1].id
        if kind == "swipe":
            take.add_version(last, "", _writes(op[1]))
        elif kind == "continue":
            # A continue with no writes changes no fold; one with writes extends the tip's.
            take.extend_shown(last, "+", _writes(op[1]) if op[1] % 3 else ())
        elif kind == "show":
            at = take.messages[_at(take, op[1])].id
            for v in (1, 2, 3):
                take.add_version(at, "", _writes(op[1] * 1000 + v))
            take.show(at, op[2] % len(take.message(at).versions))
        elif kind == "cut" and len(take) > 1:
            take.cut(take.messages[max(1, _at(take, op[1]))].id)
        elif kind == "edit":
            take.add_edits(last, _writes(op[1] + 7))
        elif kind == "edit_at":
            take.add_edits(take.messages[_at(take, op[1])].id, _writes(op[2] + 11))

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        ops=st.lists(
            st.one_of(
                st.tuples(
                    st.sampled_from(["say", "swipe", "regenerate", "fail", "edit"]),
                    st.integers(0, 40),
                ),
                st.tuples(st.just("continue"), st.just(0)),
                st.tuples(st.sampled_from(["show", "cut", "fork", "use"]), _fraction),
            ),
            max_size=20,
        )
    )
    def test_chat_shows_the_refold(self, ops: list[Any]) -> None:
        """Through the chat's own operations, the tip state and what each turn sees equal a refold of the visible history."""
        scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "bag"]))
        chat = Chat(scene, {"health": HEALTH, "bag": BAG})
        for i in range(70):
            self._say(chat, i)
        for kind, arg in ops:
            take = chat.take
            ends_in_reply = bool(take.messages) and take.messages[-1].role == "assistant"
            if kind == "say":
                self._say(chat, arg)
            elif kind in ("swipe", "regenerate", "continue") and ends_in_reply:
                turn = chat.begin_turn(kind)
                end = -1 if kind != "continue" else None
                assert turn.base == _naive(take.messages, end)
                if turn.tool is not None:
                    turn.call({"updates": [{"tracker": "Health", "set": {"hp": arg}}]})
                turn.commit("v")
            elif kind == "fail":
                turn = chat.begin_turn()
                turn.call({"updates": [{"tracker": "Bag", "row": f"r{arg}", "set": {"qty": arg}}]})
                turn.fail()
            elif kind == "edit" and take.messages:
                chat.edit("Bag", row=f"R{arg % 5}", set={"qty": arg}, base_version=take.version)
            elif kind == "show" and ends_in_reply:
                replies = [m for m in take.messages if m.role == "assistant"]
                message = replies[min(len(replies) - 1, int(arg * len(replies)))]
                chat.show_version(message.id, int(arg * 100) % len(message.versions))
            elif kind == "cut" and len(take) > 2:
                chat.cut(take.messages[max(1, _at(take, arg))].id)
            elif kind == "fork" and take.messages:
                chat.fork(take.messages[_at(take, arg)].id)
            elif kind == "use":
                ids = list(chat.takes)
                chat.use(ids[min(len(ids) - 1, int(arg * len(ids)))])
            assert chat.take.state_at() == _naive(chat.take.messages)

    @staticmethod
    def _say(chat: Chat, seed: int) -> None:
        chat.add_user("u")
        turn = chat.begin_turn()
        turn.call(
            {
                "updates": [
                    {"tracker": "Health", "set": {"hp": seed % 35}},
                    {"tracker": "Bag", "row": f"r{seed % 6}", "remove": True}
                    if seed % 4 == 0 and f"r{seed % 6}" in turn.values()["Bag"]
                    else {"tracker": "Bag", "row": f"r{seed}", "set": {"qty": seed}},
                ]
            }
        )
        turn.commit("r")
