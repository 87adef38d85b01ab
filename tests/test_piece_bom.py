"""Tracker and scene files opening with a UTF-8 byte order mark are read (RFC 8259 8.1).

Before, `check` and `simulate` refused such files as not JSON, while the trace reader and the
importers skipped the mark.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from conftest import DATA_TRACKERS

from trackerkit._pieces import read_piece_file
from trackerkit.cli import main
from trackerkit.library import Library, read_piece
from trackerkit.scene import load_scene

BOM = b"\xef\xbb\xbf"
SCENES = DATA_TRACKERS.parent / "scenes"


def _with_bom(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(BOM + source.read_bytes())
    return target


def test_one_mark_is_skipped_two_are_not(tmp_path: Path) -> None:
    """Only one leading mark is skipped: a second is the document's own (and not JSON)."""
    path = tmp_path / "x.json"
    path.write_bytes(BOM + b"{}")
    assert read_piece_file(path) == (b"{}", None)
    path.write_bytes(BOM + BOM + b"{}")
    assert read_piece_file(path) == (BOM + b"{}", None)


def test_tracker_with_a_mark(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`check` and the library read a piece that opens with the mark."""
    path = _with_bom(DATA_TRACKERS / "health.json", tmp_path / "trackers" / "health.json")
    assert read_piece(path).ok
    assert Library(tmp_path / "trackers").get("health") == Library(DATA_TRACKERS).get("health")
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().err == ""


def test_scene_with_a_mark(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`simulate` plays a scene file that opens with the mark, its trackers marked too."""
    scene = orjson.loads((SCENES / "branching.json").read_bytes())
    for tracker_id in scene["prompting"]["trackers"]:
        name = f"{tracker_id}.json"
        _with_bom(DATA_TRACKERS / name, tmp_path / "trackers" / name)
    path = _with_bom(SCENES / "branching.json", tmp_path / "scenes" / "branching.json")
    assert load_scene(path).id == "branching"
    code = main(["simulate", str(path), "--trackers", str(tmp_path / "trackers"), "--no-trace"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out
