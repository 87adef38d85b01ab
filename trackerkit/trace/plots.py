"""Plotly figures of trace days: a turn's waterfall, tokens and cost, failures, durations.

Each function takes the frames of this package and returns a `plotly.graph_objects.Figure`;
times are drawn in UTC. No figure sets a width: each fills its container (`autosize`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from trackerkit.trace.costs import costs_by_day, share_text
from trackerkit.trace.event_data import key_part, plain_data
from trackerkit.trace.failure import error_of
from trackerkit.trace.frames import steps, tool_calls
from trackerkit.trace.turns import assemble_turns, turn_events

__all__ = [
    "daily_costs",
    "daily_usage",
    "failures_by_class",
    "tokens_over_day",
    "turn_durations",
    "turn_timeline",
]

Figure = Any  # plotly ships no type hints


def _naive(stamps: pd.Series) -> pd.Series:
    """UTC times without a zone, which plotly draws as they are."""
    return pd.to_datetime(stamps, utc=True).dt.tz_convert(None)


_MIN_SHARE = 0.01
"""A bar is drawn at least this share of its turn's span wide, so an instant still shows."""
_MIN_WIDTH = pd.Timedelta(milliseconds=20)
"""...and never narrower than this (a turn whose events all share one instant)."""
_BAR_COLUMNS = ["lane", "start", "end", "what", "detail", "took", "error"]


def _took(start: Any, end: Any) -> str:
    """A bar's real length in words (its drawn length may be the minimum)."""
    try:
        seconds = (pd.Timestamp(end) - pd.Timestamp(start)).total_seconds()
    except (TypeError, ValueError):
        return ""
    return f"{seconds:.3f} s"


def _error_text(error: tuple[str, str | None] | None) -> str | None:
    if error is None:
        return None
    return error[0] if error[1] is None else f"{error[0]}: {error[1]}"


def _segments(picked: pd.DataFrame) -> pd.DataFrame:
    """Bars of one turn: each step (started → completed) and each tool call (request → result).

    A failed step or tool carries its failure (class and message) in `error`.
    """
    bars: list[dict[str, Any]] = []
    started: dict[tuple[str, Any], pd.Timestamp] = {}
    tool_errors: dict[Any, str | None] = {}
    for ts, turn, name, data in zip(
        picked["ts"],
        picked["turn"].astype(str),
        picked["name"].astype(str),
        picked["data"],
        strict=True,
    ):
        data = plain_data(data)
        data = data if isinstance(data, Mapping) else {}
        key = (turn, key_part(data.get("stepIndex")))
        if name == "eve.step.started":
            started[key] = ts
        elif name == "eve.action.result":
            tool_errors[key_part(data.get("callId"))] = _error_text(error_of(name, data))
        elif name in ("eve.step.completed", "eve.step.failed"):
            usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
            begin = started.pop(key, ts)
            bars.append(
                {
                    "lane": f"{turn} step {data.get('stepIndex')}",
                    "start": begin,
                    "end": ts,
                    "what": "step" if name.endswith("completed") else "step failed",
                    "detail": f"in {usage.get('in', '?')} out {usage.get('out', '?')} "
                    f"{data.get('finishReason') or data.get('code') or ''}".strip(),
                    "took": _took(begin, ts),
                    "error": _error_text(error_of(name, data)),
                }
            )
    calls = tool_calls(picked, names=picked["turn_name"])
    for row in calls.itertuples(index=False):
        end = row.ts if row.result_ts is pd.NaT or row.result_ts is None else row.result_ts
        failed = isinstance(row.failure, str)
        bars.append(
            {
                "lane": f"{row.tool} {row.call_id}",
                "start": row.ts,
                "end": end,
                "what": "tool failed" if failed else "tool",
                "detail": row.failure if failed else str(row.status or ""),
                "took": _took(row.ts, end),
                "error": (tool_errors.get(key_part(row.call_id)) or row.failure)
                if failed
                else None,
            }
        )
    frame = pd.DataFrame(bars, columns=_BAR_COLUMNS)
    for column in ("start", "end"):
        frame[column] = _naive(frame[column])
    return frame


def _widened(bars: pd.DataFrame, points: pd.Series) -> pd.DataFrame:
    """The bars with each end moved so no bar is narrower than the minimum width."""
    if bars.empty:
        return bars
    stamps = pd.concat([bars["start"], bars["end"], points], ignore_index=True)
    span = stamps.max() - stamps.min()
    least = max(span * _MIN_SHARE, _MIN_WIDTH)
    out = bars.copy()
    out["end"] = out["end"].where(out["end"] - out["start"] >= least, out["start"] + least)
    return out


