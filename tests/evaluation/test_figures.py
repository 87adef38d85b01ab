"""The harness's figures: accuracy per variant with intervals, the per-field heat map, drift."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.figures import accuracy_figure, drift_figure, field_heatmap
from trackerkit.evaluation.harness import evaluate
from trackerkit.evaluation.noisy import Noise, serving_noisy
from trackerkit.evaluation.results import EvaluationResults
from trackerkit.evaluation.variants import Variant

SCENES = Path(__file__).resolve().parents[2] / "data" / "scenes"
TWO = [SCENES / "eval-numbers.json", SCENES / "eval-lists.json"]


@pytest.fixture(scope="module")
def results() -> EvaluationResults:
    with serving_noisy(TWO, Noise(off_by_one=0.5, miss=0.3, seed=3)) as server:
        noisy = Variant(name="noisy", model="openai", base_url=server.url, model_name="n")
        return evaluate(TWO, [noisy, Variant(name="scripted")], runs=2, concurrency=2)


def test_accuracy_per_variant(results: EvaluationResults) -> None:
    """One bar per variant, its Wilson interval as asymmetric error bars."""
    bar = accuracy_figure(results).data[0]
    assert list(bar.x) == ["noisy (free)", "scripted (free)"]
    assert bar.y[1] == 1.0
    assert bar.error_y.arrayminus[1] > 0
    assert bar.error_y.array[1] == 0
    assert 0 < bar.y[0] < 1
    with pytest.raises(
        BadRequestError, match="no metric 'nope' in these results; there are: joint_accuracy"
    ):
        accuracy_figure(results, "nope")


def test_field_heatmap(results: EvaluationResults) -> None:
    """Fields by variant; the scripted column all right, list rows pooled."""
    heat = field_heatmap(results).data[0]
    assert list(heat.x) == ["noisy (free)", "scripted (free)"]
    assert "Inventory[…].qty" in heat.y
    assert "Inventory[…].(row)" in heat.y
    assert "Health.hp" in heat.y
    assert all(row[1] == 1.0 for row in heat.z)


def test_drift(results: EvaluationResults) -> None:
    """Joint accuracy per turn, a line per variant; the scenario with the most turns by default."""
    figure = drift_figure(results)
    assert "eval-numbers" in figure.layout.title.text or "eval-lists" in figure.layout.title.text
    assert [t.name for t in figure.data] == ["noisy (free)", "scripted (free)"]
    assert list(figure.data[1].y) == [1.0] * len(figure.data[1].y)
    with pytest.raises(BadRequestError, match="no scenario 'x'"):
        drift_figure(results, "x")


def test_a_failed_turn_is_a_gap_and_a_mark(results: EvaluationResults) -> None:
    """Found when tried: a turn that failed was left out and the line joined the turns either
    side. A turn no run answered is a gap; each failed turn is marked, its runs counted."""
    turns = results.turns.copy()
    scenario = str(turns.groupby("scenario")["turn"].max().idxmax())
    mine = (turns["scenario"] == scenario) & (turns["variant"] == "scripted")
    turns.loc[mine & (turns["turn"] == 1), "failed"] = "E_MODEL: the endpoint answered 500"
    failed = dataclasses.replace(results, turns=turns)
    figure = drift_figure(failed, scenario)
    line = next(t for t in figure.data if t.name == "scripted (free)")
    assert line.y[1] != line.y[1]  # NaN: no run answered turn 2, so the line breaks there
    assert not line.connectgaps
    assert line.y[0] == 1.0
    marks = next(t for t in figure.data if t.name == "scripted (free): failed turns")
    runs = int((mine & (turns["turn"] == 1)).sum())
    assert [list(c) for c in marks.customdata] == [[2, runs, runs]]
    assert marks.legendgroup == line.legendgroup
    assert [t.name for t in drift_figure(results, scenario).data] == [
        "noisy (free)",
        "scripted (free)",
    ]


def test_coinciding_drift_lines_stay_apart(zeta_first: EvaluationResults) -> None:
    """Found when tried: two variants right on the same turns drew one line over the other, so
    one looked missing beside the table. Each has its own dash and marker, a little apart along
    the turn axis, and the hover names the turn itself."""
    figure = drift_figure(zeta_first)
    first, second = figure.data
    assert list(first.y) == list(second.y)  # both scripted: the same shares at every turn
    assert first.line.dash != second.line.dash
    assert first.marker.symbol != second.marker.symbol
    assert all(a < b for a, b in zip(first.x, second.x, strict=True))
    assert list(first.customdata) == [round(x + 0.03) for x in first.x]
    assert figure.layout.hovermode == "x unified"


@pytest.fixture(scope="module")
def zeta_first() -> EvaluationResults:
    """Two variants run in an order that is not their names' order (zeta, then alpha)."""
    return evaluate(TWO[:1], [Variant(name="zeta"), Variant(name="alpha")], runs=1)


def test_heatmap_columns_follow_the_bars_order(zeta_first: EvaluationResults) -> None:
    """The heat map lists the variants left to right as the bar chart does (not sorted by name)."""
    bars = list(accuracy_figure(zeta_first).data[0].x)
    assert bars == ["zeta (free)", "alpha (free)"]
    assert list(field_heatmap(zeta_first).data[0].x) == bars
    assert [t.name for t in drift_figure(zeta_first).data] == bars


def test_bar_labels_sit_above_their_error_bars(results: EvaluationResults) -> None:
    """Each value is written above its whisker's top (readable), none on the bar under the whisker."""
    figure = accuracy_figure(results)
    bar = figure.data[0]
    assert bar.text is None
    notes = {a.x: a for a in figure.layout.annotations}
    assert set(notes) == set(bar.x)
    for x, y, high in zip(bar.x, bar.y, bar.error_y.array, strict=True):
        note = notes[x]
        assert note.text == f"{y:.3g}"
        assert note.y >= y + high - 1e-12
        assert note.yanchor == "bottom"
    assert figure.layout.yaxis.range[1] > max(n.y for n in notes.values())


def test_token_counts_are_whole_numbers_in_labels_and_hover(results: EvaluationResults) -> None:
    """A new-user trial: tokens per turn read `1.16e+03`; the label and the hover write the
    count as the table does, a whole number with thousands separators."""
    larger = dataclasses.replace(
        results, turns=results.turns.assign(tokens_in=results.turns["tokens_in"] * 10)
    )
    figure = accuracy_figure(larger, "tokens_in_per_turn")
    bar = figure.data[0]
    assert all(y >= 1000 for y in bar.y)
    for note, y in zip(figure.layout.annotations, bar.y, strict=True):
        assert note.text == f"{y:,.0f}"
    for shown in bar.customdata:
        assert all("e+" not in str(part) for part in shown)
        assert "," in shown[0]
    assert ".3g" not in bar.hovertemplate
