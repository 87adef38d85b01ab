"""`make docs` (scripts/render_docs.py) on small notebooks built here: the index page (every
notebook, each title and lead as HTML, never raw markdown) and the pages it writes and removes."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import nbformat
from loaded import load_module

ROOT = Path(__file__).resolve().parents[1]


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
