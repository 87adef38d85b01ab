"""The documentation notebooks (`notebooks/*.ipynb`) as a reader gets them.

`pytest --nbval` re-runs them and compares their outputs; these tests check what nbval does not:
plain prose without test or spec plumbing, imports from the public API only, a static PNG beside
every figure (what a repository page and `make docs` show), and the pages `make docs` writes.
"""

from __future__ import annotations

import ast
import asyncio
import base64
import importlib
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest
from test_notebooks import _load

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PLOTLY = "application/vnd.plotly.v1+json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _script(name: str) -> ModuleType:
    return _load(ROOT / "scripts" / f"{name}.py")


def _read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def _text_of(notebook: Any) -> str:
    """Every output's text, as a reader sees it under the cells."""
    parts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.append(str(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def test_the_readme_table_lists_every_notebook() -> None:
    """A writer's new notebook is named in the README's table of them (the failure says so)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `notebooks/([^`]+\.ipynb)` \|", readme, flags=re.MULTILINE)
    assert listed == [p.name for p in NOTEBOOKS], (
        "add a row for each notebook of notebooks/ to the README's table of documentation "
        "notebooks (| `notebooks/NAME.ipynb` | what it shows |), in file-name order"
    )
    assert len(NOTEBOOKS) >= 3


def test_trace_days_keep_their_line_endings_on_any_checkout() -> None:
    """Notebook 03 shows each day file's size: a CRLF checkout (core.autocrlf) must not grow them."""
    days = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "data" / "trace").glob("*.jsonl"))
    done = subprocess.run(
        ["git", "check-attr", "text", "--", *days], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"not a git checkout: {done.stderr.strip()}")
    assert done.stdout.splitlines() == [f"{day}: text: unset" for day in days]


