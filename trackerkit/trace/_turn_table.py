"""The turns table from per-row turn codes: counts and sums by `np.bincount`, no Python per row.

`build` takes the rows' turn codes (from the assembly in `turns.py`) and aggregates the
columns of `TURN_COLUMNS`; only the few rows of each event kind are touched in Python.

Odd values in `data` never break the table (TC-19's spirit): a token count that is not a
whole number from 0 to `TOKENS_MAX` (`3.0` reads as 3), a cost that is not a finite number
from 0 to `COST_MAX`, a `usage` or an `actions` of the wrong kind read as missing, and how
many were skipped, by path, is in the frame's `attrs["skipped"]` (`{"data.usage.in": 2}`;
empty when none was).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from trackerkit.trace._columns import SKIPPED, ColumnSpec, empty_frame
from trackerkit.trace.failure import FAILURE_EVENTS, error_of, failure_of

__all__ = ["COST_MAX", "TOKENS_MAX", "TURN_COLUMNS", "build", "chat_of", "known_cost"]

TOKENS_MAX = 10**12
"""The largest token count a step may report; a million such steps still sum exactly in int64."""

COST_MAX = 1e6
"""The largest cost in USD a step may report (a sum of such costs stays finite)."""

TURN_COLUMNS: list[ColumnSpec] = [
    ColumnSpec("name", "name", "str", doc="`<session>/<turn_N>`, what `trace show` takes (TC-13)"),
    ColumnSpec(
        "kind",
        "kind",
        "str",
        doc=(
            "chat (it has a turn.bound); night (none, and its source is a scheduled send's: rollup,"
            " cron, watch, brief, insight, the old digest, or unknown when only eve rows name it,"
            " TC-8); live (none, begun on a live channel such as http or web); cut (none, not"
            " night, and its eve.turn.started is not among the events: it began in a day file"
            " not read, so whether it was a chat turn cannot be told, and start and duration"
            " count from its first row read)"
        ),
    ),
    ColumnSpec("session", "session", "str"),
    ColumnSpec("turn", "turn", "str", doc="the eve turn key, `turn_N`, without a subagent suffix"),
    ColumnSpec(
        "source", "source", "str", doc="the first source that names a channel, else unknown"
    ),
    ColumnSpec("chat", "chat", "str", doc="the chat key of a chat turn's turn.bound"),
    ColumnSpec(
        "day",
        "day",
        "str",
        "",
        doc="the day file of the turn's first event (TC-2); empty for events not read from files",
    ),
    ColumnSpec("start", "start", "datetime"),
    ColumnSpec("end", "end", "datetime"),
    ColumnSpec("duration", "duration", "timedelta"),
    ColumnSpec("events", "events", "int", 0),
    ColumnSpec("steps", "steps", "int", 0, doc="eve.step.completed rows"),
    ColumnSpec("tokens_in", "tokens_in", "int", 0),
    ColumnSpec("tokens_out", "tokens_out", "int", 0),
    ColumnSpec(
        "cost_usd",
        "cost_usd",
        "float",
        0.0,
        doc="the sum of the steps' known costs (usage.costUsd)",
    ),
    ColumnSpec(
        "steps_without_cost",
        "steps_without_cost",
        "int",
        0,
        doc="steps with no cost (no price, or an odd value): cost_usd leaves them out",
    ),
    ColumnSpec(
        "tool_calls",
        "tool_calls",
        "int",
        0,
        doc="actions requested (a retried step that asks for a call again counts it again)",
    ),
    ColumnSpec(
        "failures",
        "failures",
        "int",
        0,
        doc="failed tool calls: results with a failure class (TC-16); a failed step or turn "
        "is not one, so a completed turn may have failures (the model went on) and a "
        "failed one none (a step or the turn failed, not a tool)",
    ),
    ColumnSpec("delivered", "delivered", "int", 0, doc="outbox.delivered rows"),
    ColumnSpec("fell_back", "fell_back", "int", 0, doc="deliveries with fellBack (TC-17)"),
    ColumnSpec(
        "status",
        "status",
        "str",
        doc="how the turn ended, by its own end events (a subagent's, turn_3#node, end only "
        "the subagent): failed (eve.turn.failed), cancelled, completed, stopped (a "
        "stop.requested and no end event), or open (no end yet); the first of these in "
        "that order when several",
    ),
    ColumnSpec(
        "error_class",
        "error_class",
        "str",
        doc="the failure's class: the code of the first failed step or turn, else the class "
        "of the first failed tool call (TC-16); None without a failure",
    ),
    ColumnSpec("error", "error", "str", doc="that failure's message as written"),
    ColumnSpec(
        "started",
        "started",
        "bool",
        False,
        doc="whether the turn's own eve.turn.started is among the events: False when the turn "
        "began before them (a day read alone by read_trace(days=...) cuts a turn begun the "
        "day before; read_day_turns gives each turn whole)",
    ),
    ColumnSpec(
        "subagents",
        "subagents",
        "str",
        "",
        doc="the subagents seen, by node (`planner` for `turn_3#planner`, TC-22), comma-separated",
    ),
    ColumnSpec("orphans", "orphans", "int", 0, doc="orphan rows during the turn, same chat"),
]
"""The columns of the turns frame, in order."""

_NO_CHANNEL = ["unknown", "bridge", ""]
_NIGHT_SOURCES = frozenset({"rollup", "cron", "watch", "brief", "insight", "digest", "unknown"})
"""A turn without turn.bound whose source is one of these is a night turn (TC-8); `digest` is
the old journals' name of a scheduled send, `unknown` a turn only eve rows name."""
_STATUS = ["failed", "cancelled", "completed", "stopped", "open"]  # the first one seen wins
_END = {"eve.turn.failed": 0, "eve.turn.cancelled": 1, "eve.turn.completed": 2, "stop.requested": 3}


