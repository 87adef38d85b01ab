"""Trial findings on `trace export`'s words: the usage showed `[--parquet OUT]` as optional, yet
the command answered `trace export needs --parquet OUT`; two `--column`s of one name were
refused as `columns= names 'data.x' twice`, the library's keyword. `--parquet` is required in
the usage, and the refusal speaks of `--column`; Python users keep the library's words."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from trackerkit.errors import BadRequestError
from trackerkit.trace import export_parquet

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "trace"


class TestParquetIsRequired:
    def test_the_usage_shows_it_needed(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as exited:
            run_cli(capsys, "trace", "export", str(SAMPLE))
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert "usage: trackerkit trace export [-h] --parquet OUT" in err
        assert "[--parquet OUT]" not in err
        assert err.splitlines()[-1] == (
            "trackerkit trace export: error: the following arguments are required: --parquet"
        )


class TestColumnNamedTwice:
    @pytest.mark.parametrize(
        ("columns", "name"),
        [(["data.x", "data.x"], "data.x"), (["a=x:int", "a=y"], "a")],
        ids=["a-path-twice", "a-name-twice"],
    )
    def test_the_command_line_words(
        self, columns: list[str], name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        argv = ["trace", "export", str(SAMPLE), "--parquet", str(tmp_path / "o")]
        for column in columns:
            argv += ["--column", column]
        assert run_cli(capsys, *argv) == (
            1,
            "",
            f"trackerkit: --column names {name!r} twice; give each column its own name "
            "(NAME=PATH)\n",
        )
        assert not (tmp_path / "o").exists()

    def test_the_library_keeps_its_words(self, tmp_path: Path) -> None:
        with pytest.raises(BadRequestError, match=r"^columns= names 'data\.x' twice"):
            export_parquet(SAMPLE, tmp_path / "o", columns=["data.x", "data.x"])
