"""The harness's figures (plotly; never shown here: the caller displays or saves them).

- `accuracy_figure`: a metric per variant (joint goal accuracy by default) with its interval;
- `field_heatmap`: slot accuracy per field (rows) and variant (columns);
- `drift_figure`: joint accuracy at each turn of a scenario, per variant: errors that carry show
  as a line falling over the turns in free-running mode; failed turns (no answer) are a gap in
  the line and a red x at the bottom.

plotly is imported inside each function, so importing this module stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.metrics import answered
from trackerkit.evaluation.results import shown_number

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from trackerkit.evaluation.results import EvaluationResults

__all__ = ["accuracy_figure", "drift_figure", "field_heatmap"]

_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_MARKERS = ("circle", "square", "diamond", "triangle-up", "x", "cross")


def accuracy_figure(
    results: EvaluationResults, metric: str = "joint_accuracy", seed: int = 0
) -> go.Figure:
    """One bar per variant (and mode) for `metric`, its interval as error bars.

    Raises:
        BadRequestError: the summary has no such metric (the message lists those it has).
    """
    import plotly.graph_objects as go  # here: plotly is slow to import

    summary = results.summary(seed)
    chosen = summary[summary["metric"] == metric]
    if chosen.empty:
        known = ", ".join(dict.fromkeys(summary["metric"]))
        raise BadRequestError(f"no metric {metric!r} in these results; there are: {known}")
    labels = [f"{v} ({m})" for v, m in zip(chosen["variant"], chosen["mode"], strict=True)]
    # Each value is written just above its error bar's top, never on the bar under the whisker.
    tops = [
        float(e if h != h else max(e, h)) if e == e else 0.0
        for e, h in zip(chosen["estimate"], chosen["high"], strict=True)
    ]
    notes = [
        {
            "x": label,
            "y": top,
            "text": shown_number(e),
            "showarrow": False,
            "yanchor": "bottom",
            "yshift": 3,
        }
        for label, top, e in zip(labels, tops, chosen["estimate"], strict=True)
    ]
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=chosen["estimate"],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": chosen["high"] - chosen["estimate"],
                "arrayminus": chosen["estimate"] - chosen["low"],
            },
            # The numbers as the table writes them (plotly's `.3g` gives `1.16e+3` for tokens).
            customdata=[
                [shown_number(e), shown_number(lo), shown_number(hi), n]
                for e, lo, hi, n in chosen[["estimate", "low", "high", "n"]].itertuples(index=False)
            ],
            hovertemplate=(
                "%{x}: %{customdata[0]} [%{customdata[1]}, %{customdata[2]}], "
                "n=%{customdata[3]}<extra></extra>"
            ),
        )
    )
    figure.update_layout(
        title=f"{metric.replace('_', ' ')} per variant (95% intervals)",
        yaxis_title=metric.replace("_", " "),
        # Room above the highest whisker for its label.
        yaxis_range=[0, max([1.0, *tops]) * 1.12],
        annotations=notes,
        autosize=True,
    )
    return figure


def _columns_in_order(frame: pd.DataFrame) -> list[str]:
    """`variant (mode)` in the order the variants were run: the bars' order, left to right."""
    return list(
        dict.fromkeys(frame["variant"].astype(str) + " (" + frame["mode"].astype(str) + ")")
    )


def _field_names(fields: pd.DataFrame) -> list[str]:
    """`Tracker.field` for a record, `Tracker[…].field` for a list (rows pooled), `(row)` for presence."""
    return [
        f"{t}{'[…]' if r else ''}.{f or '(row)'}"
        for t, r, f in zip(fields["tracker"], fields["row"], fields["field"], strict=True)
    ]


