"""Turn assembly on hand-written days, one folder per rule (TC-8..TC-14, TC-22)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace import (
    TURN_COLUMNS,
    assemble_turns,
    assign_turns,
    orphans,
    read_trace,
    resolve_turn,
    turn_events,
)


@pytest.fixture
def days() -> Path:
    """The hand-written day folders, one per turn-assembly rule (`days/tc09`, ...)."""
    return Path(__file__).parent / "days"


@pytest.fixture
def sample() -> Path:
    """The bundled sample days (data/trace)."""
    return Path(__file__).parents[2] / "data" / "trace"


def _read(days: Path, rule: str) -> pd.DataFrame:
    events, errors = read_trace(days / rule)
    assert errors == []
    return events


def _by_name(turns: pd.DataFrame) -> dict[str, pd.Series]:
    return {row["name"]: row for _, row in turns.iterrows()}


class TestChatTurn:
    def test_bound_update_key_and_session_turn_rows_make_one_turn(self, days: Path) -> None:
        """TC-9, TC-8: turn.bound + rows keyed by its updateKey + rows with its session and turn."""
        events = _read(days, "tc09")
        names = assign_turns(events)
        turn = turn_events(events, "wrun_A/turn_0")
        assert list(turn["line"]) == [1, 2, 3, 4, 5, 6, 7, 9, 10, 8]  # by ts, not by line (TC-21)
        assert set(turn["turn"]) == {"tg:42:1001", "turn_0"}
        assert names.isna().sum() == 0
        turns = _by_name(assemble_turns(events))
        first = turns["wrun_A/turn_0"]
        assert (first["kind"], first["chat"], first["source"]) == ("chat", "tg:42", "telegram")
        assert (first["events"], first["steps"], first["tokens_in"], first["delivered"]) == (
            10,
            1,
            1200,
            1,
        )
        assert first["status"] == "completed"
        assert first["duration"] == pd.Timedelta("1.3s")

    def test_turn_n_without_session_joins_the_latest_turn_with_that_number(
        self, days: Path
    ) -> None:
        """TC-9: a sessionless turn_0 row joins the latest turn_0 started before it."""
        events = _read(days, "tc09")
        names = assign_turns(events)
        by_line = dict(zip(events["line"], names, strict=True))
        assert by_line[7] == "wrun_A/turn_0"  # before wrun_B started
        assert by_line[14] == "wrun_B/turn_0"  # after wrun_B started

    def test_turns_frame_columns_in_order(self, days: Path) -> None:
        """The turns frame starts with the name and carries every documented column."""
        turns = assemble_turns(_read(days, "tc09"))
        assert list(turns.columns) == [c.name for c in TURN_COLUMNS]
        assert list(turns["name"]) == ["wrun_A/turn_0", "wrun_B/turn_0"]


class TestNightTurn:
    def test_grouped_by_session_and_turn_never_by_session_alone(self, days: Path) -> None:
        """TC-10: one rollup session across two nights gives two turns."""
        turns = assemble_turns(_read(days, "tc10"))
        assert list(turns["name"]) == ["wrun_NIGHT/turn_0", "wrun_NIGHT/turn_1"]
        assert list(turns["kind"]) == ["night", "night"]
        assert list(turns["events"]) == [5, 5]
        assert list(turns["tokens_in"]) == [5000, 6000]

    def test_night_turn_across_two_day_files(self, sample: Path) -> None:
        """TC-10, TC-2: the rollup turn begun before local midnight keeps its rows from both files."""
        events, _ = read_trace(sample)
        rollup = turn_events(events, "turn_0")  # newest turn_0: the last cron night
        assert len(rollup) > 0
        names = assign_turns(events)
        spans = events.groupby(names)["day"].nunique()
        assert (spans > 1).any()


class TestKeyless:
    def test_keyless_rows_join_the_latest_turn_of_their_session(self, days: Path) -> None:
        """TC-11: gate.outbound/outbox.* without a turn key go to the latest earlier turn of the session."""
        events = _read(days, "tc11")
        by_line = dict(zip(events["line"], assign_turns(events), strict=True))
        assert by_line[4] == by_line[5] == "wrun_S/turn_0"
        assert by_line[8] == by_line[9] == "wrun_S/turn_1"

    def test_keyless_rows_before_any_turn_or_without_session_are_orphans(self, days: Path) -> None:
        """TC-11, TC-14: no earlier turn in the session, or no session at all: listed as orphans."""
        events = _read(days, "tc11")
        lost = orphans(events)
        assert list(lost["line"]) == [1, 10, 11]
        assert "TC-11" in lost["reason"].iloc[0]
        assert set(lost["source"].iloc[1:]) == {"watch"}


class TestSourceIsNoKey:
    def test_unknown_and_rollup_rows_make_one_turn(self, days: Path) -> None:
        """TC-12: eve rows say unknown, gate/outbox say rollup; still one turn."""
        turns = assemble_turns(_read(days, "tc12"))
        assert len(turns) == 1
        row = turns.iloc[0]
        assert (row["events"], row["source"], row["delivered"], row["fell_back"]) == (
            5,
            "rollup",
            1,
            1,
        )


class TestNames:
    @pytest.mark.parametrize(
        ("ref", "expected"),
        [
            pytest.param("turn_3", "wrun_NEW/turn_3", id="bare-newest"),
            pytest.param("wrun_OLD/turn_3", "wrun_OLD/turn_3", id="exact"),
            pytest.param("wrun_OLD/turn_3#node", "wrun_OLD/turn_3", id="suffix"),
            pytest.param(" turn_4 ", "wrun_OLD/turn_4", id="spaces"),
        ],
    )
    def test_resolve(self, days: Path, ref: str, expected: str) -> None:
        """TC-13: `<session>/turn_N` names one turn exactly; a bare turn_N the newest."""
        turns = assemble_turns(_read(days, "tc13"))
        assert resolve_turn(turns, ref) == expected

    @pytest.mark.parametrize(
        ("ref", "error"),
        [
            pytest.param("wrun_X/turn_3", NotFoundError, id="no-such-session"),
            pytest.param("turn_9", NotFoundError, id="no-such-number"),
            pytest.param("", BadRequestError, id="empty"),
        ],
    )
    def test_resolve_refuses(self, days: Path, ref: str, error: type[Exception]) -> None:
        """TC-13: a name that matches nothing is refused with the reason."""
        turns = assemble_turns(_read(days, "tc13"))
        with pytest.raises(error):
            resolve_turn(turns, ref)

    def test_turn_events_takes_a_bare_number(self, days: Path) -> None:
        """TC-13: turn_events with a bare turn_N shows the newest such turn."""
        events = _read(days, "tc13")
        picked = turn_events(events, "turn_3")
        assert set(picked["session"]) == {"wrun_NEW"}
        assert set(picked["turn_name"]) == {"wrun_NEW/turn_3"}


class TestOrphans:
    def test_callbacks_stop_entries_and_unbound_keys_are_orphans(self, days: Path) -> None:
        """TC-14: callback rows (only the bridge writes them) and stop entries stay orphans, listed."""
        events = _read(days, "tc14")
        lost = orphans(events)
        assert list(lost["turn"]) == [
            "tg:42:cb:77",
            "tg:42:cb:77",
            "tg:42:stop:2003",
            "tg:77:cb:5",
            "tg:42:2009",
        ]
        assert lost["reason"].str.contains("callback").sum() == 3
        assert (assign_turns(events).isna()).sum() == 5

    def test_stop_rows_join_their_turn_and_orphans_are_counted(self, days: Path) -> None:
        """TC-14: stop.* rows carry the matched session and turn; the turn counts its chat's orphans."""
        turns = assemble_turns(_read(days, "tc14"))
        row = turns.iloc[0]
        assert (row["name"], row["events"], row["status"]) == ("wrun_C/turn_2", 5, "cancelled")
        assert (
            row["orphans"] == 3
        )  # two callback rows and the stop entry of chat 42 during the turn


