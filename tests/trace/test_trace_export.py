"""Trace days out to Arrow and Parquet, and the README's DuckDB example over the export."""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
from decimal import Decimal
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest

from trackerkit.cli import main
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace import ColumnSpec, assemble_turns, costs_by_day, read_trace, steps
from trackerkit.trace.export import EXPORT_FIELDS, events_to_arrow, export_parquet

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "data" / "trace"
README = (ROOT / "README.md").read_text(encoding="utf-8")


class TestArrow:
    @pytest.mark.parametrize("mode", ["dict", "raw", "lazy"])
    def test_every_data_mode_gives_the_same_table(self, mode: str) -> None:
        """data becomes JSON text whatever the frame held; the fields keep their order."""
        events, _ = read_trace(SAMPLE, data=mode)  # type: ignore[call-overload]
        table = events_to_arrow(events)
        assert table.column_names == list(EXPORT_FIELDS)
        assert table.schema.field("ts").type == pa.timestamp("us", tz="UTC")
        dicts, _ = read_trace(SAMPLE)
        assert [orjson.loads(t) for t in table.column("data").to_pylist()] == dicts["data"].tolist()
        assert table.column("day").to_pylist() == dicts["day"].astype(str).tolist()

    def test_extracted_columns_keep_their_types(self, tmp_path: Path) -> None:
        """The to_parquet idiom through the export: columns= paths come back typed."""
        events, _ = read_trace(
            SAMPLE, data="raw", columns=[ColumnSpec("cost", "usage.costUsd", "float"), "stepIndex"]
        )
        pq.write_table(events_to_arrow(events), tmp_path / "all.parquet")
        back = pd.read_parquet(tmp_path / "all.parquet")
        assert list(back.columns) == [*EXPORT_FIELDS, "cost", "stepIndex"]
        assert back["cost"].sum() == pytest.approx(events["cost"].sum())
        assert back["stepIndex"].dropna().tolist() == events["stepIndex"].dropna().tolist()

    def test_a_frame_without_the_fields_is_refused(self) -> None:
        events, _ = read_trace(SAMPLE, data="none")
        with pytest.raises(BadRequestError, match="has no data"):
            events_to_arrow(events)


