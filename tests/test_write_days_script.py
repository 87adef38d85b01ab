"""`scripts/write_days.py` and `make days`: generated trace days from the command line."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from trackerkit.trace import write, write_days

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "write_days.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_writes_the_days_and_says_what_they_hold(tmp_path: Path) -> None:
    done = _run("--out", str(tmp_path), "--days", "2", "--seed", "5")
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in (tmp_path / "trace").glob("*.jsonl"))
    assert files == ["2026-11-26.jsonl", "2026-11-27.jsonl"]
    lines = done.stdout.splitlines()
    assert lines[0] == f"wrote 2 day files to {tmp_path / 'trace'}:"
    assert lines[1].startswith("  2026-11-26.jsonl ")
    assert lines[2].startswith("  2026-11-27.jsonl ")
    assert "failed" in lines[1]
    assert "steps without cost" in lines[1]
    assert lines[3].startswith("cost: $")
    assert lines[4].startswith("most failed turns: session wrun_")


def test_the_same_seed_writes_the_same_days(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert _run("--out", str(one), "--days", "1", "--seed", "9").returncode == 0
    assert _run("--out", str(two), "--days", "1", "--seed", "9").returncode == 0
    assert (one / "trace" / "2026-11-26.jsonl").read_bytes() == (
        two / "trace" / "2026-11-26.jsonl"
    ).read_bytes()


def test_other_files_of_the_folder_are_left_out_of_the_summary(tmp_path: Path) -> None:
    """Only the days written are summed up; a day file already there is kept and not counted."""
    (tmp_path / "trace").mkdir()
    other = tmp_path / "trace" / "2030-01-01.jsonl"
    other.write_text("not a trace line\n", encoding="utf-8")
    done = _run("--out", str(tmp_path), "--days", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"wrote 1 day file to {tmp_path / 'trace'}:"
    assert "2030-01-01" not in done.stdout
    assert "could not be read back" not in done.stdout
    assert other.read_text(encoding="utf-8") == "not a trace line\n"


def test_no_days_is_a_clear_error(tmp_path: Path) -> None:
    done = _run("--out", str(tmp_path), "--days", "0")
    assert done.returncode == 2
    assert done.stderr.startswith("write_days.py: days=0 writes nothing; ask for at least one day.")
    assert "Traceback" not in done.stderr


def test_an_out_that_is_a_file_is_named(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("x", encoding="utf-8")
    done = _run("--out", str(target))
    assert done.returncode == 2
    assert done.stderr == f"write_days.py: --out {target} is not a folder\n"


def test_make_days_runs_the_script_with_its_settings(tmp_path: Path) -> None:
    """`make days OUT=DIR DAYS=N SEED=S` (dry run: the command it would run)."""
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", "days", f"OUT={tmp_path}", "DAYS=3", "SEED=11"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f'scripts/write_days.py --out "{tmp_path}" --days 3 --seed 11' in done.stdout


REAL = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
"""The real now in the retention tests: after the generated days begin (2026-11-26)."""


def test_a_day_file_already_there_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TC-3: generated past days are not written live, so retention deletes nothing of the
    folder (an assistant's 2026-10-01 stays, as the docstring says other files do)."""
    monkeypatch.setattr(write, "_real_now", lambda: REAL)
    folder = tmp_path / "trace"
    folder.mkdir()
    kept = folder / "2026-10-01.jsonl"
    kept.write_text('{"real": true}\n', encoding="utf-8")
    files = write_days(tmp_path, days=4)
    assert [p.name for p in files][:4] == [f"2026-11-{d}.jsonl" for d in range(26, 30)]
    assert kept.read_text(encoding="utf-8") == '{"real": true}\n'


def test_forty_days_are_forty_days(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TC-3: a writer never deletes a day it wrote, so 40 generated days all stay."""
    monkeypatch.setattr(write, "_real_now", lambda: REAL)
    files = write_days(tmp_path, days=40)
    names = [p.name for p in files]
    assert names[0] == "2026-11-26.jsonl"
    assert "2027-01-04.jsonl" in names
    assert len(names) >= 40
    assert all(p.exists() for p in files)
    assert sorted(p.name for p in (tmp_path / "trace").iterdir()) == names


def test_generated_days_that_reach_today_delete_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TC-3: the sample's writer keeps no retention, so generated days whose range holds the
    real today (where a writer with retention would clean up) leave an old file alone."""
    monkeypatch.setattr(write, "_real_now", lambda: dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC))
    folder = tmp_path / "trace"
    folder.mkdir()
    old = folder / "2026-01-01.jsonl"
    old.write_text('{"real": true}\n', encoding="utf-8")
    write_days(tmp_path, days=4)
    assert old.read_text(encoding="utf-8") == '{"real": true}\n'
