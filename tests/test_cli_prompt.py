"""The `trackerkit prompt SCENE` command: block, tool lines and token table (TR-28, TR-36)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import DATA_TRACKERS, REPO
from unopened import never_opened

from trackerkit.cli import build_parser, main

TYPICAL = REPO / "data" / "scenes" / "typical.json"

TYPICAL_OUTPUT = """\
### Trackers
Health: hp=0, hp_max=30, mood=calm
Pack: (none)
Scene: time=day, danger=safe

update_trackers: one line per tracker
Health (record): hp (number 0 to hp_max: Hit points.), hp_max (number from 1: Most hit points.), mood (calm|tense: How she feels.). Lower hp when Vera is hurt.
Pack (list): qty (number from 0: How many she has.), worn (true/false: Worn or held ready.). Add what she picks up; remove what is gone.
Scene (record): time (dawn|day|dusk|night: Part of the day.), danger (safe|uneasy|deadly: How dangerous it is now.). Move time on as hours pass.

part                             tokens (cl100k_base)
block                                34
tool (description + parameters)     305
tool without meanings               272
anyOf alternative                   387
card                                 57
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["prompt", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _scene(folder: Path, trackers: list[str], card: str = "Hello {{user}}.") -> Path:
    path = folder / "data" / "scenes" / "s.json"
    path.parent.mkdir(parents=True)
    scene = {"id": "s", "title": "S", "card": card, "prompting": {"trackers": trackers}}
    path.write_text(json.dumps(scene))
    return path


class TestText:
    """The terminal output."""

    def test_typical_scene_exact_output(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The typical scene prints its block, one tool line per tracker and the token table."""
        assert _run(capsys, str(TYPICAL)) == (0, TYPICAL_OUTPUT, "")

    def test_trackers_folder_option(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """`--trackers DIR` reads the pieces from that folder instead of the one beside the scene."""
        folder = tmp_path / "elsewhere"
        shutil.copytree(DATA_TRACKERS, folder)
        scene = tmp_path / "typical.json"
        shutil.copy(TYPICAL, scene)
        assert _run(capsys, str(scene), "--trackers", str(folder)) == (0, TYPICAL_OUTPUT, "")

    def test_default_folder_is_beside_the_scenes_folder(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Without `--trackers` the pieces come from `<scene>/../../trackers`."""
        scene = _scene(tmp_path, ["pack"])
        (tmp_path / "data" / "trackers").mkdir()
        shutil.copy(DATA_TRACKERS / "pack.json", tmp_path / "data" / "trackers")
        code, out, _ = _run(capsys, str(scene))
        assert code == 0
        assert out.startswith(
            "### Trackers\nPack: (none)\n\nupdate_trackers: one line per tracker\n"
        )

    def test_no_linked_tracker(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A scene with no linked tracker says there is no block and counts only the card."""
        scene = _scene(tmp_path, [])
        (tmp_path / "data" / "trackers").mkdir()
        assert _run(capsys, str(scene)) == (
            0,
            "(no ### Trackers block: no linked tracker has text)\n\n"
            "part   tokens (cl100k_base)\n"
            "block       0\n"
            "card        3\n",
            "",
        )

    def test_left_out_and_macro_errors(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A tracker a turn leaves out is named on stderr; the card's macro errors are listed."""
        scene = _scene(tmp_path, ["pack", "gone"], card="{{tracker::Pack::Rope::qty}}")
        (tmp_path / "data" / "trackers").mkdir()
        shutil.copy(DATA_TRACKERS / "pack.json", tmp_path / "data" / "trackers")
        code, out, err = _run(capsys, str(scene))
        assert code == 0
        assert err == "trackerkit: left out gone: the piece is gone from the library\n"
        assert 'macro errors:\n  {{tracker::Pack::Rope::qty}} at 0: Pack has no row "Rope"\n' in out

    def test_unsafe_links_are_left_out_unread(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """TR-25: a FIFO piece and an id out of the folder are left out with reasons; no hang."""
        scene = _scene(tmp_path, ["pack", "x", "../../secret"])
        trackers = tmp_path / "data" / "trackers"
        trackers.mkdir()
        shutil.copy(DATA_TRACKERS / "pack.json", trackers)
        os.mkfifo(trackers / "x.json")
        (tmp_path / "secret.json").write_text('{"secretKey": 1}')
        with never_opened(monkeypatch, trackers / "x.json", tmp_path / "secret.json"):
            code, out, err = _run(capsys, str(scene))
        assert code == 0
        assert out.startswith("### Trackers\nPack: (none)\n")
        assert err == (
            "trackerkit: left out x: its file x.json is a FIFO, not a regular file; it was not read\n"
            "trackerkit: left out ../../secret: it was not read: '../../secret' is not a tracker id "
            "(1 to 128 letters, digits, - and _, starting with a letter or digit)\n"
        )


class TestJson:
    """`--json`: the same as plain data."""

    def test_typical_scene(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The JSON holds the block, the tool's name and lines, errors, encoding and tokens."""
        code, out, _ = _run(capsys, str(TYPICAL), "--json")
        assert code == 0
        data = json.loads(out)
        assert data["block"] == TYPICAL_OUTPUT.split("\n\n")[0]
        assert data["tool"] == "update_trackers"
        assert list(data["lines"]) == ["Health", "Pack", "Scene"]
        assert data["errors"] == []
        assert data["encoding"] == "cl100k_base"
        assert data["tokens"] == {
            "block": 34,
            "card": 57,
            "tool": 305,
            "without_meanings": 272,
            "anyof": 387,
        }


class TestErrors:
    """Failures are one line on stderr and exit 1."""

    def test_missing_scene(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A scene file that is not there is one line naming it."""
        missing = tmp_path / "nope.json"
        assert _run(capsys, str(missing)) == (
            1,
            "",
            f"trackerkit: no scene file at {missing}\n",
        )

    def test_missing_trackers_folder(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A tracker folder that is not there is one line that names it and the option."""
        scene = _scene(tmp_path, ["pack"])
        folder = tmp_path / "data" / "trackers"
        assert _run(capsys, str(scene)) == (
            1,
            "",
            f"trackerkit: no tracker folder at {folder}; pass --trackers DIR\n",
        )

    def test_documented(self) -> None:
        """The command has help text and a description."""
        help_text = build_parser().format_help()
        assert "prompt" in help_text
        assert "token costs" in help_text
