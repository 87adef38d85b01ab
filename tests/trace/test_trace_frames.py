"""Derived tables and failure classes on the sample days (TC-7, TC-15, TC-16, TC-17, TC-18)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trackerkit.trace import (
    DELIVERY_COLUMNS,
    GATE_COLUMNS,
    MARKER_COLUMNS,
    STEP_COLUMNS,
    TOOL_CALL_COLUMNS,
    ColumnSpec,
    assemble_turns,
    assign_turns,
    deliveries,
    failure_class,
    failure_of,
    gates,
    markers,
    read_trace,
    steps,
    tokens_over_day,
    tool_calls,
    turn_failures,
    turn_timeline,
)
from trackerkit.trace.sample import CATALOGUE, write_sample


@pytest.fixture
def sample() -> Path:
    """The bundled sample days (data/trace)."""
    return Path(__file__).parents[2] / "data" / "trace"


@pytest.fixture(scope="module")
def events() -> pd.DataFrame:
    frame, _errors = read_trace(Path(__file__).parents[2] / "data" / "trace")
    frame["turn_name"] = assign_turns(frame)
    return frame


class TestSample:
    def test_every_catalogue_event_is_present(self, events: pd.DataFrame) -> None:
        """TC-15: the sample days hold every kind.name of the catalogue and nothing else."""
        assert set(events["name"].astype(str)) == set(CATALOGUE)

    def test_nothing_the_journal_leaves_out(self, events: pd.DataFrame) -> None:
        """TC-18: no delta events; context only as file sizes marked approximate."""
        names = set(events["name"].astype(str))
        assert not {"eve.message.appended", "eve.reasoning.appended", "eve.action.partial"} & names
        parts = events[events["name"] == "context.parts"]["data"]
        assert all(d["approximate"] is True and d["unit"] == "bytes" for d in parts)
        gate = events[events["kind"] == "gate"]
        unkeyed = gate[(gate["turn"] == "") & (gate["session"] == "")]
        assert set(unkeyed["source"]) == {"watch", "brief", "insight"}  # proactive sends only

    def test_regenerated_from_the_seed_equals_the_committed_days(
        self, tmp_path: Path, sample: Path
    ) -> None:
        """The committed sample days are exactly what the generator writes from its seed."""
        for path in write_sample(tmp_path):
            assert path.read_bytes() == (sample / path.name).read_bytes(), path.name


class TestSteps:
    def test_one_row_per_step_with_usage(self, events: pd.DataFrame) -> None:
        """steps: one row per eve.step.completed and eve.step.failed, with in, out, cache and cost."""
        table = steps(events)
        assert list(table.columns) == [c.name for c in STEP_COLUMNS]
        completed = table[table["outcome"] == "completed"]
        assert len(completed) == (events["name"] == "eve.step.completed").sum()
        assert (table["outcome"] == "failed").sum() == (events["name"] == "eve.step.failed").sum()
        assert (completed["usage_in"] > 0).all()
        assert table["cost_usd"].isna().any()
        assert table["cost_usd"].notna().any()
        assert set(table["subagent"].dropna()) == {"planner"}
        assert table.attrs["skipped"] == {}

    def test_failed_steps_and_failed_tools_say_why(self, events: pd.DataFrame) -> None:
        """Issue 14, item 3: a failed step gives its code and message; a completed step whose
        tool failed gives the tool's class (TC-16) and message; others give none."""
        table = steps(events)
        failed = table[table["outcome"] == "failed"]
        assert (failed["error_class"] == "E_MODEL").any()
        model = failed[failed["error_class"] == "E_MODEL"]
        assert set(model["error"]) == {"the model endpoint answered 529"}
        tools = table[(table["outcome"] == "completed") & table["error_class"].notna()]
        assert set(tools["error_class"]) <= {
            "isError",
            "status:failed",
            "ok:false",
            "error",
            "timeout",
        } | {c for c in tools["error_class"] if c.startswith("exit ")}
        assert "hp above hp_max" in set(tools["error"])
        calls = tool_calls(events)
        assert len(tools) == calls[calls["failure"].notna()].groupby(["turn_name", "step"]).ngroups

    def test_odd_values_read_as_missing_and_are_counted(self, tmp_path: Path) -> None:
        """TC-19: usage values of the wrong kind or too large for a column read as missing."""
        head = '{"ts":"2026-03-01T10:00:0%d.000Z","turn":"turn_0","session":"s","source":"cron",'
        usages = [
            '{"in":1e308,"out":100000000000000000000000000000,"costUsd":1e999}',
            '{"in":"12","out":-3,"cacheRead":' + "9" * 5000 + "}",
            '{"in":5,"out":1.5,"costUsd":0.5}',
        ]
        lines = [
            head % i + f'"kind":"eve","name":"step.completed","data":{{"usage":{usage}}}}}\n'
            for i, usage in enumerate(usages)
        ]
        (tmp_path / "2026-03-01.jsonl").write_text("".join(lines))
        events, errors = read_trace(tmp_path)
        assert errors == []
        table = steps(events)
        assert table["usage_in"].tolist() == [pd.NA, pd.NA, 5]
        assert table["usage_out"].tolist() == [pd.NA, -3, pd.NA]
        assert table["cost_usd"].tolist() == [pd.NA, pd.NA, 0.5]
        assert table.attrs["skipped"] == {
            "data.usage.cacheRead": 1,
            "data.usage.costUsd": 1,
            "data.usage.in": 2,
            "data.usage.out": 2,
        }

    def test_a_whole_number_written_as_a_float_is_that_integer(self, tmp_path: Path) -> None:
        """JSON has one number type: `1200.0` (another writer's way) is the integer 1200 in
        `steps`, in the turns' sums and in an int column of `columns=`, one rule everywhere."""
        head = '{"ts":"2026-03-01T10:00:0%d.000Z","turn":"turn_0","session":"s","source":"cron",'
        datas = [
            '{"sequence":0}',
            '{"sequence":1.0,"stepIndex":0,"usage":{"in":1200.0,"out":7,"costUsd":2.0}}',
            '{"sequence":2,"stepIndex":1.0,"usage":{"in":300,"out":2.5}}',
        ]
        names = ["turn.started", "step.completed", "step.completed"]
        lines = [
            head % i + f'"kind":"eve","name":"{name}","data":{data}}}\n'
            for i, (name, data) in enumerate(zip(names, datas, strict=True))
        ]
        (tmp_path / "2026-03-01.jsonl").write_text("".join(lines))
        events, errors = read_trace(tmp_path)
        assert errors == []
        table = steps(events)
        assert table["usage_in"].tolist() == [1200, 300]
        assert table["usage_out"].tolist() == [7, pd.NA]
        assert table.attrs["skipped"] == {"data.usage.out": 1}
        turns = assemble_turns(events)
        assert turns["tokens_in"].tolist() == [int(table["usage_in"].sum())]
        picked, _ = read_trace(
            tmp_path, columns=[ColumnSpec("n", "usage.in", "int"), "usage.costUsd"]
        )
        assert picked["n"].tolist() == [pd.NA, 1200, 300]
        assert str(picked["n"].dtype) == "Int64"
        assert picked["usage.costUsd"].dtype.kind == "f"  # 2.0 written as a float stays one


