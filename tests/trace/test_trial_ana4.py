"""An analyst's trial on days from their own generator (ana4): `names=` paired with the events
by index label, a sessionless `turn_N` row written as its turn begins, a retried step's own
tool failures, day files where no turn began, and counts in words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from loaded import load_module

from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.trace import (
    assemble_turns,
    assign_turns,
    read_trace,
    steps,
    tool_calls,
    turn_events,
    turn_failures,
)
from trackerkit.trace.costs import cost_summary, costs_by_day
from trackerkit.trace.plots import daily_costs, daily_usage

DAYS = Path(__file__).parent / "days"
EXPLORER = Path(__file__).parents[2] / "notebooks" / "trace_explorer.py"


@pytest.fixture
def events() -> pd.DataFrame:
    """Two chat turns (wrun_A, wrun_B) with sessionless rows (TC-9)."""
    read, errors = read_trace(DAYS / "tc09")
    assert errors == []
    return read


def _turns(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values("name").reset_index(drop=True)


class TestNamesByIndex:
    def test_a_reordered_frame_gives_the_same_turns(self, events: pd.DataFrame) -> None:
        """Names from `assign_turns` pair with the rows by index label, as pandas aligns them."""
        names = assign_turns(events)
        shuffled = events.sort_values(["session", "ts"], ascending=[False, False])
        expected = _turns(assemble_turns(events))
        pd.testing.assert_frame_equal(_turns(assemble_turns(shuffled, names)), expected)
        by_label = steps(shuffled, names)
        assert list(by_label["turn_name"]) == list(steps(events)["turn_name"])
        calls = tool_calls(shuffled, names)
        pd.testing.assert_frame_equal(calls, tool_calls(events))
        own = turn_events(shuffled, "wrun_A/turn_0", names)
        assert list(own["line"]) == list(turn_events(events, "wrun_A/turn_0")["line"])
        failures = turn_failures(shuffled, "wrun_A/turn_0", names)
        pd.testing.assert_frame_equal(failures, turn_failures(events, "wrun_A/turn_0"))

    def test_a_subset_takes_its_own_rows_names(self, events: pd.DataFrame) -> None:
        """A filtered frame with the whole frame's names: each kept row keeps its own name."""
        names = assign_turns(events)
        subset = events[events["session"] != "wrun_B"]
        turns = assemble_turns(subset, names)
        assert list(turns["name"]) == ["wrun_A/turn_0", "wrun_B/turn_0"]
        assert list(turns["events"]) == [10, 2]  # wrun_B keeps its rows without its session

    @pytest.mark.parametrize(
        "call",
        [
            pytest.param(lambda e, n: assemble_turns(e, n), id="assemble_turns"),
            pytest.param(lambda e, n: steps(e, n), id="steps"),
            pytest.param(lambda e, n: tool_calls(e, n), id="tool_calls"),
            pytest.param(lambda e, n: turn_events(e, "wrun_A/turn_0", n), id="turn_events"),
            pytest.param(lambda e, n: turn_failures(e, "wrun_A/turn_0", n), id="turn_failures"),
        ],
    )
    def test_names_of_another_frame_are_refused(self, events: pd.DataFrame, call: object) -> None:
        """A Series whose index lacks some events' labels is refused in words, not misread."""
        names = assign_turns(events.reset_index(drop=True).iloc[:5])
        shifted = events.set_axis(events.index + 100)
        with pytest.raises(BadRequestError, match="assign_turns on the frame you pass"):
            call(shifted, names)  # type: ignore[operator]

    def test_a_list_is_positional_and_must_fit(self, events: pd.DataFrame) -> None:
        """A plain list pairs by position; another length is refused, never a numpy error."""
        names = list(assign_turns(events))
        turns = assemble_turns(events, names)  # type: ignore[arg-type]
        pd.testing.assert_frame_equal(turns, assemble_turns(events))
        with pytest.raises(BadRequestError, match=f"{len(events) - 1} names for {len(events)}"):
            assemble_turns(events, np.asarray(names[:-1], dtype=object))  # type: ignore[arg-type]
        with pytest.raises(BadRequestError, match="names"):
            steps(events, names[:-1])  # type: ignore[arg-type]


def _line(ts: str, turn: str, session: str, name: str, **data: Any) -> str:
    kind, _, rest = name.partition(".")
    event = {"ts": ts, "turn": turn, "session": session, "source": "http", "kind": kind}
    event |= {"name": rest, "data": data}
    return json.dumps(event, separators=(",", ":"))


