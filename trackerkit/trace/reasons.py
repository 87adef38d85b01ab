"""Why a turn failed: its failures event by event, the one that gives its reason, and a filter.

A turn's `status` says how it ended and `failures` counts failed tool calls (TC-16); the two
answer different questions, so they may look at odds (`STATUS_AND_FAILURES` says how).
`turn_failures` lists every event of a turn that records a failure, marking the one the turns
frame takes its `error_class` and `error` from, with that event's `data` for a closer look.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any, Literal

import pandas as pd

from trackerkit.errors import BadRequestError
from trackerkit.line import md_text
from trackerkit.trace._columns import ColumnSpec, empty_frame
from trackerkit.trace.event_data import plain_data, readable
from trackerkit.trace.failure import error_of
from trackerkit.trace.turns import names_for, turn_events

__all__ = [
    "FAILURE_COLUMNS",
    "STATUS_AND_FAILURES",
    "TURN_FILTERS",
    "TurnFilter",
    "error_cells",
    "failure_reason",
    "filter_turns",
    "turn_failures",
]

STATUS_AND_FAILURES = """\
**`status`** is how the turn ended: *failed* (`eve.turn.failed`), *cancelled*, *completed*,
*stopped* (a stop was requested and no end was written), or *open* (no end yet). A subagent's
own end events (`turn_3#planner`) end the subagent, not the turn.
**`failures`** counts the turn's failed tool calls (a tool result that carries a failure class)
and nothing else. So a **completed** turn may have failures: a tool failed, the model read the
error and went on (the failures were recovered). A **failed** turn may have none: a step or the
turn itself failed without a tool failing (a step's own error code, such as the sample days'
`E_DEEP`). And a failed turn's failures need not
be why it failed: the model endpoint may give up after tools failed (`E_MODEL`).
**`error_class`** and **`error`** name the reason: the code and message of the first failed step
or turn, else the class and message of the first failed tool call."""
"""What `status` and `failures` each count, and why they may disagree (markdown)."""

TurnFilter = Literal["every turn", "failed turns", "turns with failures"]
TURN_FILTERS: tuple[TurnFilter, ...] = ("every turn", "failed turns", "turns with failures")
"""The choices of `filter_turns`: all, status failed, or any failure (failed or recovered)."""

_NO_MESSAGE = "(no message)"

FAILURE_COLUMNS: list[ColumnSpec] = [
    ColumnSpec("ts", "ts", "datetime"),
    ColumnSpec("event", "event", "str", doc="the event's full name (`eve.step.failed`)"),
    ColumnSpec(
        "turn",
        "turn",
        "str",
        doc="the event's turn key: `turn_2`, or `turn_2#planner` on a failure of the subagent "
        "planner (whose end ends the subagent, not the turn)",
    ),
    ColumnSpec("step", "step", "int", doc="the stepIndex the event names"),
    ColumnSpec("error_class", "error_class", "str", doc="the class (TC-16) or the step's code"),
    ColumnSpec("error", "error", "str", doc="the message as written"),
    ColumnSpec(
        "is_reason",
        "is_reason",
        "bool",
        doc="True on the failure the turns frame takes error_class and error from",
    ),
    ColumnSpec("file", "file", "str", doc="the day file of the event; None when not from a file"),
    ColumnSpec("line", "line", "int"),
    ColumnSpec("data", "data", "object", doc="the event's data as a plain dict (`plain_data`)"),
]
"""The columns of `turn_failures`, in order."""


def filter_turns(turns: pd.DataFrame, show: str) -> pd.DataFrame:
    """The turns `show` asks for (one of `TURN_FILTERS`), in their order.

    "failed turns" keeps turns whose status is failed; "turns with failures" also keeps turns
    that ended otherwise with a failed tool call or step (recovered failures).

    Raises:
        BadRequestError: `show` is not one of `TURN_FILTERS`.
    """
    if show == "every turn":
        return turns
    if show == "failed turns":
        return turns[turns["status"] == "failed"]
    if show == "turns with failures":
        return turns[
            (turns["status"] == "failed") | (turns["failures"] > 0) | turns["error_class"].notna()
        ]
    raise BadRequestError(f"{show!r} is not a turn filter; use one of {', '.join(TURN_FILTERS)}.")


def turn_failures(
    events: pd.DataFrame, name: str, names: pd.Series | Sequence[str | None] | None = None
) -> pd.DataFrame:
    """Every event of one turn that records a failure, in `ts` order (columns `FAILURE_COLUMNS`).

    Failed tool calls, failed steps and the turn's own failure each give a row with the class
    and message `error_of` reads. `is_reason` marks the one the turns frame explains the turn by:
    the first failed step or turn, else the first failed tool call.

    Args:
        events: an events frame from `read_trace`.
        name: the turn's name (`session/turn`), as in `assemble_turns`.
        names: the turn names from `assign_turns`, when already computed: a Series pairs with
            the events by index label, a list by position.

    Raises:
        BadRequestError: `names` does not pair with the events.
        NotFoundError: no turn has that name.
    """
    if names is not None:
        names = names_for(events, names, "turn_failures")
    picked = turn_events(readable(events, "turn_failures"), name, names)
    rows: list[dict[str, Any]] = []
    for position, (event, data) in enumerate(
        zip(picked["name"].astype(str), picked["data"], strict=True)
    ):
        plain = plain_data(data)
        error = error_of(event, plain)
        if error is None:
            continue
        step = plain.get("stepIndex") if isinstance(plain, Mapping) else None
        rows.append(
            {
                "ts": picked["ts"].iloc[position],
                "event": event,
                "turn": _text(picked["turn"].iloc[position]) if "turn" in picked else None,
                "step": step if isinstance(step, int) else None,
                "error_class": error[0],
                "error": error[1],
                "is_reason": False,
                "file": str(picked["file"].iloc[position]) if "file" in picked else None,
                "line": int(picked["line"].iloc[position]) if "line" in picked else None,
                "data": plain,
            }
        )
    if not rows:
        return empty_frame(FAILURE_COLUMNS)
    own = [i for i, row in enumerate(rows) if row["event"] != "eve.action.result"]
    rows[(own or [0])[0]]["is_reason"] = True
    frame = pd.DataFrame(rows, columns=[spec.name for spec in FAILURE_COLUMNS])
    return frame.astype({spec.name: spec.dtype for spec in FAILURE_COLUMNS})


def _text(value: Any) -> str | None:
    """A cell as text; None for a missing or empty one."""
    return None if value is None or pd.isna(value) or value == "" else str(value)


def _subagent(turn: Any) -> str | None:
    """The subagent a turn key names (`turn_2#planner` → planner, TC-22); None for the turn's own."""
    return turn.split("#", 1)[1] if isinstance(turn, str) and "#" in turn else None


