"""Render the documentation notebooks to HTML pages under docs/notebooks/, with an index page.

    make docs        # or: .venv/bin/python scripts/render_docs.py [--out DIR] [NOTEBOOK ...]

The pages show the notebooks as they are saved in the working tree, with the outputs stored in
them (nothing is re-executed: `make notebooks` does that first when the code changed): prose,
code, tables and each figure's static PNG. They load nothing from the network, so they open from
disk in any browser. The folder is git-ignored: the notebooks themselves are the documentation a
repository page shows, and the pages are built from them.

Given notebooks, only their pages are written; the index always lists every notebooks/*.ipynb
(and any notebook given from elsewhere), titles read from each. A page in the output folder
whose notebook no longer exists is removed: only `*.html` pages this script wrote (it marks them
with a `generator` meta tag), never other files.

Links and images in a notebook's prose are written relative to its folder (notebooks/), as Jupyter
and a repository page read them; on the pages (and in the index's leads) each relative one is
rewritten: a link to a listed notebook (`01_tracker_model.ipynb#Fragment`) leads to its page
(`01_tracker_model.html#Fragment`), any other file (`../docs/simulator.png`) is reached by a path
relative to the output folder (`../simulator.png` from docs/notebooks/), not embedded, so the pages
keep working where they are written but not copied elsewhere alone. Absolute URLs, `/paths`,
`#anchors`, `data:` and `attachment:` URIs are left as they are.

Under a page's `wrote` line, a `note:` line says what a reader of it would see go wrong (the exit
status stays 0): figures without a static PNG, code cells that never ran (their code is shown
without output), saved errors (shown as a traceback), text written to stderr, and a relative
link or image whose file does not exist (left as written). Cells are numbered by counting code
cells from 1, as Jupyter numbers them `[N]` after running all cells from a fresh kernel.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import mistune
import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "docs" / "notebooks"
MAKER = 'content="trackerkit scripts/render_docs.py"'
GENERATOR = f'<meta name="generator" {MAKER}>'
"""Marks the pages this script writes: only those are removed when their notebook is gone."""
# nbconvert's lab page without its scripts: the pages hold text, tables and PNG images only, so
# they load nothing from the network (no require.js, MathJax or mermaid from a CDN).
TEMPLATE = (
    """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}"""
    + GENERATOR
    + """{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""
)
PLOTLY = "application/vnd.plotly.v1+json"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
REFERENCE = re.compile(r"""(<a\b[^>]*?\shref=|<img\b[^>]*?\ssrc=)(["'])([^"']*)\2""")
"""A link's href or an image's src in rendered HTML (nbconvert and mistune quote attributes)."""
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


def _cells(numbers: list[int]) -> str:
    return ("cell " if len(numbers) == 1 else "cells ") + ", ".join(map(str, numbers))


def page_notes(notebook: Any) -> list[str]:
    """What a reader of the notebook's page would see go wrong, one sentence each (see above)."""
    figures, unrun, errors, stderr = [], [], [], []
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        if cell.execution_count is None and cell.source.strip():
            unrun.append(number)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if PLOTLY in data and "image/png" not in data:
                figures.append(number)
            if output.output_type == "error":
                what = ANSI.sub("", f"{output.get('ename', '')}: {output.get('evalue', '')}")
                errors.append(f"{number} ({' '.join(what.split())})")  # one line, no colour
            if output.output_type == "stream" and output.get("name") == "stderr":
                stderr.append(number)
    notes = []
    if figures:
        notes.append(
            f"{len(figures)} figures without a static image ({_cells(sorted(set(figures)))}): "
            "run `make notebooks` with Chromium installed"
        )
    if unrun:
        notes.append(
            f"code {_cells(unrun)} never ran: the page shows the code without its output; "
            "run `make notebooks`"
        )
    if errors:
        notes.append(
            f"saved errors in {', '.join(f'cell {error}' for error in errors)}: the page shows "
            "their tracebacks; fix the cells and run `make notebooks`"
        )
    if stderr:
        notes.append(
            f"{_cells(sorted(set(stderr)))} wrote to stderr: the page shows that text in red; "
            "silence the warning or log, or mean to show it"
        )
    return notes


