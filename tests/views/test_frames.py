"""The history frame: one tidy row per message x tracker x field (x row), read as a turn reads."""

from __future__ import annotations

import copy
import math
from typing import Any

import pandas as pd
import plotly.express as px
import pytest
from conftest import BAG, HEALTH
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from state_strategies import batches, linked

from trackerkit import (
    Chat,
    NotFoundError,
    Scene,
    Tracker,
    encode_tracker,
    history_frame,
    tracker_value,
)
from trackerkit.state import apply_deltas
from trackerkit.values import same_value
from trackerkit.views.frames import HISTORY_COLUMNS


def make_chat() -> Chat:
    """A chat linking health (record, hp out of hp_max) and bag (list)."""
    pieces = {p["id"]: copy.deepcopy(p) for p in (HEALTH, BAG)}
    return Chat(Scene(id="s", title="S", prompting={"trackers": list(pieces)}), pieces)


def reply(chat: Chat, *updates: dict[str, Any], kind: str = "reply") -> str:
    turn = chat.begin_turn(kind)  # type: ignore[arg-type]
    if updates:
        assert turn.call({"updates": list(updates)}).ok
    return turn.commit("…").id


@pytest.fixture
def session() -> Chat:
    """User, reply (hp 20, rope added), swiped reply (hp_max 10, torch), an edit (mood), a reply removing rope."""
    chat = make_chat()
    chat.add_user("go")
    reply(
        chat,
        {"tracker": "Health", "set": {"hp": 20}},
        {"tracker": "Bag", "row": "rope", "set": {"qty": 2}},
    )
    chat.add_user("again")
    reply(chat, {"tracker": "Health", "set": {"hp": 25}})
    reply(
        chat,
        {"tracker": "Health", "set": {"hp_max": 10}},
        {"tracker": "Bag", "row": "torch", "set": {"qty": 1}},
        kind="swipe",
    )
    chat.edit(tracker="Health", set={"mood": "tense"})
    reply(chat, {"tracker": "Bag", "row": "rope", "remove": True})
    return chat


class TestHistoryFrame:
    def test_columns_and_dtypes(self, session: Chat) -> None:
        """The frame has the documented columns in order, with numeric columns as floats and flags as bools."""
        frame = history_frame(session)
        assert list(frame.columns) == [name for name, _ in HISTORY_COLUMNS]
        assert frame["number"].dtype == "float64"
        assert frame["top"].dtype == "float64"
        assert frame["changed"].dtype == bool
        assert frame["value"].dtype == object
        assert frame["row"].dtype == object

    def test_one_row_per_message_tracker_field_and_list_row(self, session: Chat) -> None:
        """Records give one row per field per message; lists one row per field per live row."""
        frame = history_frame(session)
        per_message = frame.groupby("message_index").size().tolist()
        # health: 3 fields; bag rows: none, rope, rope, rope+torch, torch (2 fields each).
        assert per_message == [3, 3 + 2, 3 + 2, 3 + 4, 3 + 2]
        assert frame[frame["layout"] == "record"]["row"].isna().all()

    def test_values_match_the_chat_read_at_every_message(self, session: Chat) -> None:
        """Each message's values equal `chat.values(message_id)`."""
        frame = history_frame(session)
        for message in session.messages:
            values = session.values(message.id)
            part = frame[frame["message_id"] == message.id]
            for rec in part.itertuples():
                expected = (
                    values[rec.tracker][rec.field]
                    if rec.row is None
                    else values[rec.tracker][rec.row][rec.field]
                )
                assert rec.value == expected
                assert type(rec.value) is type(expected)

    def test_message_columns(self, session: Chat) -> None:
        """Role, shown version and version count come from each message."""
        frame = history_frame(session).drop_duplicates("message_index")
        assert frame["role"].tolist() == ["user", "assistant", "user", "assistant", "assistant"]
        assert frame["version"].tolist() == [0, 0, 0, 1, 0]
        assert frame["versions"].tolist() == [1, 1, 1, 2, 1]

    def test_changed_flags_follow_the_writes(self, session: Chat) -> None:
        """`changed` is true exactly where a message changed a value (a swipe's, an edit's, an added row's)."""
        frame = history_frame(session)
        changed = {
            (r.message_index, r.tracker, r.row, r.field)
            for r in frame[frame["changed"]].itertuples()
        }
        assert changed == {
            (1, "Health", None, "hp"),
            (1, "Bag", "rope", "qty"),
            (1, "Bag", "rope", "equipped"),
            # the swipe shows hp_max 10 (hp held to it); the edit adds mood; torch is added.
            (3, "Health", None, "hp"),
            (3, "Health", None, "hp_max"),
            (3, "Health", None, "mood"),
            (3, "Bag", "torch", "qty"),
            (3, "Bag", "torch", "equipped"),
        }

    def test_min_and_top(self, session: Chat) -> None:
        """A topped number has its min (0 when unset) and the top at that message; others NaN."""
        frame = history_frame(session).set_index(["message_index", "field"])
        health = frame[frame["tracker"] == "Health"]
        assert health.loc[(1, "hp"), "top"] == 30
        assert health.loc[(3, "hp"), "top"] == 10
        assert health.loc[(3, "hp"), "min"] == 0
        assert health.loc[(3, "hp"), "number"] == 10
        assert math.isnan(health.loc[(3, "hp_max"), "top"])
        assert health.loc[(3, "hp_max"), "min"] == 1
        assert math.isnan(health.loc[(3, "mood"), "number"])
        assert math.isnan(health.loc[(3, "mood"), "min"])

    def test_another_take_and_a_missing_one(self, session: Chat) -> None:
        """The take argument reads another take; a missing take is NotFoundError."""
        original = session.current
        session.fork(session.messages[1].id)
        assert history_frame(session)["message_index"].max() == 1
        assert history_frame(session, original)["message_index"].max() == 4
        with pytest.raises(NotFoundError):
            history_frame(session, "t404")

    def test_an_empty_take_is_an_empty_frame(self) -> None:
        """A take with no messages gives an empty frame with every column."""
        frame = history_frame(make_chat())
        assert frame.empty
        assert list(frame.columns) == [name for name, _ in HISTORY_COLUMNS]

    def test_plotly_express_draws_it_directly(self, session: Chat) -> None:
        """The tidy frame feeds `px.line` with no reshaping."""
        frame = history_frame(session)
        fig = px.line(frame[frame["field"] == "hp"], x="message_index", y="number", color="tracker")
        assert list(fig.data[0].y) == [0.0, 20.0, 20.0, 10.0, 10.0]
        assert isinstance(frame, pd.DataFrame)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), trackers=linked())