def _day(folder: Path, day: str, lines: list[str]) -> Path:
    (folder / f"{day}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


class TestSessionlessTurnRow:
    def test_a_row_written_as_its_turn_begins_joins_that_turn(self, tmp_path: Path) -> None:
        """TC-9: a context.parts row 4 ms before wrun_Y's first event joins wrun_Y/turn_0, not
        the turn_0 of another session that ended two hours before."""
        folder = _day(
            tmp_path,
            "2026-12-04",
            [
                _line("2026-12-04T10:00:00.000Z", "turn_0", "wrun_X", "eve.turn.started"),
                _line("2026-12-04T10:00:05.000Z", "turn_0", "wrun_X", "eve.turn.completed"),
                _line("2026-12-04T12:00:00.000Z", "turn_0", "", "context.parts", core=1),
                _line("2026-12-04T12:00:00.004Z", "turn_0", "wrun_Y", "eve.turn.started"),
                _line("2026-12-04T12:00:03.000Z", "turn_0", "wrun_Y", "eve.turn.completed"),
            ],
        )
        events, _ = read_trace(folder)
        assert list(assign_turns(events))[2] == "wrun_Y/turn_0"
        turns = assemble_turns(events).set_index("name")
        assert turns.loc["wrun_X/turn_0", "duration"] == pd.Timedelta("5s")
        assert list(turns["events"]) == [2, 3]

    @pytest.mark.parametrize(
        ("ts", "expected"),
        [
            pytest.param("10:30:00", "wrun_L/turn_0", id="inside-two-spans-the-latest-started"),
            pytest.param("11:30:00", "wrun_L/turn_0", id="inside-one-span"),
            pytest.param("12:10:00", "wrun_L/turn_0", id="nearer-the-end-before"),
            pytest.param("12:50:00", "wrun_M/turn_0", id="nearer-the-start-after"),
            pytest.param("12:30:00", "wrun_M/turn_0", id="a-tie-the-later-turn"),
            pytest.param("09:00:00", "wrun_K/turn_0", id="before-every-turn"),
            pytest.param("15:00:00", "wrun_M/turn_0", id="after-every-turn"),
        ],
    )
    def test_the_turn_whose_span_holds_it_else_the_nearest(
        self, tmp_path: Path, ts: str, expected: str
    ) -> None:
        """TC-9: among the turns with that number, one whose span holds the row (the latest
        started), else the nearest by time; on a tie the later turn."""
        at = "2026-12-04T{}.000Z".format
        folder = _day(
            tmp_path,
            "2026-12-04",
            [
                _line(at("10:00:00"), "turn_0", "wrun_K", "eve.turn.started"),
                _line(at("11:00:00"), "turn_0", "wrun_K", "eve.turn.completed"),
                _line(at("10:15:00"), "turn_0", "wrun_L", "eve.turn.started"),
                _line(at("12:00:00"), "turn_0", "wrun_L", "eve.turn.completed"),
                _line(at("13:00:00"), "turn_0", "wrun_M", "eve.turn.started"),
                _line(at("14:00:00"), "turn_0", "wrun_M", "eve.turn.completed"),
                _line(at(ts), "turn_0", "", "context.parts", core=1),
            ],
        )
        events, _ = read_trace(folder)
        names = assign_turns(events)
        assert names[(events["session"] == "").to_numpy()].tolist() == [expected]


class TestRetriedStep:
    def test_a_retried_step_keeps_only_its_own_tool_failures(self, tmp_path: Path) -> None:
        """Step 0's first attempt's call times out; the retried step 0 (same stepIndex) whose
        call succeeds has no error: a tool result belongs to the attempt before it in ts."""
        at = "2026-12-06T10:00:{:02d}.000Z".format
        usage = {"in": 10, "out": 1, "costUsd": 0.1}
        call = {"kind": "tool", "callId": "c1", "toolName": "web_fetch"}
        folder = _day(
            tmp_path,
            "2026-12-06",
            [
                _line(at(0), "turn_0", "wrun_R2", "eve.turn.started"),
                _line(at(1), "turn_0", "wrun_R2", "eve.step.started", stepIndex=0),
                _line(at(2), "turn_0", "wrun_R2", "eve.step.completed", stepIndex=0, usage=usage),
                _line(
                    at(3), "turn_0", "wrun_R2", "eve.actions.requested", stepIndex=0, actions=[call]
                ),
                _line(
                    at(8),
                    "turn_0",
                    "wrun_R2",
                    "eve.action.result",
                    stepIndex=0,
                    status="timeout",
                    callId="c1",
                    isError=False,
                    failure="timeout",
                    result="{}",
                ),
                _line(at(9), "turn_0", "wrun_R2", "eve.step.failed", stepIndex=1, code="E_TOOL"),
                _line(at(10), "turn_0", "wrun_R2", "eve.step.started", stepIndex=0),
                _line(at(11), "turn_0", "wrun_R2", "eve.step.completed", stepIndex=0, usage=usage),
                _line(
                    at(12),
                    "turn_0",
                    "wrun_R2",
                    "eve.actions.requested",
                    stepIndex=0,
                    actions=[call],
                ),
                _line(
                    at(13),
                    "turn_0",
                    "wrun_R2",
                    "eve.action.result",
                    stepIndex=0,
                    status="done",
                    callId="c1",
                    isError=False,
                    result='{"ok":true}',
                ),
                _line(at(15), "turn_0", "wrun_R2", "eve.turn.completed"),
            ],
        )
        events, _ = read_trace(folder)
        table = steps(events)
        assert list(table["step"]) == [0, 1, 0]
        assert list(table["error_class"].fillna("")) == ["timeout", "E_TOOL", ""]

    def test_a_result_inside_an_attempt_belongs_to_it(self, tmp_path: Path) -> None:
        """A tool result between a step.started and its step.completed is that attempt's, and
        one of an attempt that never completed is no earlier attempt's."""
        at = "2026-12-06T10:00:{:02d}.000Z".format

        def failed(second: int, call_id: str) -> str:
            return _line(
                at(second), "turn_0", "wrun_R", "eve.action.result", stepIndex=0,
                callId=call_id, isError=True, failure="isError", result="no",
            )  # fmt: skip

        folder = _day(
            tmp_path,
            "2026-12-06",
            [
                _line(at(0), "turn_0", "wrun_R", "eve.step.started", stepIndex=0),
                _line(at(1), "turn_0", "wrun_R", "eve.step.completed", stepIndex=0),
                _line(at(2), "turn_0", "wrun_R", "eve.step.started", stepIndex=0),
                failed(3, "c2"),
                _line(at(4), "turn_0", "wrun_R", "eve.step.completed", stepIndex=0),
                _line(at(5), "turn_0", "wrun_R", "eve.step.started", stepIndex=0),
                failed(6, "c3"),
            ],
        )
        events, _ = read_trace(folder)
        assert list(steps(events)["error_class"].fillna("")) == ["", "isError"]


class TestDaysWithoutTurns:
    @pytest.fixture
    def folder(self, tmp_path: Path) -> Path:
        """2026-12-08: one failed turn; 2026-12-09: one Insight send only (an orphan, TC-8)."""
        trace = tmp_path / "data" / "trace"
        trace.mkdir(parents=True)
        _day(
            trace,
            "2026-12-08",
            [
                _line("2026-12-08T10:00:00.000Z", "turn_0", "wrun_N", "eve.turn.started"),
                _line("2026-12-08T10:00:03.000Z", "turn_0", "wrun_N", "eve.turn.failed", code="E"),
            ],
        )
        return _day(
            trace, "2026-12-09", [_line("2026-12-09T11:00:00.000Z", "", "", "gate.outbound")]
        )

    def test_a_day_given_gets_a_row_of_zero_turns(self, folder: Path) -> None:
        """costs_by_day(turns, days=...) has a row for every day named, 0 turns where none began."""
        events, _ = read_trace(folder)
        turns = assemble_turns(events)
        assert list(costs_by_day(turns)["day"]) == ["2026-12-08"]
        table = costs_by_day(turns, days=["2026-12-09", "2026-12-08"])
        assert list(table["day"]) == ["2026-12-08", "2026-12-09"]
        assert list(table["turns"]) == [1, 0]
        assert list(table["failed_turns"]) == [1, 0]
        assert table["unknown_share"].isna().all()  # no steps either day
        assert list(costs_by_day(turns.iloc[:0], days=["2026-12-09"])["turns"]) == [0]

    def test_the_per_day_figures_show_every_day_given(self, folder: Path) -> None:
        """The cost and token bars have a bar for a day with no turn when its day is given."""
        turns = assemble_turns(read_trace(folder)[0])
        days = ["2026-12-08", "2026-12-09"]
        assert list(daily_costs(turns, days=days).data[0].x) == days
        assert list(daily_usage(turns, days=days).data[0].x) == days

    def test_the_explorer_lists_every_day_picked(
        self, folder: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The explorer's per-day table and figures have the Insight-only day, 0 turns."""
        monkeypatch.setenv("TRACKERKIT_DATA", str(folder.parent))
        outputs, defs = load_module(EXPLORER, "notebook_trace_explorer_ana4").app.run()
        assert list(defs["per_day"]["day"]) == ["2026-12-08", "2026-12-09"]
        assert list(defs["per_day"]["turns"]) == [1, 0]
        figures = [o for o in outputs if isinstance(o, go.Figure)]
        titles = ("Known cost per day", "Tokens per day")
        bars = [list(f.data[0].x) for f in figures if f.layout.title.text.startswith(titles)]
        assert bars == [["2026-12-08", "2026-12-09"]] * 2


class TestCountsInWords:
    @pytest.fixture
    def folder(self, tmp_path: Path) -> Path:
        """One day: a turn of one failed step, a turn of one completed step that costs $1e-7 and
        has one odd token count, and one broken line."""
        trace = tmp_path / "data" / "trace"
        trace.mkdir(parents=True)
        usage = {"in": "many", "out": 1, "costUsd": 1e-7}
        return _day(
            trace,
            "2026-12-10",
            [
                _line("2026-12-10T10:00:00.000Z", "turn_0", "wrun_F", "eve.turn.started"),
                _line("2026-12-10T10:00:01.000Z", "turn_0", "wrun_F", "eve.step.failed", code="E"),
                _line("2026-12-10T10:00:02.000Z", "turn_0", "wrun_F", "eve.turn.failed", code="E"),
                _line("2026-12-10T11:00:00.000Z", "turn_0", "wrun_C", "eve.turn.started"),
                _line(
                    "2026-12-10T11:00:01.000Z",
                    "turn_0",
                    "wrun_C",
                    "eve.step.completed",
                    stepIndex=0,
                    usage=usage,
                ),
                "{broken",
            ],
        )

    def test_a_tiny_known_cost_is_not_rounded_to_nothing(self) -> None:
        """A known cost under $0.0001 reads <$0.0001, not $0.0000; a cost of 0 stays $0.0000."""
        turns = pd.DataFrame({"cost_usd": [1e-7], "steps": [1], "steps_without_cost": [0]})
        assert cost_summary(turns).startswith("<$0.0001 over 1 of 1 steps;")
        assert cost_summary(turns.assign(cost_usd=0.0)).startswith("$0.0000 over")

    def test_the_trace_cli_says_one_in_the_singular(
        self, folder: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`trace turns` says 1 odd value, `trace show` 1 event."""
        assert main(["trace", "turns", "2026-12-10", "--dir", str(folder)]) == 0
        out = capsys.readouterr().out
        assert "1 odd value in data read as missing (data.usage.in 1)." in out
        assert "cost: <$0.0001 over 1 of 1 steps" in out
        _day(
            folder,
            "2026-12-11",
            [_line("2026-12-11T09:00:00.000Z", "turn_5", "wrun_S", "eve.turn.started")],
        )
        assert main(["trace", "show", "wrun_S/turn_5", "--dir", str(folder)]) == 0
        assert ", 1 event\n" in capsys.readouterr().out

    def test_the_explorer_says_one_in_the_singular(
        self, folder: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The explorer's counts: 1 broken line, 1 failed turn (of 2), 1 step, 1 tool call."""
        monkeypatch.setenv("TRACKERKIT_DATA", str(folder.parent))
        module = load_module(EXPLORER, "notebook_trace_explorer_ana4_words")
        outputs, defs = module.app.run()
        page = " ".join(str(getattr(o, "text", "")) for o in outputs)
        assert "1 broken line: " in page
        assert "2 steps (1 completed, 1 failed)" in page
        assert "0 tool calls, 0 failed" in page
        assert module.counted(1, "failed turn") == "1 failed turn"
        assert module.counted(2, "turn with failures", "turns with failures") == (
            "2 turns with failures"
        )
        assert "2 turns" in defs["turns_view"].text
