"""The writer: where, order, limits, content toggle, marks, retention, errors, concurrency.

TC-1, TC-3, TC-4, TC-5, TC-6, TC-7, TC-20, TC-21.
"""

from __future__ import annotations

import datetime as dt
import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit.trace import (
    CONTENT_FIELDS,
    FIELDS,
    TraceWriter,
    day_of,
    encode_event,
    markers,
    read_trace,
)
from trackerkit.trace.write import CONTENT_LIMIT, KEY_LIMIT, LINE_LIMIT, REBUILD_LIMIT

NOON = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def _event(data: Any, capture: bool = True, **head: str) -> dict[str, Any]:
    fields = {
        "turn": "turn_0",
        "session": "wrun_A",
        "source": "unknown",
        "kind": "eve",
        "name": "x",
    } | head
    encoded = encode_event("2026-03-01T12:00:00.000Z", data=data, capture_content=capture, **fields)
    assert encoded is not None
    assert encoded.endswith(b"\n")
    assert len(encoded) <= LINE_LIMIT
    event: dict[str, Any] = orjson.loads(encoded)
    return event


class TestFiles:
    def test_one_line_per_event_under_the_trace_folder(self, tmp_path: Path) -> None:
        """TC-1, TC-4: <data_dir>/trace/YYYY-MM-DD.jsonl, one line each, seven fields in order."""
        writer = TraceWriter(tmp_path, clock=lambda: NOON)
        assert writer.write(
            kind="eve", name="turn.started", turn="turn_0", session="wrun_A", data={"sequence": 1}
        )
        assert writer.write(kind="bridge", name="admitted", turn="tg:1:2", source="bridge")
        writer.close()
        path = tmp_path / "trace" / "2026-03-01.jsonl"
        lines = path.read_bytes().splitlines()
        assert len(lines) == 2
        first = orjson.loads(lines[0])
        assert tuple(first) == FIELDS
        assert first["ts"] == "2026-03-01T12:00:00.000Z"
        assert orjson.loads(lines[1])["session"] == ""

    def test_day_file_follows_the_installation_time_zone(self, tmp_path: Path) -> None:
        """TC-2: 22:30 UTC on 1 March is 2 March in Moscow; the line carries the UTC ts."""
        late = dt.datetime(2026, 3, 1, 22, 30, tzinfo=dt.UTC)
        with TraceWriter(tmp_path, timezone="Europe/Moscow") as writer:
            writer.write(kind="eve", name="x", ts=late)
        line = (tmp_path / "trace" / "2026-03-02.jsonl").read_bytes()
        assert orjson.loads(line)["ts"] == "2026-03-01T22:30:00.000Z"
        events, _ = read_trace(tmp_path / "trace", days="2026-03-02")
        assert len(events) == 1

    def test_retention_by_file_name_only(self, tmp_path: Path) -> None:
        """TC-3: files dated 30+ days back go at the first write; others and non-day files stay."""
        folder = tmp_path / "trace"
        folder.mkdir()
        keep = [
            "2026-01-31.jsonl",
            "2026-03-01.jsonl",
            "notes.txt",
            "2025-01-01.jsonl.bak",
            "old.jsonl",
        ]
        gone = ["2026-01-30.jsonl", "2025-12-01.jsonl"]
        for name in keep + gone:
            (folder / name).write_text("x\n")
        fresh = folder / "2026-01-29.jsonl"  # new mtime does not save it
        fresh.write_text("x\n")
        with TraceWriter(tmp_path, clock=lambda: NOON, wall_clock=lambda: NOON) as writer:
            writer.write(kind="eve", name="x")
        assert sorted(p.name for p in folder.iterdir()) == sorted(keep)

    @pytest.mark.parametrize(
        "name",
        [
            "2000-01-01.jsonl\n",
            "2026-02-30.jsonl",
            "2025-02-29.jsonl",
            "2000-01-01.jsonl.tmp",
            "x2000-01-01.jsonl",
            "2000-1-01.jsonl",
            "２０００-01-01.jsonl",
        ],
        ids=[
            "final-newline",
            "no-such-day",
            "not-a-leap-year",
            "suffix",
            "prefix",
            "short",
            "wide",
        ],
    )
    def test_retention_deletes_only_exact_day_names(self, tmp_path: Path, name: str) -> None:
        """TC-3: only a name that is exactly YYYY-MM-DD.jsonl with a real date is ever deleted."""
        folder = tmp_path / "trace"
        folder.mkdir()
        (folder / name).write_text("x\n")
        (folder / "2000-01-01.jsonl").write_text("x\n")
        with TraceWriter(tmp_path, clock=lambda: NOON, wall_clock=lambda: NOON) as writer:
            writer.write(kind="eve", name="x")
        assert sorted(p.name for p in folder.iterdir()) == sorted([name, "2026-03-01.jsonl"])
        assert day_of(name) is None

    def test_retention_runs_again_on_a_change_of_day(self, tmp_path: Path) -> None:
        """TC-3: the sweep runs at each change of day file, not only at the first write."""
        folder = tmp_path / "trace"
        now = [NOON]
        writer = TraceWriter(tmp_path, clock=lambda: now[0], wall_clock=lambda: now[0])
        writer.write(kind="eve", name="x")
        (folder / "2026-01-31.jsonl").write_text("x\n")
        writer.write(kind="eve", name="x")
        assert (folder / "2026-01-31.jsonl").exists()
        now[0] = NOON + dt.timedelta(days=1)
        writer.write(kind="eve", name="x")
        writer.close()
        assert not (folder / "2026-01-31.jsonl").exists()

    def test_a_write_error_never_raises_and_is_logged_once_a_minute(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """TC-20: an unwritable folder makes write return False, logged at most once a minute."""
        blocker = tmp_path / "data"
        blocker.write_text("a file where the data folder should be")
        writer = TraceWriter(blocker, capture_content=True, clock=lambda: NOON)
        with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
            results = [writer.write(kind="eve", name="x", data={"n": i}) for i in range(5)]
        assert results == [False] * 5
        assert len(caplog.records) == 1
        assert "trace write failed" in caplog.records[0].getMessage()


class TestContent:
    def test_content_cut_at_4096_with_size(self) -> None:
        """TC-6, TC-7: a content string is cut at 4,096 characters, marked, and sized as <key>Chars."""
        data = _event({"message": "é" * 5000, "stepIndex": 1})["data"]
        assert data["message"] == "é" * CONTENT_LIMIT + "…[truncated]"
        assert data["messageChars"] == 5000
        assert data["stepIndex"] == 1

    def test_arrays_get_no_size(self) -> None:
        """TC-6: args[] and context[] are not sized."""
        data = _event({"args": [{"a": 1}], "context": ["hi"], "text": "hey"})["data"]
        assert "argsChars" not in data
        assert "contextChars" not in data
        assert data["textChars"] == 3

    def test_capture_off_keeps_names_timings_sizes(self, tmp_path: Path) -> None:
        """TC-6: with captureContent false the text goes, sizes and the rest stay."""
        (tmp_path / "settings.json").write_text('{"captureContent": false}')
        with TraceWriter(tmp_path, clock=lambda: NOON) as writer:
            assert writer.capture_content is False
            writer.write(
                kind="inbound",
                name="received",
                data={"chatId": 1, "text": "secret", "context": ["x"]},
            )
        data = orjson.loads((tmp_path / "trace" / "2026-03-01.jsonl").read_bytes())["data"]
        assert data == {"chatId": 1, "textChars": 6}

    def test_capture_defaults_on(self, tmp_path: Path) -> None:
        """TC-6: without settings.json (or without the field) content is captured."""
        assert TraceWriter(tmp_path).capture_content is True
        (tmp_path / "settings.json").write_text("{}")
        assert TraceWriter(tmp_path).capture_content is True

    def test_every_content_field_is_known(self) -> None:
        """TC-6: the content fields the writer cuts are the contract's."""
        expected = {
            "text",
            "context",
            "message",
            "details",
            "args",
            "result",
            "error",
            "output",
            "reasoning",
        }
        assert expected | {"input"} == CONTENT_FIELDS

    def test_result_object_is_one_json_line_status_first(self) -> None:
        """TC-7: a result object is serialised with ok, error, message, isError, code, exitCode first."""
        data = _event({"result": {"content": "x" * 10, "code": 3, "ok": False, "message": "no"}})[
            "data"
        ]
        assert isinstance(data["result"], str)
        assert list(orjson.loads(data["result"])) == ["ok", "message", "code", "content"]
        assert data["resultChars"] == len(data["result"])

    def test_error_equal_to_result_is_dropped(self) -> None:
        """TC-15: error is written only when it differs from result."""
        data = _event({"result": "boom", "error": "boom"})["data"]
        assert "error" not in data
        assert data["result"] == "boom"

    def test_bash_result_keeps_the_end(self) -> None:
        """TC-7: a bash result that does not fit keeps the end of stdout and the last 1,000 of stderr."""
        result = orjson.dumps(
            {"stdout": "a" * 3000 + "THE END", "stderr": "e" * 1500 + "LAST", "exitCode": 1}
        )
        data = _event({"toolName": "bash", "result": result.decode()})["data"]
        assert data["result"].startswith("…[truncated]")
        kept = orjson.loads(data["result"][len("…[truncated]") :])
        assert kept["stdout"].endswith("THE END")
        assert kept["stderr"].endswith("LAST")
        assert len(kept["stderr"]) == 1000
        assert kept["exitCode"] == 1

    def test_bash_result_that_fits_is_whole(self) -> None:
        """TC-7: a bash result that fits is written whole."""
        result = orjson.dumps({"stdout": "ok", "stderr": "", "exitCode": 0}).decode()
        assert _event({"toolName": "bash", "result": result})["data"]["result"] == result

    def test_deep_and_unreadable_and_not_a_mapping(self) -> None:
        """TC-7: nesting deeper than four levels is …[deep]; odd values …[unreadable]; a non-mapping traceUnreadable."""
        data = _event({"a": {"b": {"c": {"d": {"e": 1}, "d2": [[1]]}}}, "when": object()})["data"]
        assert data["a"]["b"]["c"]["d"] == {"e": 1}
        assert data["a"]["b"]["c"]["d2"] == ["…[deep]"]
        assert data["when"] == "…[unreadable]"
        assert _event(["a", "list"])["data"] == {"traceUnreadable": True}

    def test_cut_list_and_object_are_marked(self) -> None:
        """TC-7: a list cut short ends with …[truncated]; an object cut short gains …[keys]."""
        data = _event(
            {
                "args": ["x" * 3000, "y" * 3000, "z"],
                "details": {f"k{i}": "v" * 1000 for i in range(9)},
            }
        )["data"]
        assert data["args"][-1] == "…[truncated]"
        assert data["details"]["…[keys]"] == 9


class TestLineLimit:
    def test_rebuilt_at_2000_when_over_16kb(self) -> None:
        """TC-5: an event over 16 KB is rebuilt with every content field cut to 2,000 characters."""
        fields = ("message", "reasoning", "text", "output", "details")
        data = _event({key: key[0] * 4000 for key in fields})["data"]
        for key in fields:
            assert data[key] == key[0] * REBUILD_LIMIT + "…[truncated]"
            assert data[f"{key}Chars"] == 4000
        assert "traceTrimmed" not in data

    def test_counted_in_utf8_bytes(self) -> None:
        """TC-5: the cap counts UTF-8 bytes, not characters (12,000 Cyrillic characters take 24,000 bytes)."""
        data = _event({"message": "я" * 4000, "text": "я" * 4000, "output": "я" * 4000})["data"]
        assert data["message"].endswith("…[truncated]")
        assert len(data["message"]) == REBUILD_LIMIT + 12

    def test_trimmed_when_even_the_rebuild_does_not_fit(self) -> None:
        """TC-5, TC-7: content dropped, traceTrimmed set; names, timings and sizes stay."""
        data = _event(
            {"stepIndex": 2, "ms": 15, **dict.fromkeys(sorted(CONTENT_FIELDS), "x" * 3000)}
        )["data"]
        assert data["traceTrimmed"] is True
        assert not CONTENT_FIELDS & set(data)
        assert (data["stepIndex"], data["ms"], data["textChars"]) == (2, 15, 3000)


class TestNeverDropped:
    def test_unwritable_values_are_marked_and_the_event_kept(self, tmp_path: Path) -> None:
        """TC-7: an integer beyond 64 bits or a lone surrogate in data is written `…[unreadable]`."""
        data = {
            "huge": 2**64,
            "low": -(2**63) - 1,
            "widest": 2**64 - 1,
            "lowest": -(2**63),
            "lone": "a\ud800b",
            "nested": {"list": [1, 10**30, "\udfff"]},
            "key\udc00": 1,
            "text": "fine",
        }
        with TraceWriter(tmp_path, clock=lambda: NOON) as writer:
            assert writer.write(kind="eve", name="x", data=data)
        path = tmp_path / "trace" / "2026-03-01.jsonl"
        assert len(path.read_bytes()) <= LINE_LIMIT
        events = read_trace(path, strict=True)
        assert dict(events["data"].iloc[0]) == {
            "huge": "…[unreadable]",
            "low": "…[unreadable]",
            "widest": 2**64 - 1,
            "lowest": -(2**63),
            "lone": "…[unreadable]",
            "nested": {"list": [1, "…[unreadable]", "…[unreadable]"]},
            "key\\udc00": 1,
            "text": "fine",
            "textChars": 4,
        }
        assert sorted(markers(events)["path"]) == [
            "data.huge",
            "data.lone",
            "data.low",
            "data.nested.list[1]",
            "data.nested.list[2]",
        ]

    @pytest.mark.parametrize("field", ["turn", "session", "name"])
    @pytest.mark.parametrize(
        "char", ["t", "я", "\x01", "\ud800"], ids=["ascii", "cyrillic", "escaped", "surrogate"]
    )
    def test_a_key_field_too_long_is_cut_and_flagged(
        self, tmp_path: Path, field: str, char: str
    ) -> None:
        """TC-5: a 20 KB key field is cut to KEY_LIMIT characters with a marker, traceTrimmed set."""
        head = {"turn": "turn_1", "session": "wrun_A", "name": "x"} | {field: char * 20_000}
        with TraceWriter(tmp_path, clock=lambda: NOON) as writer:
            assert writer.write(kind="eve", data={"stepIndex": 3, "text": "kept"}, **head)
        path = tmp_path / "trace" / "2026-03-01.jsonl"
        assert len(path.read_bytes()) <= LINE_LIMIT
        row = read_trace(path, strict=True).iloc[0]
        written = "\\ud800" * 20_000 if char == "\ud800" else char * 20_000
        expected = written[:KEY_LIMIT] + "…[truncated]"
        assert row[field] == (f"eve.{expected}" if field == "name" else expected)
        assert dict(row["data"]) == {
            "stepIndex": 3,
            "text": "kept",
            "textChars": 4,
            "traceTrimmed": True,
        }

    def test_every_key_field_too_long_still_fits(self) -> None:
        """TC-5: even six key fields of escaped characters give one line within the cap."""
        long = "\x00" * 30_000
        encoded = encode_event(long, long, long, long, long, long, {"text": long})
        assert len(encoded) <= LINE_LIMIT
        event = orjson.loads(encoded)
        assert list(event) == list(FIELDS)
        assert event["turn"] == "\x00" * KEY_LIMIT + "…[truncated]"
        assert event["data"]["traceTrimmed"] is True
        assert event["data"]["textChars"] == 30_000

    def test_a_result_too_deep_to_write_back_is_kept_as_text(self) -> None:
        """TC-7: a result string holding JSON nested 300 levels is written as the text it is."""
        result = '{"a":' + "[" * 300 + "]" * 300 + "}"
        data = _event({"result": result, "toolName": "read"})["data"]
        assert data["result"] == result
        long = '{"stdout":"' + "s" * 5000 + '","x":' + "[" * 300 + "]" * 300 + "}"
        bash = _event({"result": long, "toolName": "bash"})["data"]
        assert bash["result"] == "…[truncated]" + long[-CONTENT_LIMIT:]


_ANY_TEXT = st.text(st.characters(), max_size=30)
_ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()
    | _ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_ANY_TEXT, inner, max_size=4),
    max_leaves=20,
)
_KEY_TEXT = st.one_of(
    _ANY_TEXT, st.builds(lambda c, n: c * n, st.characters(), st.integers(0, 30_000))
)


