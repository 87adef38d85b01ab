"""Trial finding: `simulate … --data /proc/x` played every turn, printed the library's raw log line
`trace write failed: [Errno 2] …` and `trackerkit: no trace could be written …`, and exited 0.
A data folder under which no trace can be made or written is refused before any turn (exit 1);
a trace that still fails during the run is told on one `trackerkit:` line, and exits 1."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]
RUNS = {
    "simulate": ["simulate", str(ROOT / "data" / "scenes" / "fight.json")],
    "eval": ["eval", str(ROOT / "data" / "scenes" / "eval-quiet.json")],
}
NOW = "2027-01-05T12:00:00Z"
MOMENT = datetime(2027, 1, 5, 12, tzinfo=UTC)


def _refusal(root: Path, problem: str) -> str:
    return (
        f"trackerkit: --data {root}: {problem}, so no trace can be written; give a data folder "
        "this user can write, or --no-trace to write none\n"
    )


class TestRefusedBeforeAnyTurn:
    """A data folder whose trace/ cannot be made or written: exit 1, one line, no turn."""

    @pytest.mark.parametrize("command", sorted(RUNS), ids=sorted(RUNS))
    def test_a_folder_refusing_its_scratch_file(
        self,
        command: str,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        """The check asks the operating system (a scratch file), so it holds for root too; here
        the system refuses it, as a read-only mount would."""
        from trackerkit.commands import options

        def refused(*args: object, **kwargs: object) -> object:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(options.tempfile, "TemporaryFile", refused)
        root = tmp_path / "data"
        code, out, err = run_cli(capsys, *RUNS[command], "--data", str(root))
        assert (code, out) == (1, "")
        assert err == _refusal(
            root, f"this user cannot write in its trace folder {root / 'trace'} (Permission denied)"
        )

    @pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
    @pytest.mark.parametrize("command", sorted(RUNS), ids=sorted(RUNS))
    def test_the_trial_folder(self, command: str, capsys: pytest.CaptureFixture[str]) -> None:
        """The trial's `--data /proc/x`: nothing can be made there, root or not."""
        code, out, err = run_cli(capsys, *RUNS[command], "--data", "/proc/x")
        assert (code, out) == (1, "")
        assert err == _refusal(
            Path("/proc/x"),
            "its trace folder /proc/x/trace cannot be made (No such file or directory)",
        )

    @pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes a read-only folder"
    )
    def test_a_folder_this_user_cannot_write(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = tmp_path / "data"
        (root / "trace").mkdir(parents=True)
        (root / "trace").chmod(0o500)
        try:
            code, out, err = run_cli(capsys, *RUNS["simulate"], "--data", str(root))
        finally:
            (root / "trace").chmod(0o700)
        assert (code, out) == (1, "")
        assert err == _refusal(
            root,
            f"this user cannot write in its trace folder {root / 'trace'} (Permission denied)",
        )

    def test_no_trace_asks_for_no_folder(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--no-trace writes nothing, so the folder is not checked."""
        code, _, err = run_cli(capsys, *RUNS["simulate"], "--data", "/proc/x", "--no-trace")
        assert (code, err) == (0, "")


class TestFailedDuringTheRun:
    """The folder was writable, but the day file was not (a folder in its place)."""

    def test_one_line_and_exit_1(self, tmp_path: Path) -> None:
        """Run as a user runs it (no pytest log handler): the library's raw `trace write failed`
        line is held back, and the command's one line gives its reason."""
        day = tmp_path / "trace" / "2027-01-05.jsonl"
        day.mkdir(parents=True)
        argv = [*RUNS["simulate"], "--data", str(tmp_path), "--now", NOW, "--json"]
        done = subprocess.run(
            [sys.executable, "-m", "trackerkit.cli", *argv],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
        assert done.returncode == 1
        assert done.stderr == (
            f"trackerkit: no trace could be written to {day}: the trace day file {day} is a "
            "folder, not a regular file; nothing is written to it (move it away and the next "
            "write makes the file)\n"
        )
        assert done.stdout.startswith("[")  # the turns are still shown

    def test_the_library_still_logs(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
    ) -> None:
        """The command holds the failure back only while it runs: a library user's writer
        logs it as before."""
        from trackerkit.trace import TraceWriter

        (tmp_path / "trace" / "2027-01-05.jsonl").mkdir(parents=True)
        assert run_cli(capsys, *RUNS["simulate"], "--data", str(tmp_path), "--now", NOW)[0] == 1
        assert not logging.getLogger("trackerkit.trace").filters
        with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
            writer = TraceWriter(tmp_path / "other", clock=lambda: MOMENT)
            (tmp_path / "other" / "trace" / "2027-01-05.jsonl").mkdir(parents=True)
            assert writer.write(kind="eve", name="x") is False
        assert "trace write failed" in caplog.text
