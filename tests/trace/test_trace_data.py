"""What `read_trace` keeps of `data`: real dicts by default, JSON text, LazyData, chosen paths."""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit.errors import BadRequestError, TraceLineError
from trackerkit.trace import ColumnSpec, read_trace
from trackerkit.trace._columns import _absent, _column, column_of, fits, lookup
from trackerkit.trace._data import _inferred
from trackerkit.trace._lazy import as_text
from trackerkit.trace.synthetic import synthetic_day

SAMPLE = Path(__file__).parents[2] / "data" / "trace"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated day of each shape, with broken lines, large enough to be read in blocks."""
    folder = tmp_path_factory.mktemp("generated")
    synthetic_day(folder / "2026-11-28.jsonl", 6000, broken=6, seed=3)
    synthetic_day(folder / "2026-11-29.jsonl", 3000, broken=6, seed=4, shape="wide")
    return folder


@pytest.fixture(params=["sample", "generated"])
def days(request: pytest.FixtureRequest, generated: Path) -> Path:
    return SAMPLE if request.param == "sample" else generated


class TestDicts:
    def test_pandas_idioms_work(self, days: Path) -> None:
        """Issue 14, item 1: json_normalize, json.dumps, str.get and isinstance on real dicts."""
        events, _errors = read_trace(days)
        values = events["data"].tolist()
        assert all(type(d) is dict for d in values)
        flat = pd.json_normalize(values)
        assert len(flat) == len(events)
        assert "usage.in" in flat.columns
        assert json.loads(json.dumps(values)) == values
        got = events["data"].str.get("stepIndex").tolist()
        wanted = [d.get("stepIndex") for d in values]
        assert [None if pd.isna(g) else g for g in got] == wanted
        assert any(w is not None for w in wanted)

    def test_the_collector_is_put_back_as_it_was(self, tmp_path: Path) -> None:
        """The garbage collector paused for the build is enabled again only if it was, even on error."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(b'{"ts": 1}\n')
        assert gc.isenabled()
        with pytest.raises(TraceLineError):
            read_trace(tmp_path, strict=True)
        assert gc.isenabled()
        gc.disable()
        try:
            read_trace(tmp_path)
            assert not gc.isenabled()
        finally:
            gc.enable()

    def test_the_dicts_built_are_old_to_the_collector(self, generated: Path) -> None:
        """The dicts built while the collector was paused go to its oldest generation, so no
        young collection walks them all when it runs again (most of a second a million)."""
        young: list[int] = []

        def seen(phase: str, info: dict[str, int]) -> None:
            if phase == "start" and info["generation"] < 2:
                young.append(len(gc.get_objects(generation=0)))

        gc.collect()
        gc.callbacks.append(seen)
        try:
            events, _ = read_trace(generated)
            kept = [[i] for i in range(2000)]  # enough new objects for young collections
        finally:
            gc.callbacks.remove(seen)
        assert young
        assert max(young) < len(events) / 4
        assert len(kept) == 2000

    def test_objects_the_program_froze_stay_frozen(self, tmp_path: Path) -> None:
        """A program that froze its objects (gc.freeze) finds them still frozen after a read."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(
            b'{"ts":"2026-03-01T10:00:00.000Z","turn":"t","session":"s","source":"web",'
            b'"kind":"eve","name":"x","data":{"a":[1]}}\n'
        )
        gc.freeze()
        try:
            frozen = gc.get_freeze_count()
            read_trace(tmp_path)
            # Frozen objects freed meanwhile leave the count (it failed once, 1 in ~50 runs, when
            # an earlier test's garbage went); an unfreeze would empty it, a freeze would grow it.
            assert 0 < gc.get_freeze_count() <= frozen
            assert gc.isenabled()
        finally:
            gc.unfreeze()

    def test_numbers_orjson_refuses_still_read(self, tmp_path: Path) -> None:
        """1e999 and an integer of 5,000 digits read as ±inf in a block of compact lines."""
        line = (
            b'{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_1","session":"wrun_A",'
            b'"source":"telegram","kind":"eve","name":"step.completed","data":{"n":%s}}'
        )
        body = b"\n".join(line % str(i).encode() for i in range(200))
        odd = b"\n".join([line % b"1e999", line % (b"9" * 5000)])
        (tmp_path / "2026-03-01.jsonl").write_bytes(body + b"\n" + odd + b"\n" + body + b"\n")
        events, errors = read_trace(tmp_path)
        assert errors == []
        numbers = [d["n"] for d in events["data"]]
        assert numbers[200:202] == [math.inf, math.inf]
        assert numbers[:200] == list(range(200))

    def test_integers_are_exact_on_every_path(self, tmp_path: Path) -> None:
        """An integer past 64 bits is the same exact int in a block, on a line read alone, on a
        spaced line, lazily and in the raw text (orjson alone would read it as a float)."""
        line = (
            b'{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_1","session":"wrun_A",'
            b'"source":"telegram","kind":"eve","name":"step.completed","data":{"n":%s}}'
        )
        big = [2**64, -(2**63) - 1, 10**30]
        body = [line % str(i).encode() for i in range(300)]
        body[100:100] = [line % str(n).encode() for n in big]
        body.append(line.replace(b'":', b'": ') % str(big[2]).encode())  # not compact: alone
        (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(body) + b"\n")
        for mode in ("dict", "lazy"):
            events, errors = read_trace(tmp_path, data=mode)  # type: ignore[arg-type]
            numbers = [d["n"] for d in events["data"]]
            assert errors == []
            assert numbers[100:103] == big
            assert numbers[-1] == big[2]
            assert {type(n) for n in numbers} == {int}
        texts, _ = read_trace(tmp_path, data="raw")
        assert [json.loads(t)["n"] for t in texts["data"]] == numbers
        picked, _ = read_trace(tmp_path, columns=["n"])
        assert picked["n"].tolist() == numbers


def _modes(days: Path) -> Iterator[tuple[str, pd.DataFrame, list[TraceLineError]]]:
    for mode in ("dict", "raw", "lazy", "none"):
        events, errors = read_trace(days, data=mode)  # type: ignore[arg-type]
        yield mode, events, errors


class TestRaw:
    def test_raw_is_arrow_text_of_the_same_objects(self, days: Path) -> None:
        """data="raw": an Arrow-backed str column; each text decodes to the dict mode's value."""
        dicts, _ = read_trace(days)
        texts, _ = read_trace(days, data="raw")
        assert str(texts["data"].dtype) == "str"
        assert (
            "pyarrow" in repr(texts["data"].array.dtype) or texts["data"].dtype.storage == "pyarrow"
        )
        assert [orjson.loads(t) for t in texts["data"]] == dicts["data"].tolist()
        pd.testing.assert_frame_equal(texts.drop(columns="data"), dicts.drop(columns="data"))

    def test_every_mode_reads_the_same_lines(self, days: Path) -> None:
        """Same tolerance and errors in every mode (TC-19): the same rows, the same errors."""
        found = list(_modes(days))
        first = found[0][1].drop(columns="data")
        for mode, events, errors in found:
            assert errors == found[0][2], mode
            pd.testing.assert_frame_equal(events.drop(columns="data", errors="ignore"), first)
        assert "data" not in found[-1][1].columns

    def test_a_slow_line_keeps_its_text(self, tmp_path: Path) -> None:
        """A line with spaces (read one by one) gives its data's text as the line writes it."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(
            b'{ "ts": "2026-03-01T10:00:01Z", "turn": "turn_1", "session": "wrun_A", '
            b'"source": "telegram", "kind": "eve", "name": "step.started", "data": {"a": "\xc3\xa9"} }\n'
        )
        events, _ = read_trace(tmp_path, data="raw")
        assert events["data"].tolist() == ['{"a": "é"}']

    def test_text_of_values_orjson_cannot_write(self) -> None:
        """Nesting past orjson's 255 levels is cut with TC-7's mark; huge integers stay numbers."""
        deep: Any = "end"
        for _ in range(300):
            deep = [deep]
        text = as_text({"d": deep, "n": 10**30})
        assert b"\xe2\x80\xa6[deep]" in text
        assert json.loads(text)["n"] == 10**30


class TestColumns:
    PATHS: ClassVar[list[str]] = ["usage.in", "usage.costUsd", "failure"]

    def test_paths_become_typed_columns(self, generated: Path) -> None:
        """columns=: each path a typed column named by it; no data column unless asked."""
        events, errors = read_trace(generated, columns=self.PATHS)
        dicts, dict_errors = read_trace(generated)
        assert errors == dict_errors
        assert "data" not in events.columns
        assert str(events["usage.in"].dtype) == "Int64"
        assert str(events["usage.costUsd"].dtype) == "Float64"
        assert str(events["failure"].dtype) == "str"
        for path in self.PATHS:
            wanted = [lookup(d, path) for d in dicts["data"]]
            got = [None if pd.isna(v) else v for v in events[path]]
            assert got == wanted, path
        assert events.attrs["skipped"] == {}

    def test_specs_as_data_with_defaults_and_odd_values(self, tmp_path: Path) -> None:
        """A ColumnSpec names and types a column; odd values become its default and are counted."""
        rows = [
            b'{"usage":{"in":5,"costUsd":0.5}}',
            b'{"usage":"none"}',  # a parent that is no object: the block is read by dicts
            b'{"usage":{"in":"x"}}',
            b'{"other":1}',
        ]
        lines = [
            b'{"ts":"2026-03-01T10:00:00.%03dZ","turn":"turn_1","session":"wrun_A","source":"web",'
            b'"kind":"eve","name":"step.completed","data":%s}' % (i, d)
            for i, d in enumerate(rows * 40)
        ]
        (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        specs = [
            ColumnSpec("tokens", "data.usage.in", "int", 0),
            ColumnSpec("cost", "usage.costUsd|cost", "float"),
        ]
        events, errors = read_trace(tmp_path, columns=specs, data="raw")
        assert errors == []
        assert list(events.columns[-2:]) == ["tokens", "cost"]
        assert events["tokens"].tolist()[:4] == [5, 0, 0, 0]
        assert [None if pd.isna(c) else c for c in events["cost"]][:4] == [0.5, None, None, None]
        assert events.attrs["skipped"] == {"data.usage.in": 40}
        assert events["data"].dtype == "str"

    @pytest.mark.parametrize(
        ("columns", "data", "words"),
        [
            pytest.param(["usage..in"], None, "names no field", id="empty-key"),
            # An attack trial: 1,000 dotted levels raised RecursionError building the structs.
            pytest.param([".".join(["a"] * 1000)], None, "1000 levels deep", id="deep"),
            pytest.param(["x|" + ".".join(["a"] * 65)], None, "65 levels deep", id="deep-alt"),
            pytest.param(["a", "a"], None, "twice", id="twice"),
            pytest.param([ColumnSpec("ts", "x", "int")], None, "already", id="clash"),
            pytest.param(None, "text", "not a way to keep data", id="mode"),
        ],
    )
    def test_bad_requests_say_what_and_how(self, columns: Any, data: Any, words: str) -> None:
        with pytest.raises(BadRequestError, match=words):
            read_trace(SAMPLE, columns=columns, data=data)

    def test_empty_days_keep_the_columns(self, tmp_path: Path) -> None:
        (tmp_path / "2026-03-01.jsonl").write_bytes(b"")
        events, _ = read_trace(tmp_path, columns=[ColumnSpec("n", "n", "int")], data="raw")
        assert list(events.columns[-1:]) == ["n"]
        assert str(events["n"].dtype) == "Int64"
        assert str(events["data"].dtype) == "str"


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abu"), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.dictionaries(st.sampled_from("abu"), _JSON, max_size=3), min_size=1, max_size=60)
)
def test_columns_agree_with_dict_lookups(tmp_path: Path, objects: list[dict[str, Any]]) -> None:
    """Law: the paths' columns hold what a lookup in the dicts finds, whatever the data."""
    lines = [
        orjson.dumps(
            {
                "ts": "2026-03-01T10:00:00Z",
                "turn": "t",
                "session": "s",
                "source": "web",
                "kind": "eve",
                "name": "x",
                "data": o,
            },
            option=orjson.OPT_PASSTHROUGH_DATACLASS,
        )
        if all(abs(v) < 2**63 for v in _ints(o))
        else json.dumps(
            {
                "ts": "2026-03-01T10:00:00Z",
                "turn": "t",
                "session": "s",
                "source": "web",
                "kind": "eve",
                "name": "x",
                "data": o,
            },
            separators=(",", ":"),
        ).encode()
        for o in objects * 3
    ]
    path = tmp_path / "2026-03-01.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    # A path and a path under it at once ("u", "u.a"): the whole value and the value under it.
    paths = ["a", "u.a", "u.b.a", "b|a", "u", "u.b", "u.b.a|u"]
    specs = [ColumnSpec(p, p, "object") for p in paths]
    dicts, _ = read_trace(path)
    events, _ = read_trace(path, columns=specs)
    for p in paths:
        assert [_same(v) for v in events[p]] == [_same(lookup(d, p)) for d in dicts["data"]], p