def chat_of(key: str) -> str | None:
    """The chat of an update or chat key (`tg:<chat>…`), None for other keys."""
    parts = key.split(":")
    return parts[1] if len(parts) > 1 and parts[0] == "tg" and parts[1] else None


def _tokens(value: Any) -> bool:
    if type(value) is float and not value.is_integer():  # 1.5 tokens; NaN and inf too
        return False
    return type(value) in (int, float) and 0 <= value <= TOKENS_MAX


def known_cost(value: Any) -> bool:
    """Whether a step's `usage.costUsd` is a cost: a number from 0 to `COST_MAX` (no NaN, no inf,
    no negative), as every table and figure counts it."""
    return type(value) in (int, float) and 0 <= value <= COST_MAX  # NaN and inf fail too


class _Usage:
    """The tokens and costs of step rows, odd values read as missing and counted by path."""

    def __init__(self, data: list[Any], skipped: Counter[str]) -> None:
        self.tokens_in: list[int] = []
        self.tokens_out: list[int] = []
        self.cost: list[float] = []
        self.known: list[float] = []  # 1.0 when the step's cost is known
        for row in data:
            # `type(x) is dict` first: an isinstance test against an ABC costs far more.
            usage = row.get("usage") if type(row) is dict or isinstance(row, Mapping) else None
            if type(usage) is not dict and not isinstance(usage, Mapping):
                if usage is not None:
                    skipped["data.usage"] += 1
                usage = {}
            self.tokens_in.append(self._take(usage, "in", _tokens, skipped))
            self.tokens_out.append(self._take(usage, "out", _tokens, skipped))
            cost = self._take(usage, "costUsd", known_cost, skipped)
            self.known.append(float(cost is not None))
            self.cost.append(0.0 if cost is None else float(cost))

    @staticmethod
    def _take(usage: Mapping[str, Any], key: str, fits: Any, skipped: Counter[str]) -> Any:
        value = usage.get(key)
        if value is None:
            return 0 if fits is _tokens else None
        if fits(value):
            return int(value) if fits is _tokens else value
        skipped[f"data.usage.{key}"] += 1
        return 0 if fits is _tokens else None


class _Rows:
    """The rows of one event name that belong to a turn: their codes and data."""

    def __init__(self, events: pd.DataFrame, codes: np.ndarray[Any, Any], names: set[str]) -> None:
        mask = events["name"].isin(names).to_numpy(dtype=bool) & (codes >= 0)
        self.codes = codes[mask]
        self.data = events["data"].to_numpy(dtype=object)[mask].tolist()
        self.index = np.flatnonzero(mask)

    def count(self, size: int, weights: list[float] | None = None) -> np.ndarray[Any, Any]:
        return np.bincount(self.codes, weights=weights, minlength=size)

    def total(self, size: int, values: list[int]) -> np.ndarray[Any, Any]:
        """Exact integer sums per turn (float weights would round large counts)."""
        sums = np.zeros(size, dtype=np.int64)
        np.add.at(sums, self.codes, np.asarray(values, dtype=np.int64))
        return sums


