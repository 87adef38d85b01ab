"""Trial atk6, finding 5: `simulate … --data FILE` and `eval … --data FILE` played every turn and
exited 0 with no trace written (`trace write failed: [Errno 20] Not a directory`). A data
folder under which no trace folder can be made is refused before any turn, in words, exit 1;
the apps, which never stop a turn for the trace, keep TC-20 (their folder is `Workspace`'s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.workspace import Workspace, trace_root

ROOT = Path(__file__).resolve().parents[1]
RUNS = {
    "simulate": ["simulate", str(ROOT / "data" / "scenes" / "fight.json")],
    "eval": ["eval", str(ROOT / "data" / "scenes" / "eval-numbers.json")],
}


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("not a folder\n")
    return path


class TestDataIsFile:
    """`--data` (or TRACKERKIT_DATA) naming a file, or a folder whose trace/ is a file."""

    @pytest.mark.parametrize("command", sorted(RUNS), ids=sorted(RUNS))
    def test_a_file_is_refused_before_any_turn(
        self, command: str, a_file: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Exit 1, one line naming the file and what to give; no turn is played."""
        assert main([*RUNS[command], "--data", str(a_file)]) == 1
        out, err = capsys.readouterr()
        assert out == ""
        assert err == (
            f"trackerkit: --data {a_file} is a file, not a folder, so no trace can be written "
            "under it; give a data folder (its trace/ receives the day files)\n"
        )

    def test_a_trace_that_is_a_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The data folder is a folder, but its trace/ is a file."""
        (tmp_path / "trace").write_text("")
        assert main([*RUNS["simulate"], "--data", str(tmp_path)]) == 1
        assert capsys.readouterr().err == (
            f"trackerkit: --data {tmp_path}: its trace folder {tmp_path / 'trace'} is a file, "
            "not a folder, so no trace can be written there; move that file away or give "
            "another data folder\n"
        )

    def test_a_folder_under_a_file(self, a_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A folder to be made under a file cannot be made."""
        assert main([*RUNS["eval"], "--data", str(a_file / "data")]) == 1
        assert capsys.readouterr().err == (
            f"trackerkit: --data {a_file / 'data'}: {a_file} is a file, not a folder, so no "
            "trace can be written under it; give a data folder (its trace/ receives the day "
            "files)\n"
        )

    def test_the_variable_names_a_file(
        self, a_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """TRACKERKIT_DATA naming a file is refused the same way, naming the variable."""
        monkeypatch.setenv("TRACKERKIT_DATA", str(a_file))
        assert main(RUNS["simulate"]) == 1
        assert capsys.readouterr().err.startswith(f"trackerkit: TRACKERKIT_DATA {a_file} is a file")

    def test_a_folder_still_runs(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A folder not made yet is made, and the trace written into it."""
        assert main([*RUNS["simulate"], "--data", str(tmp_path / "new")]) == 0
        assert "trace written to" in capsys.readouterr().err
        assert list((tmp_path / "new" / "trace").glob("*.jsonl"))


class TestTraceRoot:
    """The rule's function refuses; the apps' `Workspace.trace_root` does not (TC-20)."""

    def test_the_function_refuses(self, a_file: Path) -> None:
        with pytest.raises(BadRequestError, match="is a file, not a folder"):
            trace_root({"data": str(a_file)}, {})

    def test_the_apps_workspace_does_not(self, a_file: Path) -> None:
        assert Workspace(a_file, "option").trace_root == a_file
