"""Trial atk6, finding 1: a symbolic link that loops stopped `check`, `simulate --data` and
`eval --data` with "unexpected RuntimeError (a bug in trackerkit ...)"; it is said in words."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cli_run import run_cli as _run
from conftest import HEALTH, REPO

from trackerkit.errors import BadRequestError
from trackerkit.simulate import check_data_dir

LOOPS = "is a symbolic link that loops"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with one good tracker and one link to itself."""
    (tmp_path / "health.json").write_bytes(orjson.dumps(HEALTH))
    (tmp_path / "self.json").symlink_to("self.json")
    return tmp_path


def test_check_a_looping_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "check", str(folder / "self.json"))
    assert code == 1
    assert f"{folder / 'self.json'}: {LOOPS}" in out
    assert "unexpected" not in err


def test_check_a_folder_still_reports_its_good_trackers(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "check", str(folder))
    assert code == 1
    assert out.splitlines() == [
        f"{folder / 'self.json'}: {LOOPS} (it leads back to itself); it was not read",
        f"{folder}: 1 of 2 trackers refused",
    ]
    assert err == ""


def test_the_data_folder_loops(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(BadRequestError, match=f"{tmp_path / 'loop'} {LOOPS}"):
        check_data_dir(tmp_path / "loop")


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", str(REPO / "data" / "scenes" / "fight.json")],
        ["eval", str(REPO / "data" / "scenes" / "eval-numbers.json")],
    ],
)
def test_simulate_and_eval_with_a_looping_data_folder(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop").symlink_to("loop")
    code, _, err = _run(capsys, *argv, "--data", str(tmp_path / "loop"))
    assert code == 1
    assert f"{tmp_path / 'loop'} {LOOPS}" in err
    assert "unexpected" not in err