@settings(max_examples=60, deadline=None)
@given(
    keys=st.tuples(_KEY_TEXT, _KEY_TEXT, _KEY_TEXT, _KEY_TEXT, _KEY_TEXT),
    data=st.dictionaries(_ANY_TEXT | st.sampled_from(sorted(CONTENT_FIELDS)), _ANY_VALUE),
    capture=st.booleans(),
)
def test_every_event_gets_one_line_within_the_cap(
    keys: tuple[str, str, str, str, str], data: dict[str, Any], capture: bool
) -> None:
    """TC-5, TC-7 (hypothesis): any key fields and data give one line within the cap, never
    dropped, and it is valid JSON with the seven fields in order."""
    encoded = encode_event("2026-03-01T12:00:00.000Z", *keys, data, capture_content=capture)
    assert encoded.endswith(b"\n")
    assert encoded.count(b"\n") == 1
    assert len(encoded) <= LINE_LIMIT
    event = orjson.loads(encoded)
    assert list(event) == list(FIELDS)
    assert all(isinstance(event[field], str) for field in FIELDS[:6])
    assert isinstance(event["data"], dict)


_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6000)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    content=st.dictionaries(st.sampled_from(sorted(CONTENT_FIELDS)), _TEXT, max_size=5),
    sizes=st.dictionaries(
        st.sampled_from(["ms", "chars", "stepIndex"]), st.integers(0, 10**6), max_size=3
    ),
    capture=st.booleans(),
)
def test_round_trip(
    tmp_path_factory: pytest.TempPathFactory,
    content: dict[str, str],
    sizes: dict[str, int],
    capture: bool,
) -> None:
    """What the writer writes the reader reads back: sizes intact, content whole or marked (TC-5, TC-6)."""
    folder = tmp_path_factory.mktemp("round")
    with TraceWriter(folder, capture_content=capture, clock=lambda: NOON) as writer:
        assert writer.write(
            turn="turn_1",
            session="wrun_Z",
            kind="eve",
            name="message.completed",
            data=content | sizes,
        )
    path = folder / "trace" / "2026-03-01.jsonl"
    assert len(path.read_bytes()) <= LINE_LIMIT
    events = read_trace(path, strict=True)
    assert len(events) == 1
    row = events.iloc[0]
    assert (row["turn"], row["session"], row["name"]) == (
        "turn_1",
        "wrun_Z",
        "eve.message.completed",
    )
    data = row["data"]
    for key, value in sizes.items():
        assert data[key] == value
    if content.get("error") is not None and content.get("error") == content.get("result"):
        del content["error"]  # error is written only when it differs from result
    for key, value in content.items():
        expected_size = (
            len(orjson.dumps(value).decode()) if key == "result" and value.startswith("{") else None
        )
        if key != "result" or expected_size is None:
            assert data[f"{key}Chars"] == len(value)
        if not capture:
            assert key not in data
        elif key in data and not str(data[key]).endswith("…[truncated]") and key != "result":
            assert data[key] == value
    if data.get("traceTrimmed"):
        assert not CONTENT_FIELDS & set(data)
    assert set(markers(events)["marker"]) <= {"truncated", "traceTrimmed"}


_WRITER_SCRIPT = textwrap.dedent(
    """
    import datetime as dt, sys
    from trackerkit.trace import TraceWriter
    folder, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    noon = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
    writer = TraceWriter(folder, capture_content=True, clock=lambda: noon)
    for i in range(count):
        ok = writer.write(turn=f"turn_{i}", session=tag, kind="eve", name="message.completed",
                          data={"n": i, "message": tag * (500 + (i * 37) % 3500)})
        assert ok
    """
)


def test_two_processes_never_interleave_within_a_line(tmp_path: Path) -> None:
    """TC-1, TC-21: two processes appending thousands of lines each to one file; every line whole."""
    count = 3000
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER_SCRIPT, str(tmp_path), tag, str(count)])
        for tag in ("A", "B")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    events, errors = read_trace(tmp_path / "trace")
    assert errors == []
    assert len(events) == 2 * count
    for tag in ("A", "B"):
        mine = events[events["session"] == tag]
        assert sorted(d["n"] for d in mine["data"]) == list(range(count))
        assert all(set(d["message"]) == {tag} for d in mine["data"])
