"""What a command prints shows control characters as escapes: text from files, models and servers
never drives the terminal (an attack trial: a row name of `ESC[41m` coloured it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from trackerkit.cli import main

DATA = Path(__file__).parents[1] / "data"


def test_a_row_name_with_escape_codes_prints_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(DATA / "trackers", tmp_path / "trackers")
    scene = json.loads((DATA / "scenes" / "shop.json").read_text())
    scene["turns"] = scene["turns"][:1]
    scene["turns"][0]["calls"][0]["arguments"]["updates"][0]["row"] = "\x1b[41mRope\x1b[0m\u202e"
    scene["turns"][0].pop("expect", None)
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "shop.json").write_text(json.dumps(scene))
    assert main(["simulate", str(tmp_path / "scenes" / "shop.json"), "--no-trace"]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err
    assert "\u202e" not in out + err
    assert "+\\x1b[41mRope\\x1b[0m\\u202e" in out
    assert main(["simulate", str(tmp_path / "scenes" / "shop.json"), "--no-trace", "--json"]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown
    assert "\\u001b[41mRope" in shown  # JSON writes it escaped itself, and is left as it is


def test_an_error_with_escape_codes_prints_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "\x1b[31mred.json"
    assert main(["check", str(missing)]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "\\x1b[31mred.json" in err
