"""The trace explorer's figure cells: each draws through one helper, `drawn`, which gives the
figure or, when drawing fails, the page's "Could not draw" callout in that cell alone."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

import plotly.graph_objects as go
from loaded import load_module

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "trace_explorer.py"
FIGURES = ("daily_costs", "daily_usage", "tokens_over_day", "failures_by_class", "turn_durations")


def _notebook() -> ModuleType:
    return load_module(NOTEBOOK, "notebook_trace_explorer_figures")


class TestDrawn:
    def test_gives_the_figure(self) -> None:
        """A figure drawn without trouble is the cell's output as it is."""
        figure = go.Figure()
        assert _notebook().drawn("the cost per day", lambda: figure) is figure

    def test_a_failure_is_said_in_words(self) -> None:
        """A figure that fails gives a danger callout naming what could not be drawn and why."""

        def broken() -> go.Figure:
            raise ValueError("the turns have no duration column")

        html = _notebook().drawn("the turn durations", broken).text
        assert "Could not draw the turn durations" in html
        assert "ValueError: the turns have no duration column" in html
        assert "&quot;danger&quot;" in html


def test_every_figure_cell_draws_through_drawn() -> None:
    """Each of the five figures is drawn in a cell of its own, each through `drawn`, none with
    its own try and mo.stop."""
    cells = [
        node
        for node in ast.parse(NOTEBOOK.read_text()).body
        if isinstance(node, ast.FunctionDef)
        and any(ast.unparse(d).startswith("app.cell") for d in node.decorator_list)
    ]
    by_figure = {
        name: [cell for cell in cells if f"{name}(" in ast.unparse(cell)] for name in FIGURES
    }
    assert all(len(found) == 1 for found in by_figure.values()), by_figure
    for name, (cell,) in by_figure.items():
        source = ast.unparse(cell)
        assert "drawn(" in source, name
        assert not any(isinstance(node, ast.Try) for node in ast.walk(cell)), name