def build(
    events: pd.DataFrame,
    codes: np.ndarray[Any, Any],
    labels: list[str],
    chats: dict[str, str],
    chat_turns: set[str],
) -> pd.DataFrame:
    """One row per label (turn) in start order; `codes` gives each event's label or -1."""
    size = len(labels)
    kept = codes >= 0
    if size == 0 or not kept.any():
        frame = empty_frame(TURN_COLUMNS)
        frame.attrs[SKIPPED] = {}
        return frame
    skipped: Counter[str] = Counter()
    ts = events["ts"].to_numpy(dtype="datetime64[us]").astype(np.int64)
    spans = (
        pd.DataFrame({"code": codes[kept], "ts": ts[kept]})
        .groupby("code")["ts"]
        .agg(["min", "max"])
    )
    start = spans["min"].reindex(range(size)).to_numpy(dtype=np.int64)
    end = spans["max"].reindex(range(size)).to_numpy(dtype=np.int64)
    out: dict[str, Any] = {"events": np.bincount(codes[kept], minlength=size)}
    steps = _Rows(events, codes, {"eve.step.completed"})
    usage = _Usage(steps.data, skipped)
    out["steps"] = steps.count(size)
    out["tokens_in"] = steps.total(size, usage.tokens_in)
    out["tokens_out"] = steps.total(size, usage.tokens_out)
    out["cost_usd"] = steps.count(size, usage.cost)
    out["steps_without_cost"] = out["steps"] - steps.count(size, usage.known).astype(np.int64)
    requested = _Rows(events, codes, {"eve.actions.requested"})
    out["tool_calls"] = requested.count(size, [_actions(d, skipped) for d in requested.data])
    results = _Rows(events, codes, {"eve.action.result"})
    out["failures"] = results.count(size, [float(failure_of(d) is not None) for d in results.data])
    delivered = _Rows(events, codes, {"outbox.delivered"})
    out["delivered"] = delivered.count(size)
    out["fell_back"] = delivered.count(
        size, [float(d.get("fellBack") is True) for d in delivered.data]
    )
    ends = _Rows(events, codes, set(_END))
    rank = np.full(size, len(_STATUS) - 1)
    names = events["name"].to_numpy(dtype=object)[ends.index]
    # A subagent's own turn events (`turn_3#planner`) end the subagent, not the turn (TC-8).
    turns = events["turn"].iloc[ends.index]
    own = ~turns.str.contains("#", regex=False, na=False).to_numpy(dtype=bool)
    np.minimum.at(rank, ends.codes[own], np.asarray([_END[n] for n in names[own]], dtype=np.int64))
    source = _first_sources(events, codes, ts, size)
    days = _first_days(events, codes, ts, size)
    errors = _first_errors(events, codes, ts, size)
    subagents = _subagents(events, codes, size)
    started = _started(events, codes, size)
    order = np.argsort(start, kind="stable")
    session = [labels[i].rsplit("/", 1)[0] for i in order]
    frame = pd.DataFrame(
        {
            "name": [labels[i] for i in order],
            "kind": [_kind(labels[i] in chat_turns, source[i], started[i]) for i in order],
            "session": session,
            "turn": [labels[i].rsplit("/", 1)[1] for i in order],
            "source": [source[i] for i in order],
            "chat": [chats.get(labels[i]) for i in order],
            "day": [days[i] for i in order],
            "start": pd.to_datetime(start[order], unit="us", utc=True),
            "end": pd.to_datetime(end[order], unit="us", utc=True),
            "started": started[order],
        }
    )
    frame["duration"] = frame["end"] - frame["start"]
    for name, values in out.items():
        frame[name] = np.asarray(values)[order]
    frame["status"] = [_STATUS[rank[i]] for i in order]
    frame["error_class"] = [errors[i][0] for i in order]
    frame["error"] = [errors[i][1] for i in order]
    frame["subagents"] = [subagents[i] for i in order]
    frame["orphans"] = _orphans_during(events, codes, ts, frame)
    frame = frame[[spec.name for spec in TURN_COLUMNS]]
    frame = frame.astype({spec.name: spec.dtype for spec in TURN_COLUMNS})
    frame.attrs[SKIPPED] = dict(sorted(skipped.items()))
    return frame


def _actions(data: Any, skipped: Counter[str]) -> int:
    """How many actions a request lists; 0, counted as skipped, when `actions` is no list."""
    actions = data.get("actions") if isinstance(data, Mapping) else None
    if isinstance(actions, list):
        return len(actions)
    if actions is not None:
        skipped["data.actions"] += 1
    return 0


def _kind(bound: bool, source: str, started: bool) -> str:
    """chat, night, live or cut (see the `kind` column)."""
    if bound:
        return "chat"
    if source in _NIGHT_SOURCES:
        return "night"
    return "live" if started else "cut"


def _first_sources(
    events: pd.DataFrame, codes: np.ndarray[Any, Any], ts: np.ndarray[Any, Any], size: int
) -> list[str]:
    """The first source (by ts) of each turn that names a channel; unknown when none does."""
    named = (~events["source"].isin(_NO_CHANNEL)).to_numpy(dtype=bool) & (codes >= 0)
    rows = np.flatnonzero(named)
    rows = rows[np.argsort(ts[rows], kind="stable")]
    firsts, at = np.unique(codes[rows], return_index=True)
    sources = ["unknown"] * size
    values = events["source"].to_numpy(dtype=object)
    for code, row in zip(firsts.tolist(), rows[at].tolist(), strict=True):
        sources[code] = str(values[row])
    return sources