def error_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` whose `error_class` and `error` read as text in a table, never NaN.

    A failure written without a message (a tool that timed out, a bare `isError`) reads
    "(no message)"; a row without a failure has empty cells. For the frames of
    `turn_failures`, `assemble_turns` and `steps`, where the missing values stay None.

    >>> shown = error_cells(pd.DataFrame({"error_class": ["timeout", None], "error": [None] * 2}))
    >>> shown["error"].tolist()
    ['(no message)', '']
    """
    failed = frame["error_class"].notna()
    return frame.assign(
        error_class=frame["error_class"].fillna(""),
        error=frame["error"].where(frame["error"].notna() | ~failed, _NO_MESSAGE).fillna(""),
    )


def failure_reason(failures: pd.DataFrame, status: str, failed_calls: int) -> str:
    """One turn's reason in markdown: the class and message, its status, and where it was written.

    The message, class, event and file come from the trace (a model server writes the message),
    so each is escaped here by `md_text` (HTML and markdown's marks): the markdown is safe to
    give `mo.md` as it is, and a message such as `<img src=x>` reads as written, not rendered.

    Args:
        failures: the turn's `turn_failures`.
        status: the turn's `status`.
        failed_calls: the turn's `failures` (failed tool calls).

    >>> print(failure_reason(empty_frame(FAILURE_COLUMNS), "completed", 0))
    No failure in this turn: status **completed**, failures 0.
    """
    if failures.empty:
        return f"No failure in this turn: status **{md_text(status)}**, failures {failed_calls}."
    reason = failures[failures["is_reason"].astype(bool)].iloc[0]
    message = reason["error"] if isinstance(reason["error"], str) else _NO_MESSAGE
    where = (
        f"<code>{md_text(PurePath(reason['file']).name)}:{reason['line']}</code>"
        if isinstance(reason["file"], str)
        else "events not read from a file"
    )
    error = f"**<code>{md_text(reason['error_class'])}</code>**: {md_text(message)}"
    event = f"<code>{md_text(reason['event'])}</code>"
    subagent = _subagent(reason.get("turn"))
    if subagent is None:
        return (
            f"{error}\n\nstatus **{md_text(status)}**, failures {failed_calls} (failed tool "
            f"calls); the reason is {event} at {_moment(reason['ts'])} in {where}."
        )
    what = (
        "a tool call of the subagent" if reason["event"] == "eve.action.result" else "the subagent"
    )
    return (
        f"In this turn {what} **{md_text(subagent)}** failed "
        f"(<code>{md_text(reason['turn'])}</code>): {error}\n\n"
        f"status **{md_text(status)}**, failures {failed_calls} (failed tool calls; a "
        f"subagent's end ends the subagent, not the turn); the reason is the subagent's {event} "
        f"at {_moment(reason['ts'])} in {where}."
    )


def _moment(ts: object) -> str:
    """An event's time as the tables show it: to the millisecond, as the writer writes `ts`, finer
    only when the line held more; `2026-11-26 00:36:43.905+00:00`, not `.905000`."""
    if not isinstance(ts, pd.Timestamp) or pd.isna(ts):
        return md_text(ts)
    if ts.nanosecond:
        return md_text(ts.isoformat(sep=" ", timespec="nanoseconds"))
    if ts.microsecond % 1000:
        return md_text(ts.isoformat(sep=" ", timespec="microseconds"))
    return md_text(ts.isoformat(sep=" ", timespec="milliseconds"))
