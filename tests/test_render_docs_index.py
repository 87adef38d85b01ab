"""`make docs` (scripts/render_docs.py) on small notebooks built here: the index page (every
notebook, each title and lead as HTML, never raw markdown) and the pages it writes and removes."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import nbformat
from loaded import load_module

ROOT = Path(__file__).resolve().parents[1]
PLOTLY = "application/vnd.plotly.v1+json"


def _render_docs() -> ModuleType:
    return load_module(ROOT / "scripts" / "render_docs.py", "render_docs")


def test_the_index_renders_the_leads_markdown(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "# The `Tracker` model\n\nA **tracker** is a piece of `JSON`; see [the rules](rules.md). <b>x</b>\n\nMore."
        )
    ]
    path = tmp_path / "01_model.ipynb"
    nbformat.write(notebook, path)
    _render_docs().render([path], tmp_path / "out", tmp_path)
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<p>A <strong>tracker</strong> is a piece of <code>JSON</code>; see " in index
    assert '<a href="rules.md">the rules</a>' in index
    assert ">The <code>Tracker</code> model</a>" in index
    assert "**" not in index
    assert "`" not in index
    assert "<b>x</b>" not in index
    assert "&lt;b&gt;x&lt;/b&gt;" in index
    assert "More." not in index  # only the first paragraph is the lead


def _notebooks(folder: Path, *stems: str) -> list[Path]:
    paths = []
    for stem in stems:
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_markdown_cell(f"# Title of {stem}\n\nLead of {stem}.")]
        path = folder / f"{stem}.ipynb"
        nbformat.write(notebook, path)
        paths.append(path)
    return paths


def _links(index: Path) -> list[str]:
    return re.findall(r'<li><a href="([^"]+)"', index.read_text(encoding="utf-8"))


class TestTheIndex:
    def test_rendering_one_notebook_keeps_every_notebook_in_the_index(self, tmp_path: Path) -> None:
        render_docs, out = _render_docs(), tmp_path / "out"
        paths = _notebooks(tmp_path, "01_a", "02_b", "03_c")
        render_docs.render(paths, out, tmp_path)
        written = (out / "01_a.html").stat().st_mtime_ns
        lines = render_docs.render([paths[2]], out, tmp_path)
        assert _links(out / "index.html") == ["01_a.html", "02_b.html", "03_c.html"]
        assert (out / "01_a.html").stat().st_mtime_ns == written  # only the page asked for
        assert lines == [f"wrote {out / '03_c.html'}", f"open {out / 'index.html'} in a browser"]
        assert "Title of 02_b" in (out / "index.html").read_text(encoding="utf-8")

    def test_a_notebook_without_a_page_yet_is_listed_without_a_link(self, tmp_path: Path) -> None:
        render_docs, out = _render_docs(), tmp_path / "out"
        paths = _notebooks(tmp_path, "01_a", "02_b")
        lines = render_docs.render([paths[1]], out, tmp_path)
        index = (out / "index.html").read_text(encoding="utf-8")
        assert _links(out / "index.html") == ["02_b.html"]
        assert "<li>Title of 01_a (no page yet: run <code>make docs</code>)" in index
        assert lines[-2] == (
            "note: no page yet for 01_a: the index lists them without a link; "
            "`make docs` renders every notebook"
        )

    def test_the_index_says_it_shows_the_working_tree(self, tmp_path: Path) -> None:
        _render_docs().render(_notebooks(tmp_path, "01_a"), tmp_path / "out", tmp_path)
        index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
        assert "as committed" not in index
        assert "as saved in the working tree" in index


def test_a_page_whose_notebook_is_gone_is_removed_and_nothing_else(tmp_path: Path) -> None:
    render_docs, out = _render_docs(), tmp_path / "out"
    paths = _notebooks(tmp_path, "01_a", "02_b", "03_c")
    render_docs.render(paths, out, tmp_path)
    (out / "notes.html").write_text("<p>a page of someone else's</p>", encoding="utf-8")
    (out / "picture.png").write_bytes(b"png")
    paths[1].unlink()
    lines = render_docs.render([paths[0]], out, tmp_path)
    assert sorted(p.name for p in out.iterdir()) == [
        "01_a.html", "03_c.html", "index.html", "notes.html", "picture.png",
    ]  # fmt: skip
    assert _links(out / "index.html") == ["01_a.html", "03_c.html"]
    assert f"removed {out / '02_b.html'} (no notebook 02_b.ipynb any more)" in lines


def test_each_page_notes_unrun_cells_saved_errors_stderr_and_figures_without_png(
    tmp_path: Path,
) -> None:
    """Notes name the code cells by number from 1; an empty cell that never ran is no news."""
    v4 = nbformat.v4
    notebook = v4.new_notebook()
    warned = v4.new_code_cell("warn()", execution_count=1)
    warned.outputs = [v4.new_output("stream", name="stderr", text="UserWarning: careful\n")]
    failed = v4.new_code_cell("read_trace('data/trace')", execution_count=3)
    failed.outputs = [
        v4.new_output(
            "error",
            ename="NotFoundError",
            evalue="data/trace \x1b[31mdoes not exist\x1b[0m",
            traceback=["\x1b[31mNotFoundError\x1b[0m: data/trace does not exist"],
        )
    ]
    figure = v4.new_code_cell("fig", execution_count=4)
    figure.outputs = [
        v4.new_output(
            "display_data", data={PLOTLY: {"data": [], "layout": {}}, "text/plain": "a note"}
        )
    ]
    notebook.cells = [
        v4.new_markdown_cell("# Draft"),
        warned,
        v4.new_code_cell("x = 1"),
        v4.new_code_cell(""),
        failed,
        figure,
        v4.new_code_cell("y = 2"),
    ]
    path = tmp_path / "04_draft.ipynb"
    nbformat.write(notebook, path)
    lines = _render_docs().render([path], tmp_path / "out", tmp_path)
    assert lines == [
        f"wrote {tmp_path / 'out' / '04_draft.html'}",
        f"note: {path}, 1 figures without a static image (cell 5): run `make notebooks` with "
        "Chromium installed",
        f"note: {path}, code cells 2, 6 never ran: the page shows the code without its output; "
        "run `make notebooks`",
        f"note: {path}, saved errors in cell 4 (NotFoundError: data/trace does not exist): the "
        "page shows their tracebacks; fix the cells and run `make notebooks`",
        f"note: {path}, cell 1 wrote to stderr: the page shows that text in red; silence the "
        "warning or log, or mean to show it",
        f"open {tmp_path / 'out' / 'index.html'} in a browser",
    ]
    assert _render_docs().main([str(path), "--out", str(tmp_path / "out")]) == 0


def test_a_clean_page_has_no_notes(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "2"})]
    notebook.cells = [nbformat.v4.new_markdown_cell("# Clean"), cell]
    path = tmp_path / "01_clean.ipynb"
    nbformat.write(notebook, path)
    assert _render_docs().page_notes(nbformat.read(path, as_version=4)) == []


def test_relative_links_and_images_in_prose_work_from_the_pages(tmp_path: Path) -> None:
    """Written relative to notebooks/: a notebook link leads to its page (fragment kept), an
    image is reached from the output folder; absolute URLs, anchors and data: URIs stay; a file
    that is not there is left as written and noted."""
    notebooks, out = tmp_path / "notebooks", tmp_path / "docs" / "notebooks"
    notebooks.mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "simulator.png").write_bytes(b"png")
    first = _notebooks(notebooks, "01_a")[0]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "# B\n\nBuilt on [the model](01_a.ipynb#The-model).\n\n"
            "See [the web](https://example.com/x.ipynb), [the top](#B), "
            "[a missing one](03_none.ipynb) and [the folder's file](../docs/simulator.png).\n\n"
            "![The simulator](../docs/simulator.png) ![gone](../docs/nope.png) "
            "![dot](data:image/png;base64,iVBORw0KGgo=)"
        )
    ]
    second = notebooks / "02_b.ipynb"
    nbformat.write(notebook, second)
    lines = _render_docs().render([first, second], out, notebooks)
    page = (out / "02_b.html").read_text(encoding="utf-8")
    assert '<a href="01_a.html#The-model">the model</a>' in page
    assert '<a href="https://example.com/x.ipynb">' in page
    assert '<a href="#B">the top</a>' in page
    assert '<a href="../simulator.png">the folder' in page
    assert '<img alt="The simulator" src="../simulator.png"' in page
    assert (out / "../simulator.png").is_file()
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in page
    assert '<a href="03_none.ipynb">a missing one</a>' in page
    assert 'src="../docs/nope.png"' in page
    assert [line for line in lines if "leads to no file" in line] == [
        f"note: {second}, the link to 03_none.ipynb leads to no file ({notebooks / '03_none.ipynb'})",
        f"note: {second}, the image ../docs/nope.png leads to no file ({tmp_path / 'docs' / 'nope.png'})",
    ]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert '<p>Built on <a href="01_a.html#The-model">the model</a>.</p>' in index