class TestSubagents:
    def test_suffixed_rows_belong_to_the_base_turn_and_stay_visible(self, days: Path) -> None:
        """TC-22, TC-8: turn_3#planner and turn_3#custom-node rows belong to turn_3; the suffix stays."""
        events = _read(days, "tc22")
        turns = assemble_turns(events)
        assert list(turns["name"]) == ["wrun_H/turn_3"]
        row = turns.iloc[0]
        assert (row["steps"], row["tokens_in"], row["subagents"]) == (2, 300, "custom-node,planner")
        shown = turn_events(events, "wrun_H/turn_3")
        assert {"turn_3#planner", "turn_3#custom-node"} <= set(shown["turn"])


class TestEdges:
    def test_empty_events(self) -> None:
        """No events: no turns, no orphans, an empty assignment."""
        from trackerkit.trace._columns import empty_frame
        from trackerkit.trace.read import EVENT_COLUMNS

        empty = empty_frame(EVENT_COLUMNS)
        assert assemble_turns(empty).empty
        assert orphans(empty).empty
        assert assign_turns(empty).empty

    def test_precomputed_names_give_the_same_turns(self, sample: Path) -> None:
        """assemble_turns with the names from assign_turns equals the one-call result."""
        events, _ = read_trace(sample)
        pd.testing.assert_frame_equal(
            assemble_turns(events), assemble_turns(events, assign_turns(events))
        )

    def test_unknown_turn_name(self, days: Path) -> None:
        """turn_events refuses a name no event carries."""
        with pytest.raises(NotFoundError):
            turn_events(_read(days, "tc13"), "wrun_X/turn_0")