class TestToolCalls:
    def test_requests_pair_with_results(self, events: pd.DataFrame) -> None:
        """TC-15: actions requested pair with their results by callId; args kept position by position."""
        calls = tool_calls(events)
        assert list(calls.columns) == [c.name for c in TOOL_CALL_COLUMNS]
        paired = calls[calls["status"].notna() & calls["args"].notna()]
        assert len(paired) > 30
        assert (paired["duration"] >= pd.Timedelta(0)).all()
        assert not calls.duplicated(["session", "call_id"]).any()

    def test_every_failure_class_appears(self, events: pd.DataFrame) -> None:
        """TC-16: the sample holds every failure class; a rejected call and a quiet bash exit are none."""
        calls = tool_calls(events)
        classes = set(calls["failure"].dropna())
        assert classes == {"isError", "status:failed", "ok:false", "error", "timeout", "exit 2"}
        assert calls[calls["status"] == "rejected"]["failure"].isna().all()
        quiet = calls[(calls["tool"] == "bash") & (calls["exit_code"] == 1)]
        assert len(quiet) > 0
        assert quiet["failure"].isna().all()

    def test_legacy_rows_get_a_derived_class(self, events: pd.DataFrame) -> None:
        """TC-16: rows written before the rule (result an object, no failure) get their class derived."""
        legacy = tool_calls(events)
        legacy = legacy[legacy["tool"] == "legacy_tool"]
        assert len(legacy) > 0
        assert set(legacy["failure"]) == {"ok:false"}


