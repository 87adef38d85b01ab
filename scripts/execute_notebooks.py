"""Execute the documentation notebooks in place, so their committed outputs are the documentation.

Run `make notebooks` (every notebook), `make notebooks NB=notebooks/03_….ipynb` (one; or
`python scripts/execute_notebooks.py [NOTEBOOK ...]`) after changing a notebook or the code it
shows; `pytest --nbval` then checks that the outputs still match.

Every plotly figure is stored twice in its output: the interactive figure (for Jupyter) and a
static PNG of it (for a repository page, `make docs` and any viewer without plotly.js). The PNG is
drawn by kaleido driving the system's Chromium: `$BROWSER_PATH` when set, else the first of
`chromium`, `chromium-browser`, `google-chrome` on PATH (Debian: `apt-get install chromium`). No
browser is ever downloaded. Without one the notebooks still execute, and a figure whose plotly
JSON is the same as before executing keeps the PNG it had (it still shows that figure); a figure
that changed or is new gets a plain-text note in place of the image, and the script then exits 1
naming those notebooks. Figures are compared without their traces' `uid`s, the ids plotly.js and
`FigureWidget` draw at random (two executions of notebook 03 under plotly 7.1 gave byte-identical
JSON, so nothing else is stripped). A cell that shows a figure is tagged `nbval-ignore-output`
(in its metadata, out of the reader's sight).

A cell that raises is reported on one line, `notebooks/X.ipynb, cell N: Error: message`, where N
counts the notebook's code cells from 1, as Jupyter numbers them `[N]` after running all cells
from a fresh kernel; that notebook's file is left as it was, the others are still executed, and
the script exits 1 naming the notebooks that failed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
PLOTLY = "application/vnd.plotly.v1+json"
PNG = "image/png"
IGNORE_OUTPUT = "nbval-ignore-output"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NOTE = (
    "An interactive plotly figure: open this notebook in Jupyter to see it. No static image "
    "is stored because {why}; install Chromium (Debian: apt-get install chromium) and run "
    "`make notebooks` again."
)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
WIDTH, HEIGHT = 900, 450
"""The PNG's size when the figure's layout sets none (the interactive figure fills its cell)."""


def find_browser() -> tuple[str | None, str]:
    """The Chromium to draw with, or None with the reason none can be used."""
    chosen = os.environ.get("BROWSER_PATH")
    if chosen:
        if os.path.isfile(chosen) and os.access(chosen, os.X_OK):
            return chosen, ""
        return None, f"BROWSER_PATH={chosen} is not an executable file"
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found, ""
    return (
        None,
        f"no Chromium was found ($BROWSER_PATH is unset and none of {', '.join(BROWSERS)} is on PATH)",
    )


def figure_outputs(notebook: Any) -> list[tuple[Any, Any]]:
    """Each (cell, output) of a code cell whose output holds a plotly figure."""
    return [
        (cell, output)
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if PLOTLY in output.get("data", {})
    ]


def _without_uids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_uids(v) for k, v in value.items() if k != "uid"}
    if isinstance(value, list):
        return [_without_uids(v) for v in value]
    return value


def figure_key(figure: Any) -> str:
    """The figure's plotly JSON as one string, without the random trace `uid`s, to compare by."""
    return json.dumps(_without_uids(figure), sort_keys=True)


def stored_images(notebook: Any) -> dict[str, str]:
    """Each figure that has a PNG, by its `figure_key`: the PNGs to keep when none can be drawn."""
    return {
        figure_key(output.data[PLOTLY]): output.data[PNG]
        for _, output in figure_outputs(notebook)
        if PNG in output.data
    }


def figures_without_image(notebook: Any) -> int:
    """How many figures carry no PNG."""
    return sum(PNG not in output.data for _, output in figure_outputs(notebook))


async def _draw(figures: list[dict[str, Any]], browser: str) -> list[bytes]:
    with warnings.catch_warnings():
        # kaleido warns at import under plotly < 6.1.1 that `fig.write_image` will not work; this
        # script does not use it: it hands kaleido the figure's JSON, which draws under any plotly.
        warnings.filterwarnings("ignore", "(?s).*not compatible with this version of Kaleido")
        import kaleido  # here: executing a notebook without figures needs none of it

    images = []
    # mathjax=False: the notebooks use no TeX, and kaleido's default would fetch MathJax online.
    async with kaleido.Kaleido(n=1, mathjax=False, path=browser) as k:
        for figure in figures:
            layout = figure.get("layout", {})
            opts = {
                "format": "png",
                "width": layout.get("width") or WIDTH,
                "height": layout.get("height") or HEIGHT,
            }
            images.append(await k.calc_fig(figure, opts=opts))
    return images