class TestParquet:
    def test_one_file_per_day_with_the_readers_rows(self, tmp_path: Path) -> None:
        written, errors = export_parquet(SAMPLE, tmp_path / "out", columns=["usage.in"])
        events, read_errors = read_trace(SAMPLE)
        assert errors == read_errors
        assert [p.name for p, _ in written] == [
            f"{p.stem}.parquet" for p in sorted(SAMPLE.glob("*.jsonl"))
        ]
        assert sum(rows for _, rows in written) == len(events)
        for path, rows in written:
            table = pq.read_table(path)
            assert table.num_rows == rows
            assert set(table.column("day").to_pylist()) == {path.stem}

    def test_bad_targets_are_refused_before_writing(self, tmp_path: Path) -> None:
        (tmp_path / "file").write_text("")
        with pytest.raises(BadRequestError, match="is a file"):
            export_parquet(SAMPLE, tmp_path / "file")
        with pytest.raises(BadRequestError, match="names no field"):
            export_parquet(SAMPLE, tmp_path / "out", columns=["a..b"])
        with pytest.raises(NotFoundError, match="does not exist"):
            export_parquet(tmp_path / "nope", tmp_path / "out")
        assert not (tmp_path / "out").exists()

    def test_a_fifo_at_a_days_name_is_refused_before_any_write(self, tmp_path: Path) -> None:
        """Found when tried: a FIFO named like a day's output hung the export forever."""
        out = tmp_path / "out"
        out.mkdir()
        first = sorted(SAMPLE.glob("*.jsonl"))
        os.mkfifo(out / f"{first[-1].stem}.parquet")
        with pytest.raises(BadRequestError, match="is a FIFO, not a regular file"):
            export_parquet(SAMPLE, out)
        assert sorted(p.name for p in out.iterdir()) == [f"{first[-1].stem}.parquet"]

    def test_a_failed_write_keeps_the_days_file(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Found when tried: a full disk deleted the previous export of the day, and the error
        named no file. The old file stays whole; the error names the file."""
        out = tmp_path / "out"
        export_parquet(SAMPLE, out)
        day = sorted(out.iterdir())[0]
        before = day.read_bytes()

        def full(table: object, where: object, **options: object) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(pq, "write_table", full)
        with pytest.raises(OSError, match=f"cannot write {re.escape(str(day))}: No space left"):
            export_parquet(SAMPLE, out)
        assert day.read_bytes() == before
        assert not [p for p in out.iterdir() if p.suffix == ".tmp"]


class TestCommand:
    def test_export_prints_each_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        code = main(["trace", "export", str(SAMPLE), "--parquet", str(tmp_path), "--json"])
        report = orjson.loads(capsys.readouterr().out)
        assert code == 0
        assert len(report["files"]) == 4
        assert len(report["broken"]) == 6

    @pytest.mark.parametrize(
        ("argv", "words"),
        [
            (["trace", "export", "nope-folder", "--parquet", "x"], "does not exist"),
            (["trace", "export", str(SAMPLE)], "the following arguments are required: --parquet"),
            (
                ["trace", "export", str(SAMPLE), "--parquet", "x", "--column", "a=b:zz"],
                "not a column",
            ),
            (  # found when tried: the advice named a Python class to a command-line user
                ["trace", "export", str(SAMPLE), "--parquet", "x", "--column", "day=usage.in:int"],
                "give the column another name (NAME=PATH on the command line",
            ),
        ],
    )
    def test_mistakes_are_one_line(
        self,
        argv: list[str],
        words: str,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.chdir(tmp_path)
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse's own usage error
            code = int(str(exit_.code))
        err = capsys.readouterr().err
        assert code != 0
        assert words in err
        assert "Traceback" not in err


def _readme_sql() -> list[str]:
    """The statements of the README's SQL block (cost per day, failed turns per session)."""
    block = re.search(r"```sql\n(.*?)```", README, re.S)
    assert block is not None
    return [s.strip() for s in block.group(1).split(";") if s.strip()]


def _readme_export() -> list[str]:
    line = next(ln for ln in README.splitlines() if ln.startswith("$ trackerkit trace export"))
    return shlex.split(line.removeprefix("$ trackerkit "))


def test_the_readme_sql_answers_cost_per_day_and_failed_turns_per_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's export command and its exact SQL, checked against the pandas frames."""
    duckdb = pytest.importorskip("duckdb")
    shutil.copytree(SAMPLE, tmp_path / "data" / "trace")
    monkeypatch.chdir(tmp_path)
    assert main(_readme_export()) == 0
    capsys.readouterr()
    per_day, per_session = (duckdb.sql(q).df() for q in _readme_sql())
    events, _ = read_trace(SAMPLE)
    done = events[events["name"] == "eve.step.completed"]
    cost = done["data"].map(lambda d: (d.get("usage") or {}).get("costUsd"))
    grouped = cost.groupby(done["day"].astype(str))
    assert per_day["day"].tolist() == sorted(grouped.groups)
    assert per_day["cost_usd"].tolist() == pytest.approx(
        grouped.sum().astype(float).round(4).tolist()
    )
    assert (
        per_day["steps_without_cost"].tolist()
        == grouped.apply(lambda s: int(s.isna().sum())).tolist()
    )
    assert (
        per_day["steps_without_cost"].sum()
        == len(steps(events).query("cost_usd.isna()"))
        - (steps(events)["outcome"] == "failed").sum()
    )
    turns = assemble_turns(events)
    failed = turns[turns["status"] == "failed"].groupby("session").size()
    assert (
        dict(zip(per_session["session"], per_session["failed_turns"], strict=True))
        == failed.to_dict()
    )


def _day_of(folder: Path, values: list[bytes]) -> Path:
    """A day whose events hold `{"n": value}`, each value as written."""
    folder.mkdir(parents=True, exist_ok=True)
    line = (
        b'{"ts":"2026-03-01T10:00:%02dZ","turn":"t","session":"s","source":"web",'
        b'"kind":"eve","name":"x","data":{"n":%s}}'
    )
    (folder / "2026-03-01.jsonl").write_bytes(
        b"".join(line % (i, value) + b"\n" for i, value in enumerate(values))
    )
    return folder


BIG = 2**70  # 1180591620717411303424


class TestIntegersPast64Bits:
    """An extracted column whose integers do not fit int64 is exported with every value."""

    @pytest.mark.parametrize(
        ("values", "kind", "back"),
        [
            ([b"%d" % BIG], pa.decimal128(38, 0), [BIG]),
            (
                [b"5", b"%d" % BIG, b"null", b"%d" % -BIG],
                pa.decimal128(38, 0),
                [5, BIG, None, -BIG],
            ),
            ([b"%d" % 10**38, b"1"], pa.string(), [str(10**38), "1"]),
            ([b"1.5", b"%d" % BIG], pa.string(), ["1.5", str(BIG)]),
            ([b"1", b'"a"', b"%d" % BIG], pa.string(), ["1", '"a"', str(BIG)]),
            ([b'{"m":%d}' % BIG, b"null"], pa.string(), [f'{{"m":{BIG}}}', None]),
        ],
        ids=["one", "mixed-ints", "past-38-digits", "float-and-big", "text-and-big", "nested"],
    )
    @pytest.mark.parametrize("mode", ["dict", "raw", "lazy"])
    def test_events_to_arrow_keeps_them(
        self, tmp_path: Path, mode: str, values: list[bytes], kind: object, back: list[object]
    ) -> None:
        """decimal128(38, 0) holds them exactly; past 38 digits, or mixed with other kinds,
        each value is its JSON text."""
        folder = _day_of(tmp_path / "d", values)
        events, _ = read_trace(folder, data=mode, columns=["n"])  # type: ignore[call-overload]
        table = events_to_arrow(events)
        assert table.schema.field("n").type == kind
        got = table.column("n").to_pylist()
        assert [None if v is None else (v if isinstance(v, str) else int(v)) for v in got] == back
        pq.write_table(table, tmp_path / "out.parquet")
        assert pq.read_table(tmp_path / "out.parquet").column("n").to_pylist() == got

    def test_an_int_spec_gives_its_default_counted(self, tmp_path: Path) -> None:
        folder = _day_of(tmp_path / "d", [b"%d" % BIG, b"7", b"%d" % -BIG])
        events, _ = read_trace(folder, data="raw", columns=[ColumnSpec("n", "n", "int", 0)])
        assert events["n"].tolist() == [0, 7, 0]
        assert events.attrs["skipped"] == {"data.n": 2}
        assert events_to_arrow(events).column("n").to_pylist() == [0, 7, 0]

    @pytest.mark.parametrize(
        ("column", "back"),
        [
            ("n", [Decimal(BIG), Decimal(5), None]),
            ("n=n:int", [None, 5, None]),
            ("n=n:float", [None, 5.0, None]),
        ],
    )
    def test_the_command_writes_them(
        self,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        column: str,
        back: list[object],
    ) -> None:
        """`trace export --column n` over a day holding 2**70: written, no error, no traceback."""
        folder = _day_of(tmp_path / "d", [b"%d" % BIG, b"5", b"null"])
        code = main(
            ["trace", "export", str(folder), "--parquet", str(tmp_path / "o"), "--column", column]
        )
        out = capsys.readouterr()
        assert (code, out.err) == (0, "")
        assert pq.read_table(tmp_path / "o" / "2026-03-01.parquet").column("n").to_pylist() == back


def test_values_a_typed_column_cannot_hold_are_counted_aloud(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found when tried: `--column vi=v:int` wrote nulls without a word. The library warns with
    the count by path; the command prints it as a note (and in --json)."""
    folder = _day_of(tmp_path / "d", [b"%d" % BIG, b"5", b'"five"', b"null"])
    with pytest.warns(
        UserWarning, match=r"^2 value\(s\) not of their column's type .*: data\.n 2$"
    ):
        export_parquet(folder, tmp_path / "o", columns=[ColumnSpec("n", "n", "int")])
    argv = ["trace", "export", str(folder), "--parquet", str(tmp_path / "o"), "--column", "n=n:int"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("note: 2 value(s) not of their column's type")
    assert main([*argv, "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["notes"] == [out.splitlines()[-1][len("note: ") :]]


def test_a_float_column_keeps_inf_in_the_export(tmp_path: Path) -> None:
    """1e400 reads as inf; a float column and the Parquet file keep it (Float64 holds it)."""
    folder = _day_of(tmp_path / "d", [b"1e400", b"-1e400", b"2.5"])
    export_parquet(folder, tmp_path / "o", columns=[ColumnSpec("n", "n", "float")])
    back = pd.read_parquet(tmp_path / "o" / "2026-03-01.parquet")
    assert back["n"].tolist() == [math.inf, -math.inf, 2.5]
    assert back["data"].tolist() == ['{"n":1e400}', '{"n":-1e400}', '{"n":2.5}']


def test_a_dict_frame_writes_inf_as_null_in_data(tmp_path: Path) -> None:
    """JSON has no infinity: from dicts, data's inf is written as null (raw text keeps 1e400)."""
    folder = _day_of(tmp_path / "d", [b"1e400"])
    dicts, _ = read_trace(folder)
    raw, _ = read_trace(folder, data="raw")
    assert events_to_arrow(dicts).column("data").to_pylist() == ['{"n":null}']
    assert events_to_arrow(raw).column("data").to_pylist() == ['{"n":1e400}']


def test_the_readme_tells_cost_by_file_day_from_cost_by_turn_day() -> None:
    """The SQL counts steps by their file's day, costs_by_day by their turn's first day: the
    README's numbers for 2026-11-26 are both right, and the totals agree."""
    events, _ = read_trace(SAMPLE)
    done = events[events["name"] == "eve.step.completed"]
    cost = done["data"].map(lambda d: (d.get("usage") or {}).get("costUsd")).astype(float)
    by_file = cost.groupby(done["day"].astype(str)).sum()
    by_turn = costs_by_day(assemble_turns(events)).set_index("day")["cost_usd"]
    said = re.search(r"(\d{4}-\d\d-\d\d) costs \$([\d.]+) by file and \$([\d.]+) by turn", README)
    assert said is not None
    day, file_cost, turn_cost = said.groups()
    assert f"{by_file[day]:.4f}" == file_cost
    assert f"{by_turn[day]:.4f}" == turn_cost
    assert by_file.sum() == pytest.approx(by_turn.sum())


def test_the_readme_ways_to_parquet_work_and_the_one_it_warns_of_fails(tmp_path: Path) -> None:
    """The README: a frame of dicts does not go through `to_parquet` (pyarrow refuses dicts that
    differ by row); `events_to_arrow` and a `data="raw"` frame do."""
    events, _ = read_trace(SAMPLE)
    with pytest.raises(pa.ArrowInvalid, match="cannot mix struct and non-struct"):
        events.to_parquet(tmp_path / "dicts.parquet")
    pq.write_table(events_to_arrow(events), tmp_path / "arrow.parquet")
    read_trace(SAMPLE, data="raw")[0].to_parquet(tmp_path / "raw.parquet")
    assert len(pd.read_parquet(tmp_path / "raw.parquet")) == len(events)
    assert len(pd.read_parquet(tmp_path / "arrow.parquet")) == len(events)


def test_the_readme_warns_that_to_parquet_of_dicts_can_succeed_and_change_them(
    tmp_path: Path,
) -> None:
    """Found when tried: the README said a frame of dicts does not go by `to_parquet`; on dicts
    of one kind it goes, and each comes back with every key (missing ones None). The README
    says so now, and the export keeps each dict as written."""
    folder = _days_of(tmp_path / "d", {"2026-03-01": [b"1"]})
    day = folder / "2026-03-01.jsonl"
    day.write_bytes(day.read_bytes() + day.read_bytes().replace(b'{"n":1}', b'{"m":2}'))
    events, _ = read_trace(day)
    events.to_parquet(tmp_path / "dicts.parquet")  # no error ...
    back = pd.read_parquet(tmp_path / "dicts.parquet")["data"].tolist()
    assert back[0] != {"n": 1}  # ... and the dicts changed: {"m": None, "n": 1}
    assert "succeeds while changing them" in " ".join(README.split())
    export_parquet(day, tmp_path / "o")
    texts = pd.read_parquet(tmp_path / "o")["data"].tolist()
    assert [orjson.loads(t) for t in texts] == [{"n": 1}, {"m": 2}]


def test_a_column_and_one_under_it_are_exported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found when tried: `--column usage --column cost_usd=usage.costUsd:float` stopped with
    "unexpected TypeError (a bug…)": `usage` held an internal struct, not the usage object."""
    argv = ["trace", "export", str(SAMPLE), "--parquet", str(tmp_path / "o")]
    code = main([*argv, "--column", "usage", "--column", "cost_usd=usage.costUsd:float"])
    assert (code, capsys.readouterr().err) == (0, "")
    table = pq.read_table(sorted((tmp_path / "o").glob("*.parquet"))[0])
    rows = [r for r in table.select(["usage", "cost_usd"]).to_pylist() if r["usage"] is not None]
    assert rows
    assert all(r["cost_usd"] == r["usage"]["costUsd"] for r in rows)


def _days_of(folder: Path, days: dict[str, list[bytes]]) -> Path:
    """Day files whose events hold `{"n": value}`, each value as written."""
    folder.mkdir(parents=True, exist_ok=True)
    line = (
        b'{"ts":"%sT10:00:%02dZ","turn":"t","session":"s","source":"web",'
        b'"kind":"eve","name":"x","data":{"n":%s}}'
    )
    for day, values in days.items():
        (folder / f"{day}.jsonl").write_bytes(
            b"".join(line % (day.encode(), i, v) + b"\n" for i, v in enumerate(values))
        )
    return folder


@pytest.mark.parametrize(
    ("days", "kind", "back"),
    [
        (
            {"2026-03-01": [b"true"], "2026-03-02": [b'"handled"', b"false"]},
            pa.string(),
            ["true", '"handled"', "false"],
        ),
        ({"2026-03-01": [b"1"], "2026-03-02": [b"2.5"]}, pa.float64(), [1.0, 2.5]),
        ({"2026-03-01": [b"null"], "2026-03-02": [b"true"]}, pa.bool_(), [None, True]),
        ({"2026-03-01": [b"5"], "2026-03-02": [b"%d" % BIG]}, pa.decimal128(38, 0), [5, BIG]),
        (
            {"2026-03-01": [b"%d" % (2**53 + 1)], "2026-03-02": [b"2.5"]},
            pa.float64(),
            [float(2**53), 2.5],
        ),
        (
            {"2026-03-01": [b'{"a":1}'], "2026-03-02": [b'{"b":"x","a":2}']},
            pa.struct([("a", pa.int64()), ("b", pa.string())]),
            [{"a": 1, "b": None}, {"a": 2, "b": "x"}],
        ),
    ],
    ids=[
        "bool-and-text",
        "int-and-float",
        "null-and-bool",
        "int-and-big",
        "past-2-53-and-float",
        "objects-of-other-keys",
    ],
)
def test_a_column_typed_by_its_values_has_one_type_in_every_day_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    days: dict[str, list[bytes]],
    kind: object,
    back: list[object],
) -> None:
    """Found when tried: `--column accepted` wrote `bool` on days of booleans and JSON text on
    a day with `"handled"`, and DuckDB and `pd.read_parquet` then refused the export folder.
    Each file now has the type the column has over the whole export."""
    folder = _days_of(tmp_path / "d", days)
    assert (
        main(["trace", "export", str(folder), "--parquet", str(tmp_path / "o"), "--column", "n"])
        == 0
    )
    capsys.readouterr()
    files = sorted((tmp_path / "o").glob("*.parquet"))
    assert [pq.read_schema(f).field("n").type for f in files] == [kind] * len(days)
    got = pd.read_parquet(tmp_path / "o")["n"].tolist()
    assert [
        v if isinstance(v, str | bool | float | dict) or v is None else int(v) for v in got
    ] == back


def _odd_day(folder: Path) -> None:
    """A day with a turn whose subagent alone failed, and steps costing -0.03, 1e400 and 0.01."""
    folder.mkdir(parents=True)
    rows = []

    def row(second: int, session: str, turn: str, name: str, data: str) -> None:
        rows.append(
            f'{{"ts":"2026-10-08T10:00:{second:02d}.000Z","turn":"{turn}","session":"{session}",'
            f'"source":"http","kind":"eve","name":"{name}","data":{data}}}'
        )

    sub = '"subagent":"planner","parentCallId":"c9"'
    row(0, "a", "turn_0", "turn.started", '{"sequence":0}')
    row(1, "a", "turn_0#planner", "step.failed", f'{{"stepIndex":0,"code":"E_SUB",{sub}}}')
    row(2, "a", "turn_0#planner", "turn.failed", f'{{"code":"E_SUB","message":"down",{sub}}}')
    row(3, "a", "turn_0", "turn.completed", '{"sequence":5}')
    for i, cost in enumerate(["-0.03", "1e400", "0.01"]):
        turn = f"turn_{i + 1}"
        usage = f'{{"in":10,"out":5,"costUsd":{cost}}}'
        row(10 + 3 * i, "b", turn, "turn.started", "{}")
        row(11 + 3 * i, "b", turn, "step.completed", f'{{"stepIndex":0,"usage":{usage}}}')
        row(12 + 3 * i, "b", turn, "turn.failed" if i == 2 else "turn.completed", "{}")
    (folder / "2026-10-08.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_the_readme_sql_counts_as_the_turns_frame_does_on_odd_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found when tried: the README's SQL counted a turn failed when only its subagent failed,
    and summed a negative or infinite cost the turns frame reads as unknown."""
    duckdb = pytest.importorskip("duckdb")
    _odd_day(tmp_path / "data" / "trace")
    monkeypatch.chdir(tmp_path)
    assert main(_readme_export()) == 0
    capsys.readouterr()
    per_day, per_session = (duckdb.sql(q).df() for q in _readme_sql())
    events, errors = read_trace(tmp_path / "data" / "trace")
    assert errors == []
    turns = assemble_turns(events)
    by_day = costs_by_day(turns)
    assert per_day["cost_usd"].tolist() == pytest.approx(by_day["cost_usd"].tolist()) == [0.01]
    assert per_day["steps_without_cost"].tolist() == by_day["steps_without_cost"].tolist() == [2]
    failed = turns[turns["status"] == "failed"].groupby("session").size().to_dict()
    assert dict(zip(per_session["session"], per_session["failed_turns"], strict=True)) == failed
    assert failed == {"b": 1}
