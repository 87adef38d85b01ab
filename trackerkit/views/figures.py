"""A number over a session as a plotly figure (never shown here: the caller displays or saves it).

plotly is imported inside `bars_over_history`, so importing this module stays cheap.
"""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

from trackerkit.errors import BadRequestError, NotFoundError

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["bars_over_history"]


# --- a number over the session -------------------------------------------------------------


def bars_over_history(frame: pd.DataFrame, tracker: str, field: str) -> go.Figure:
    """A number over a session as bars, its top drawn behind each bar at full length.

    One bar per message (x is the message's number, from 1, as the panel and the simulator number
    messages); a grey bar at the top the number had at that
    message sits behind the value's bar (hp out of hp_max). The y axis starts at the field's
    min (or the lowest value, if lower). A list draws one series per row.

    Args:
        frame: a `history_frame`.
        tracker: the tracker's name or id.
        field: a number field of it.
    Raises:
        NotFoundError: the frame has no such tracker, or the tracker no such field.
        BadRequestError: the field is not a number.
    """
    import plotly.graph_objects as go  # here: plotly is slow to import

    data = _field_rows(frame, tracker, field)
    listed = bool((data["layout"] == "list").any())
    fig = go.Figure()
    for row in dict.fromkeys(data["row"]) if listed else [None]:
        part = data[data["row"] == row] if listed else data
        _add_series(fig, part, str(row) if listed else field)
    name = str(data["tracker"].iloc[0])
    fig.update_layout(
        barmode="group" if listed else "overlay",
        title={"text": _plotly_text(f"{name} · {field}")},
        xaxis={"title": {"text": "message (from 1)"}},
        yaxis={"title": {"text": _plotly_text(field)}, "range": _y_range(data)},
        bargap=0.15,
    )
    return fig


def _field_rows(frame: pd.DataFrame, tracker: str, field: str) -> pd.DataFrame:
    """The frame's rows of one number field of one tracker (by name or id), or why there are none."""
    mine = frame[(frame["tracker"] == tracker) | (frame["tracker_id"] == tracker)]
    if mine.empty:
        raise NotFoundError(f"the history has no tracker called {tracker!r}")
    data = mine[mine["field"] == field]
    if data.empty:
        fields = ", ".join(dict.fromkeys(mine["field"]))
        raise NotFoundError(f"{tracker} has no field {field!r} (fields: {fields})")
    if data["number"].isna().all():
        raise BadRequestError(f"{tracker}.{field} is not a number, so it has no bars")
    return data


def _add_series(fig: go.Figure, part: pd.DataFrame, label: str) -> None:
    """One series: a grey bar at its top (where it has one) behind the bar of its value."""
    import plotly.graph_objects as go

    x = [index + 1 for index in part["message_index"].tolist()]
    ids = part["message_id"].tolist()
    if part["top"].notna().any():
        fig.add_trace(
            go.Bar(
                x=x,
                y=_nullable(part["top"].tolist()),
                name=_plotly_text(f"{label} top"),
                offsetgroup=label,
                marker={"color": "rgba(140,149,159,0.35)"},
                customdata=ids,
                hovertemplate="%{customdata}: top %{y}<extra></extra>",
                legendgroup=label,
            )
        )
    fig.add_trace(
        go.Bar(
            x=x,
            y=_nullable(part["number"].tolist()),
            name=_plotly_text(label),
            offsetgroup=label,
            customdata=ids,
            hovertemplate="%{customdata}: %{y}<extra>" + _plotly_text(label) + "</extra>",
            legendgroup=label,
        )
    )


def _y_range(data: pd.DataFrame) -> list[float]:
    """From the field's min (or the lowest value, if lower) to the highest value or top, plus 5%."""
    floor = min(float(data["min"].min()), float(data["number"].min()))
    tops = data["top"].dropna()
    ceiling = max(float(data["number"].max()), float(tops.max()) if not tops.empty else floor)
    if ceiling <= floor:
        ceiling = floor + 1
    return [floor, ceiling + (ceiling - floor) * 0.05]


def _nullable(values: list[float]) -> list[float | None]:
    """NaN as None, which plotly draws as no bar."""
    return [None if math.isnan(v) else v for v in values]


def _plotly_text(text: str) -> str:
    """Text for a plotly title or label: plotly reads a few HTML tags there, so escape it."""
    return escape(text, quote=False)
