"""`make run` opens computed notebooks (issue 13, item 1).

marimo 0.25 defaults `runtime.auto_instantiate` to false, so a notebook opened from `marimo edit
notebooks/` showed code and headings but no outputs. pyproject.toml's `[tool.marimo.runtime]`
sets it; this test runs the very command `make run` runs (read from `make -n run`) and opens
notebooks from its workspace without clicking Run.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _make_run_command(port: int, *variables: str) -> list[str]:
    """The `marimo edit` line `make run` would run on this port (a dry run: nothing is installed)."""
    done = subprocess.run(
        ["make", "-n", "run", "HOST=127.0.0.1", f"PORT={port}", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in done.stdout.splitlines() if " edit " in line and "marimo" in line]
    assert len(lines) == 1, done.stdout
    command = shlex.split(lines[0])
    command[0] = str(ROOT / command[0]) if not Path(command[0]).is_absolute() else command[0]
    return command


def test_make_run_opens_computed_notebooks(
    launch: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    free_port: Callable[[], int],
) -> None:
    """The library shows its computed verdicts and the designer its controls, with no click on Run."""
    port = free_port()
    command = _make_run_command(port)
    assert command[1:3] == ["edit", "notebooks/"], command
    url = launch(command, port, "make-run")

    library = open_page(f"{url}/?file=library.py", "The tracker library")
    # Computed: the count of trackers comes out of a cell that reads data/trackers/.
    count = len(list((ROOT / "data" / "trackers").glob("*.json")))
    library.get_by_text(f"{count} trackers").first.wait_for(timeout=60_000)
    screenshot(library, "make_run_library")

    designer = open_page(f"{url}/?file=designer.py", "Tracker designer")
    # A control only exists once its cell has run; the code editor alone shows none.
    designer.locator(".output-area marimo-ui-element").first.wait_for(
        state="attached", timeout=60_000
    )
    screenshot(designer, "make_run_designer")


def test_make_run_with_data_points_the_apps_at_that_folder(
    launch: Callable[..., str],
    open_page: Callable[[str, str], Any],
    free_port: Callable[[], int],
    data_copy: Path,
) -> None:
    """`make run DATA=DIR` hands `--data DIR` to the notebooks: the library reads DIR in place."""
    (data_copy / "trackers" / "health.json").unlink()
    port = free_port()
    command = _make_run_command(port, f"DATA={data_copy}")
    assert command[-2:] == ["--data", str(data_copy)], command
    url = launch(command, port, "make-run-data")
    library = open_page(f"{url}/?file=library.py", "The tracker library")
    library.get_by_text("(the --data option): read and saved in place").first.wait_for()
    count = len(list((data_copy / "trackers").glob("*.json")))
    library.get_by_text(f"{count} trackers").first.wait_for()


TITLES = {
    "designer.py": "Tracker designer",
    "simulator.py": "Session simulator",
    "trace_explorer.py": "Trace explorer",
    "library.py": "The tracker library",
    "evaluate.py": "Will my trackers hold on my model?",
}


def test_make_run_opens_each_notebook_on_its_title(
    launch: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    free_port: Callable[[], int],
) -> None:
    """Found when a newcomer tried `make run`: every notebook opened on its imports and helper
    functions (the title of three of them not on the first screen at all); their code is
    hidden now, so each opens on its title, in the top half of the first screen."""
    port = free_port()
    url = launch(_make_run_command(port), port, "make-run-titles")
    for notebook, heading in TITLES.items():
        page = open_page(f"{url}/?file={notebook}", heading)
        box = page.locator("h1", has_text=heading).first.bounding_box()
        assert box is not None
        assert box["y"] < page.viewport_size["height"] / 2, (notebook, box)
        screenshot(page, f"make_run_first_screen_{notebook[:-3]}")
        page.close()
