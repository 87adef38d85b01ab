"""The block reader reads exactly what the line reader reads (TC-4, TC-19, TC-21).

(And the line reader exactly what `orjson.loads` of each line with the full checks reads.)

`read_trace` takes a stretch of lines at once only when it can prove them to be the writer's
compact form; anything else is read line by line. These tests force tiny blocks over every kind
of line, compare with reading the same file line by line, and check that the writer's own
output really is taken in blocks (or the speed would silently go).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit.errors import TraceLineError
from trackerkit.trace import _lines, read_trace
from trackerkit.trace.write import encode_event, format_ts

START = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
NAMES = [("eve", "step.started"), ("eve", "step.completed"), ("gate", "outbound")]


def compact(i: int, *, turn: str | None = None, data: dict[str, Any] | None = None) -> bytes:
    """The writer's line for event `i` (without its newline)."""
    kind, name = NAMES[i % len(NAMES)]
    line = encode_event(
        format_ts(START + dt.timedelta(milliseconds=137 * i)),
        turn if turn is not None else f"turn_{i // 4}",
        f"wrun_{i // 20:04d}",
        "telegram",
        kind,
        name,
        data if data is not None else {"stepIndex": i, "text": "word " * (i % 5), "ok": i % 2 == 0},
    )
    assert line is not None
    return line.rstrip(b"\n")


def _swap(line: bytes) -> bytes:
    head, rest = line.split(b',"session":', 1)
    session, tail = rest.split(b',"source":', 1)
    before, turn = head.split(b',"turn":', 1)
    return before + b',"session":' + session + b',"turn":' + turn + b',"source":' + tail


# Lines that are not the compact form, each with whether a block holding it can still be taken.
ODD_LINES: dict[str, tuple[bytes, bool]] = {
    "spaced": (
        b'{"ts": "2026-03-01T09:00:00.000Z", "turn": "turn_0", "session": "wrun_0000", '
        b'"source": "telegram", "kind": "eve", "name": "x", "data": {"a": 1}}',
        False,
    ),
    "reordered": (_swap(compact(1)), False),
    "repeated-field": (compact(2)[:-1] + b',"turn":"turn_9"}', False),
    "extra-field": (compact(3)[:-1] + b',"extra":1}', False),
    "missing-field": (compact(4).replace(b',"source":"telegram"', b""), False),
    "two-objects": (compact(5) + b" " + compact(6), False),
    "empty": (b"", False),
    "blank": (b"   \t ", False),
    "escaped-turn": (compact(7).replace(b'"turn_1"', b'"t\\u0075rn_1"'), False),
    "non-ascii-turn": (compact(8, turn="ход_2"), True),
    "non-ascii-data": (compact(9, data={"text": "ход ✓ é", "n": 1}), True),
    "escaped-data": (compact(10, data={"text": 'a "quoted"\\ word\n'}), True),
    "invalid-utf8-data": (compact(11).replace(b'"text":"', b'"text":"\xff'), False),
    "carriage-return": (compact(12) + b"\r", True),
    "two-carriage-returns": (compact(12) + b"\r\r", False),
    "space-before-newline": (compact(12) + b" ", False),
    "ts-with-offset": (compact(13).replace(b"09:00:01.781Z", b"12:00:01.781+03:00"), True),
    "ts-seconds-only": (compact(14).replace(b"09:00:01.918Z", b"09:00:01Z"), True),
    "ts-a-number": (compact(15).replace(b'"2026-03-01T09:00:02.055Z"', b"1772355602"), False),
    "ts-not-a-time": (
        compact(16).replace(b"2026-03-01T09:00:02.192Z", b"2026-13-01T09:00:02.19Z"),
        True,
    ),
    "ts-year-zero": (compact(29).replace(b'"ts":"2026-', b'"ts":"0000-'), True),
    "data-a-list": (compact(17).split(b',"data":')[0] + b',"data":[1,2]}', False),
    "data-null": (compact(18).split(b',"data":')[0] + b',"data":null}', False),
    "turn-a-number": (compact(19).replace(b'"turn":"turn_4"', b'"turn":4'), False),
    "an-array": (b'["not", "an", "object"]', False),
    "repeated-data": (compact(22)[:-1] + b',"data":{"z":1}}', False),
    "repeated-ts-after-data": (compact(23)[:-1] + b',"ts":"2026-03-01T09:00:00.000Z"}', False),
    # The first `ts` shorter than the last: the key span's place is read from the bytes, not
    # from the decoded values, so the shifted layout is not taken for the compact one.
    "repeated-ts-shifted": (
        b'{"ts":"","kind":"","turn":"t","session":"s","source":"web","kind":"eve",'
        b'"name":"x","data":{},"ts":"2026-03-01T09:00:00.000Z","data":{}}',
        False,
    ),
    "lone-surrogate-in-data": (compact(24, data={"x": 1}).replace(b'"x"', b'"\\ud800"'), False),
    "big-integer-in-data": (compact(25, data={"id": 2**70, "n": -(2**64)}), True),
    "extra-field-inside": (
        compact(27).replace(b'"turn":"turn_6",', b'"turn":"turn_6","x":"y",'),
        False,
    ),
    "escaped-quote-in-turn": (compact(28).replace(b'"turn":"turn_7"', b'"turn":"turn\\"7"'), False),
    "control-character-in-turn": (compact(26).replace(b'"turn_6"', b'"turn\x01_6"'), False),
    "cut-short": (compact(20)[:-9], False),
    "pretty-first-half": (compact(21)[:40], False),
    "bare-brace": (b"{", False),
}


