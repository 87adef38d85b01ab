"""`make docs`'s index page shows each notebook's title and lead as HTML, never raw markdown."""

from __future__ import annotations

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
    _render_docs().render([path], tmp_path / "out")
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<p>A <strong>tracker</strong> is a piece of <code>JSON</code>; see " in index
    assert '<a href="rules.md">the rules</a>' in index
    assert ">The <code>Tracker</code> model</a>" in index
    assert "**" not in index
    assert "`" not in index
    assert "<b>x</b>" not in index
    assert "&lt;b&gt;x&lt;/b&gt;" in index
    assert "More." not in index  # only the first paragraph is the lead
