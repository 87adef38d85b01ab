"""Found when an analyst read days from their own writer (Python's `json.dumps` defaults)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit.cli import main
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace import ColumnSpec, read_trace
from trackerkit.trace._lines import BLOCK_MIN

_DATA = {"code": "E_X", "cost": 1.0, "big": 1e2, "t": "Ош"}


def _spaced(data_text: str, ts: str = "2026-11-28T10:00:00.000Z") -> str:
    """A line as `json.dumps` writes it by default (spaces), with `data` written as given."""
    head = json.dumps(
        {"ts": ts, "turn": "turn_0", "session": "s", "source": "web", "kind": "eve", "name": "x"}
    )
    return head[:-1] + f', "data": {data_text}}}'


def _compact(data_text: str, ts: str = "2026-11-28T10:00:00.000Z") -> str:
    head = json.dumps(
        {"ts": ts, "turn": "turn_0", "session": "s", "source": "web", "kind": "eve", "name": "x"},
        separators=(",", ":"),
    )
    return head[:-1] + f',"data":{data_text}}}'


SPACED_TEXT = json.dumps(_DATA)  # ensure_ascii: "\u041e\u0448"
WRITTEN = ['{"code":"E_X","cost":1.0,"big":1e2,"t":"\\u041e\\u0448"}', SPACED_TEXT]


def _text(i: int) -> str:
    return '{"i": ' + str(i) + ', "e": "\\u00e9", "n": 2E1}'


class TestRawIsAsWritten:
    def test_a_spaced_line_keeps_its_text(self, tmp_path: Path) -> None:
        """Found when tried: a spaced line's text was re-encoded (escapes decoded, 1e2 as
        100.0), so a search of the raw text for what the file holds missed it."""
        day = tmp_path / "2026-11-28.jsonl"
        day.write_text(_compact(WRITTEN[0]) + "\n" + _spaced(WRITTEN[1]) + "\n")
        events, errors = read_trace(day, data="raw")
        assert errors == []
        assert events["data"].tolist() == WRITTEN
        dicts, _ = read_trace(day)
        assert dicts["data"].tolist() == [_DATA, _DATA]

    @pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
    def test_a_block_of_spaced_lines_keeps_each_text_in_its_row(
        self, tmp_path: Path, crlf: bool
    ) -> None:
        """A block read at once (not line by line) keeps each kept line's text, with refused
        lines among them."""
        end = "\r\n" if crlf else "\n"
        lines = []
        for i in range(200):
            text = _text(i)
            line = _spaced(text, ts=f"2026-11-28T10:00:{i % 60:02d}.{i:03d}Z")
            if i % 50 == 7:  # a refused line: a field of the wrong kind
                line = line.replace('"session": "s"', '"session": 5')
            lines.append(line)
        day = tmp_path / "2026-11-28.jsonl"
        day.write_text(end.join(lines) + end, newline="")
        assert day.stat().st_size > 4 * BLOCK_MIN
        events, errors = read_trace(day, data="raw")
        assert [e.line for e in errors] == [8, 58, 108, 158]
        by_line = dict(zip(events["line"], events["data"], strict=True))
        for i in range(200):
            if i % 50 != 7:
                assert by_line[i + 1] == _text(i)
        dicts, _ = read_trace(day)
        assert [json.loads(t) for t in events["data"]] == dicts["data"].tolist()


def test_nan_makes_a_broken_line_that_says_where_it_comes_from(tmp_path: Path) -> None:
    """Found when tried: the README said numbers are read as Python's json reads them, and
    Python's NaN made a broken line; the README and the reason now say so."""
    day = tmp_path / "2026-11-28.jsonl"
    day.write_text(_spaced('{"costUsd": NaN}') + "\n" + _spaced('{"costUsd": 0.5}') + "\n")
    events, errors = read_trace(day)
    assert len(events) == 1
    assert [e.line for e in errors] == [1]
    assert "allow_nan=False" in errors[0].reason
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "NaN" in readme
    assert "allow_nan=False" in readme