class Spy:
    """Records what each block call returned (lines taken, or None for line by line)."""

    def __init__(self) -> None:
        self.results: list[int | None] = []
        self._block = _lines._block

    def __call__(self, *args: Any) -> int | None:
        taken = self._block(*args)
        self.results.append(taken)
        return taken


@pytest.fixture
def read_modes(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[Path, int], tuple[Any, Any, Spy]]:
    """read(path, block_bytes) -> (line by line, in blocks, the spy of the block calls).

    Line by line is first checked against the reference: every line by `orjson.loads` alone.
    """

    def read(path: Path, block_bytes: int) -> tuple[Any, Any, Spy]:
        with monkeypatch.context() as patch:
            patch.setattr(_lines, "BLOCK_MIN", 1 << 62)
            by_line = read_trace(path)
            patch.setattr(_lines, "_one", _lines._slow)
            assert_same(read_trace(path), by_line)
        spy = Spy()
        with monkeypatch.context() as patch:
            patch.setattr(_lines, "BLOCK_MIN", 0)
            patch.setattr(_lines, "BLOCK_BYTES", block_bytes)
            patch.setattr(_lines, "_block", spy)
            by_block = read_trace(path)
        return by_line, by_block, spy

    return read


def test_the_odd_lines_are_odd() -> None:
    """Each odd line differs from every compact line (the replacements above did something)."""
    originals = {compact(i) for i in range(40)}
    assert not [name for name, (line, _) in ODD_LINES.items() if line in originals]


def plain(events: pd.DataFrame) -> pd.DataFrame:
    data = pd.Series([dict(d) for d in events["data"]], index=events.index, dtype=object)
    return events.assign(data=data)


def assert_same(
    by_line: tuple[pd.DataFrame, list[TraceLineError]],
    by_block: tuple[pd.DataFrame, list[TraceLineError]],
) -> None:
    pd.testing.assert_frame_equal(plain(by_block[0]), plain(by_line[0]))
    assert by_block[1] == by_line[1]


def write_day(folder: Path, lines: list[bytes], *, final_newline: bool = True) -> Path:
    path = folder / "2026-03-01.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if final_newline else b""))
    return path