def relink(page: str, notebook: Path, out: Path, listed: dict[str, Path]) -> tuple[str, list[str]]:
    """The page with its relative links and images made to work from `out` (see above), and a
    note for each whose file does not exist."""
    pages = {path.resolve(): f"{path.stem}.html" for path in listed.values()}
    notes = []

    def rewrite(match: re.Match[str]) -> str:
        start, quote_mark, written = match.groups()
        url = html.unescape(written)
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path or url.startswith("/"):
            return match.group(0)
        file = (notebook.parent / unquote(parts.path)).resolve()
        if not file.exists():
            kind = "link to" if start.startswith("<a") else "image"
            notes.append(f"the {kind} {url} leads to no file ({_shown(file)})")
            return match.group(0)
        if file in pages:
            new = pages[file]
        else:
            try:
                new = quote(Path(os.path.relpath(file, out.resolve())).as_posix())
            except ValueError:  # another drive (Windows): no relative path leads there
                new = file.as_uri()
        new += f"#{parts.fragment}" if parts.fragment else ""
        return f"{start}{quote_mark}{html.escape(new)}{quote_mark}"

    return REFERENCE.sub(rewrite, page), notes


def render(paths: list[Path], out: Path, notebooks: Path = NOTEBOOKS) -> list[str]:
    """Write one page per notebook of `paths`, the index of every notebook, and remove the pages
    whose notebook is gone; returns the lines to print."""
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(
        extra_loaders=[DictLoader({"trackerkit_docs.html.j2": TEMPLATE})],
        template_file="trackerkit_docs.html.j2",
    )
    lines = []
    listed = {p.stem: p for p in sorted(notebooks.glob("*.ipynb"))} | {p.stem: p for p in paths}
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        title, _ = title_and_lead(notebook, path.stem)
        page, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": title}})
        page, broken = relink(page, path, out, listed)
        target = out / f"{path.stem}.html"
        target.write_text(page, encoding="utf-8")
        lines.append(f"wrote {target}")
        notes = [*page_notes(notebook), *broken]
        lines += [f"note: {_shown(path)}, {note}" for note in notes]
    for page in sorted(out.glob("*.html")):
        if page.name != "index.html" and page.stem not in listed and _written_here(page):
            page.unlink()
            lines.append(f"removed {page} (no notebook {page.stem}.ipynb any more)")
    index = out / "index.html"
    index.write_text(_index(listed, out), encoding="utf-8")
    unwritten = [stem for stem in sorted(listed) if not (out / f"{stem}.html").is_file()]
    if unwritten:
        lines.append(
            f"note: no page yet for {', '.join(unwritten)}: the index lists them without a link; "
            "`make docs` renders every notebook"
        )
    lines.append(f"open {index} in a browser")
    return lines


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _written_here(page: Path) -> bool:
    with page.open(encoding="utf-8", errors="replace") as file:
        return MAKER in file.read(4096)  # nbconvert reorders the meta tag's attributes


def _index(listed: dict[str, Path], out: Path) -> str:
    """The index page: every notebook's title (a link to its page, when there is one) and lead."""
    items = []
    for stem in sorted(listed):
        path = listed[stem]
        title, lead = title_and_lead(nbformat.read(path, as_version=4), path.stem)
        name = f"{path.stem}.html"
        heading = (
            f'<a href="{html.escape(name)}">{inline_html(title)}</a>'
            if (out / name).is_file()
            else f"{inline_html(title)} (no page yet: run <code>make docs</code>)"
        )
        lead_html, _ = relink(inline_html(lead), path, out, listed)  # its page notes a broken one
        items.append(f"<li>{heading}<p>{lead_html}</p></li>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        + GENERATOR
        + "<title>trackerkit: documentation notebooks</title><style>"
        "body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;"
        "line-height:1.5}li{margin-bottom:1rem}li p{margin:.2rem 0;color:#444}</style></head><body>"
        "<h1>trackerkit: documentation notebooks</h1>"
        "<p>Each page is a notebook of <code>notebooks/</code> as saved in the working tree, with "
        "the outputs stored in it (not re-executed: <code>make notebooks</code> does that)."
        "</p>\n<ol>\n" + "\n".join(items) + "\n</ol>\n</body></html>\n"
    )


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