def test_changed_flags_and_values_are_a_naive_read_of_each_message(
    data: st.DataObject, trackers: list[Tracker]
) -> None:
    """Over drawn trackers and batches (swipes among them), `changed` flags exactly the values a
    naive before/after read of each message differs on, and `value` is that read, kind and all."""
    pieces = {t.id: encode_tracker(t) for t in trackers}
    chat = Chat(Scene(id="s", title="S", prompting={"trackers": list(pieces)}), pieces)
    for _ in range(data.draw(st.integers(1, 5), label="turns")):
        chat.add_user("go")
        turn = chat.begin_turn()
        turn.call({"updates": data.draw(batches(trackers, max_items=4), label="updates")})
        turn.commit("…")
        if data.draw(st.booleans(), label="swipe"):
            turn = chat.begin_turn("swipe")
            turn.call({"updates": data.draw(batches(trackers, max_items=4), label="swiped")})
            turn.commit("…")
    frame = history_frame(chat)
    flagged = {
        (r.message_index, r.tracker_id, r.row, r.field)
        for r in frame[frame["changed"]].itertuples()
    }
    shown = {(r.message_index, r.tracker_id, r.row, r.field): r.value for r in frame.itertuples()}
    expected: set[tuple[int, str, str | None, str]] = set()
    read: dict[tuple[int, str, str | None, str], Any] = {}
    state: dict[str, dict[str, object]] = {}
    linked_trackers = chat.linked().trackers
    for index, message in enumerate(chat.messages):
        before = {t.id: tracker_value(t, state) for t in linked_trackers}
        apply_deltas(state, message.deltas())
        for tracker in linked_trackers:
            was, now = before[tracker.id], tracker_value(tracker, state)
            rows = (
                [(None, was, now)]
                if tracker.layout == "record"
                else [(row, was.get(row, {}), values) for row, values in now.items()]
            )
            for row, old, new in rows:
                assert isinstance(old, dict)
                assert isinstance(new, dict)
                for name, value in new.items():
                    read[(index, tracker.id, row, name)] = value
                    if name not in old or not same_value(old[name], value):
                        expected.add((index, tracker.id, row, name))
    assert flagged == expected
    assert shown.keys() == read.keys()
    assert all(type(shown[k]) is type(v) and same_value(shown[k], v) for k, v in read.items())