class TestWriterOutput:
    def test_a_clean_day_is_taken_in_blocks(self, tmp_path: Path, read_modes: Any) -> None:
        """TC-4: the writer's compact lines are proven in blocks, and read as line by line."""
        lines = [compact(i) for i in range(400)]
        by_line, by_block, spy = read_modes(write_day(tmp_path, lines), 4096)
        assert_same(by_line, by_block)
        assert len(spy.results) > 10
        assert None not in spy.results
        assert by_block[1] == []
        assert len(by_block[0]) == 400

    def test_a_day_without_a_final_newline(self, tmp_path: Path, read_modes: Any) -> None:
        """The last line without its newline is read like any other."""
        lines = [compact(i) for i in range(50)]
        by_line, by_block, _ = read_modes(write_day(tmp_path, lines, final_newline=False), 700)
        assert_same(by_line, by_block)
        assert len(by_block[0]) == 50

    def test_the_sample_days_read_alike(self, read_modes: Any) -> None:
        """The bundled days (every event of the catalogue, broken lines) read alike both ways."""
        folder = Path(__file__).parents[2] / "data" / "trace"
        for path in sorted(folder.glob("*.jsonl")):
            by_line, by_block, spy = read_modes(path, 8192)
            assert_same(by_line, by_block)
            assert any(spy.results), path  # most blocks of a sample day are taken


