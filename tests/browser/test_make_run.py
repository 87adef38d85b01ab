"""`make run` opens the apps computed (issue 13, item 1), and `make edit` the editor.

`make run` serves the notebooks as apps (`marimo run notebooks/`: a gallery, code hidden, as
the README's pictures show them). It used to open `marimo edit notebooks/`, where a newcomer
(trial nu3) met about 20,000 px of Python between the simulator's outputs and, on the evaluate
page, "Ancestor stopped" boxes that read as errors until Run was pressed. `make edit` opens
the editor; marimo 0.25 defaults `runtime.auto_instantiate` to false, so a notebook opened
there showed code and headings but no outputs, and pyproject.toml's `[tool.marimo.runtime]`
sets it. These tests run the very commands the targets run (read from `make -n`).
"""

from __future__ import annotations

import shlex
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import card_image

ROOT = Path(__file__).resolve().parents[2]


def _make_run_command(port: int, *variables: str, target: str = "run") -> list[str]:
    """The marimo line `make TARGET` would run on this port (a dry run: nothing is installed)."""
    done = subprocess.run(
        ["make", "-n", target, "HOST=127.0.0.1", f"PORT={port}", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    verb = f" {target} "
    lines = [line for line in done.stdout.splitlines() if verb in line and "bin/marimo" in line]
    assert len(lines) == 1, done.stdout
    command = shlex.split(lines[0])
    command[0] = str(ROOT / command[0]) if not Path(command[0]).is_absolute() else command[0]
    return command


def test_make_run_says_marimos_banner_is_generic() -> None:
    """Trial nu4: `make run` starts with marimo's own "Create or edit notebooks in your browser",
    which read as contradicting the apps it serves; the Makefile's line says that is marimo's
    generic wording, that the apps are read-only with their code hidden, and what edits them."""
    done = subprocess.run(
        ["make", "-n", "run", "HOST=127.0.0.1", "PORT=2718"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    said = [  # what the target's echo lines print, run by the shell as make would
        subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True).stdout
        for line in done.stdout.splitlines()
        if line.startswith("echo ")
    ]
    banner = [line for line in said if "Create or edit notebooks" in line]
    assert len(banner) == 1, said
    for words in ("generic wording", "read-only, code hidden", "`make edit` is the editor"):
        assert words in banner[0], banner[0]


def _card(notebook: Path) -> dict[str, str]:
    """A notebook's gallery card: `[tool.marimo.opengraph]` in its script header (PEP 723)."""
    lines = notebook.read_text(encoding="utf-8").splitlines()
    end = lines.index("# ///")
    assert lines[0] == "# /// script", notebook
    header = tomllib.loads("\n".join(line.removeprefix("# ") for line in lines[1:end]))
    card: dict[str, str] = header["tool"]["marimo"]["opengraph"]
    return card


def test_make_run_serves_the_apps_as_a_gallery_without_their_code(
    launch: Callable[..., str],
    browser: Any,
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    free_port: Callable[[], int],
) -> None:
    """Trial nu3: `make run` opened marimo's editor, code between the outputs and "Ancestor
    stopped" boxes on the evaluate page. It serves the apps: a card each, and each app computed
    with no code and no box about a stopped cell. Trial nu4: each card showed marimo's drawn
    placeholder; it shows the app's picture (`card_image`) above its title and description."""
    port = free_port()
    command = _make_run_command(port)
    assert command[1:3] == ["run", "notebooks/"], command
    url = launch(command, port, "make-run-gallery")
    gallery = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        gallery.goto(url)
        for notebook in TITLES:  # each card: the title and description its header declares
            card = _card(ROOT / "notebooks" / notebook)
            link = gallery.locator(f'a[href="{url}/?file={notebook}"]')
            link.get_by_text(card["title"], exact=True).wait_for(timeout=60_000)
            link.get_by_text(card["description"], exact=True).wait_for()
            # The picture loaded, and it is the committed one, not the placeholder marimo draws.
            image = link.locator("img")
            image.evaluate("i => i.decode()")  # waits for the lazily loaded image
            assert image.evaluate("i => i.complete && i.naturalWidth") > 0, notebook
            served = gallery.request.get(image.evaluate("i => i.currentSrc"))
            assert served.headers["content-type"] == "image/png", (notebook, served.headers)
            assert served.body() == card_image(notebook[:-3]).read_bytes(), notebook
        screenshot(gallery, "make_run_gallery")
        links = {
            gallery.locator("a").nth(i).get_attribute("href")
            for i in range(gallery.locator("a").count())
        }
        assert {f"{url}/?file={notebook}" for notebook in TITLES} <= links, links
    finally:
        gallery.close()
    evaluate = open_page(f"{url}/?file=evaluate.py", TITLES["evaluate.py"])
    evaluate.get_by_role("button", name="Run the evaluation").first.wait_for(timeout=60_000)
    shown = evaluate.locator("body").inner_text()
    evaluate.get_by_text("Press Run the evaluation to play the scenarios.").wait_for()
    assert "Ancestor stopped" not in shown, shown[:2000]
    assert "import marimo" not in shown, shown[:2000]
    assert evaluate.locator(".cm-editor").count() == 0  # no code editor on the page
    screenshot(evaluate, "make_run_evaluate")


def test_make_edit_opens_computed_notebooks(
    launch: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    free_port: Callable[[], int],
) -> None:
    """`make edit`: the library shows its computed verdicts and the designer its controls, with
    no click on Run."""
    port = free_port()
    command = _make_run_command(port, target="edit")
    assert command[1:3] == ["edit", "notebooks/"], command
    url = launch(command, port, "make-edit")

    library = open_page(f"{url}/?file=library.py", "The tracker library")
    # Computed: the count of trackers comes out of a cell that reads data/trackers/.
    count = len(list((ROOT / "data" / "trackers").glob("*.json")))
    library.get_by_text(f"{count} trackers").first.wait_for(timeout=60_000)
    screenshot(library, "make_edit_library")

    designer = open_page(f"{url}/?file=designer.py", "Tracker designer")
    # A control only exists once its cell has run; the code editor alone shows none.
    designer.locator(".output-area marimo-ui-element").first.wait_for(
        state="attached", timeout=60_000
    )
    screenshot(designer, "make_edit_designer")


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
