"""`simulate --now` into a folder holding an assistant's real journal deletes none of it (TC-3).

Retention counts from the real clock and runs only while a writer writes the real today's file;
a simulated clock a month ahead is not today.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import REPO

from trackerkit.cli import main
from trackerkit.trace import write

FIGHT = str(REPO / "data" / "scenes" / "fight.json")
REAL = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
JOURNAL = ["2026-10-01.jsonl", "2026-11-20.jsonl", "2026-12-01.jsonl"]


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and XDG_DATA_HOME in a scratch folder; no data folder named by the environment."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for name in ("ASSISTANT_DATA_DIR", "ASSISTANT_TIMEZONE", "TRACKERKIT_DATA"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.usefixtures("user_home")
@pytest.mark.parametrize("place", ["--data", "ASSISTANT_DATA_DIR"])
def test_a_simulated_day_ahead_keeps_the_real_days(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    place: str,
) -> None:
    monkeypatch.setattr(write, "_real_now", lambda: REAL)
    folder = tmp_path / "rep" / "trace"
    folder.mkdir(parents=True)
    for name in JOURNAL:
        (folder / name).write_text('{"real": true}\n', encoding="utf-8")
    where = ["--data", str(tmp_path / "rep")]
    if place == "ASSISTANT_DATA_DIR":
        monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path / "rep"))
        where = []
    code = main(["simulate", FIGHT, *where, "--now", "2027-01-15T12:00:00Z", "--json"])
    _, err = capsys.readouterr()
    assert code == 0
    assert err == f"trackerkit: trace written to {folder / '2027-01-15.jsonl'}\n"
    assert sorted(p.name for p in folder.iterdir()) == [*JOURNAL, "2027-01-15.jsonl"]
    for name in JOURNAL:
        assert (folder / name).read_text(encoding="utf-8") == '{"real": true}\n'
