"""Trial atk6, finding 6: on a stdout that is not UTF-8 (Windows redirecting to a file: cp1252),
every command stopped at the first character that encoding lacks (`'charmap' codec can't
encode ...`, exit 1), leaving `changes --json ... > out.json` empty. Each such character is now
written as a JSON escape (`\\u2615`, a surrogate pair past the BMP): JSON output stays valid JSON
that reads back the same text, and text output stays readable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROW = "Tea ☕ 🍵 café"  # ☕ and 🍵 are not in cp1252 (🍵 is past the BMP); é is


def _run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "TRACKERKIT_DATA": str(cwd)}
    return subprocess.run(
        [sys.executable, "-m", "trackerkit.cli", *argv],
        capture_output=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=120,
    )


@pytest.fixture
def tea(tmp_path: Path) -> Path:
    """A scene whose one turn adds the row `ROW` to Pack."""
    scene = json.loads((ROOT / "data" / "scenes" / "typical.json").read_text(encoding="utf-8"))
    update = {"tracker": "Pack", "row": ROW, "set": {"qty": 1}}
    call = {"name": "update_trackers", "arguments": {"updates": [update]}}
    scene["turns"] = [{"user": "I buy tea.", "calls": [call], "reply": "ok"}]
    path = tmp_path / "tea.json"
    path.write_text(json.dumps(scene), encoding="utf-8")
    return path


class TestNotUtf8Stdout:
    """A cp1252 stdout takes every command's output whole."""

    def test_json_output_parses_and_reads_back_the_names(self, tea: Path) -> None:
        """`changes --json`: valid JSON in cp1252, the row's name read back exactly."""
        done = _run("changes", "--json", str(tea), "--trackers", str(ROOT / "data" / "trackers"))
        assert (done.returncode, done.stderr) == (0, b"")
        text = done.stdout.decode("cp1252")
        assert "\\u2615" in text
        assert "\\ud83c\\udf75" in text  # 🍵 as a surrogate pair, as JSON writes it
        change = json.loads(text)["messages"][0]["trackers"][0]["changes"][0]
        assert change["row"] == ROW

    def test_text_output_escapes_what_it_cannot_show(self, tea: Path) -> None:
        """`changes`: the line is printed, each character cp1252 lacks escaped."""
        done = _run("changes", str(tea), "--trackers", str(ROOT / "data" / "trackers"))
        assert (done.returncode, done.stderr) == (0, b"")
        assert done.stdout.decode("cp1252").splitlines() == [
            "m2  Pack: +Tea \\u2615 \\ud83c\\udf75 café  [card]"
        ]

    def test_the_readme_import_runs_whole(self, tmp_path: Path) -> None:
        """`import --dry-run examples/lorebook.json` (Chinese names) prints its whole report."""
        done = _run("import", "--dry-run", str(ROOT / "examples" / "lorebook.json"), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.decode("cp1252").splitlines()
        assert lines[1] == (
            '  unmapped: entries[0] "\\u4e16\\u754c\\u89c2\\uff1a\\u96fe\\u6e2f\\u9547": not an '
            "[InitVar] entry (lore text, not variables)"
        )
        assert lines[-1] == "dry run: nothing written"

    def test_an_error_on_stderr_is_said_whole(self, tmp_path: Path) -> None:
        """An error naming a file cp1252 cannot show is still one line, exit 1."""
        missing = tmp_path / "☕.json"
        done = _run("prompt", str(missing), cwd=tmp_path)
        assert done.returncode == 1
        said = done.stderr.decode("cp1252")
        assert said.startswith("trackerkit: ")
        assert "\\u2615.json" in said
        assert "codec" not in said