def test_nbval_runs_from_any_folder() -> None:
    """pyproject.toml's sanitize file is found from the notebooks' folder too (the writer's)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            # Outputs are compared by `make test`'s nbval run, not here (the floors' lowest
            # versions may print otherwise); the sanitize file is read at setup either way.
            "--nbval-lax",
            "02_update_tool_and_prompt.ipynb",
        ],
        cwd=ROOT / "notebooks",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "passed" in done.stdout


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
class TestEveryNotebook:
    def test_no_plumbing_in_what_a_reader_sees(self, path: Path) -> None:
        """No nbval markers, rule ids or project jargon in the prose or the code."""
        for cell in _read(path).cells:
            source = cell.source
            assert "NBVAL" not in source.upper(), source
            assert not re.search(r"\b(TR|TC)-\d+\b", source), source
            assert "seed's" not in source, source
            assert "tracker seed" not in source, source
            assert "pytest" not in source, source

    def test_imports_come_from_the_public_api(self, path: Path) -> None:
        """Only `trackerkit` and `trackerkit.trace`, and only names in their `__all__`."""
        for cell in _read(path).cells:
            if cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Import):
                    assert not any(a.name.startswith("trackerkit") for a in node.names), cell.source
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "trackerkit"
                ):
                    assert node.module in ("trackerkit", "trackerkit.trace"), cell.source
                    public = set(importlib.import_module(node.module).__all__)
                    names = {a.name for a in node.names}
                    assert names <= public, (node.module, names - public)

    def test_executed_and_without_errors(self, path: Path) -> None:
        """Committed as executed: every code cell ran, none raised, nothing went to stderr."""
        for cell in _read(path).cells:
            if cell.cell_type != "code":
                continue
            assert cell.execution_count is not None, cell.source
            for output in cell.outputs:
                assert output.output_type != "error", cell.source
                assert output.get("name") != "stderr", output.get("text")

    def test_every_figure_carries_a_png_and_nbval_ignores_it(self, path: Path) -> None:
        """A figure's output holds the interactive figure and a PNG of it; the cell's tag (not a
        comment in its code) tells nbval to skip comparing it."""
        for cell in _read(path).cells:
            for output in cell.get("outputs", []):
                if PLOTLY not in output.get("data", {}):
                    continue
                assert "nbval-ignore-output" in cell.metadata.get("tags", []), cell.source
                # nbval skips the whole cell: anything printed beside the figure goes unchecked.
                assert len(cell.outputs) == 1, (
                    f"a figure's cell shows the figure alone: {cell.source}"
                )
                image = base64.b64decode(output.data.get("image/png", ""))
                assert image.startswith(PNG_MAGIC), f"no PNG beside the figure of: {cell.source}"
                assert len(image) > 5000, "the PNG is too small to hold a drawn figure"


def test_the_trace_notebook_shows_cost_per_day_failures_and_the_session_question() -> None:
    notebook = _read(ROOT / "notebooks" / "03_reading_a_trace_day.ipynb")
    sources = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    for name in ("costs_by_day", "cost_summary", "daily_costs", "write_days", "error_class"):
        assert name in sources, name
    text = _text_of(notebook)
    assert "carry no cost and are not in the total" in text
    assert "unknown_share" in text
    assert "the model endpoint answered 529" in text
    assert "the session with the most failed turns: wrun_" in text
    figures = sum(PLOTLY in o.get("data", {}) for c in notebook.cells for o in c.get("outputs", []))
    assert figures >= 2


def test_the_regenerate_example_says_why_the_edit_holds() -> None:
    """The model is told `hp 30 -> 29` while Health reads hp 5: the notebook shows both writes."""
    notebook = _read(ROOT / "notebooks" / "01_tracker_model.ipynb")
    text = _text_of(notebook)
    assert "the model is told:          Health: hp 30 -> 29" in text
    assert "the new version writes:    {'hp': 29}" in text
    assert "the edit on the message:   {'hp': 5}" in text
    assert "shown after the regenerate: {'hp': 5" in text
    prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "sees the state *before* that reply" in prose
    assert "the edit is applied on\ntop of it" in prose


def _figure_notebook() -> Any:
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("figure")
    figure = {
        "data": [{"type": "bar", "x": ["a", "b"], "y": [1, 3]}],
        "layout": {"title": {"text": "t"}},
    }
    cell.outputs = [nbformat.v4.new_output("display_data", data={PLOTLY: figure})]
    notebook.cells = [cell, nbformat.v4.new_code_cell("1 + 1")]
    return notebook


def test_without_a_browser_a_figure_keeps_a_note_instead_of_an_image() -> None:
    execute = _script("execute_notebooks")
    notebook = _figure_notebook()
    done = execute.add_images(notebook, None, "no Chromium was found")
    data = notebook.cells[0].outputs[0].data
    assert "image/png" not in data
    assert "No static image is stored because no Chromium was found" in data["text/plain"]
    assert notebook.cells[0].metadata.tags == ["nbval-ignore-output"]
    assert "tags" not in notebook.cells[1].metadata
    assert done[-1] == "1 figures without a static image: no Chromium was found"


def test_a_browser_path_that_is_no_program_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    execute = _script("execute_notebooks")
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "nowhere"))
    assert execute.find_browser() == (
        None,
        f"BROWSER_PATH={tmp_path / 'nowhere'} is not an executable file",
    )
    monkeypatch.delenv("BROWSER_PATH")
    monkeypatch.setenv("PATH", str(tmp_path))
    browser, why = execute.find_browser()
    assert browser is None
    assert "none of chromium" in why


def _system_browser() -> tuple[Any, str]:
    """The notebook runner and the installed Chromium it would drive; the test is skipped without
    one (failed when TRACKERKIT_REQUIRE_BROWSER=1)."""
    execute = _script("execute_notebooks")
    browser, why = execute.find_browser()
    if browser is None:
        if os.environ.get("TRACKERKIT_REQUIRE_BROWSER") == "1":
            pytest.fail(f"TRACKERKIT_REQUIRE_BROWSER=1 but {why}", pytrace=False)
        pytest.skip(why)
    return execute, browser


def test_the_system_chromium_draws_the_png() -> None:
    """kaleido drives the installed Chromium (never a downloaded one) and stores a real PNG."""
    execute, browser = _system_browser()
    notebook = _figure_notebook()
    execute.add_images(notebook, browser)
    data = notebook.cells[0].outputs[0].data
    assert base64.b64decode(data["image/png"]).startswith(PNG_MAGIC)
    assert "text/plain" not in data


def test_the_png_is_drawn_where_an_event_loop_already_runs() -> None:
    """Inside a running loop (a kernel, or Playwright's sync API earlier in one test process)."""
    execute, browser = _system_browser()
    notebook = _figure_notebook()

    async def inside_a_loop() -> None:
        execute.add_images(notebook, browser)

    # A thread of its own for the loop, as this process may already run Playwright's.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, inside_a_loop()).result()
    data = notebook.cells[0].outputs[0].data
    assert base64.b64decode(data["image/png"]).startswith(PNG_MAGIC)


def test_make_docs_writes_pages_with_images_and_no_network(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "render_docs.py"), "--out", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"open {tmp_path / 'index.html'} in a browser" in done.stdout
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        page = (tmp_path / f"{path.stem}.html").read_text(encoding="utf-8")
        assert f'href="{path.stem}.html"' in index
        assert "<script src=" not in page, "a page must not load scripts from the network"
        assert "Traceback" not in page
    trace_page = (tmp_path / "03_reading_a_trace_day.html").read_text(encoding="utf-8")
    assert trace_page.count('src="data:image/png;base64,') >= 2
    assert "Reading a trace day" in index


def test_render_docs_names_a_missing_notebook(tmp_path: Path) -> None:
    render = _script("render_docs")
    assert render.main([str(tmp_path / "nope.ipynb"), "--out", str(tmp_path)]) == 2


def test_the_readme_and_make_run_point_to_the_docs() -> None:
    first_section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## ")[0]
    assert "make docs" in first_section
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    run = makefile.split("\nrun:")[1].split("\n\n")[0]
    assert "make docs" in run
