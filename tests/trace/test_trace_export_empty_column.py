"""An integrator's report: `trace export --parquet OUT --column bogus` wrote an all-null `bogus`
column without a word. A path no event's data has is now a note line, beside the export's other
notes (in the JSON's `notes` with --json)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest

from trackerkit.cli import main
from trackerkit.trace import ColumnSpec
from trackerkit.trace.export import export_parquet

SAMPLE = Path(__file__).parents[2] / "data" / "trace"
BOGUS = "note: no event's data has the path 'bogus'; its column is empty\n"


def _day_of(folder: Path, datas: list[bytes]) -> Path:
    """A day whose events hold each of `datas` as their data, as written."""
    folder.mkdir(parents=True, exist_ok=True)
    line = (
        b'{"ts":"2026-03-01T10:00:%02dZ","turn":"t","session":"s","source":"web",'
        b'"kind":"eve","name":"x","data":%s}'
    )
    (folder / "2026-03-01.jsonl").write_bytes(
        b"".join(line % (i, data) + b"\n" for i, data in enumerate(datas))
    )
    return folder


class TestTheCommand:
    """`trace export --column PATH` over days where no event has PATH."""

    def test_a_path_no_event_has_is_a_note(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """One note line after the summary, exit 0, and the column is still written (all null)."""
        argv = ["trace", "export", str(SAMPLE), "--parquet", str(tmp_path), "--column", "bogus"]
        assert main(argv) == 0
        out = capsys.readouterr()
        assert (out.err, out.out.splitlines()[-1] + "\n") == ("", BOGUS)
        table = pq.read_table(tmp_path / "2026-11-26.parquet")
        assert table.column("bogus").null_count == table.num_rows

    def test_a_named_column_is_named(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`NAME=PATH:TYPE` names the path and the column; a path events have says nothing."""
        argv = ["trace", "export", str(SAMPLE), "--parquet", str(tmp_path)]
        argv += ["--column", "cost=usage.nothere:float", "--column", "usage.costUsd"]
        assert main(argv) == 0
        notes = [line for line in capsys.readouterr().out.splitlines() if "note:" in line]
        assert notes == [
            "note: no event's data has the path 'usage.nothere'; its column 'cost' is empty"
        ]

    def test_json_lists_it_among_the_notes(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """With --json the note is among the JSON's notes, as the export's other notes are."""
        argv = ["trace", "export", str(SAMPLE), "--parquet", str(tmp_path), "--column", "bogus"]
        assert main([*argv, "--json"]) == 0
        out = capsys.readouterr()
        assert out.err == ""
        assert orjson.loads(out.out)["notes"] == [BOGUS[len("note: ") : -1]]

    def test_a_path_holding_null_is_had(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A path every event has as `null` is not a path no event has: no note."""
        folder = _day_of(tmp_path / "d", [b'{"n":null}', b'{"n":null}'])
        argv = ["trace", "export", str(folder), "--parquet", str(tmp_path / "o"), "--column", "n"]
        assert main(argv) == 0
        assert "note:" not in capsys.readouterr().out

    def test_values_of_another_type_are_not_a_missing_path(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A typed column left empty by values of another kind gets their note only."""
        folder = _day_of(tmp_path / "d", [b'{"n":"five"}', b"{}"])
        argv = ["trace", "export", str(folder), "--parquet", str(tmp_path / "o")]
        assert main([*argv, "--column", "n=n:int"]) == 0
        out = capsys.readouterr()
        assert [line for line in out.out.splitlines() if "note:" in line] == [
            "note: 1 value(s) not of their column's type were written as the column's default "
            "(null unless its spec sets one), by path: data.n 1",
        ]


class TestTheLibrary:
    """`export_parquet` warns of a path no event has, as it warns of values it cannot hold."""

    def test_it_warns_by_path(self, tmp_path: Path) -> None:
        """A UserWarning carries the sentence the command prints."""
        folder = _day_of(tmp_path / "d", [b'{"n":1}'])
        with pytest.warns(UserWarning, match=f"^{BOGUS[len('note: ') : -1]}$"):
            export_parquet(
                folder, tmp_path / "o", columns=["n", ColumnSpec("bogus", "bogus", "int")]
            )