class TestADataFolder:
    """Found when tried: `read_trace(ASSISTANT_DATA_DIR)` gave an empty frame with no word, and
    `trace export` of it wrote nothing and exited 0, while `trace days` refused it."""

    @pytest.fixture
    def data(self, tmp_path: Path) -> Path:
        (tmp_path / "trace").mkdir()
        (tmp_path / "trace" / "2026-11-28.jsonl").write_text(_compact("{}") + "\n")
        (tmp_path / "trackers").mkdir()
        return tmp_path

    def test_read_trace_names_the_trace_folder(self, data: Path) -> None:
        with pytest.raises(
            NotFoundError, match=r"its trace/ folder holds 1 day file: read .*trace"
        ):
            read_trace(data)
        events, _ = read_trace(data / "trace")
        assert len(events) == 1

    def test_an_empty_folder_is_still_no_events(self, tmp_path: Path) -> None:
        events, errors = read_trace(tmp_path)
        assert len(events) == 0
        assert errors == []

    @pytest.mark.parametrize("command", ["export", "days"])
    def test_the_commands_refuse_it_alike(
        self, data: Path, command: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        argv = ["trace", command, str(data)] if command == "export" else ["trace", "days"]
        if command == "export":
            argv += ["--parquet", str(data / "out")]
        else:
            argv += ["--dir", str(data)]
        assert main(argv) == 1
        said = capsys.readouterr().err
        assert "no trace day files" in said
        assert "its trace/ folder holds 1 day file" in said
        assert not (data / "out").exists()


def test_a_column_named_data_is_refused(tmp_path: Path) -> None:
    """Found when tried: `columns=["data"]` gave a `data` column of None, and the turns then
    failed with an AttributeError; it is refused as the other names of the frame are."""
    day = tmp_path / "2026-11-28.jsonl"
    day.write_text(_compact('{"data": 1}') + "\n")
    with pytest.raises(BadRequestError, match="'data' is asked for"):
        read_trace(day, columns=["data"])
    events, _ = read_trace(day, columns=[ColumnSpec("payload", "data", "int")])
    assert events["payload"].tolist() == [1]


class TestALoneSurrogateAsWritten:
    """Found by an attacker: a lone surrogate escape (a reply cut inside an emoji) made
    `data="raw"` give the line's data re-encoded (spaces and escapes gone), not as written. It
    is as written now but for the half, written `\\ufffd` as the dicts read it (DuckDB's JSON
    functions refuse a half and would fail a whole query over an export)."""

    @pytest.mark.parametrize("line", [_spaced, _compact], ids=["spaced", "compact"])
    def test_the_text_is_kept(self, tmp_path: Path, line: Any) -> None:
        texts = [
            '{"note": "half \\ud800 here", "n": 1}',
            '{"pair": "\\ud83d\\ude00", "s": "\\\\ud800", "e": "\\u00e9"}',
        ]
        day = tmp_path / "2026-11-28.jsonl"
        day.write_text("".join(line(t) + "\n" for t in texts * 40))  # a block, then line by line
        raw, errors = read_trace(day, data="raw")
        assert errors == []
        read = ['{"note": "half \\ufffd here", "n": 1}', texts[1]]
        assert raw["data"].tolist() == read * 40
        dicts, _ = read_trace(day)
        assert dicts["data"][0] == {"note": "half \ufffd here", "n": 1}
        assert [json.loads(t) for t in raw["data"]] == dicts["data"].tolist()

    def test_a_member_after_data_gives_the_data_read(self, tmp_path: Path) -> None:
        """A key repeated after `data` (kept: the first of each key is in order) cannot be cut
        by position: the text of the data read is given."""
        text = _spaced('{"note": "\\udc00"}')[:-1] + ', "ts": "2026-11-28T10:00:00.000Z"}'
        day = tmp_path / "2026-11-28.jsonl"
        day.write_text(text + "\n")
        raw, errors = read_trace(day, data="raw")
        assert errors == []
        assert json.loads(raw["data"][0]) == {"note": "\ufffd"}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.lists(
        st.dictionaries(
            st.text(max_size=5),
            st.one_of(
                st.integers(),
                st.floats(allow_nan=False, allow_infinity=False),
                st.text(max_size=8),
                st.booleans(),
            ),
            max_size=4,
        ),
        min_size=1,
        max_size=30,
    ),
    spaced=st.booleans(),
    ascii_only=st.booleans(),
)
def test_law_raw_is_the_data_as_written(
    tmp_path: Path, values: list[dict[str, Any]], spaced: bool, ascii_only: bool
) -> None:
    """Whatever the writer's style, data='raw' gives each line's data text as the line has it."""
    separators = (", ", ": ") if spaced else (",", ":")
    texts = [json.dumps(v, separators=separators, ensure_ascii=ascii_only) for v in values]
    make = _spaced if spaced else _compact
    day = tmp_path / "2026-11-28.jsonl"
    day.write_text("".join(make(t) + "\n" for t in texts), encoding="utf-8", errors="surrogatepass")
    raw, errors = read_trace(day, data="raw")
    assert [e.reason for e in errors] == []
    assert raw["data"].tolist() == texts