class TestFailureClass:
    @pytest.mark.parametrize(
        ("kwargs", "expected"),
        [
            pytest.param({"result": "x", "is_error": True}, "isError", id="isError"),
            pytest.param(
                {"result": '{"status":"failed","code":"E","message":"m"}'},
                "status:failed",
                id="status-failed",
            ),
            pytest.param({"result": {"ok": False}}, "ok:false", id="ok-false"),
            pytest.param(
                {"result": '{"ok": false, "why": 1}'}, "ok:false", id="string-holding-json"
            ),
            pytest.param({"result": {"error": "boom"}}, "error", id="error"),
            pytest.param({"result": "", "status": "timeout"}, "timeout", id="timeout"),
            pytest.param(
                {"result": {"stderr": "bad", "exitCode": 2}, "tool_name": "bash"},
                "exit 2",
                id="exit",
            ),
            pytest.param(
                {"result": {"stderr": "", "exitCode": 2}, "tool_name": "bash"},
                None,
                id="exit-quiet",
            ),
            pytest.param({"result": {"ok": False}, "status": "rejected"}, None, id="rejected"),
            pytest.param({"result": {"ok": False}, "status": "cancelled"}, None, id="cancelled"),
            pytest.param({"result": "error: text is not a class"}, None, id="plain-text"),
            pytest.param({"result": {"ok": True}}, None, id="fine"),
        ],
    )
    def test_failure_class(self, kwargs: dict[str, object], expected: str | None) -> None:
        """TC-16: a failed call is marked by its class, never by its text."""
        assert failure_class(**kwargs) == expected  # type: ignore[arg-type]

    def test_written_class_wins_and_new_rows_without_one_did_not_fail(self) -> None:
        """TC-16: failure_of trusts the written class; a row under the rule without one is no failure."""
        assert failure_of({"failure": "timeout", "result": "{}"}) == "timeout"
        assert failure_of({"isError": True, "result": "boom", "failure": None}) is None
        assert failure_of({"isError": True, "result": {"x": 1}}) == "isError"
        assert failure_of("not data") is None


class TestDeliveries:
    def test_gate_without_outbox_and_fallen_back(self, events: pd.DataFrame) -> None:
        """TC-17: a gate verdict may stand alone; a delivery may have fallen back with an error."""
        table = deliveries(events)
        assert list(table.columns) == [c.name for c in DELIVERY_COLUMNS]
        alone = table[table["outbox"].isna()]
        assert len(alone) > 0
        assert alone["text"].str.contains("went wrong").all()
        fell = table[table["fell_back"] == True]  # noqa: E712 (nullable boolean)
        assert len(fell) > 0
        assert fell["error"].str.startswith("buttons dropped: sendRichMessage 400: ").all()
        assert set(table["outbox"].dropna()) == {"delivered", "failed"}

    def test_night_sends_pair_within_their_turn(self, events: pd.DataFrame) -> None:
        """TC-11, TC-17: a rollup's keyless gate and outbox rows pair inside the night turn."""
        table = deliveries(events)
        night = table[table["source"] == "rollup"]
        assert len(night) == 3
        assert night["turn_name"].notna().all()
        assert (night["outbox"] == "delivered").all()


