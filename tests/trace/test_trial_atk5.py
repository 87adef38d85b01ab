"""An attacker's trial on this round's trace changes (atk5): `--column PATH:TYPE`, a file read
twice under two names, a failed step's usage in the cumulative curve, and shares rounded to
0% or 100%."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest

from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.trace import assemble_turns, costs_by_day, export_parquet, read_trace
from trackerkit.trace.costs import cost_summary, share_text
from trackerkit.trace.plots import tokens_over_day

SAMPLE = Path(__file__).parents[2] / "data" / "trace"
DAY = "2026-11-27"


class TestColumnOption:
    def test_path_colon_type_is_a_typed_column(self, tmp_path: Path) -> None:
        """`--column usage.in:int` (the usage line's `PATH:TYPE`) wrote an all-null column
        named 'usage.in:int', said nothing and exited 0."""
        out = tmp_path / "out"
        argv = ["trace", "export", str(SAMPLE / f"{DAY}.jsonl"), "--parquet", str(out)]
        assert main([*argv, "--column", "usage.in:int"]) == 0
        table = pq.read_table(out / f"{DAY}.parquet")
        column = table.column("usage.in")
        assert str(column.type) == "int64"
        assert column.null_count < len(column)

    @pytest.mark.parametrize(
        ("value", "why"),
        [
            ("a=b=c", "a NAME= comes once"),
            ("usage.in:INT", "'INT' is no type"),
            ("x=a:weird", "'weird' is no type"),
            ("x=:int", "it names no path"),
            ("=usage.in", "the NAME before = is empty"),
        ],
    )
    def test_a_malformed_column_is_refused_in_words(
        self, value: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        argv = ["trace", "export", str(SAMPLE), "--parquet", str(tmp_path), "--column", value]
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2
        err = capsys.readouterr().err
        assert why in err
        assert "Traceback" not in err


class TestOneReadAFile:
    def test_a_file_named_two_ways_is_read_once(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """read_trace(["trace", "trace/../trace"]) or a folder plus one of its files by its
        absolute path read every event twice (the cost went from $1.14 to $1.51)."""
        folder = tmp_path / "trace"
        shutil.copytree(SAMPLE, folder)
        (tmp_path / "link").symlink_to(folder)
        monkeypatch.chdir(tmp_path)
        once, _ = read_trace("trace")
        total = costs_by_day(assemble_turns(once))["cost_usd"].sum()
        for names in (
            ["trace", "trace/../trace"],
            ["trace", os.path.abspath(f"trace/{DAY}.jsonl")],
            ["trace", "link"],
        ):
            events, _ = read_trace(names)
            assert len(events) == len(once), names
            assert costs_by_day(assemble_turns(events))["cost_usd"].sum() == pytest.approx(total)
        alone, _ = read_trace(f"trace/{DAY}.jsonl")
        both, _ = read_trace([f"link/{DAY}.jsonl", f"trace/{DAY}.jsonl"])
        assert len(both) == len(alone)


class TestFailedStepUsage:
    def test_the_curve_counts_completed_steps_as_the_turns_do(self, tmp_path: Path) -> None:
        """A step.failed carrying usage (outside the contract) was in the cumulative curve
        ($0.51) and not in the day's total ($0.01)."""
        head = {"turn": "turn_0", "session": "wrun_0", "source": "http", "kind": "eve"}
        lines = [
            head | {"name": "turn.started", "data": {"sequence": 0}},
            head
            | {
                "name": "step.completed",
                "data": {"stepIndex": 0, "usage": {"in": 100, "out": 10, "costUsd": 0.01}},
            },
            head
            | {
                "name": "step.failed",
                "data": {"stepIndex": 1, "code": "E", "usage": {"in": 5000, "costUsd": 0.5}},
            },
            head | {"name": "turn.failed", "data": {"code": "E"}},
        ]
        text = "".join(
            json.dumps({"ts": f"{DAY}T10:00:0{i}.000Z"} | line, separators=(",", ":")) + "\n"
            for i, line in enumerate(lines)
        )
        (tmp_path / f"{DAY}.jsonl").write_text(text)
        events, _ = read_trace(tmp_path)
        day = costs_by_day(assemble_turns(events)).iloc[0]
        figure = tokens_over_day(events)
        ends = {trace.name: float(trace.y[-1]) for trace in figure.data}
        assert ends["cost (USD)"] == pytest.approx(day["cost_usd"]) == pytest.approx(0.01)
        assert ends["tokens in"] == day["tokens_in"] == 100


class TestShares:
    def test_a_share_is_never_rounded_to_none_or_all(self) -> None:
        """'199 steps (100%) carry no cost' beside 'over 1 of 200 steps', and '1 step (0%)'."""
        assert share_text(199, 200) == ">99%"
        assert share_text(1, 2000) == "<1%"
        assert share_text(200, 200) == "100%"
        assert share_text(1, 3) == "33%"
        turns = pd.DataFrame({"cost_usd": [0.5], "steps": [200], "steps_without_cost": [199]})
        assert "199 steps (>99%) carry no cost" in cost_summary(turns)


class TestExportOfOneDayTwice:
    def test_two_files_of_one_day_are_refused_before_any_write(self, tmp_path: Path) -> None:
        """Two folders holding the same day: the second file was written over the first (its
        290 rows lost without a word)."""
        for name, lines in (("a", None), ("b", 5)):
            (tmp_path / name).mkdir()
            text = (SAMPLE / f"{DAY}.jsonl").read_text(encoding="utf-8").splitlines(True)
            (tmp_path / name / f"{DAY}.jsonl").write_text("".join(text[:lines]), encoding="utf-8")
        out = tmp_path / "out"
        argv = ["trace", "export", str(tmp_path / "a"), "--parquet", str(out)]
        assert main(argv) == 0
        before = pq.read_table(out / f"{DAY}.parquet").num_rows
        with pytest.raises(BadRequestError, match="2 files would be written to"):
            export_parquet([tmp_path / "a", tmp_path / "b"], out)
        assert pq.read_table(out / f"{DAY}.parquet").num_rows == before
        assert pq.read_table(out / f"{DAY}.parquet").num_rows == 290


class TestYearOne:
    def test_trace_days_and_show_write_four_digits_of_year(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`trace days` printed year 1 as `1-01-01` (strftime's %Y)."""
        head = {"turn": "turn_0", "session": "wrun_0", "source": "http", "kind": "eve"}
        line = {"ts": "0001-01-01T00:00:01.000Z"} | head | {"name": "turn.started", "data": {}}
        (tmp_path / "0001-01-01.jsonl").write_text(json.dumps(line, separators=(",", ":")) + "\n")
        assert main(["trace", "days", str(tmp_path)]) == 0
        assert "0001-01-01 00:00:01 0001-01-01 00:00:01" in capsys.readouterr().out
        assert main(["trace", "show", "turn_0", "--dir", str(tmp_path)]) == 0
        assert "wrun_0/turn_0  0001-01-01 00:00:01 UTC" in capsys.readouterr().out