def add_images(
    notebook: Any, browser: str | None, why: str = "", stored: dict[str, str] | None = None
) -> list[str]:
    """Store a PNG beside every plotly figure (or the note saying why not); returns what was done.

    Without a browser, a figure found in `stored` (see `stored_images`) keeps that PNG. Also tags
    each figure's cell `nbval-ignore-output`. Raises RuntimeError, naming the browser, when the
    browser is there but cannot draw.
    """
    found = figure_outputs(notebook)
    done: list[str] = []
    for cell, _ in found:
        tags = cell.metadata.setdefault("tags", [])
        if IGNORE_OUTPUT not in tags:
            tags.append(IGNORE_OUTPUT)
            done.append(f"tagged a figure cell {IGNORE_OUTPUT}")
    if not found:
        return done
    for _, output in found:
        output.data.pop(PNG, None)
        output.data.pop("text/plain", None)
    if browser is None:
        kept = 0
        for _, output in found:
            image = (stored or {}).get(figure_key(output.data[PLOTLY]))
            if image is None:
                output.data["text/plain"] = NOTE.format(why=why)
            else:
                output.data[PNG] = image
                kept += 1
        if kept:
            done.append(f"{kept} unchanged figures keep their stored PNG")
        if kept < len(found):
            done.append(f"{len(found) - kept} figures without a static image: {why}")
        return done
    figures = [dict(output.data[PLOTLY]) for _, output in found]
    try:
        # A thread of its own: asyncio.run refuses to start where an event loop already runs (a
        # Jupyter kernel, or Playwright's sync API earlier in the same test process).
        with ThreadPoolExecutor(max_workers=1) as pool:
            images = pool.submit(asyncio.run, _draw(figures, browser)).result()
    except Exception as error:
        raise RuntimeError(f"{browser} could not draw the figures: {error!r}") from error
    for (_, output), image in zip(found, images, strict=True):
        output.data[PNG] = base64.b64encode(image).decode("ascii")
    return [*done, f"{len(found)} figures drawn as PNG with {browser}"]


class NotebookFailedError(Exception):
    """A cell of a notebook raised (or the kernel failed): the one line that says where and what."""


def shown(path: Path) -> str:
    """The notebook's path as the writer typed it from the repository root, when it is inside."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _one_line(text: str) -> str:
    return " ".join(ANSI.sub("", text).split())


def failure(path: Path, notebook: Any, index: int | None, error: Exception) -> str:
    """`notebooks/X.ipynb, cell N: Error: message`, N counting code cells from 1 (Jupyter's `[N]`)."""
    where = shown(path)
    if index is not None:
        number = sum(cell.cell_type == "code" for cell in notebook.cells[: index + 1])
        where += f", cell {number}"
    if isinstance(error, CellExecutionError):
        what = f"{error.ename}: {error.evalue}" if error.evalue else error.ename
    else:
        lines = str(error).strip().splitlines()
        what = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return f"{where}: {_one_line(what)} (the kernel runs in {shown(path.parent)}/)"


def execute(path: Path, browser: str | None, why: str) -> tuple[list[str], int]:
    """Run every cell of one notebook with its folder as the working directory and save it.

    Returns what was done and how many figures are left without a PNG. Raises NotebookFailedError,
    with the line to print, when a cell raises or the browser cannot draw; the file is then left
    as it was.
    """
    notebook = nbformat.read(path, as_version=4)
    stored = stored_images(notebook) if browser is None else {}  # kept only when none can draw
    running: list[int] = []
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        on_cell_start=lambda cell, cell_index: running.append(cell_index),
    )
    try:
        client.execute()
    except Exception as error:  # a cell's error, a timeout, a kernel that died or is missing
        raise NotebookFailedError(
            failure(path, notebook, running[-1] if running else None, error)
        ) from error
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps only: they would make every run a diff
    try:
        notes = add_images(notebook, browser, why, stored)
    except RuntimeError as error:  # the browser is there but could not draw
        raise NotebookFailedError(f"{shown(path)}: {_one_line(str(error))}") from error
    nbformat.write(notebook, path)
    return notes, figures_without_image(notebook)


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    browser, why = find_browser()
    failed, without_image = [], []
    for path in paths:
        try:
            notes, missing = execute(path, browser, why)
        except NotebookFailedError as error:
            print(error, file=sys.stderr)
            failed.append(shown(path))
            continue
        print(f"executed {shown(path)}" + "".join(f"; {note}" for note in notes))
        if missing:
            without_image.append(shown(path))
    if without_image:
        print(
            f"execute_notebooks.py: figures without a static image in {', '.join(without_image)} "
            f"({why}): install Chromium (Debian: apt-get install chromium) or set BROWSER_PATH to "
            "one, then run `make notebooks` again.",
            file=sys.stderr,
        )
    if failed:
        print(
            f"execute_notebooks.py: {len(failed)} of {len(paths)} notebooks failed and were not "
            f"saved: {', '.join(failed)}",
            file=sys.stderr,
        )
    return 1 if failed or without_image else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
