"""`data="lazy"`: `LazyData`, a mapping decoded on first use, equal to its dict (TC-19 for broken data)."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Mapping
from pathlib import Path

import orjson
import pandas as pd
import pytest

from trackerkit.trace import read_trace
from trackerkit.trace._lazy import LazyData, jsonable

RAW = b'{"stepIndex":2,"usage":{"in":10,"out":3},"text":"h\\u00e9","ok":true}'
VALUE = {"stepIndex": 2, "usage": {"in": 10, "out": 3}, "text": "hé", "ok": True}


class TestMapping:
    def test_reads_like_the_dict(self) -> None:
        """Item access, get, in, iteration, len, keys/values/items, dict() and ** all agree."""
        data = LazyData(RAW)
        assert isinstance(data, Mapping)
        assert data["usage"] == {"in": 10, "out": 3}
        assert data.get("missing") is None
        assert data.get("missing", 5) == 5
        assert "text" in data
        assert "nope" not in data
        assert list(data) == list(VALUE)
        assert len(data) == 4
        assert list(data.keys()) == list(VALUE.keys())
        assert list(data.values()) == list(VALUE.values())
        assert list(data.items()) == list(VALUE.items())
        assert dict(data) == VALUE
        assert {**data} == VALUE
        with pytest.raises(KeyError):
            data["missing"]

    def test_equality_with_dicts_and_each_other(self) -> None:
        """== with a dict (either side), another LazyData, or any mapping; not hashable."""
        assert LazyData(RAW) == VALUE
        assert VALUE == LazyData(RAW)  # noqa: SIM300 (the dict on the left)
        assert LazyData(RAW) == LazyData(RAW)
        assert LazyData(RAW) == LazyData(orjson.dumps(VALUE))
        assert LazyData(RAW) != {"stepIndex": 2}
        assert LazyData(RAW) != [1]
        assert LazyData(b"{}") == {}
        with pytest.raises(TypeError):
            hash(LazyData(RAW))

    def test_repr_is_the_dict_repr(self) -> None:
        """repr (and so a printed frame) shows exactly what the dict would."""
        assert repr(LazyData(RAW)) == repr(VALUE)
        frame = pd.DataFrame({"data": pd.Series([LazyData(RAW)], dtype=object)})
        plain = pd.DataFrame({"data": pd.Series([VALUE], dtype=object)})
        assert frame.to_string() == plain.to_string()

    def test_decodes_once_and_caches(self) -> None:
        """Nothing is decoded until a look inside; then the same dict is kept."""
        data = LazyData(RAW)
        assert not data.decoded
        first = data.to_dict()
        assert data.decoded
        assert data.to_dict() is first
        assert data["usage"] is first["usage"]

    def test_pickles_and_copies(self) -> None:
        """Pickling (dask's process schedulers) and copies keep the value, decoded or not."""
        fresh, used = LazyData(RAW), LazyData(RAW)
        used.to_dict()
        for data in (fresh, used):
            back = pickle.loads(pickle.dumps(data))
            assert isinstance(back, LazyData)
            assert back == VALUE
            assert copy.deepcopy(data) == VALUE
            assert copy.copy(data) == VALUE

    def test_json_serialisation(self) -> None:
        """orjson with `default=jsonable`, json via dict(), pandas to_json via toDict."""
        data = LazyData(RAW)
        assert orjson.loads(orjson.dumps({"d": data}, default=jsonable)) == {"d": VALUE}
        assert json.loads(json.dumps(dict(data))) == VALUE
        assert LazyData(RAW).to_json() == RAW  # undecoded: the bytes as read
        assert orjson.loads(data.to_json()) == VALUE
        frame = pd.DataFrame({"data": pd.Series([LazyData(RAW)], dtype=object)})
        assert json.loads(frame.to_json(orient="records")) == [{"data": VALUE}]

    def test_copy_and_union_give_plain_dicts(self) -> None:
        """copy() and | give mutable plain dicts; the LazyData itself stays read-only."""
        data = LazyData(RAW)
        mine = data.copy()
        mine["extra"] = 1
        assert "extra" not in data
        assert (data | {"x": 1})["x"] == 1
        assert ({"x": 1} | data)["ok"] is True
        assert type(data | {}) is dict

    def test_numbers_past_the_double_range_still_decode(self) -> None:
        """Valid JSON orjson refuses (1e999) is decoded by the standard library instead."""
        assert LazyData(b'{"x":1e999}')["x"] == float("inf")

    def test_integers_past_python_conversion_read_as_infinite(self) -> None:
        """An integer of 5,000 digits (int() refuses over 4,300) reads as ±inf, never raises."""
        data = LazyData(
            b'{"x":' + b"9" * 5000 + b',"y":-' + b"1" * 5000 + b',"z":10000000000000000000000}'
        )
        assert dict(data) == {"x": float("inf"), "y": float("-inf"), "z": 10**22}


def _line(data: bytes, turn: str = "turn_0") -> bytes:
    return (
        b'{"ts":"2026-03-01T10:00:00.000Z","turn":"' + turn.encode() + b'","session":"wrun_A",'
        b'"source":"telegram","kind":"eve","name":"step.started","data":' + data + b"}"
    )


class TestReader:
    def test_read_trace_leaves_data_undecoded(self, tmp_path: Path) -> None:
        """With data="lazy" (opt-in) the reader hands out LazyData decoded only when read."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(_line(RAW) + b"\n")
        events, errors = read_trace(tmp_path, data="lazy")
        data = events["data"].iat[0]
        assert errors == []
        assert isinstance(data, LazyData)
        assert not data.decoded
        assert data == VALUE
        assert data.decoded

    @pytest.mark.parametrize("mode", ["dict", "raw", "lazy"])
    def test_a_lone_surrogate_escape_is_read_as_a_replacement_character(
        self, tmp_path: Path, mode: str
    ) -> None:
        """A writer cutting text at 4,096 UTF-16 units (TC-6) may split an emoji's pair: the half
        reads as U+FFFD, and the event (here a turn's failure) is kept, not a broken line."""
        cut = (
            b'{"code":"E_MODEL","message":"x\\ud83d\\u2026[truncated]","\\udc00":"\\ud83d\\ude00"}'
        )
        (tmp_path / "2026-03-01.jsonl").write_bytes(_line(cut, "turn_1") + b"\n")
        events, errors = read_trace(tmp_path, data=mode)  # type: ignore[call-overload]
        assert errors == []
        data = events["data"].iat[0]
        value = json.loads(data) if mode == "raw" else dict(data)
        assert value == {
            "code": "E_MODEL",
            "message": "x\ufffd\u2026[truncated]",
            "\ufffd": "\U0001f600",
        }
        picked, _ = read_trace(tmp_path, columns=["message"])
        assert picked["message"].iat[0] == "x\ufffd\u2026[truncated]"

    @pytest.mark.parametrize(
        ("data", "reason"),
        [
            pytest.param(b'{"a":[1,}', "not valid JSON", id="bad-json-inside-data"),
            pytest.param(b'{"a":"\xff"}', "invalid UTF-8", id="bad-utf8-inside-data"),
            pytest.param(b"[1, 2]", "field data is a list", id="data-a-list"),
            pytest.param(b'"text"', "field data is a str", id="data-a-string"),
            pytest.param(b"null", "field data is a NoneType", id="data-null"),
        ],
    )
    def test_broken_data_breaks_the_line(self, tmp_path: Path, data: bytes, reason: str) -> None:
        """TC-19: a line whose data is not a valid JSON object is a broken line, at read time."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(
            b"\n".join([_line(b"{}", "turn_1"), _line(data), _line(b"{}", "turn_2")]) + b"\n"
        )
        events, errors = read_trace(tmp_path)
        assert list(events["turn"]) == ["turn_1", "turn_2"]
        assert [(e.line, reason in e.reason) for e in errors] == [(2, True)]

    def test_spaced_and_reordered_lines_take_the_slow_path_alike(self, tmp_path: Path) -> None:
        """A line in another layout (spaces) is read the same; a misordered one is refused."""
        spaced = (
            b'{ "ts": "2026-03-01T10:00:01Z", "turn": "turn_1", "session": "wrun_A", '
            b'"source": "telegram", "kind": "eve", "name": "step.started", "data": {"a": 1} }'
        )
        swapped = _line(b"{}").replace(
            b'"turn":"turn_0","session":"wrun_A"', b'"session":"wrun_A","turn":"turn_0"'
        )
        (tmp_path / "2026-03-01.jsonl").write_bytes(
            b"\n".join([_line(b'{"b":2}'), spaced, swapped])
        )
        events, errors = read_trace(tmp_path)
        assert events["data"].tolist() == [{"b": 2}, {"a": 1}]
        assert list(events["session"]) == ["wrun_A", "wrun_A"]
        assert [(e.line, "fields in the order ts, session, turn" in e.reason) for e in errors] == [
            (3, True)
        ]

    def test_a_known_region_with_a_different_ts_form(self, tmp_path: Path) -> None:
        """Lines sharing their middle fields with other ts forms (offsets, escapes) read alike."""
        lines = [
            _line(b'{"n":1}'),
            _line(b'{"n":2}').replace(b"10:00:00.000Z", b"13:00:00+03:00"),
            _line(b'{"n":3}').replace(b"2026-03-01T", b"2026\\u002d03-01T"),
        ]
        (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        events, errors = read_trace(tmp_path)
        assert errors == []
        assert [d["n"] for d in events["data"]] == [1, 2, 3]
        assert set(events["ts"]) == {pd.Timestamp("2026-03-01T10:00:00Z")}


def test_to_json_of_a_decoded_value_is_json() -> None:
    """An integer past 64 bits beside inf: the text is still JSON (inf as null, as orjson writes
    it; the standard library alone would write Infinity), and the integer stays exact."""
    lazy = LazyData(b'{"big":18446744073709551616,"far":1e400,"n":[1,2]}')
    assert lazy["far"] == float("inf")
    assert json.loads(lazy.to_json(), parse_constant=lambda name: pytest.fail(name)) == {
        "big": 2**64,
        "far": None,
        "n": [1, 2],
    }
