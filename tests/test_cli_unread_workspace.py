"""A command given the bundled library's files says on stderr that the workspace a save made is
not what it reads (trial nu4, finding 1): after a designer save, `trackerkit prompt
data/scenes/typical.json` priced the bundled trackers, not the edit the apps showed, and said
nothing. Its stdout stays as the README shows it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from cli_run import run_cli

from trackerkit.workspace import BUNDLED, DATA_ENV, in_bundled, unread_workspace, workspace

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
TYPICAL = str(REPO / "data" / "scenes" / "typical.json")


@pytest.fixture
def saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user workspace as the designer's first save leaves it: the bundled library
    copied, then hp's meaning edited there. Returns the workspace folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    home = workspace().for_writing().root
    health = home / "trackers" / "health.json"
    text = health.read_text(encoding="utf-8")
    health.write_text(text.replace('"Hit points."', '"Hit points left."'), encoding="utf-8")
    return home


def _note(err: str) -> list[str]:
    return [line for line in err.splitlines() if "not your workspace" in line]


def _shown(command: str) -> str:
    """The output the README's console block shows under `$ <command>`."""
    block = re.search(rf"^\$ {re.escape(command)}\n(.*?)^```", README, re.MULTILINE | re.DOTALL)
    assert block is not None, command
    return block.group(1)


class TestTheNote:
    def test_prompt_on_the_bundled_scene_names_both_folders_and_the_copy(
        self, saved: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """After a save, `prompt data/scenes/typical.json` still prices the bundled trackers and
        says so in one stderr line naming both folders and the workspace's copy to give."""
        monkeypatch.chdir(REPO)
        code, out, err = run_cli(capsys, "prompt", "data/scenes/typical.json")
        assert code == 0
        assert "hp (number 0 to hp_max: Hit points.)" in out
        copy = saved / "scenes" / "typical.json"
        assert err.splitlines() == [
            f"trackerkit: read the bundled data {BUNDLED}, not your workspace {saved}, which the "
            f"apps read and save to; to read the edits saved there, give the workspace's copy "
            f'instead, such as "{copy}"'
        ]

    def test_the_copy_it_names_reads_the_saved_edit_and_says_nothing(
        self, saved: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Giving the workspace's scene prices the edit, with no note."""
        code, out, err = run_cli(capsys, "prompt", str(saved / "scenes" / "typical.json"))
        assert (code, err) == (0, "")
        assert "hp (number 0 to hp_max: Hit points left.)" in out

    @pytest.mark.parametrize(
        "argv",
        [
            ["changes", "data/scenes/shop.json"],
            ["simulate", "data/scenes/fight.json", "--no-trace"],
            ["eval", "data/scenes/fight.json", "--no-trace"],
            ["check", "data/trackers"],
            ["export", "--to", "openai", "data/scenes/typical.json"],
            ["export", "--to", "wtracker", "data/trackers/stamina.json"],
        ],
        ids=lambda argv: " ".join(argv),
    )
    def test_every_command_reading_the_bundled_library_says_it_once(
        self,
        argv: list[str],
        saved: Path,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """Each command given the bundled library's files prints the note once, on stderr."""
        monkeypatch.chdir(REPO)
        _code, out, err = run_cli(capsys, *argv)
        assert len(_note(err)) == 1
        assert str(saved) in _note(err)[0]
        assert "not your workspace" not in out

    def test_a_bundled_tracker_folder_is_named_by_its_option(
        self,
        saved: Path,
        capsys: pytest.CaptureFixture[str],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """`--trackers data/trackers` for a scene of another folder: the note says to give the
        workspace's tracker folder with --trackers."""
        scene = tmp_path / "mine" / "scenes" / "typical.json"
        scene.parent.mkdir(parents=True)
        shutil.copy(TYPICAL, scene)
        monkeypatch.chdir(REPO)
        code, _out, err = run_cli(capsys, "prompt", str(scene), "--trackers", "data/trackers")
        assert code == 0
        assert _note(err)[0].endswith(f'such as --trackers "{saved / "trackers"}"')

    def test_a_scene_the_workspace_lacks_points_at_its_trackers(
        self, saved: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A bundled scene the workspace has no copy of (added to data/ after the save): the note
        names the workspace's tracker folder, which it does hold."""
        (saved / "scenes" / "typical.json").unlink()
        code, _out, err = run_cli(capsys, "prompt", TYPICAL)
        assert code == 0
        assert _note(err)[0].endswith(f'such as --trackers "{saved / "trackers"}"')


class TestNoNote:
    def test_no_workspace_yet(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Before any save the apps read the bundled data too: nothing to say."""
        assert run_cli(capsys, "prompt", TYPICAL)[2] == ""

    def test_the_variable_chose_the_folder(
        self,
        saved: Path,
        capsys: pytest.CaptureFixture[str],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """With TRACKERKIT_DATA set the apps read that folder, not the workspace: no note."""
        monkeypatch.setenv(DATA_ENV, str(tmp_path / "mine"))
        assert run_cli(capsys, "prompt", TYPICAL)[2] == ""

    def test_the_data_option_chose_the_folder(
        self, saved: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """`simulate --data DIR`: the person chose the data folder; no note."""
        fight = str(REPO / "data" / "scenes" / "fight.json")
        code, _out, err = run_cli(capsys, "simulate", fight, "--data", str(tmp_path / "d"))
        assert code == 0
        assert _note(err) == []

    def test_files_outside_the_bundled_library(
        self, saved: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`check examples/broken.json` reads no bundled library file: no note."""
        _code, _out, err = run_cli(capsys, "check", str(REPO / "examples" / "broken.json"))
        assert _note(err) == []


class TestReadmeOutput:
    @pytest.mark.parametrize(
        "command",
        ["trackerkit prompt data/scenes/typical.json", "trackerkit changes data/scenes/shop.json"],
    )
    @pytest.mark.parametrize("made", [False, True], ids=["no workspace", "a saved workspace"])
    def test_stdout_is_what_the_readme_shows(
        self,
        command: str,
        made: bool,
        capsys: pytest.CaptureFixture[str],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """The README's examples print what it shows on stdout, a workspace there or not."""
        if made:
            monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
            workspace().for_writing()
        monkeypatch.chdir(REPO)
        code, out, _err = run_cli(capsys, *command.split()[1:])
        assert (code, out) == (0, _shown(command))


class TestUnreadWorkspace:
    def test_none_until_a_save_made_the_workspace(self, saved: Path, tmp_path: Path) -> None:
        """The workspace once it holds a library; None with the variable set."""
        assert unread_workspace({}) == saved
        assert unread_workspace({DATA_ENV: str(tmp_path)}) is None

    def test_none_without_a_workspace(self) -> None:
        """No save yet: None."""
        assert unread_workspace({}) is None


class TestInBundled:
    @pytest.mark.parametrize(
        ("path", "part"),
        [
            ("scenes/typical.json", Path("scenes/typical.json")),
            ("trackers", Path("trackers")),
            ("trackers/../scenes", Path("scenes")),
            ("trace/2026-11-26.jsonl", None),
            (".", None),
        ],
        ids=["a scene", "the tracker folder", "through ..", "a sample day", "the folder itself"],
    )
    def test_only_the_library_counts(self, path: str, part: Path | None) -> None:
        """Paths in the bundled trackers/ and scenes/ are found, resolved; the trace is not."""
        assert in_bundled(BUNDLED / path) == part