class TestLooseBlocks:
    def test_a_spaced_day_is_read_in_blocks(
        self, tmp_path: Path, read_modes: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Lines spaced as Python's json writes them are not the compact form, yet one decode per
        block reads them (each line checked as line by line), with a broken line among them."""
        spaced = [json.dumps(orjson.loads(compact(i))).encode() for i in range(200)]
        spaced[50] = _swap(compact(50))  # out of order: an error, neighbours kept
        path = write_day(tmp_path, spaced)
        loose: list[Any] = []
        real = _lines._loose_block

        def spy(*args: Any) -> Any:
            loose.append(real(*args))
            return loose[-1]

        monkeypatch.setattr(_lines, "_loose_block", spy)
        by_line, by_block, blocks = read_modes(path, 2048)
        assert_same(by_line, by_block)
        assert set(blocks.results) == {None}  # never the compact form
        assert loose
        assert None not in loose  # every stretch read at once
        assert [e.line for e in by_block[1]] == [51]
        assert len(by_block[0]) == 199

    def test_lines_are_not_traded_for_values(self, tmp_path: Path, read_modes: Any) -> None:
        """One value over two lines and two values on one line make as many values as lines;
        still three broken lines, as line by line (each line must hold exactly one value)."""
        head, tail = compact(5).split(b',"data":')
        lines = [compact(i) for i in range(5)]
        lines += [head + b',"data":{"a":', b"1," + tail[1:], compact(6) + b" " + compact(7)]
        lines += [compact(i) for i in range(8, 12)]
        by_line, by_block, _ = read_modes(write_day(tmp_path, lines), 4096)
        assert_same(by_line, by_block)
        assert [e.line for e in by_block[1]] == [6, 7, 8]


class TestOddLines:
    @pytest.mark.parametrize("name", list(ODD_LINES))
    def test_an_odd_line_reads_as_line_by_line(
        self, tmp_path: Path, read_modes: Any, name: str
    ) -> None:
        """TC-19: an odd line among compact ones: same rows and errors; neighbours kept."""
        odd, taken = ODD_LINES[name]
        lines = [compact(i) for i in range(30)]
        lines[12:12] = [odd]
        by_line, by_block, spy = read_modes(write_day(tmp_path, lines), 1500)
        assert_same(by_line, by_block)
        assert set(range(1, 32)) - {13} <= set(by_block[0]["line"])
        assert (None not in spy.results) is taken

    def test_a_pretty_printed_event_across_lines(self, tmp_path: Path, read_modes: Any) -> None:
        """An object spread over several lines is several broken lines, in blocks too."""
        event = orjson.loads(compact(3))
        pretty = orjson.dumps(event, option=orjson.OPT_INDENT_2).split(b"\n")
        lines = [compact(0), compact(1), *pretty, compact(2)]
        by_line, by_block, _ = read_modes(write_day(tmp_path, lines), 300)
        assert_same(by_line, by_block)
        assert len(by_block[0]) == 3
        assert len(by_block[1]) == len(pretty)


_KINDS = list(ODD_LINES)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    picks=st.lists(st.one_of(st.none(), st.sampled_from(_KINDS)), min_size=1, max_size=40),
    block_bytes=st.integers(min_value=16, max_value=3000),
    final_newline=st.booleans(),
)
def test_random_days_read_alike(
    tmp_path_factory: pytest.TempPathFactory,
    read_modes: Any,
    picks: list[str | None],
    block_bytes: int,
    final_newline: bool,
) -> None:
    """TC-19/TC-21 (hypothesis): any mix of compact and odd lines, any block size: alike."""
    lines = [compact(i) if pick is None else ODD_LINES[pick][0] for i, pick in enumerate(picks)]
    folder = tmp_path_factory.mktemp("blocks")
    by_line, by_block, _ = read_modes(
        write_day(folder, lines, final_newline=final_newline), block_bytes
    )
    assert_same(by_line, by_block)
    kept = set(by_block[0]["line"])
    assert {n for n, pick in enumerate(picks, 1) if pick is None} <= kept


_MUTATIONS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=29),  # which line
        st.floats(min_value=0, max_value=1),  # where in it
        st.sampled_from(["replace", "insert", "delete"]),
        st.sampled_from(list(b'"{}[],:\\ \n\r\t0-9Tae\x00\x7f\xff\xd0')),
    ),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mutations=_MUTATIONS, block_bytes=st.integers(min_value=200, max_value=3000))
def test_mutated_compact_lines_read_alike(
    tmp_path_factory: pytest.TempPathFactory,
    read_modes: Any,
    mutations: list[tuple[int, float, str, int]],
    block_bytes: int,
) -> None:
    """TC-4/TC-19 (hypothesis): compact lines with bytes replaced, inserted or deleted (quotes,
    braces, escapes, newlines, bad UTF-8): a block is taken only when it reads exactly as line
    by line, whatever the change made of the lines (an escape, a repeated field, a shifted
    field, two values on a line, one value over two lines)."""
    lines = [
        bytearray(compact(i, data={"n": i, "s": "ab", "l": [1, {"k": "v"}]})) for i in range(30)
    ]
    for which, where, operation, byte in mutations:
        line = lines[which]
        at = min(int(where * len(line)), len(line) - 1)
        if operation == "replace":
            line[at] = byte
        elif operation == "insert":
            line.insert(at, byte)
        else:
            del line[at]
    folder = tmp_path_factory.mktemp("mutated")
    by_line, by_block, _ = read_modes(write_day(folder, [bytes(x) for x in lines]), block_bytes)
    assert_same(by_line, by_block)


def test_key_values_of_a_block_may_be_any_text(tmp_path: Path) -> None:
    """The five key values are cut out of a block's key spans by their bytes (each runs to its
    closing quote): values of several bytes a character come out whole."""
    rows = 3000
    line = (
        '{"ts":"2026-03-01T10:00:00.000Z","turn":"тёрн_%d","session":"сессия😀%d",'
        '"source":"","kind":"eve","name":"шаг.%d","data":{"n":%d}}'
    )
    day = tmp_path / "2026-03-01.jsonl"
    day.write_text(
        "".join(line % (i % 7, i % 11, i % 3, i) + "\n" for i in range(rows)), encoding="utf-8"
    )
    for mode in ("dict", "raw"):
        events, errors = read_trace(day, data=mode)  # type: ignore[call-overload]
        assert errors == []
        assert events["turn"].astype(str).tolist() == [f"тёрн_{i % 7}" for i in range(rows)]
        assert events["session"].astype(str).tolist() == [f"сессия😀{i % 11}" for i in range(rows)]
        assert events["source"].astype(str).tolist() == [""] * rows
        assert events["name"].astype(str).tolist() == [f"eve.шаг.{i % 3}" for i in range(rows)]
