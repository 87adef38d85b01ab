"""Plotly figures of trace days: a turn's waterfall, tokens and cost, failures, durations.

Each function takes the frames of this package and returns a `plotly.graph_objects.Figure`;
times are drawn in UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from trackerkit.trace.costs import costs_by_day
from trackerkit.trace.frames import steps, tool_calls
from trackerkit.trace.turns import turn_events

__all__ = [
    "daily_costs",
    "failures_by_class",
    "tokens_over_day",
    "turn_durations",
    "turn_timeline",
]

Figure = Any  # plotly ships no type hints


def _naive(stamps: pd.Series) -> pd.Series:
    """UTC times without a zone, which plotly draws as they are."""
    return pd.to_datetime(stamps, utc=True).dt.tz_convert(None)


def _segments(picked: pd.DataFrame) -> pd.DataFrame:
    """Bars of one turn: each step (started → completed) and each tool call (request → result)."""
    bars: list[dict[str, Any]] = []
    started: dict[tuple[str, Any], pd.Timestamp] = {}
    for ts, turn, name, data in zip(
        picked["ts"],
        picked["turn"].astype(str),
        picked["name"].astype(str),
        picked["data"],
        strict=True,
    ):
        data = data if isinstance(data, Mapping) else {}
        key = (turn, data.get("stepIndex"))
        if name == "eve.step.started":
            started[key] = ts
        elif name in ("eve.step.completed", "eve.step.failed"):
            usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
            bars.append(
                {
                    "lane": f"{turn} step {data.get('stepIndex')}",
                    "start": started.pop(key, ts),
                    "end": ts,
                    "what": "step" if name.endswith("completed") else "step failed",
                    "detail": f"in {usage.get('in', '?')} out {usage.get('out', '?')} "
                    f"{data.get('finishReason') or data.get('code') or ''}".strip(),
                }
            )
    calls = tool_calls(picked, names=picked["turn_name"])
    for row in calls.itertuples(index=False):
        end = row.ts if row.result_ts is pd.NaT or row.result_ts is None else row.result_ts
        bars.append(
            {
                "lane": f"{row.tool} {row.call_id}",
                "start": row.ts,
                "end": end,
                "what": "tool failed" if isinstance(row.failure, str) else "tool",
                "detail": row.failure if isinstance(row.failure, str) else str(row.status or ""),
            }
        )
    frame = pd.DataFrame(bars, columns=["lane", "start", "end", "what", "detail"])
    for column in ("start", "end"):
        frame[column] = _naive(frame[column])
    return frame


def turn_timeline(events: pd.DataFrame, name: str, names: pd.Series | None = None) -> Figure:
    """A waterfall of one turn: steps and tool calls as bars, every other event as a point."""
    picked = turn_events(events, name, names)
    bars = _segments(picked)
    colors = {
        "step": "#4C78A8",
        "step failed": "#E45756",
        "tool": "#72B7B2",
        "tool failed": "#F58518",
    }
    figure = (
        px.timeline(
            bars,
            x_start="start",
            x_end="end",
            y="lane",
            color="what",
            hover_data=["detail"],
            color_discrete_map=colors,
        )
        if len(bars)
        else go.Figure()
    )
    points = picked[
        ~picked["name"]
        .astype(str)
        .isin(
            ["eve.step.started", "eve.step.completed", "eve.actions.requested", "eve.action.result"]
        )
    ]
    figure.add_trace(
        go.Scatter(
            x=_naive(points["ts"]),
            y=["events"] * len(points),
            mode="markers",
            name="events",
            text=points["name"].astype(str) + " (" + points["source"].astype(str) + ")",
            hoverinfo="text+x",
            marker={"symbol": "diamond", "size": 9, "color": "#54A24B"},
        )
    )
    figure.update_yaxes(autorange="reversed", title=None)
    figure.update_layout(title=f"Turn {picked['turn_name'].iloc[0]}", xaxis_title="time (UTC)")
    return figure


def tokens_over_day(events: pd.DataFrame, names: pd.Series | None = None) -> Figure:
    """Cumulative tokens in and out, and cost in USD, over the time of the events."""
    table = steps(events, names).sort_values("ts", kind="stable")
    stamps = _naive(table["ts"])
    figure = make_subplots(specs=[[{"secondary_y": True}]])
    for column, label in (("usage_in", "tokens in"), ("usage_out", "tokens out")):
        figure.add_trace(
            go.Scatter(x=stamps, y=table[column].fillna(0).cumsum(), name=label, mode="lines"),
            secondary_y=False,
        )
    figure.add_trace(
        go.Scatter(
            x=stamps,
            y=table["cost_usd"].fillna(0).cumsum(),
            name="cost (USD)",
            mode="lines",
            line={"dash": "dot"},
        ),
        secondary_y=True,
    )
    figure.update_layout(title="Tokens and cost over the day", xaxis_title="time (UTC)")
    figure.update_yaxes(title_text="tokens", secondary_y=False)
    figure.update_yaxes(title_text="USD", secondary_y=True)
    return figure


def failures_by_class(events: pd.DataFrame, names: pd.Series | None = None) -> Figure:
    """Failed tool calls counted by failure class (TC-16), stacked by tool."""
    calls = tool_calls(events, names)
    failed = calls[calls["failure"].notna()]
    counts = (
        failed.groupby(["failure", "tool"], dropna=False).size().rename("calls").reset_index()
        if len(failed)
        else pd.DataFrame({"failure": [], "tool": [], "calls": []})
    )
    figure = px.bar(
        counts, x="failure", y="calls", color="tool", title="Failed tool calls by class"
    )
    figure.update_layout(xaxis_title="failure class", yaxis_title="calls")
    return figure


def turn_durations(turns: pd.DataFrame) -> Figure:
    """The distribution of turn durations in seconds, chat and night turns side by side."""
    frame = pd.DataFrame(
        {
            "seconds": turns["duration"].dt.total_seconds().astype(float),
            "kind": turns["kind"].astype(str),
        }
    )
    figure = px.histogram(
        frame, x="seconds", color="kind", barmode="overlay", nbins=40, title="Turn durations"
    )
    figure.update_layout(xaxis_title="seconds", yaxis_title="turns")
    return figure


def daily_costs(turns: pd.DataFrame) -> Figure:
    """Known cost per day file as bars, each labelled with the share of steps without a cost."""
    table = costs_by_day(turns)
    labels = [
        "no steps"
        if pd.isna(share)
        else f"{int(unknown)} of {int(steps)} steps without cost ({share:.0%})"
        for share, unknown, steps in zip(
            table["unknown_share"], table["steps_without_cost"], table["steps"], strict=True
        )
    ]
    figure = go.Figure(
        go.Bar(
            x=table["day"].replace("", "(no day)"),
            y=table["cost_usd"].astype(float),
            text=labels,
            textposition="outside",
            name="known cost (USD)",
            marker={"color": "#4C78A8"},
        )
    )
    unknown = int(table["steps_without_cost"].sum())
    steps_total = int(table["steps"].sum())
    note = (
        f"{unknown} of {steps_total} steps carry no cost and are not in these totals"
        if unknown
        else "every step carries its cost"
    )
    figure.update_layout(
        title=f"Known cost per day ({note})",
        xaxis_title="day file",
        yaxis_title="USD",
        xaxis_type="category",
    )
    return figure