def turn_timeline(events: pd.DataFrame, name: str, names: pd.Series | None = None) -> Figure:
    """A waterfall of one turn: steps and tool calls as bars, every other event as a point.

    Every bar is drawn at least a hundredth of the turn wide (its real length is in the hover),
    so a step that failed the instant it started still shows; each failure is marked with an x
    at the moment it was written, its class and message in the hover.
    """
    picked = turn_events(events, name, names)
    points = picked[
        ~picked["name"]
        .astype(str)
        .isin(
            ["eve.step.started", "eve.step.completed", "eve.actions.requested", "eve.action.result"]
        )
    ]
    stamps = _naive(points["ts"])
    segments = _segments(picked)
    bars = _widened(segments, stamps)
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
            hover_data={"detail": True, "took": True, "error": True, "end": False},
            color_discrete_map=colors,
        )
        if len(bars)
        else go.Figure()
    )
    figure.add_trace(
        go.Scatter(
            x=stamps,
            y=["events"] * len(points),
            mode="markers",
            name="events",
            text=points["name"].astype(str) + " (" + points["source"].astype(str) + ")",
            hoverinfo="text+x",
            marker={"symbol": "diamond", "size": 9, "color": "#54A24B"},
        )
    )
    failed = segments[segments["error"].notna()]
    turn_failed = points["name"].astype(str) == "eve.turn.failed"
    turn_errors = [
        _error_text(error_of("eve.turn.failed", plain_data(d)))
        for d in points.loc[turn_failed, "data"]
    ]
    marks_x = [*failed["end"], *stamps[turn_failed.to_numpy()]]
    if marks_x:
        figure.add_trace(
            go.Scatter(
                x=marks_x,
                y=[*failed["lane"], *["events"] * len(turn_errors)],
                mode="markers",
                name="failure",
                text=[
                    *(f"{w}: {e}" for w, e in zip(failed["what"], failed["error"], strict=True)),
                    *(f"turn failed: {e}" for e in turn_errors),
                ],
                hoverinfo="text+x",
                marker={
                    "symbol": "x",
                    "size": 13,
                    "color": "#B0002A",
                    "line": {"width": 2, "color": "#B0002A"},
                },
            )
        )
    figure.update_yaxes(autorange="reversed", title=None, automargin=True)
    figure.update_layout(
        title=f"Turn {picked['turn_name'].iloc[0]}", xaxis_title="time (UTC)", autosize=True
    )
    return figure


_DAY_COLORS = px.colors.qualitative.Plotly
"""One colour a day file in `tokens_over_day`, in day order (repeating past ten days)."""

_MOST_POINTS = 3000
"""`tokens_over_day` draws each of its curves through at most this many points, all days together:
a figure's size grows with its points, and a page refuses an output past a few megabytes."""


def _kept(stamps: pd.Series, most: int) -> np.ndarray:
    """Positions (in `ts` order) of the steps a day's thinned cumulative curve is drawn through.

    Every step when there are at most `most`; else the day's first step and the last step of
    each of `most - 1` equal spans of its time. A cumulative curve only rises, so it is exact at
    every kept point, the day's last (its totals) included, and between two kept points it rises
    by no more than it does in one span.
    """
    if len(stamps) <= most:
        return np.arange(len(stamps))
    nanos = stamps.to_numpy(dtype="datetime64[ns]").astype("int64")
    elapsed = (nanos - nanos[0]).astype(float)
    spans = np.floor(elapsed / (elapsed[-1] + 1) * (most - 1)).astype("int64")
    ends = np.flatnonzero(np.diff(spans, append=spans[-1] + 1))
    return np.union1d([0], ends)