def field_heatmap(results: EvaluationResults) -> go.Figure:
    """Slot accuracy per field (a list's rows pooled under `Tracker[…].field`) and variant."""
    import plotly.graph_objects as go

    _turns, scored = answered(results.turns, results.fields)  # a failed turn is not an answer
    cells = scored.assign(
        name=_field_names(scored),
        column=scored["variant"] + " (" + scored["mode"] + ")",
    )
    table = cells.pivot_table(index="name", columns="column", values="correct", aggfunc="mean")
    # Columns in the bar chart's order (pivot_table sorts them by name).
    order = [c for c in _columns_in_order(results.turns) if c in table.columns]
    table = table[order + [c for c in table.columns if c not in order]]
    counts = cells.pivot_table(index="name", columns="column", values="correct", aggfunc="size")
    figure = go.Figure(
        go.Heatmap(
            z=table.to_numpy(),
            x=list(table.columns),
            y=list(table.index),
            zmin=0,
            zmax=1,
            colorscale="RdYlGn",
            customdata=counts.reindex_like(table).to_numpy(),
            hovertemplate="%{y} on %{x}: %{z:.3g} of %{customdata} right<extra></extra>",
            colorbar={"title": "right"},
        )
    )
    rows = list(table.index)
    figure.update_layout(
        title="Slot accuracy per field",
        autosize=True,
        # Every field labelled (plotly drops every other label of a crowded axis): each row its
        # own tick, and the figure tall enough for a line of text per row.
        height=max(450, 160 + 24 * len(rows)),
        yaxis={"tickmode": "array", "tickvals": rows, "ticktext": rows, "automargin": True},
    )
    return figure


def drift_figure(results: EvaluationResults, scenario: str | None = None) -> go.Figure:
    """Joint accuracy at each scored turn (pooled over runs), one line per variant and mode.

    Args:
        results: an evaluation's results.
        scenario: the scenario to draw (default: the one with the most scored turns).
    Raises:
        BadRequestError: no scenario of that id in the results.
    """
    import plotly.graph_objects as go

    turns = results.turns
    if scenario is None:
        scenario = str(turns.groupby("scenario")["turn"].max().idxmax()) if len(turns) else ""
    mine = turns[turns["scenario"] == scenario]
    if mine.empty:
        known = ", ".join(sorted(set(turns["scenario"])))
        raise BadRequestError(f"no scenario {scenario!r} in these results; there are: {known}")
    figure = go.Figure()
    groups = list(mine.groupby(["variant", "mode"], sort=False))
    for index, ((variant, mode), group) in enumerate(groups):
        # A failed turn is not an answer: the share is of the runs that answered the turn, and a
        # turn no run answered is a gap in the line (not a line from the turn before to the next).
        turns_played = np.sort(group["turn"].unique())
        by_turn = group[group["failed"] == ""].groupby("turn")["joint"].mean().reindex(turns_played)
        # Lines that coincide stay told apart: each its own dash and marker, drawn a little
        # apart along the turn axis (the hover gives every variant's exact value at a turn).
        offset = (index - (len(groups) - 1) / 2) * 0.06
        name = f"{variant} ({mode})"
        figure.add_trace(
            go.Scatter(
                x=by_turn.index + 1 + offset,
                y=by_turn.to_numpy(),
                mode="lines+markers",
                name=name,
                legendgroup=name,
                line={"dash": _DASHES[index % len(_DASHES)]},
                marker={"symbol": _MARKERS[index % len(_MARKERS)], "size": 8},
                customdata=by_turn.index + 1,
                hovertemplate="turn %{customdata}: %{y:.3g}<extra>%{fullData.name}</extra>",
                connectgaps=False,
            )
        )
        failed = group[group["failed"] != ""].groupby("turn").size()
        if len(failed):
            runs = group.groupby("turn").size().reindex(failed.index)
            figure.add_trace(
                go.Scatter(
                    x=failed.index + 1 + offset,
                    y=[0.0] * len(failed),
                    mode="markers",
                    name=f"{name}: failed turns",
                    legendgroup=name,
                    marker={"symbol": "x", "size": 11, "color": "#d62728"},
                    customdata=np.stack(
                        [failed.index + 1, failed.to_numpy(), runs.to_numpy()], axis=1
                    ),
                    hovertemplate=(
                        "turn %{customdata[0]}: failed in %{customdata[1]} of %{customdata[2]} "
                        "runs (not scored)<extra>%{fullData.name}</extra>"
                    ),
                )
            )
    # Turns are whole numbers: ticks at 1, 2, 3 (never 1.5), a step of 2, 5, 10… on a long scene.
    last = int(mine["turn"].max()) + 1
    step = next(d for d in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, last) if last / d <= 20)
    figure.update_layout(
        title=f"Joint accuracy over the turns of {scenario}",
        xaxis={"tick0": 0, "dtick": step, "tickformat": "d"},
        xaxis_title="turn",
        yaxis_title="joint accuracy (share of runs)",
        yaxis_range=[-0.05, 1.05],
        hovermode="x unified",
        autosize=True,
    )
    return figure