@pytest.mark.parametrize("data", ["dict", "raw", "none"])
def test_a_path_and_one_under_it_read_whole(data: str) -> None:
    """`columns=["usage", "usage.in"]`: `usage` is the usage dict, not an internal struct, so
    json_normalize and the Parquet export take it (both had failed)."""
    events, _ = read_trace(SAMPLE, columns=["usage", "usage.in"], data=data)  # type: ignore[arg-type]
    steps = events[events["name"] == "eve.step.completed"]
    assert all(type(u) is dict for u in steps["usage"])
    assert steps["usage.in"].tolist() == [u["in"] for u in steps["usage"]]
    assert len(pd.json_normalize(steps["usage"].tolist())) == len(steps)


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _ints(item)
    elif isinstance(value, list):
        for item in value:
            yield from _ints(item)


def _same(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@pytest.mark.parametrize("mode", ["dict", "raw", "lazy", "none"])
def test_bytes_that_are_not_utf8_in_a_block_break_only_their_line(
    tmp_path: Path, mode: str
) -> None:
    """TC-19: a block of non-ASCII lines with one line's data not UTF-8: that line alone is
    refused, in every mode (dicts check it while decoding, the others before)."""
    line = (
        b'{"ts":"2026-03-01T10:00:00.%03dZ","turn":"turn_1","session":"wrun_A",'
        b'"source":"web","kind":"eve","name":"x","data":{"text":"%s"}}'
    )
    lines = [line % (i, "журнал".encode()) for i in range(300)]
    lines[150] = line % (150, b"bad \xff byte")
    (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    events, errors = read_trace(tmp_path, data=mode)  # type: ignore[call-overload]
    assert [(e.line, "invalid UTF-8" in e.reason) for e in errors] == [(151, True)]
    assert len(events) == 299


_VALUES = st.lists(
    st.none() | st.booleans() | st.integers(-(2**65), 2**65) | st.text(max_size=3)
    | st.floats() | st.just(float("inf")),
    max_size=20,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    _VALUES,
    st.sampled_from(["int", "float", "str", "bool", "category", "object"]),
    st.sampled_from([None, 0]),
)
def test_typed_columns_at_once_equal_value_by_value(
    values: list[Any], kind: str, default: Any
) -> None:
    """Law: the at-once column (every value of the kind) equals the value-by-value one."""
    spec = ColumnSpec("c", "c", kind, default if kind in ("int", "float") else None)  # type: ignore[arg-type]
    got, odd = column_of(values, spec)
    kept = [v if fits(v, spec.type) else spec.default for v in values]
    wanted = _column(kept, spec)
    assert odd == sum(not fits(v, spec.type) and not _absent(v) for v in values)
    assert pd.Series(got, dtype=object).tolist() == pd.Series(wanted, dtype=object).tolist() or (
        pd.Series(got).astype(object).fillna("NA").tolist()
        == pd.Series(wanted).astype(object).fillna("NA").tolist()
    )


@pytest.mark.parametrize("mode", ["dict", "raw", "lazy"])
def test_rows_refused_after_parsing_leave_every_column(tmp_path: Path, mode: str) -> None:
    """A line whose turn is a number is refused after parsing; data and paths lose its row too."""
    lines = [
        b'{"ts":"2026-03-01T10:00:0%dZ","turn":%s,"session":"s","source":"web","kind":"eve",'
        b'"name":"x","data":{"n":%d}}' % (i, turn, i)
        for i, turn in enumerate([b'"t"', b"5", b'"t"', b"[1]"])
    ]
    (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    events, errors = read_trace(tmp_path, data=mode, columns=["n"])  # type: ignore[call-overload]
    assert [e.line for e in errors] == [2, 4]
    assert events["n"].tolist() == [0, 2]
    values = events["data"].tolist()
    assert [orjson.loads(v)["n"] if mode == "raw" else v["n"] for v in values] == [0, 2]


def test_raw_frames_go_to_parquet_as_they_are(tmp_path: Path) -> None:
    """data="raw" is Parquet-ready: `events.to_parquet` keeps every row and text."""
    events, _ = read_trace(SAMPLE, data="raw")
    events.to_parquet(tmp_path / "events.parquet")
    back = pd.read_parquet(tmp_path / "events.parquet")
    assert back["data"].tolist() == events["data"].tolist()
    assert back["name"].astype(str).tolist() == events["name"].astype(str).tolist()


@pytest.mark.parametrize(
    "odd",
    [b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80", b"\xff", b""],
)
def test_long_stretches_are_checked_for_utf8_like_python_does(odd: bytes) -> None:
    """Stretches of 4 KB and more are checked by Arrow: the same verdict as Python's decoder
    (surrogates, overlong forms, past U+10FFFF, cut sequences), short or long."""
    from trackerkit.trace._lines import _utf8

    for text in (b"ok \xf0\x9f\x98\x80 " + odd, "журнал ".encode() * 1000 + odd):
        try:
            str(text, "utf-8")
        except UnicodeDecodeError:
            valid = False
        else:
            valid = True
        assert _utf8(text) is valid
        assert _utf8(memoryview(text)[1:]) is _utf8(text[1:])


def test_a_block_of_paths_reads_as_the_dicts_do(tmp_path: Path) -> None:
    """Paths fetched a block at a time: an integer past 64 bits, a missing leaf, a container
    holding a large integer, a value of every row, all as in the dicts (integers exact)."""
    odd: list[Any] = [
        {"u": {"a": 2**64}},
        {"u": {}},
        {"u": {"a": {"n": -(2**70)}}},
        {"u": {"a": 1.5}},
    ]
    line = (
        b'{"ts":"2026-03-01T10:00:00.000Z","turn":"t","session":"s","source":"web",'
        b'"kind":"eve","name":"x","data":%s}'
    )
    objects = [{"u": {"a": i}, "b": "x"} for i in range(300)]
    objects[100:100] = odd
    (tmp_path / "2026-03-01.jsonl").write_bytes(
        b"\n".join(line % json.dumps(o).replace(" ", "").encode() for o in objects) + b"\n"
    )
    dicts, _ = read_trace(tmp_path)
    for paths in (["u.a", "b"], ["u.a"], ["b"]):
        events, _ = read_trace(tmp_path, columns=[ColumnSpec(p, p, "object") for p in paths])
        for p in paths:
            assert [_same(v) for v in events[p]] == [_same(lookup(d, p)) for d in dicts["data"]]
    assert type(dicts["data"][100]["u"]["a"]) is int
    assert dicts["data"][100]["u"]["a"] == 2**64


@pytest.mark.parametrize("default", [None, 0.0])
@pytest.mark.parametrize("lines", [1, 300], ids=["line", "block"])
def test_a_float_column_keeps_inf(tmp_path: Path, default: Any, lines: int) -> None:
    """1e400 reads as inf, and a float column holds it: kept, not the default, not skipped."""
    line = (
        b'{"ts":"2026-03-01T10:00:00.000Z","turn":"t","session":"s","source":"web",'
        b'"kind":"eve","name":"x","data":{"f":%s}}'
    )
    numbers = [b"1e400", b"-1e400", b"2.5", b"3"] + [b"1.0"] * (lines - 1)
    (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(line % n for n in numbers) + b"\n")
    for columns in ([ColumnSpec("f", "f", "float", default)], ["f"]):
        events, _ = read_trace(tmp_path, columns=columns)
        assert str(events["f"].dtype) == "Float64"
        assert events["f"].tolist()[:4] == [math.inf, -math.inf, 2.5, 3.0]
        assert events.attrs["skipped"] == {}
    got, odd = column_of([math.inf, None, 1.5], ColumnSpec("f", "f", "float", default))
    assert (list(got), odd) == ([math.inf, pd.NA, 1.5], 0)


@pytest.mark.parametrize("default", [None, 0.0])
def test_derived_tables_read_inf_as_odd(default: Any) -> None:
    """`extract` (steps, tool calls, deliveries: costs and times) counts ±inf as odd, at once
    or value by value, while read_trace's float columns keep it."""
    from trackerkit.trace._columns import extract

    spec = ColumnSpec("f", "f", "float", default)
    for values in ([1.5, math.inf], [1.5, -math.inf, None, 2]):
        frame = extract([{"f": v} for v in values], [spec])
        assert frame["f"].tolist()[:2] == [1.5, pd.NA if default is None else default]
        assert frame.attrs["skipped"] == {"f": 1}
        kept, odd = column_of(values, spec)
        assert (list(kept)[1], odd) == (values[1], 0)


_NUMBERS = st.one_of(
    st.none(),
    st.floats(),
    st.integers(),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1]),
)


@given(st.lists(_NUMBERS, min_size=1, max_size=8))
def test_a_numbers_column_is_typed_as_the_first_kind_every_value_fits(values: list[Any]) -> None:
    """The inferred type of a path's values (`columns=["usage.costUsd"]`) is the first of bool,
    int, float, str that every value fits (int only without a float written), else object; the
    numbers' shortcut gives the same."""
    kinds = set(map(type, values)) - {type(None)}
    expected = "object"
    for kind in ("bool", "int", "float", "str"):
        if kind == "int" and float in kinds:
            continue
        if kinds and all(fits(v, kind) for v in values):  # type: ignore[arg-type]
            expected = kind
            break
    assert _inferred(values) == expected