def tokens_over_day(
    events: pd.DataFrame,
    names: pd.Series | None = None,
    turns: pd.DataFrame | None = None,
    *,
    most_points: int | None = _MOST_POINTS,
    step_table: pd.DataFrame | None = None,
) -> Figure:
    """Tokens in and out, and cost in USD, cumulative within each day file, one colour a day.

    A step counts on its turn's `day` (the day file of the turn's first event, TC-2), so each
    day's curves end at that day's totals in `costs_by_day`; a step outside any turn, or a
    turn not read from a file, counts on "(no day)". No curve runs on from one day to the next.

    The figure stays small whatever the days hold: a day with more steps than its share of
    `most_points` is thinned (`_kept`: its first step and the last step of each equal span of
    its time), exact at every point drawn and at the day's totals. The subtitle says so, and
    each curve's hover says how many of the day's steps it is drawn through.

    Args:
        events: an events frame from `read_trace`.
        names: the turn names from `assign_turns`, when already computed.
        turns: the turns frame from `assemble_turns`, when already computed.
        most_points: the most points a curve has over all days together (at least two a day);
            None draws every step.
        step_table: the frame `steps(events, names)` returns, when already computed.
    """
    table = steps(events, names) if step_table is None else step_table
    # Completed steps, as the turns and costs_by_day count them (a failed step's usage is not).
    table = table[(table["outcome"] == "completed").to_numpy()].sort_values("ts", kind="stable")
    turns = assemble_turns(events, names) if turns is None else turns
    day_of = dict(zip(turns["name"], turns["day"].fillna("").astype(str), strict=True))
    days = table["turn_name"].map(day_of).fillna("").replace("", "(no day)")
    picked_days = sorted(days.unique())
    share = None if most_points is None else max(2, most_points // max(1, len(picked_days)))
    figure = make_subplots(specs=[[{"secondary_y": True}]])
    thinned = False
    for number, day in enumerate(picked_days):
        picked = table[(days == day).to_numpy()]
        stamps = _naive(picked["ts"])
        kept = np.arange(len(picked)) if share is None else _kept(stamps, share)
        drawn = f"{day}"
        if len(kept) < len(picked):
            thinned = True
            drawn = f"{day} (drawn through {len(kept):,} of its {len(picked):,} steps)"
        color = _DAY_COLORS[number % len(_DAY_COLORS)]
        for column, label, dash, shown, right in (
            ("usage_in", "tokens in", "solid", ",", False),
            ("usage_out", "tokens out", "dash", ",", False),
            ("cost_usd", "cost (USD)", "dot", "$.4f", True),
        ):
            totals = picked[column].astype("Float64").fillna(0).cumsum().to_numpy(dtype=float)
            figure.add_trace(
                go.Scatter(
                    x=stamps.iloc[kept],
                    y=totals[kept],
                    name=label,
                    mode="lines",
                    line={"color": color, "dash": dash},
                    legendgroup=day,
                    legendgrouptitle_text=day,
                    hovertemplate=f"{drawn}<br>{label}: %{{y:{shown}}}<br>%{{x}}<extra></extra>",
                ),
                secondary_y=right,
            )
    figure.update_layout(
        title={
            "text": "Tokens and cost, cumulative within each day",
            "subtitle_text": f"thinned to at most {share:,} points a day (the last step of each "
            "equal span of the day's time); every point drawn and each day's totals are exact"
            if thinned
            else None,
        },
        xaxis_title="time (UTC)",
        autosize=True,
    )
    figure.update_yaxes(title_text="tokens", secondary_y=False)
    figure.update_yaxes(title_text="USD (known costs)", secondary_y=True)
    return figure


def failures_by_class(
    events: pd.DataFrame, names: pd.Series | None = None, *, calls: pd.DataFrame | None = None
) -> Figure:
    """Failed tool calls counted by failure class (TC-16), stacked by tool.

    `calls` is the frame `tool_calls(events, names)` returns, when already made.
    """
    calls = tool_calls(events, names) if calls is None else calls
    failed = calls[calls["failure"].notna()]
    counts = (
        failed.groupby(["failure", "tool"], dropna=False).size().rename("calls").reset_index()
        if len(failed)
        else pd.DataFrame({"failure": [], "tool": [], "calls": []})
    )
    figure = px.bar(
        counts, x="failure", y="calls", color="tool", title="Failed tool calls by class"
    )
    figure.update_layout(xaxis_title="failure class", yaxis_title="calls", autosize=True)
    return figure


_MOST_BINS = 40
"""`turn_durations` draws at most about this many bins (as the histogram's `nbins` did)."""


def _bin_width(span: float) -> float:
    """The bin width plotly picks for `_MOST_BINS` bins over `span` seconds: a round number (2, 5
    or 10 times a power of ten) at least a `_MOST_BINS`th of the span; 1 for no span at all."""
    if span <= 0:
        return 1.0
    rough = span / _MOST_BINS
    base = 10 ** np.floor(np.log10(rough))
    return float(base * next(step for step in (2, 5, 10) if step >= rough / base))


def turn_durations(turns: pd.DataFrame) -> Figure:
    """The distribution of turn durations in seconds, one colour per kind (chat, night, live),
    stacked: a bar is as tall as the turns of its bin, all kinds together.

    The bins are counted here, not on the page: the figure holds a bar per bin and kind (its
    start and end in `customdata`), so its size does not grow with the turns. A bin holds the
    durations in [start, end); a turn with no duration is left out.
    """
    seconds = turns["duration"].dt.total_seconds().to_numpy(dtype=float)
    kinds = turns["kind"].astype(str).to_numpy()
    timed = ~np.isnan(seconds)
    seconds, kinds = seconds[timed], kinds[timed]
    figure = go.Figure()
    if len(seconds):
        width = _bin_width(float(seconds.max() - seconds.min()))
        first = np.floor(seconds.min() / width) * width
        first -= width * (first > seconds.min())  # a float division a hair long
        count = int(np.floor((seconds.max() - first) / width)) + 1
        edges = first + width * np.arange(count + 2)
        count += int(edges[count] <= seconds.max())  # a float division a hair short
        starts, ends = edges[:count], edges[1 : count + 1]
        # Placed by the edges themselves, not by a division: a bin holds exactly [start, end).
        where = np.searchsorted(starts, seconds, side="right") - 1
        for kind in pd.unique(kinds):
            counts = np.bincount(where[kinds == kind], minlength=count)
            figure.add_trace(
                go.Bar(
                    x=starts + width / 2,
                    y=counts,
                    width=width,
                    customdata=np.column_stack([starts, ends]),
                    name=kind,
                    marker_line_width=0,
                    hovertemplate=f"kind={kind}<br>seconds=%{{customdata[0]:.4g}} to "
                    "%{customdata[1]:.4g}<br>turns=%{y}<extra></extra>",
                )
            )
    figure.update_layout(
        title="Turn durations",
        xaxis_title="seconds",
        yaxis_title="turns",
        legend_title_text="kind",
        legend_traceorder="normal",  # as the histogram listed the kinds, not stacking's reverse
        barmode="stack",
        bargap=0,
        autosize=True,
    )
    return figure


def daily_costs(turns: pd.DataFrame, days: Iterable[str] = ()) -> Figure:
    """Known cost per day file as bars, each labelled with the share of steps without a cost;
    every day in `days` (the day files read) has a bar, 0 where no turn began."""
    table = costs_by_day(turns, days)
    labels = [
        "no steps"
        if pd.isna(share)
        else f"{int(unknown)} of {int(steps)} steps without cost ({share_text(unknown, steps)})"
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
            cliponaxis=False,
            name="known cost (USD)",
            marker={"color": "#4C78A8"},
        )
    )
    unknown = int(table["steps_without_cost"].sum())
    steps_total = int(table["steps"].sum())
    if not steps_total:
        note = "no completed step, so no cost"
    elif unknown:
        note = f"{unknown} of {steps_total} steps carry no cost and are not in these totals"
    else:
        note = "every step carries its cost"
    figure.update_layout(
        title=f"Known cost per day ({note})",
        xaxis_title="day file",
        yaxis_title="USD",
        xaxis_type="category",
        autosize=True,
    )
    return figure


def daily_usage(turns: pd.DataFrame, days: Iterable[str] = ()) -> Figure:
    """Tokens in and out per day file, side by side, with each day's failed turns in the hover;
    every day in `days` (the day files read) has its bars, 0 where no turn began."""
    table = costs_by_day(turns, days)
    shown = table["day"].replace("", "(no day)")
    hover = [
        f"{int(t)} turn{'' if t == 1 else 's'}, {int(f)} failed, {int(s)} step{'' if s == 1 else 's'}"
        for t, f, s in zip(table["turns"], table["failed_turns"], table["steps"], strict=True)
    ]
    figure = go.Figure(
        [
            go.Bar(x=shown, y=table[column].astype(float), name=label, hovertext=hover)
            for column, label in (("tokens_in", "tokens in"), ("tokens_out", "tokens out"))
        ]
    )
    figure.update_layout(
        title="Tokens per day",
        xaxis_title="day file",
        yaxis_title="tokens",
        xaxis_type="category",
        barmode="group",
        autosize=True,
    )
    return figure
