"""Cost per day that tells known costs from unknown ones (issue 14, item 3).

A step's cost is known when its `usage.costUsd` is a number (a model without a price writes
none). `cost_usd` sums the known costs only, and `steps_without_cost` counts the rest, so a
total is never silently short: `unknown_share` says how much of it is missing.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from trackerkit.trace._columns import ColumnSpec, empty_frame

__all__ = ["COST_COLUMNS", "cost_summary", "costs_by_day", "share_text"]

COST_COLUMNS: list[ColumnSpec] = [
    ColumnSpec("day", "day", "str", doc="the day file (TC-2); empty for turns not from files"),
    ColumnSpec("turns", "turns", "int", 0),
    ColumnSpec("failed_turns", "failed_turns", "int", 0, doc="turns whose status is failed"),
    ColumnSpec(
        "steps",
        "steps",
        "int",
        0,
        doc="completed steps (the turns' steps; failed ones are not counted)",
    ),
    ColumnSpec("steps_without_cost", "steps_without_cost", "int", 0),
    ColumnSpec("tokens_in", "tokens_in", "int", 0, doc="the steps' usage.in"),
    ColumnSpec("tokens_out", "tokens_out", "int", 0, doc="the steps' usage.out"),
    ColumnSpec("cost_usd", "cost_usd", "float", 0.0, doc="the sum of the known costs"),
    ColumnSpec(
        "unknown_share",
        "unknown_share",
        "float",
        doc="steps_without_cost / steps: the share of steps the cost leaves out (NA: no steps)",
    ),
]
"""The columns of `costs_by_day`, in order."""


def costs_by_day(turns: pd.DataFrame, days: Iterable[str] = ()) -> pd.DataFrame:
    """One row per day of the turns frame (its `day`, the day file of each turn's first event),
    and one per day in `days`: a day file where no turn began (only the end of the turns of the
    day before, or Watch, Brief and Insight sends) is a row of 0 turns, not left out.

    Args:
        turns: a frame from `assemble_turns`.
        days: the day files read (`YYYY-MM-DD`), each given a row even with no turn.
    """
    if turns.empty:
        frame = empty_frame(COST_COLUMNS).drop(columns="unknown_share")
    else:
        frame = pd.DataFrame(
            {
                "day": turns["day"].fillna("").astype(str),
                "turns": 1,
                "failed_turns": (turns["status"] == "failed").astype("int64"),
                "steps": turns["steps"].astype("int64"),
                "steps_without_cost": turns["steps_without_cost"].astype("int64"),
                "tokens_in": turns["tokens_in"].astype("int64"),
                "tokens_out": turns["tokens_out"].astype("int64"),
                "cost_usd": turns["cost_usd"].astype("float64"),
            }
        )
    table = frame.groupby("day", sort=True).sum()
    named = sorted(set(map(str, days)) | set(table.index))
    if not named:
        return empty_frame(COST_COLUMNS)
    table = table.reindex(named, fill_value=0).rename_axis("day").reset_index()
    table = table.astype({spec.name: spec.dtype for spec in COST_COLUMNS[:-1]})
    steps = table["steps"].astype("Float64")
    table["unknown_share"] = (table["steps_without_cost"] / steps.where(steps > 0)).astype(
        "Float64"
    )
    return table.astype({spec.name: spec.dtype for spec in COST_COLUMNS})


def cost_summary(turns: pd.DataFrame) -> str:
    """One sentence: the known total and how many steps it leaves out.

    >>> import pandas as pd
    >>> cost_summary(pd.DataFrame({"cost_usd": [0.5, 0.25], "steps": [3, 1],
    ...                            "steps_without_cost": [1, 0]}))
    '$0.7500 over 3 of 4 steps; 1 step (25%) carries no cost and is not in the total.'
    >>> cost_summary(pd.DataFrame({"cost_usd": [1e-7], "steps": [2], "steps_without_cost": [0]}))
    '<$0.0001 over 2 of 2 steps; every step carries its cost.'
    >>> cost_summary(pd.DataFrame({"cost_usd": [], "steps": [], "steps_without_cost": []}))
    'no completed step, so no cost.'
    """
    steps = int(turns["steps"].sum()) if len(turns) else 0
    if not steps:
        return "no completed step, so no cost."
    unknown = int(turns["steps_without_cost"].sum()) if len(turns) else 0
    total = float(turns["cost_usd"].sum()) if len(turns) else 0.0
    # A known cost too small for four decimals is said so, not rounded to nothing.
    amount = "<$0.0001" if 0 < total < 0.0001 else f"${total:.4f}"
    text = f"{amount} over {steps - unknown} of {steps} steps"
    if not unknown:
        return text + "; every step carries its cost."
    share = share_text(unknown, steps)
    if unknown == 1:
        return f"{text}; 1 step ({share}) carries no cost and is not in the total."
    return f"{text}; {unknown} steps ({share}) carry no cost and are not in the total."


def share_text(part: int, whole: int) -> str:
    """`part` of `whole` as a whole percent, never rounded to 0% or 100% when it is neither.

    >>> share_text(1, 4), share_text(1, 2000), share_text(199, 200), share_text(0, 5)
    ('25%', '<1%', '>99%', '0%')
    """
    share = part / whole
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{share:.0%}"
