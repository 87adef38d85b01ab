"""Turn assembly on hand-written days, one folder per rule (TC-8..TC-14, TC-22)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pandas as pd
import pytest

from trackerkit.cli import main
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


class TestKind:
    def test_a_turn_without_turn_bound_is_night_only_from_a_scheduled_source(
        self, sample: Path
    ) -> None:
        """A docs trial: an http turn was called night. Night is a scheduled send's turn (TC-8:
        rollup, cron, watch, brief, insight; the old digest; eve rows alone); http is live."""
        events, _ = read_trace(sample)
        kinds = assemble_turns(events).groupby("source")["kind"].agg(set).to_dict()
        assert kinds["telegram"] == {"chat"}
        assert kinds["http"] == {"live"}
        assert kinds["rollup"] == kinds["cron"] == kinds["digest"] == {"night"}


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


def _step_day(folder: Path, usages: list[bytes], actions: bytes = b"[]") -> Path:
    """A day of one night turn: a step per raw `usage` JSON text, then an actions request."""

    def head(i: int) -> bytes:
        ts = f"2026-03-01T{10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        return f'{{"ts":"{ts}","turn":"turn_0","session":"wrun_O","source":"cron"'.encode()

    lines = [
        head(i) + b',"kind":"eve","name":"step.completed","data":{"usage":' + usage + b"}}"
        for i, usage in enumerate(usages)
    ]
    lines.append(
        head(len(usages))
        + b',"kind":"eve","name":"actions.requested","data":{"actions":'
        + actions
        + b"}}"
    )
    folder.mkdir(exist_ok=True)
    path = folder / "2026-03-01.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


ODD_TOKENS = [
    pytest.param(b"1.5", id="fraction"),
    pytest.param(b"1e308", id="huge-float"),
    pytest.param(b"1e999", id="inf"),
    pytest.param(b"100000000000000000000000000000", id="beyond-64-bits"),
    pytest.param(b"9" * 5000, id="5000-digits"),
    pytest.param(b"-5", id="negative"),
    pytest.param(b'"12"', id="string"),
    pytest.param(b"true", id="bool"),
    pytest.param(b"[1]", id="list"),
]


class TestOddValues:
    @pytest.mark.parametrize("odd", ODD_TOKENS)
    def test_odd_token_counts_read_as_missing_and_are_counted(
        self, tmp_path: Path, odd: bytes
    ) -> None:
        """TC-19: an odd usage value never breaks the turns table; it reads as missing and
        the frame's attrs count it by path."""
        usages = [
            b'{"in":100,"out":7,"costUsd":0.5}',
            b'{"in":' + odd + b',"out":' + odd + b"}",
            b'{"in":' + odd + b',"out":3}',
        ]
        events, errors = read_trace(_step_day(tmp_path, usages))
        assert errors == []
        turns = assemble_turns(events)
        row = turns.iloc[0]
        assert (row["steps"], row["tokens_in"], row["tokens_out"]) == (3, 100, 10)
        assert row["cost_usd"] == 0.5
        assert turns.attrs["skipped"] == {"data.usage.in": 2, "data.usage.out": 1}

    def test_whole_floats_are_token_counts(self, tmp_path: Path) -> None:
        """A count written as a whole float (`3.0`, `2e2`) is that count, not a skipped value."""
        usages = [b'{"in":3.0,"out":2e2}', b'{"in":4,"out":1}']
        turns = assemble_turns(read_trace(_step_day(tmp_path, usages))[0])
        assert (turns["tokens_in"].iloc[0], turns["tokens_out"].iloc[0]) == (7, 201)
        assert turns.attrs["skipped"] == {}

    @pytest.mark.parametrize(
        "odd",
        [b"1e308", b"1e999", b"-0.5", b'"0.1"', b"true", b"9" * 5000],
        ids=["huge", "inf", "negative", "string", "bool", "5000-digits"],
    )
    def test_odd_costs_read_as_missing_and_are_counted(self, tmp_path: Path, odd: bytes) -> None:
        """TC-19: a cost that is not a finite number from 0 to COST_MAX reads as missing."""
        usages = [b'{"in":1,"costUsd":0.25}', b'{"in":1,"costUsd":' + odd + b"}"]
        turns = assemble_turns(read_trace(_step_day(tmp_path, usages))[0])
        assert turns["cost_usd"].iloc[0] == 0.25
        assert turns.attrs["skipped"] == {"data.usage.costUsd": 1}

    def test_usage_and_actions_of_the_wrong_kind(self, tmp_path: Path) -> None:
        """TC-19: a usage or an actions that is not an object or a list reads as missing, counted."""
        path = _step_day(tmp_path, [b'"lots"', b"null", b'{"in":2}'], actions=b'{"a":1}')
        turns = assemble_turns(read_trace(path)[0])
        assert (turns["tokens_in"].iloc[0], turns["tool_calls"].iloc[0]) == (2, 0)
        assert turns.attrs["skipped"] == {"data.actions": 1, "data.usage": 1}

    def test_large_counts_sum_exactly(self, tmp_path: Path) -> None:
        """Token sums are exact integers (float weights would round 10**12 + 1)."""
        path = _step_day(tmp_path, [b'{"in":1000000000000}', b'{"in":1}'] * 5000)
        turns = assemble_turns(read_trace(path)[0])
        assert turns["tokens_in"].iloc[0] == 5000 * (10**12 + 1)
        assert turns.attrs["skipped"] == {}

    def test_the_cli_prints_how_many_were_skipped(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """TC-19: `trace turns` reads a day with odd usage values and says how many it skipped."""
        _step_day(tmp_path, [b'{"in":1.5,"out":1e308}', b'{"in":4,"out":2}'])
        assert main(["trace", "turns", "2026-03-01", "--dir", str(tmp_path)]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        assert out.splitlines()[-1] == (
            "2 odd values in data read as missing (data.usage.in 1, data.usage.out 1)."
        )
        assert main(["trace", "turns", "2026-03-01", "--dir", str(tmp_path), "--json"]) == 0
        shown = orjson.loads(capsys.readouterr().out)
        assert shown["skipped"] == {"data.usage.in": 1, "data.usage.out": 1}
        assert (shown["turns"][0]["tokens_in"], shown["turns"][0]["tokens_out"]) == (4, 2)


def test_names_and_orphans_is_assign_turns_and_orphans_from_one_assembly(days: Path) -> None:
    """read_day_turns needs both; one assembly gives what the two helpers give apart."""
    from trackerkit.trace.turns import names_and_orphans

    for folder in sorted(p for p in days.iterdir() if p.is_dir()):
        events, _ = read_trace(folder)
        names, lost = names_and_orphans(events)
        pd.testing.assert_series_equal(names, assign_turns(events))
        pd.testing.assert_frame_equal(lost, orphans(events))


def _ending_day(tmp_path: Path, ends: list[tuple[str, str]]) -> Path:
    """One night turn `s/turn_3` started, then `ends`: (turn key, kind.name) each a second on."""
    rows = [("turn_3", "eve.turn.started"), *ends]
    lines = [
        orjson.dumps(
            {
                "ts": f"2026-03-01T10:00:{second:02d}.000Z",
                "turn": turn,
                "session": "s",
                "source": "rollup",
                "kind": name.split(".", 1)[0],
                "name": name.split(".", 1)[1],  # as written: `turn.failed` of kind `eve`
                "data": {"sequence": second},
            }
        )
        for second, (turn, name) in enumerate(rows)
    ]
    path = tmp_path / "2026-03-01.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.mark.parametrize(
    ("ends", "status"),
    [
        # Found when tried: a subagent's failure marked its finished parent failed.
        ([("turn_3#planner", "eve.turn.failed"), ("turn_3", "eve.turn.completed")], "completed"),
        # ... and a subagent's completion marked a parent still running completed.
        ([("turn_3#planner", "eve.turn.completed")], "open"),
        ([("turn_3#planner", "eve.turn.completed"), ("turn_3", "eve.turn.failed")], "failed"),
        # A stop that came too late: the turn completed; one that worked: it was cancelled.
        ([("turn_3", "stop.requested"), ("turn_3", "eve.turn.completed")], "completed"),
        ([("turn_3", "stop.requested"), ("turn_3", "eve.turn.cancelled")], "cancelled"),
        ([("turn_3", "stop.requested")], "stopped"),
        ([], "open"),
    ],
)
def test_status_comes_from_the_turns_own_end_events(
    tmp_path: Path, ends: list[tuple[str, str]], status: str
) -> None:
    """TC-8, TC-22: a subagent's `turn_3#planner` end events end only the subagent."""
    events, errors = read_trace(_ending_day(tmp_path, ends))
    assert errors == []
    turns = assemble_turns(events)
    assert turns["name"].tolist() == ["s/turn_3"]
    assert turns["status"].iloc[0] == status
