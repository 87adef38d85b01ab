"""The reader: columns, days, tolerance of broken lines, order (TC-2, TC-3, TC-4, TC-19, TC-21)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit.errors import NotFoundError, TraceLineError
from trackerkit.trace import (
    EVENT_COLUMNS,
    FIELDS,
    assemble_turns,
    day_of,
    read_trace,
    trace_days,
)
from trackerkit.trace._data import Dicts

Line = Callable[..., bytes]


@pytest.fixture
def line() -> Callable[..., bytes]:
    """One valid event line, fields overridable: `line(ts=..., turn=..., data={...})`."""

    def make(**fields: Any) -> bytes:
        event = {
            "ts": "2026-03-01T10:00:00.000Z",
            "turn": "turn_0",
            "session": "wrun_A",
            "source": "telegram",
            "kind": "eve",
            "name": "step.started",
            "data": {"sequence": 1, "stepIndex": 0},
        }
        event.update(fields)
        return orjson.dumps(event)

    return make


@pytest.fixture
def sample() -> Path:
    """The bundled sample days (data/trace)."""
    return Path(__file__).parents[2] / "data" / "trace"


def _write(folder: Path, name: str, *lines: bytes) -> Path:
    path = folder / name
    path.write_bytes(b"".join(item + b"\n" for item in lines))
    return path


class TestColumns:
    def test_seven_fields_then_file_line_day(self, tmp_path: Path, line: Line) -> None:
        """TC-4: the frame has the seven fields in order, then file, line and day."""
        _write(tmp_path, "2026-03-01.jsonl", line())
        events, errors = read_trace(tmp_path)
        assert list(events.columns) == [c.name for c in EVENT_COLUMNS]
        assert list(events.columns[:7]) == list(FIELDS)
        assert errors == []
        row = events.iloc[0]
        assert row["ts"] == pd.Timestamp("2026-03-01T10:00:00Z")
        assert str(events["ts"].dtype) == "datetime64[us, UTC]"
        assert row["name"] == "eve.step.started"
        assert row["data"] == {"sequence": 1, "stepIndex": 0}
        assert (row["line"], row["day"]) == (1, "2026-03-01")
        for column in ("source", "kind", "name"):
            assert isinstance(events[column].dtype, pd.CategoricalDtype)

    def test_name_already_qualified_is_kept(self, tmp_path: Path, line: Line) -> None:
        """A name written as the full `kind.name` is not prefixed twice."""
        _write(
            tmp_path,
            "2026-03-01.jsonl",
            line(name="eve.turn.started"),
            line(kind="turn", name="bound"),
        )
        events, _ = read_trace(tmp_path)
        assert sorted(events["name"].astype(str)) == ["eve.turn.started", "turn.bound"]

    def test_legacy_digest_source_is_read(self, tmp_path: Path, line: Line) -> None:
        """TC-4: journals of 0.4.11 and older hold the source `digest`; it reads like any other."""
        _write(tmp_path, "2026-03-01.jsonl", line(source="digest"))
        events, errors = read_trace(tmp_path)
        assert errors == []
        assert events["source"].iloc[0] == "digest"


class TestDays:
    def test_day_is_the_file_day_not_the_utc_date(self, tmp_path: Path, line: Line) -> None:
        """TC-2: a day file's first lines may carry the previous UTC date; asking for the day reads the file."""
        _write(
            tmp_path,
            "2026-03-01.jsonl",
            line(ts="2026-02-28T21:30:00.000Z"),
            line(ts="2026-03-01T09:00:00Z"),
        )
        _write(tmp_path, "2026-02-28.jsonl", line(ts="2026-02-28T12:00:00.000Z"))
        events, _ = read_trace(tmp_path, days="2026-03-01")
        assert len(events) == 2
        assert set(events["day"]) == {"2026-03-01"}
        assert events["ts"].iloc[0].date().isoformat() == "2026-02-28"

    def test_only_day_files_are_read(self, tmp_path: Path, line: Line) -> None:
        """TC-3: a folder read takes only files named YYYY-MM-DD.jsonl."""
        _write(tmp_path, "2026-03-01.jsonl", line())
        _write(tmp_path, "notes.jsonl", b"garbage")
        _write(tmp_path, "2026-03-01.jsonl.bak", b"garbage")
        _write(tmp_path, "2026-13-01.jsonl", b"garbage")
        events, errors = read_trace(tmp_path)
        assert len(events) == 1
        assert errors == []
        assert day_of("2026-13-01.jsonl") is None
        assert day_of("x/2026-03-01.jsonl") == "2026-03-01"

    def test_missing_day_and_path_are_named(self, tmp_path: Path, line: Line) -> None:
        """Asking for a day without a file, or a missing path, is a NotFoundError that names it."""
        _write(tmp_path, "2026-03-01.jsonl", line())
        with pytest.raises(NotFoundError, match="2026-03-02"):
            read_trace(tmp_path, days=["2026-03-02"])
        with pytest.raises(NotFoundError, match="nowhere does not exist"):
            read_trace(tmp_path / "nowhere")

    def test_a_device_is_named_for_what_it_is(self) -> None:
        """A path that exists but is neither a file nor a folder is not called missing."""
        with pytest.raises(NotFoundError, match="/dev/null is not a regular file or folder"):
            read_trace("/dev/null")

    def test_trace_days_counts_lines_and_broken(self, sample: Path) -> None:
        """trace_days lists every day file with its lines, events and broken lines."""
        days = trace_days(sample)
        assert list(days["day"]) == ["2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"]
        assert (days["lines"] == days["events"] + days["broken"]).all()
        assert list(days["broken"]) == [0, 3, 3, 0]

    def test_trace_days_builds_no_dict_and_counts_as_read_trace(
        self, sample: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The explorer lists a folder by trace_days before any day is picked; it decoded every
        event's data into dicts (a month of days read whole, to count lines). It reads without
        data now, and counts what read_trace reads."""
        expected = []
        for path in sorted(sample.glob("*.jsonl")):
            events, errors = read_trace(path)
            expected.append((len(events), len(errors), events["ts"].min(), events["ts"].max()))

        def no_dicts(*_args: object) -> None:
            raise AssertionError("trace_days decoded data into dicts")

        monkeypatch.setattr(Dicts, "block", no_dicts)
        monkeypatch.setattr(Dicts, "raw", no_dicts)
        days = trace_days(sample)
        found = list(zip(days["events"], days["broken"], days["first"], days["last"], strict=True))
        assert found == expected


BROKEN = [
    pytest.param(b'{"ts":"2026-03-01T10:00:00Z","turn":', "not valid JSON", id="bad-json"),
    pytest.param(b"", "empty line", id="empty"),
    pytest.param(b"   ", "empty line", id="blank"),
    pytest.param(b'{"ts":"2026-03-01T10:00:00Z","turn":"\xff"}', "invalid UTF-8", id="bad-utf8"),
    pytest.param(b"[1, 2]", "not a JSON object", id="array"),
    pytest.param(b'"text"', "not a JSON object", id="string"),
    pytest.param(
        b'{"turn":"","ts":"2026-03-01T10:00:00Z","session":"","source":"x","kind":"k","name":"n","data":{}}',
        "fields in the order turn, ts",
        id="misordered",
    ),
    pytest.param(
        b'{"ts":"2026-03-01T10:00:00Z","turn":"","session":"","source":"x","kind":"k","data":{}}',
        "missing field(s) name",
        id="missing",
    ),
    pytest.param(
        b'{"ts":"2026-03-01T10:00:00Z","turn":"","session":"","source":"x","kind":"k","name":"n","data":{},"x":1}',
        "unexpected field(s) x",
        id="extra",
    ),
    pytest.param(
        b'{"ts":"noon","turn":"","session":"","source":"x","kind":"k","name":"n","data":{}}',
        "not an ISO-8601 time",
        id="bad-ts",
    ),
    pytest.param(
        b'{"ts":"now","turn":"","session":"","source":"x","kind":"k","name":"n","data":{}}',
        "not an ISO-8601 time",
        id="ts-now-is-no-moment",
    ),
    pytest.param(
        b'{"ts":"2026-03-01T10:00:00Z","turn":3,"session":"","source":"x","kind":"k","name":"n","data":{}}',
        "field turn is a int",
        id="turn-not-string",
    ),
    pytest.param(
        b'{"ts":"2026-03-01T10:00:00Z","turn":[1],"session":"","source":"x","kind":"k","name":"n","data":{}}',
        "holds a list or an object",
        id="turn-a-list",
    ),
    pytest.param(
        b'{"ts":"2026-03-01T10:00:00Z","turn":"","session":"","source":"x","kind":"k","name":"n","data":[]}',
        "field data is a list",
        id="data-not-object",
    ),
]


class TestBrokenLines:
    @pytest.mark.parametrize("mode", ["dict", "raw", "lazy", "none"])
    @pytest.mark.parametrize("lines", [3, 3000], ids=["line-by-line", "in-blocks"])
    def test_a_byte_order_mark_opening_the_file_is_skipped(
        self, tmp_path: Path, line: Line, mode: str, lines: int
    ) -> None:
        """Found when tried: an editor's UTF-8 BOM cost line 1 ("decode using utf-8-sig"). JSON
        readers may ignore it (RFC 8259, 8.1): line 1 is read, numbered 1; one inside is not."""
        body = [line(turn=f"turn_{i}") for i in range(lines)]
        _write(tmp_path, "2026-03-01.jsonl", b"\xef\xbb\xbf" + body[0], *body[1:])
        events, errors = read_trace(tmp_path, data=mode)  # type: ignore[call-overload]
        assert errors == []
        assert events["line"].tolist()[:2] == [1, 2]
        assert events["turn"].iloc[0] == "turn_0"
        _write(tmp_path, "2026-03-01.jsonl", body[0], b"\xef\xbb\xbf" + body[1], *body[2:])
        events, errors = read_trace(tmp_path, data=mode)  # type: ignore[call-overload]
        assert [(e.line, e.reason) for e in errors] == [
            (2, "a UTF-8 byte order mark opens the line (only one opening the file is skipped)")
        ]
        assert len(events) == lines - 1

    @pytest.mark.parametrize(("broken", "reason"), BROKEN)
    def test_a_broken_line_spoils_no_neighbour(
        self, tmp_path: Path, line: Line, broken: bytes, reason: str
    ) -> None:
        """TC-19: the broken line is reported by file and line; both neighbours are read."""
        path = _write(
            tmp_path, "2026-03-01.jsonl", line(turn="turn_1"), broken, line(turn="turn_2")
        )
        events, errors = read_trace(tmp_path)
        assert list(events["turn"]) == ["turn_1", "turn_2"]
        assert list(events["line"]) == [1, 3]
        assert len(errors) == 1
        assert (errors[0].file, errors[0].line) == (str(path), 2)
        assert reason in errors[0].reason

    def test_a_crlf_file_words_a_broken_line_as_an_lf_file(
        self, tmp_path: Path, line: Line
    ) -> None:
        """The line ending is no part of the reason: an unterminated string in a CRLF file is
        unterminated, not an invalid control character (the `\\r`)."""
        broken = b'{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_1'
        (tmp_path / "2026-03-01.jsonl").write_bytes(line() + b"\r\n" + broken + b"\r\n")
        (tmp_path / "2026-03-02.jsonl").write_bytes(line() + b"\n" + broken + b"\n")
        _, errors = read_trace(tmp_path)
        assert [e.line for e in errors] == [2, 2]
        assert errors[0].reason == errors[1].reason
        assert "control character" not in errors[0].reason

    @pytest.mark.parametrize(("broken", "reason"), BROKEN)
    def test_strict_raises_on_the_first(
        self, tmp_path: Path, line: Line, broken: bytes, reason: str
    ) -> None:
        """TC-19: with strict=True the first broken line is raised as a TraceLineError."""
        _write(tmp_path, "2026-03-01.jsonl", line(), broken, line())
        with pytest.raises(TraceLineError, match=r"2026-03-01.jsonl:2: ") as caught:
            read_trace(tmp_path, strict=True)
        assert reason in caught.value.reason

    def test_strict_raises_the_first_even_when_it_shows_late(
        self, tmp_path: Path, line: Line
    ) -> None:
        """A `ts` that names no moment (line 2) is found after the JSON of line 3 is refused;
        strict=True still raises line 2, the first broken line."""
        moment = line().replace(b"2026-03-01T", b"2026-02-30T", 1)
        assert moment != line()
        _write(tmp_path, "2026-03-01.jsonl", line(), moment, b"{nope", line())
        with pytest.raises(TraceLineError, match=r"2026-03-01.jsonl:2: "):
            read_trace(tmp_path, strict=True)

    def test_a_year_outside_the_calendar_is_a_broken_line(self, tmp_path: Path, line: Line) -> None:
        """Year 0000 and 10000 parse in pandas but no Python date holds them: broken lines,
        with the reason, and the neighbours kept (the day's first and last stay right)."""
        zero = line().replace(b"2026-03-01T", b"0000-03-01T", 1)
        far = line().replace(b"2026-03-01T", b"10000-03-01T", 1)
        _write(tmp_path, "2026-03-01.jsonl", line(), zero, far, line())
        events, errors = read_trace(tmp_path)
        assert list(events["line"]) == [1, 4]
        assert [e.line for e in errors] == [2, 3]
        assert "year 0001-9999" in errors[0].reason
        assert trace_days(tmp_path)["first"].dt.year.tolist() == [2026]

    @pytest.mark.parametrize("year", [b"0001", b"1500", b"2300", b"9999"])
    def test_a_far_year_is_read_whatever_its_neighbour(
        self, tmp_path: Path, line: Line, year: bytes
    ) -> None:
        """Found when tried: the year 2300 (or 0001, 9999) read alone, but beside a time with a
        7-digit fraction it was refused as "not an ISO-8601 time" (pandas read the batch at
        nanoseconds, which cannot hold it)."""
        far = line().replace(b"2026-03-01T", year + b"-03-01T", 1)
        fine = line().replace(b"T10:00:00.000Z", b"T10:00:00.1234567Z", 1)
        assert far != line()
        assert fine != line()
        _write(tmp_path, "2026-03-01.jsonl", far, fine, line())
        events, errors = read_trace(tmp_path)
        assert errors == []
        assert sorted(events["ts"].dt.year.tolist()) == sorted([int(year), 2026, 2026])

    def test_a_long_unfinished_line_is_one_broken_line(self, tmp_path: Path, line: Line) -> None:
        """A file ending in megabytes without a newline (a crash's NUL bytes) is one broken line
        after the good ones (its pieces are joined once, not copied block by block)."""
        path = tmp_path / "2026-03-01.jsonl"
        path.write_bytes(line() + b"\n" + b"\0" * (5 * (1 << 20) + 17))
        events, errors = read_trace(tmp_path)
        assert list(events["line"]) == [1]
        assert [(e.line, "not valid JSON" in e.reason) for e in errors] == [(2, True)]

    def test_a_folder_name_that_is_not_utf8(self, tmp_path: Path, line: Line) -> None:
        """A folder named on another system (a byte that is not UTF-8) is read; the frame and the
        errors name its files with the byte escaped, as a string column can hold them."""
        folder = tmp_path / os.fsdecode(b"caf\xff")
        folder.mkdir()
        _write(folder, "2026-03-01.jsonl", line(), b"{nope")
        events, errors = read_trace(folder)
        assert events["file"].tolist() == [f"{tmp_path}/caf\\xff/2026-03-01.jsonl"]
        assert [(e.file, e.line) for e in errors] == [(f"{tmp_path}/caf\\xff/2026-03-01.jsonl", 2)]

    def test_strict_returns_the_frame_alone(self, tmp_path: Path, line: Line) -> None:
        """With strict=True and no broken line, read_trace returns just the frame."""
        _write(tmp_path, "2026-03-01.jsonl", line())
        assert isinstance(read_trace(tmp_path, strict=True), pd.DataFrame)

    def test_last_line_without_newline_is_read(self, tmp_path: Path, line: Line) -> None:
        """A final line without its newline is still a line."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(line() + b"\n" + line(turn="turn_9"))
        events, errors = read_trace(tmp_path)
        assert list(events["turn"]) == ["turn_0", "turn_9"]
        assert errors == []

    def test_every_line_of_the_sample_is_a_row_or_an_error(self, sample: Path) -> None:
        """TC-19: on the sample days every line is either read or reported."""
        events, errors = read_trace(sample)
        total = sum(len(p.read_bytes().split(b"\n")) - 1 for p in sample.glob("*.jsonl"))
        assert len(events) + len(errors) == total
        assert len(errors) == 6


# Well-shaped `ts` values that name no real moment (item 1 of issue 12): numpy's string cast
# crashed the interpreter on them once the array was large.
IMPOSSIBLE = [
    "2026-02-30T10:00:00.000Z",  # no 30th of February
    "2026-04-31T10:00:00.000Z",  # April has 30 days
    "2026-13-01T10:00:00.000Z",  # month 13
    "2026-00-10T10:00:00.000Z",  # month 0
    "2026-05-00T10:00:00.000Z",  # day 0
    "2026-01-01T25:00:00.000Z",  # hour 25
    "2026-01-01T24:00:00.000Z",  # hour 24
    "2026-01-01T10:60:00.000Z",  # minute 60
    "2026-01-01T10:00:60.000Z",  # second 60
    "2025-02-29T10:00:00.000Z",  # not a leap year
    "1900-02-29T10:00:00.000Z",  # a century is no leap year
    "2026-99-99T99:99:99.999Z",
]
LEAP_DAYS = ["2024-02-29T10:00:00.000Z", "2000-02-29T23:59:59.999Z"]

_READ_IN_A_CHILD = """
import sys, orjson
from trackerkit.trace import read_trace
events, errors = read_trace(sys.argv[1])
sys.stdout.buffer.write(orjson.dumps({
    "lines": events["line"].tolist(),
    "ts": events["ts"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f").tolist(),
    "errors": [[e.line, e.reason] for e in errors],
}))
"""


class TestImpossibleStamps:
    def test_a_large_day_of_impossible_stamps_reads_the_rest(
        self, tmp_path: Path, line: Line
    ) -> None:
        """TC-19: in a 10,000-line day, each impossible date, hour, month or leap day is one
        broken line by file:line and every other line is read (in a child: a crash fails)."""
        odd = {1 + 700 * i: ts for i, ts in enumerate(IMPOSSIBLE + LEAP_DAYS)}
        lines = [
            line(ts=odd.get(n, f"2026-03-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"))
            for n in range(1, 10_001)
        ]
        path = _write(tmp_path, "2026-03-01.jsonl", *lines)
        child = subprocess.run(
            [sys.executable, "-c", _READ_IN_A_CHILD, str(path)],
            capture_output=True,
            timeout=300,
            check=False,
        )
        assert child.returncode == 0, child.stderr.decode(errors="replace")[-2000:]
        found = orjson.loads(child.stdout)
        broken = {n for n, ts in odd.items() if ts in IMPOSSIBLE}
        assert [n for n, _why in found["errors"]] == sorted(broken)
        for number, why in found["errors"]:
            assert repr(odd[number]) in why
            assert "names no real moment" in why
        assert sorted(found["lines"]) == [n for n in range(1, 10_001) if n not in broken]
        read = dict(zip(found["lines"], found["ts"], strict=True))
        for number, ts in odd.items():
            if ts in LEAP_DAYS:
                assert read[number] == ts.removesuffix("Z") + "000"

    @pytest.mark.parametrize("ts", IMPOSSIBLE)
    def test_an_impossible_stamp_is_a_broken_line(
        self, tmp_path: Path, line: Line, ts: str
    ) -> None:
        """TC-19: a `ts` in the writer's form naming no real moment is reported, not read."""
        _write(tmp_path, "2026-03-01.jsonl", line(turn="turn_1"), line(ts=ts), line(turn="turn_2"))
        events, errors = read_trace(tmp_path)
        assert list(events["turn"]) == ["turn_1", "turn_2"]
        assert [(e.line, e.reason.split(" names")[0]) for e in errors] == [(2, f"field ts {ts!r}")]
        assert "month 1-12, a day of that month" in errors[0].reason


def _nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


class TestDeepData:
    @pytest.mark.parametrize("depth", [1_000, 100_000], ids=["1e3", "1e5"])
    @pytest.mark.parametrize("count", [3, 6_000], ids=["line-by-line", "blocks"])
    def test_deep_data_is_a_broken_line(
        self, tmp_path: Path, line: Line, depth: int, count: int
    ) -> None:
        """TC-19: `data` nested 1,000 levels or more is one broken line; every neighbour is read."""
        lines = [line(data={"i": i}) for i in range(count)]
        middle = count // 2
        lines[middle] = lines[middle][: -len(b"}}")] + b',"deep":' + _nested(depth) + b"}}"
        path = _write(tmp_path, "2026-03-01.jsonl", *lines)
        events, errors = read_trace(tmp_path)
        assert [(e.file, e.line) for e in errors] == [(str(path), middle + 1)]
        assert "nested deeper than the reader follows" in errors[0].reason
        assert len(events) == count - 1
        assert sorted(d["i"] for d in events["data"]) == [i for i in range(count) if i != middle]
        with pytest.raises(TraceLineError, match=rf"2026-03-01.jsonl:{middle + 1}: nested"):
            read_trace(tmp_path, strict=True)


class TestOrder:
    def test_sorted_by_ts_ties_in_file_and_line_order(self, tmp_path: Path, line: Line) -> None:
        """TC-21: line order is write order; the frame is sorted by ts, ties keep (file, line) order."""
        _write(
            tmp_path,
            "2026-03-01.jsonl",
            line(ts="2026-03-01T10:00:02Z", turn="c"),
            line(ts="2026-03-01T10:00:01Z", turn="b1"),
            line(ts="2026-03-01T10:00:01Z", turn="b2"),
            line(ts="2026-03-01T10:00:00Z", turn="a"),
        )
        _write(tmp_path, "2026-03-02.jsonl", line(ts="2026-03-01T10:00:01Z", turn="b3"))
        events, _ = read_trace(tmp_path)
        assert list(events["turn"]) == ["a", "b1", "b2", "b3", "c"]
        assert list(events.index) == [0, 1, 2, 3, 4]

    def test_offsets_are_converted_to_utc(self, tmp_path: Path, line: Line) -> None:
        """A ts written with an offset is read as the same instant in UTC."""
        _write(tmp_path, "2026-03-01.jsonl", line(ts="2026-03-01T13:00:00+03:00"))
        events, _ = read_trace(tmp_path)
        assert events["ts"].iloc[0] == pd.Timestamp("2026-03-01T10:00:00Z")

    @pytest.mark.parametrize(
        "ts", ["2026-03-01t10:00:00.000z", "2026-03-01T10:00:00.000z", "2026-03-01t13:00:00+03:00"]
    )
    def test_small_t_and_z_are_read_as_rfc_3339_allows(
        self, tmp_path: Path, line: Line, ts: str
    ) -> None:
        """Found when tried: `…z` was "not an ISO-8601 time" while a space for `T` was read."""
        _write(tmp_path, "2026-03-01.jsonl", line(ts=ts))
        events, errors = read_trace(tmp_path)
        assert errors == []
        assert events["ts"].iloc[0] == pd.Timestamp("2026-03-01T10:00:00Z")


class TestProgress:
    def test_a_bar_when_asked(self, sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """progress=True: a bar of bytes read on standard error; the frame is the same."""
        events, errors = read_trace(sample, progress=True)
        assert "reading trace" in capsys.readouterr().err
        quiet, quiet_errors = read_trace(sample, progress=False)
        assert capsys.readouterr().err == ""
        pd.testing.assert_frame_equal(events.drop(columns="data"), quiet.drop(columns="data"))
        assert errors == quiet_errors

    def test_none_for_a_small_read_by_default(
        self, sample: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """By default a bar only for reads of PROGRESS_BYTES or more (and on a terminal)."""
        read_trace(sample)
        assert capsys.readouterr().err == ""


def _valid_day(count: int) -> list[bytes]:
    return [
        orjson.dumps(
            {
                "ts": f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}.000Z",
                "turn": f"turn_{i % 3}",
                "session": "wrun_A",
                "source": "unknown",
                "kind": "eve",
                "name": "step.completed",
                "data": {
                    "stepIndex": i,
                    "usage": {"in": i, "out": 1},
                    "text": "é✓ word " * (i % 4),
                },
            }
        )
        for i in range(count)
    ]


# The digits of month, day, hour, minute and second of a `ts` in the writer's form.
_TS_DIGITS = [5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
_AT = st.integers(min_value=0, max_value=10**6)
# A digit of a `ts` set to any digit: often an impossible moment (month 13, the 39th, hour 25).
_DIGIT = st.tuples(
    st.just("digit"), _AT, st.sampled_from(_TS_DIGITS), st.sampled_from("0123456789")
)
_CORRUPTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("flip"), _AT, _AT, st.binary(min_size=1, max_size=1)),
        st.tuples(st.just("insert"), _AT, _AT, st.binary(min_size=1, max_size=4)),
        st.tuples(st.just("delete"), _AT, _AT, st.integers(1, 8)),
        st.tuples(st.just("truncate"), _AT, _AT, st.none()),
        st.tuples(st.just("duplicate"), _AT, _AT, st.none()),
        st.tuples(st.just("drop"), _AT, _AT, st.none()),
        st.tuples(st.just("join"), _AT, _AT, st.none()),
        _DIGIT,
        _DIGIT,
        st.tuples(st.just("nest"), _AT, _AT, st.sampled_from([100, 300, 1_000, 5_000])),
    ),
    max_size=8,
)


def _corrupt(original: list[bytes], corruptions: list[tuple[str, int, int, Any]]) -> list[bytes]:
    """The day's lines after each corruption (a line that lost its newline joins the next)."""
    lines = list(original)
    for kind, which, at, value in corruptions:
        if not lines:
            break
        row = which % len(lines)
        raw = lines[row]
        spot = at % (len(raw) + 1)
        if kind == "flip":
            lines[row] = raw[:spot] + value + raw[spot + 1 :]
        elif kind == "insert":
            lines[row] = raw[:spot] + value + raw[spot:]
        elif kind == "delete":
            lines[row] = raw[:spot] + raw[spot + value :]
        elif kind == "truncate":
            lines[row] = raw[:spot]
        elif kind == "duplicate":
            lines.insert(row, raw)
        elif kind == "drop":
            del lines[row]
        elif kind == "join" and row + 1 < len(lines):
            lines[row : row + 2] = [raw + lines[row + 1]]
        elif kind == "digit" and raw.startswith(b'{"ts":"'):
            spot = 7 + at
            lines[row] = raw[:spot] + value.encode() + raw[spot + 1 :]
        elif kind == "nest":
            lines[row] = raw[:-2] + b',"deep":' + b"[" * value + b"]" * value + raw[-2:]
    return lines


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    count=st.sampled_from([12, 600, 600]),  # 600: blocks, and numpy once crashed at that size
    corruptions=_CORRUPTIONS,
    final_newline=st.booleans(),
)
def test_random_corruption_never_raises_and_keeps_intact_lines(
    tmp_path_factory: pytest.TempPathFactory,
    count: int,
    corruptions: list[tuple[str, int, int, Any]],
    final_newline: bool,
) -> None:
    """TC-19 (hypothesis): bytes of a valid day flipped, inserted, deleted, truncated, lines
    duplicated, dropped or joined, ts digits changed to impossible moments, data nested deep:
    read_trace returns, every line is a row or a TraceLineError by file:line, every untouched
    line is read, and the rows' data and the turns table never raise."""
    original = _valid_day(count)
    lines = _corrupt(original, corruptions)
    folder = tmp_path_factory.mktemp("corrupt")
    path = folder / "2026-03-01.jsonl"
    blob = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path.write_bytes(blob)
    events, errors = read_trace(folder)
    numbered = blob.split(b"\n")
    if numbered and numbered[-1] == b"":
        numbered.pop()
    read_lines = set(events["line"])
    assert len(events) + len(errors) == len(numbered)
    assert all(isinstance(e, TraceLineError) and e.file == str(path) for e in errors)
    assert {e.line for e in errors}.isdisjoint(read_lines)
    assert read_lines | {e.line for e in errors} == set(range(1, len(numbered) + 1))
    kept = set(original)
    assert {n for n, raw in enumerate(numbered, 1) if raw in kept} <= read_lines
    assert list(events.columns) == [c.name for c in EVENT_COLUMNS]
    assert events["ts"].is_monotonic_increasing
    assert all(isinstance(dict(data), dict) for data in events["data"])
    assemble_turns(events)
    if errors:
        with pytest.raises(TraceLineError):
            read_trace(folder, strict=True)
