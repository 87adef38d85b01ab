"""`make notebooks` (scripts/execute_notebooks.py) on small notebooks built here, not the real ones."""

from __future__ import annotations

import base64
import subprocess
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


class TestACellThatRaises:
    def test_one_line_names_the_notebook_and_cell_and_the_others_still_run(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """No traceback, no ANSI codes; the failing file is left as it was; exit 1 with a summary."""
        execute = _script()
        draft = tmp_path / "02b_draft.ipynb"
        nbformat.write(
            _notebook(
                "# Draft",
                "1 + 1",
                "# More",
                "from trackerkit.trace import read_trace\nread_trace('data/trace')",
            ),
            draft,
        )
        later = tmp_path / "03_later.ipynb"
        nbformat.write(_notebook("# Later", "2 + 2"), later)
        draft_bytes = draft.read_bytes()

        assert execute.main([str(draft), str(later)]) == 1

        captured = capsys.readouterr()
        assert draft.read_bytes() == draft_bytes
        assert nbformat.read(later, as_version=4).cells[1].outputs[0].data["text/plain"] == "4"
        assert f"executed {later}" in captured.out
        err = captured.err.strip().splitlines()
        assert len(err) == 2, captured.err
        first = f"{draft}, cell 2: NotFoundError: data/trace does not exist"
        assert err[0].startswith(first), err[0]
        assert err[0].endswith(f"(the kernel runs in {tmp_path}/)")
        assert err[1] == (
            f"execute_notebooks.py: 1 of 2 notebooks failed and were not saved: {draft}"
        )
        assert "\x1b" not in captured.err + captured.out
        assert "Traceback" not in captured.err + captured.out

    def test_a_browser_that_cannot_draw_is_one_line_too(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        execute = _script()
        monkeypatch.setattr(execute, "find_browser", lambda: ("/opt/chromium", ""))

        async def cannot_draw(figures: list[Any], browser: str) -> list[bytes]:
            raise OSError("no display")

        monkeypatch.setattr(execute, "_draw", cannot_draw)
        path = tmp_path / "fig.ipynb"
        nbformat.write(
            _notebook("import plotly.graph_objects as go\ngo.Figure(go.Bar(y=[1]))"), path
        )
        before = path.read_bytes()
        assert execute.main([str(path)]) == 1
        assert path.read_bytes() == before
        assert capsys.readouterr().err.splitlines() == [
            f"{path}: /opt/chromium could not draw the figures: OSError('no display')",
            f"execute_notebooks.py: 1 of 1 notebooks failed and were not saved: {path}",
        ]

    def test_a_notebook_under_the_repository_is_named_from_its_root(self) -> None:
        execute = _script()
        path = ROOT / "notebooks" / "02b_draft.ipynb"
        notebook = _notebook("# Draft", "x")
        error = execute.CellExecutionError(
            "tb", "NameError", "name '\x1b[31mx\x1b[0m' is not defined"
        )
        assert execute.failure(path, notebook, 1, error) == (
            "notebooks/02b_draft.ipynb, cell 1: NameError: name 'x' is not defined "
            "(the kernel runs in notebooks/)"
        )


def test_make_notebooks_takes_one_notebook_as_nb() -> None:
    def recipe(*variables: str) -> str:
        # --no-print-directory: under `make test` this make is nested and would add its folder.
        done = subprocess.run(
            ["make", "-n", "--no-print-directory", "-o", ".venv/.installed-stamp", "notebooks",
             *variables],
            cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        [line] = [line for line in done.stdout.splitlines() if "execute_notebooks.py" in line]
        return line.strip()

    assert recipe("NB=notebooks/03_x.ipynb").endswith(
        "scripts/execute_notebooks.py notebooks/03_x.ipynb"
    )
    assert recipe().endswith("scripts/execute_notebooks.py")
