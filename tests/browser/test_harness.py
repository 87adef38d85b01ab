"""The harness catches what a person would see go wrong: it is tried on an app that breaks.

A tiny app whose cell raises is served both ways (`marimo run`, `marimo edit` with its cells run
on opening); the harness must find the traceback in the server's log and the marimo error on
the page. The test reads and clears those findings itself, so it passes only when both were seen.
The rerun of a timed-out journey is tried on tests that time out and fail on purpose.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import MARIMO, RERUN, Watch

BROKEN = """
import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo

    mo.md("# Broken on purpose")
    return


@app.cell
def _():
    1 / 0
    return


if __name__ == "__main__":
    app.run()
"""


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """The broken app, beside a pyproject.toml that runs its cells when `marimo edit` opens it."""
    (tmp_path / "pyproject.toml").write_text("[tool.marimo.runtime]\nauto_instantiate = true\n")
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    return path


@pytest.mark.parametrize(
    ("mode", "on_page", "in_log"),
    [
        (
            "run",
            "toast: An internal error occurred",
            True,
        ),  # `marimo run` logs it and hides the cell
        ("edit", "cell error output", False),  # `marimo edit` shows it in the cell, not in the log
    ],
)
def test_a_cell_that_raises_is_caught_in_the_log_and_on_the_page(
    mode: str,
    on_page: str,
    in_log: bool,
    broken: Path,
    launch: Callable[..., str],
    free_port: Callable[[], int],
    open_page: Callable[[str, str], Any],
    watch: Watch,
) -> None:
    """The page's marimo error is reported, and under `marimo run` the server's traceback too."""
    port = free_port()
    command = [
        str(MARIMO),
        mode,
        str(broken),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--headless",
    ]
    url = launch([*command, "--no-token"] if mode == "edit" else command, port, f"broken-{mode}")
    page = open_page(url, "Broken on purpose")
    page.get_by_text(
        "ZeroDivisionError" if mode == "edit" else "An internal error occurred"
    ).first.wait_for()

    found: list[str] = []
    for _ in range(240):  # the log and the page report on their own time; keep what arrives
        found += watch.problems()
        logged = any(
            "server log" in f and "Traceback" in f and "ZeroDivisionError" in f for f in found
        )
        if logged == in_log and any(on_page in f for f in found):
            break
        page.wait_for_timeout(250)
    assert any(on_page in f for f in found), found
    if in_log:
        assert any(
            "server log" in f and "Traceback" in f and "ZeroDivisionError" in f for f in found
        ), found


def test_a_change_to_the_bundled_data_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tracker or scene file written, changed or removed while a test ran is reported, once."""
    from . import conftest as harness

    for folder in ("trackers", "scenes"):
        (tmp_path / "data" / folder).mkdir(parents=True)
    tracker = tmp_path / "data" / "trackers" / "a.json"
    tracker.write_text("{}")
    monkeypatch.setattr(harness, "ROOT", tmp_path)
    watch = harness.Watch(bundled=harness._bundled_files())
    assert watch.problems() == []
    tracker.write_text('{"changed": true}')
    (tmp_path / "data" / "scenes" / "new.json").write_text("{}")
    assert watch.problems() == [
        "an app changed the repository's bundled data: data/scenes/new.json, data/trackers/a.json"
    ]
    assert watch.problems() == []
    tracker.unlink()
    assert watch.problems() == [
        "an app changed the repository's bundled data: data/trackers/a.json"
    ]


RERUN_TRIAL = """
import pytest
from pathlib import Path

MARK = pytest.mark.flaky(**{kwargs!r})
TRIES = Path(__file__).with_name("tries")


def _tried(name):
    tries = TRIES / name
    tries.parent.mkdir(exist_ok=True)
    tries.write_text(tries.read_text() + "." if tries.exists() else ".")
    return len(tries.read_text())


class TimeoutError(Exception):  # named as Playwright's is (reported module-qualified by some versions)
    pass


@MARK
def test_times_out_once():
    if _tried("once") == 1:
        raise TimeoutError("Locator.click: Timeout 60000ms exceeded.")


@MARK
def test_times_out_always():
    _tried("always")
    raise TimeoutError("Locator.click: Timeout 60000ms exceeded.")


@MARK
def test_asserts():
    _tried("asserts")
    assert False, "the page shows the wrong value"
"""


def test_a_timed_out_journey_runs_once_more_and_nothing_else_does(tmp_path: Path) -> None:
    """A timeout is run again once (passing the second time passes, twice fails); an assertion is not."""
    (tmp_path / "test_trial.py").write_text(RERUN_TRIAL.format(kwargs=RERUN.kwargs))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    tries = {
        name: len((tmp_path / "tries" / name).read_text()) for name in ("once", "always", "asserts")
    }
    assert tries == {"once": 2, "always": 2, "asserts": 1}, run.stdout
    assert "2 failed, 1 passed, 2 rerun" in run.stdout, run.stdout