def _first_days(
    events: pd.DataFrame, codes: np.ndarray[Any, Any], ts: np.ndarray[Any, Any], size: int
) -> list[str]:
    """The day file of each turn's first event (TC-2); empty when the events had no day."""
    if "day" not in events.columns:
        return [""] * size
    rows = np.flatnonzero(codes >= 0)
    rows = rows[np.argsort(ts[rows], kind="stable")]
    firsts, at = np.unique(codes[rows], return_index=True)
    found = [""] * size
    values = events["day"].to_numpy(dtype=object)
    for code, row in zip(firsts.tolist(), rows[at].tolist(), strict=True):
        day = values[row]
        found[code] = day if isinstance(day, str) else ""
    return found


def _first_errors(
    events: pd.DataFrame, codes: np.ndarray[Any, Any], ts: np.ndarray[Any, Any], size: int
) -> list[tuple[str | None, str | None]]:
    """Each turn's failure: its class and message (`error_of`), else Nones.

    The first failed step or turn (by ts) when there is one (it is what failed the turn), else
    the first failed tool call.
    """
    rows = np.flatnonzero(events["name"].isin(FAILURE_EVENTS).to_numpy(dtype=bool) & (codes >= 0))
    names = events["name"].to_numpy(dtype=object)
    tools = (names[rows] == "eve.action.result").astype(np.int64)
    rows = rows[np.lexsort((ts[rows], tools))]
    data = events["data"].to_numpy(dtype=object)
    found: list[tuple[str | None, str | None]] = [(None, None)] * size
    seen: set[int] = set()
    for row in rows.tolist():
        code = int(codes[row])
        if code in seen:
            continue
        error = error_of(str(names[row]), data[row])
        if error is not None:
            found[code] = error
            seen.add(code)
    return found


def _started(events: pd.DataFrame, codes: np.ndarray[Any, Any], size: int) -> Any:
    """Whether each turn's own eve.turn.started (not a subagent's) is among the events."""
    begun = _Rows(events, codes, {"eve.turn.started"})
    turns = events["turn"].iloc[begun.index]
    own = ~turns.str.contains("#", regex=False, na=False).to_numpy(dtype=bool)
    return np.bincount(begun.codes[own], minlength=size) > 0


def _subagents(events: pd.DataFrame, codes: np.ndarray[Any, Any], size: int) -> list[str]:
    """The subagent suffixes (`turn_3#planner` → planner) seen in each turn (TC-22)."""
    turns = events["turn"].astype(object).fillna("")
    rows = np.flatnonzero(turns.str.contains("#", regex=False).to_numpy(dtype=bool) & (codes >= 0))
    found: list[set[str]] = [set() for _ in range(size)]
    for row, turn in zip(rows.tolist(), turns.iloc[rows].tolist(), strict=True):
        found[codes[row]].add(turn.split("#", 1)[1])
    return [",".join(sorted(s)) for s in found]


def _orphans_during(
    events: pd.DataFrame, codes: np.ndarray[Any, Any], ts: np.ndarray[Any, Any], turns: pd.DataFrame
) -> list[int]:
    """Orphan rows inside each turn's [start, end]; of the turn's chat when both have one."""
    rows = np.flatnonzero(codes < 0)
    if len(rows) == 0:
        return [0] * len(turns)
    keys = events["turn"].astype(object).fillna("").to_numpy(dtype=object)[rows]
    by_chat: dict[str | None, list[int]] = {}
    for stamp, key in zip(ts[rows].tolist(), keys.tolist(), strict=True):
        by_chat.setdefault(chat_of(key), []).append(stamp)
    every = np.sort(ts[rows])
    sorted_by_chat = {chat: np.sort(np.asarray(v, dtype=np.int64)) for chat, v in by_chat.items()}
    no_chat = sorted_by_chat.get(None, np.empty(0, dtype=np.int64))
    starts = turns["start"].to_numpy(dtype="datetime64[us]").astype(np.int64)
    ends = turns["end"].to_numpy(dtype="datetime64[us]").astype(np.int64)

    def inside(stamps: np.ndarray[Any, Any], low: int, high: int) -> int:
        return int(
            np.searchsorted(stamps, high, side="right") - np.searchsorted(stamps, low, side="left")
        )

    counts = []
    for low, high, chat in zip(starts.tolist(), ends.tolist(), turns["chat"].tolist(), strict=True):
        turn_chat = chat_of(chat) if isinstance(chat, str) else None
        if turn_chat is None:
            counts.append(inside(every, low, high))
        else:
            mine = sorted_by_chat.get(turn_chat, np.empty(0, dtype=np.int64))
            counts.append(inside(mine, low, high) + inside(no_chat, low, high))
    return counts
