"""`make notebooks` (scripts/execute_notebooks.py) on small notebooks built here, not the real ones."""

from __future__ import annotations

import base64
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest
from loaded import load_module
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
PLOTLY = "application/vnd.plotly.v1+json"
PNG = "image/png"
FAKE_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n a committed image").decode("ascii")
NO_BROWSER = "no Chromium was found"


def _script() -> ModuleType:
    return load_module(ROOT / "scripts" / "execute_notebooks.py", "execute_notebooks")


def _notebook(*sources: str) -> Any:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
    }
    notebook.cells = [
        nbformat.v4.new_markdown_cell(source[2:]) if source.startswith("# ")
        else nbformat.v4.new_code_cell(source)
        for source in sources
    ]  # fmt: skip
    return notebook


def _figure_output(figure: dict[str, Any], png: str | None = None) -> Any:
    data: dict[str, Any] = {PLOTLY: figure}
    if png is not None:
        data[PNG] = png
    return nbformat.v4.new_output("display_data", data=data)


def _figures(notebook: Any) -> list[Any]:
    return [o.data for c in notebook.cells if c.cell_type == "code" for o in c.outputs if PLOTLY in o.get("data", {})]  # fmt: skip


def _without_browser(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
    monkeypatch.setattr(module, "find_browser", lambda: (None, NO_BROWSER))


BAR = {"data": [{"type": "bar", "y": [1, 3], "uid": "a1"}], "layout": {"title": {"text": "t"}}}


class TestFiguresWithoutABrowser:
    def test_an_unchanged_figure_keeps_its_stored_png(self) -> None:
        """The figure executes to the same JSON (its trace uid aside): the committed PNG stays."""
        execute = _script()
        before = _notebook("figure")
        before.cells[0].outputs = [_figure_output(BAR, FAKE_PNG)]
        after = _notebook("figure")
        again = {**BAR, "data": [{"type": "bar", "y": [1, 3], "uid": "b2"}]}
        after.cells[0].outputs = [_figure_output(again)]
        done = execute.add_images(after, None, NO_BROWSER, execute.stored_images(before))
        assert _figures(after)[0][PNG] == FAKE_PNG
        assert "text/plain" not in _figures(after)[0]
        assert done[-1] == "1 unchanged figures keep their stored PNG"

    def test_a_changed_figure_gets_the_note(self) -> None:
        execute = _script()
        before = _notebook("figure")
        before.cells[0].outputs = [_figure_output(BAR, FAKE_PNG)]
        after = _notebook("figure")
        after.cells[0].outputs = [_figure_output({**BAR, "layout": {"title": {"text": "u"}}})]
        done = execute.add_images(after, None, NO_BROWSER, execute.stored_images(before))
        assert PNG not in _figures(after)[0]
        assert "No static image is stored because no Chromium was found" in _figures(after)[0]["text/plain"]  # fmt: skip
        assert done[-1] == f"1 figures without a static image: {NO_BROWSER}"

    def test_make_notebooks_keeps_unchanged_pngs_and_exits_1_naming_changed_figures(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A notebook whose figure is unchanged keeps its PNG; one whose figure changed gets the
        note, and the run ends with exit 1 and one line naming it and the fix."""
        execute = _script()
        _without_browser(monkeypatch, execute)
        figure = "import plotly.graph_objects as go\ngo.Figure(go.Bar(y=[1, 3]))"
        paths = [tmp_path / "a_same.ipynb", tmp_path / "b_changed.ipynb"]
        for path in paths:
            notebook = _notebook(figure)
            NotebookClient(notebook, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
            assert len(_figures(notebook)) == 1
            _figures(notebook)[0][PNG] = FAKE_PNG  # as a browser drew it when it was committed
            nbformat.write(notebook, path)
        changed = nbformat.read(paths[1], as_version=4)
        changed.cells[0].source = figure.replace("[1, 3]", "[1, 4]")
        nbformat.write(changed, paths[1])

        assert execute.main([str(p) for p in paths]) == 1

        same = _figures(nbformat.read(paths[0], as_version=4))[0]
        assert same[PNG] == FAKE_PNG
        assert PNG not in _figures(nbformat.read(paths[1], as_version=4))[0]
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [
            f"execute_notebooks.py: figures without a static image in {paths[1]} ({NO_BROWSER}): "
            "install Chromium (Debian: apt-get install chromium) or set BROWSER_PATH to one, "
            "then run `make notebooks` again."
        ]