class TestGates:
    def test_every_verdict(self, events: pd.DataFrame) -> None:
        """gates: inbound, web and outbound verdicts with their flags and findings."""
        table = gates(events)
        assert list(table.columns) == [c.name for c in GATE_COLUMNS]
        assert set(table["gate"]) == {"inbound", "web", "outbound"}
        assert table[table["gate"] == "web"]["blocked"].all()
        findings = table[table["gate"] == "outbound"]["findings"]
        assert any(f == ["token:github"] for f in findings)


class TestMarkers:
    def test_every_mark_of_the_writer(self, events: pd.DataFrame) -> None:
        """TC-7: traceTrimmed, traceUnreadable, truncated (end and start), deep, keys, unreadable."""
        table = markers(events)
        assert list(table.columns) == [c.name for c in MARKER_COLUMNS]
        assert set(table["marker"]) == {
            "traceTrimmed",
            "traceUnreadable",
            "truncated",
            "deep",
            "unreadable",
        } | ({"keys"} & set(table["marker"]))
        truncated = table[table["marker"] == "truncated"]
        assert set(truncated["at"]) == {"start", "end"}
        assert set(truncated[truncated["at"] == "start"]["path"]) == {"data.result"}

    def test_keys_mark_of_a_cut_object(self) -> None:
        """TC-7: an object cut short carries …[keys], found with its path."""
        frame = pd.DataFrame(
            {
                "ts": pd.to_datetime(["2026-03-01T00:00:00Z"]),
                "turn": ["turn_0"],
                "session": ["wrun_A"],
                "source": ["unknown"],
                "name": ["eve.step.failed"],
                "data": [{"details": {"a": "x", "…[keys]": 9}}],
                "file": ["f"],
                "line": [1],
            }
        )
        table = markers(frame)
        assert list(table["marker"]) == ["keys"]
        assert list(table["path"]) == ["data.details"]


def test_keys_of_the_wrong_kind_never_break_a_table(tmp_path: Path) -> None:
    """Found when tried: one event whose `stepIndex` is a list (or a `callId` that is an object)
    made `steps`, `tokens_over_day` and `turn_timeline` raise "unhashable type", and the trace
    explorer showed "Could not sum up the days" for a whole day of good events."""
    head = '"turn":"turn_0","session":"s","source":"unknown","kind":"eve"'
    lines = [
        '{"ts":"2026-03-01T10:00:00.000Z",%s,"name":"turn.started","data":{"sequence":1}}',
        '{"ts":"2026-03-01T10:00:01.000Z",%s,"name":"step.started","data":{"stepIndex":[1]}}',
        '{"ts":"2026-03-01T10:00:02.000Z",%s,"name":"actions.requested","data":{"stepIndex":[1],'
        '"actions":[{"kind":"tool","callId":{"a":1},"toolName":"t"}]}}',
        '{"ts":"2026-03-01T10:00:03.000Z",%s,"name":"action.result","data":{"stepIndex":[1],'
        '"callId":{"a":1},"toolName":"t","isError":true,"failure":"isError"}}',
        '{"ts":"2026-03-01T10:00:04.000Z",%s,"name":"step.completed","data":{"stepIndex":[1],'
        '"usage":{"in":5,"out":1}}}',
        '{"ts":"2026-03-01T10:00:05.000Z",%s,"name":"turn.completed","data":{"sequence":9}}',
    ]
    path = tmp_path / "2026-03-01.jsonl"
    path.write_text("\n".join(line % head for line in lines) + "\n", encoding="utf-8")
    events, errors = read_trace(path)
    assert errors == []
    table = steps(events)
    assert table["usage_in"].tolist() == [5]
    assert table["error_class"].tolist() == ["isError"]  # its tool's failure, paired by the key
    assert table.attrs["skipped"] == {"data.stepIndex": 1}
    assert len(tool_calls(events)) == 1
    tokens_over_day(events)
    assert turn_timeline(events, "s/turn_0").data
    assert len(turn_failures(events, "s/turn_0")) == 1
