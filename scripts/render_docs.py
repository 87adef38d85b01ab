"""Render the documentation notebooks to HTML pages under docs/notebooks/, with an index page.

    make docs        # or: .venv/bin/python scripts/render_docs.py [--out DIR] [NOTEBOOK ...]

The pages show the notebooks as committed (`make notebooks` re-executes them first when the
code changed): prose, code, tables and each figure's static PNG. They load nothing from the
network, so they open from disk in any browser. The folder is git-ignored: the notebooks
themselves are the documentation a repository page shows, and the pages are built from them.
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path
from typing import Any

import mistune
import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "notebooks"
# nbconvert's lab page without its scripts: the pages hold text, tables and PNG images only, so
# they load nothing from the network (no require.js, MathJax or mermaid from a CDN).
TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""
PLOTLY = "application/vnd.plotly.v1+json"
# Markdown as the notebooks write it (`**bold**`, `code`, links), with any raw HTML escaped.
MARKDOWN = mistune.create_markdown(escape=True)


def inline_html(text: str) -> str:
    """One line of markdown as HTML without its paragraph: `A **tracker**` -> `A <strong>tracker</strong>`."""
    rendered = str(MARKDOWN(text)).strip()
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        rendered = rendered[3:-4]
    return rendered


def title_and_lead(notebook: Any, fallback: str) -> tuple[str, str]:
    """The first `# ` heading of the notebook and the paragraph under it."""
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.strip().splitlines()
        if lines and lines[0].startswith("# "):
            body = "\n".join(lines[1:]).strip().split("\n\n")[0]
            return lines[0][2:].strip(), " ".join(body.split())
    return fallback, ""


def figures_without_image(notebook: Any) -> int:
    """How many figures carry no static PNG (they would show as a note, not a picture)."""
    return sum(
        1
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if PLOTLY in output.get("data", {}) and "image/png" not in output.get("data", {})
    )


def render(paths: list[Path], out: Path) -> list[str]:
    """Write one page per notebook and the index; returns the lines to print."""
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(
        extra_loaders=[DictLoader({"trackerkit_docs.html.j2": TEMPLATE})],
        template_file="trackerkit_docs.html.j2",
    )
    entries, lines = [], []
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        title, lead = title_and_lead(notebook, path.stem)
        page, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": title}})
        target = out / f"{path.stem}.html"
        target.write_text(page, encoding="utf-8")
        entries.append((target.name, title, lead))
        missing = figures_without_image(notebook)
        note = (
            f" ({missing} figures without a static image: run `make notebooks` with Chromium installed)"
            if missing
            else ""
        )
        lines.append(f"wrote {target}{note}")
    items = "\n".join(
        f'<li><a href="{html.escape(name)}">{inline_html(title)}</a><p>{inline_html(lead)}</p></li>'
        for name, title, lead in entries
    )
    index = out / "index.html"
    index.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>trackerkit: documentation notebooks</title><style>"
        "body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;"
        "line-height:1.5}li{margin-bottom:1rem}li p{margin:.2rem 0;color:#444}</style></head><body>"
        "<h1>trackerkit: documentation notebooks</h1>"
        "<p>Each page is a notebook of <code>notebooks/</code> as committed, with its outputs."
        "</p>\n<ol>\n" + items + "\n</ol>\n</body></html>\n",
        encoding="utf-8",
    )
    lines.append(f"open {index} in a browser")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="render_docs.py", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    parser.add_argument("--out", type=Path, default=OUT, help="default: docs/notebooks/")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"render_docs.py: no notebook at {', '.join(missing)}", file=sys.stderr)
        return 2
    print("\n".join(render(paths, args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
