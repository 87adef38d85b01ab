"""Putting events back together into turns, exactly as the contract says (TC-8..TC-14, TC-22).

A turn is named `<session>/<turn_N>` (TC-13) and is the pair (session, `turn_N`) of the eve
rows that carry both (TC-10); a subagent's `turn_3#node` belongs to `turn_3` (TC-8, TC-22).
It is a chat turn when a `turn.bound` row names it; then every row whose `turn` is the bound
`data.updateKey` joins it too (TC-9). The other rows join by time:

* `turn_N` without a session: the latest turn with that number (by start, at or before the
  row; the earliest one if none had started yet) (TC-9);
* no turn key but a session (a night send's `gate.outbound` and `outbox.*`): the latest turn
  of that session that started at or before the row (TC-11);
* `source` is never part of any key (TC-12).

Everything else is an orphan: listed by `orphans`, never dropped (TC-14) — callbacks
(`tg:<chat>:cb:<id>`, only the bridge writes them), stop entries (`tg:<chat>:stop:<id>`),
update keys never bound, keyless rows without a session (Watch, Brief, Insight parts).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

import numpy as np
import pandas as pd

from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace._columns import ColumnSpec, empty_frame
from trackerkit.trace.failure import failure_of

__all__ = [
    "ORPHAN_COLUMNS",
    "TURN_COLUMNS",
    "assemble_turns",
    "assign_turns",
    "orphans",
    "resolve_turn",
    "turn_events",
]

TURN_COLUMNS: list[ColumnSpec] = [
    ColumnSpec("name", "name", "str", doc="`<session>/<turn_N>`, what `trace show` takes (TC-13)"),
    ColumnSpec("kind", "kind", "str", doc="chat (it has a turn.bound) or night"),
    ColumnSpec("session", "session", "str"),
    ColumnSpec("turn", "turn", "str", doc="the eve turn key, `turn_N`, without a subagent suffix"),
    ColumnSpec(
        "source", "source", "str", doc="the first source that names a channel, else unknown"
    ),
    ColumnSpec("chat", "chat", "str", doc="the chat key of a chat turn's turn.bound"),
    ColumnSpec("start", "start", "datetime"),
    ColumnSpec("end", "end", "datetime"),
    ColumnSpec("duration", "duration", "timedelta"),
    ColumnSpec("events", "events", "int", 0),
    ColumnSpec("steps", "steps", "int", 0, doc="eve.step.completed rows"),
    ColumnSpec("tokens_in", "tokens_in", "int", 0),
    ColumnSpec("tokens_out", "tokens_out", "int", 0),
    ColumnSpec("cost_usd", "cost_usd", "float", 0.0),
    ColumnSpec("tool_calls", "tool_calls", "int", 0, doc="actions requested"),
    ColumnSpec("failures", "failures", "int", 0, doc="tool results with a failure class (TC-16)"),
    ColumnSpec("delivered", "delivered", "int", 0, doc="outbox.delivered rows"),
    ColumnSpec("fell_back", "fell_back", "int", 0, doc="deliveries with fellBack (TC-17)"),
    ColumnSpec("status", "status", "str", doc="completed, failed, cancelled, stopped or open"),
    ColumnSpec("subagents", "subagents", "str", "", doc="subagent suffixes seen, `#node` (TC-22)"),
    ColumnSpec("orphans", "orphans", "int", 0, doc="orphan rows during the turn, same chat"),
]
"""The columns of the turns frame, in order."""

ORPHAN_COLUMNS = ["ts", "turn", "session", "source", "name", "file", "line", "reason"]
"""The columns of the orphans frame (the event columns it keeps plus `reason`)."""

_NO_CHANNEL = {"unknown", "bridge", ""}
_END_STATUS = {
    "eve.turn.failed": "failed",
    "eve.turn.cancelled": "cancelled",
    "stop.requested": "stopped",
    "eve.turn.completed": "completed",
}


def _base(turn: str) -> str:
    """`turn_3` for `turn_3#custom-node` (TC-8, TC-22)."""
    return turn.split("#", 1)[0]


def _objects(series: pd.Series) -> np.ndarray[Any, Any]:
    return np.asarray(series.astype(object).where(series.notna(), ""), dtype=object)


class _Plan:
    """Every row's turn name (or None) and, for orphans, the reason: TC-9..TC-14 in one pass."""

    def __init__(self, events: pd.DataFrame) -> None:
        n = len(events)
        self.ts = events["ts"].to_numpy(dtype="datetime64[us]").astype(np.int64)
        turns, sessions, names = (_objects(events[c]) for c in ("turn", "session", "name"))
        self.names: np.ndarray[Any, Any] = np.full(n, None, dtype=object)
        self.reasons: dict[int, str] = {}
        self.chats: dict[str, str] = {}
        bound: dict[str, str] = {}
        self.chat_turns: set[str] = set()
        order = np.argsort(self.ts, kind="stable")
        for row in order[names[order] == "turn.bound"].tolist():
            session, turn = sessions[row], _base(turns[row])
            data = events["data"].iat[row]
            if not session or not turn or turn.startswith("tg:"):
                continue
            name = f"{session}/{turn}"
            self.chat_turns.add(name)
            if isinstance(data, dict):
                if isinstance(data.get("updateKey"), str):
                    bound.setdefault(data["updateKey"], name)
                if isinstance(data.get("chatKey"), str):
                    self.chats.setdefault(name, data["chatKey"])
        # Rows whose name depends on the (turn, session) pair alone.
        pairs = pd.MultiIndex.from_arrays([turns, sessions])
        codes, uniques = pd.factorize(pairs)
        by_pair: list[str | None] = []
        late: list[int] = []  # pair codes whose rows are placed by time
        for code, (turn, session) in enumerate(uniques):
            if turn.startswith("tg:"):
                by_pair.append(bound.get(turn))
            elif turn and session:
                by_pair.append(f"{session}/{_base(turn)}")
            else:
                by_pair.append(None)
                late.append(code)
        pair_names = np.asarray([*by_pair, None], dtype=object)
        self.names[:] = pair_names[codes]
        starts = self._starts()
        by_session: dict[str, list[tuple[int, str]]] = defaultdict(list)
        by_base: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for name, start in starts.items():
            session, turn = name.rsplit("/", 1)
            by_session[session].append((start, name))
            by_base[turn].append((start, name))
        for table in (*by_session.values(), *by_base.values()):
            table.sort()
        for row in np.flatnonzero(np.isin(codes, late)).tolist():
            self._place(row, turns[row], sessions[row], by_session, by_base)
        for row in np.flatnonzero(pd.isna(pd.Series(self.names))).tolist():
            self.reasons.setdefault(row, _orphan_reason(turns[row], sessions[row]))

    def _starts(self) -> dict[str, int]:
        """The first `ts` of every turn named so far (keyed and bound rows)."""
        known = pd.Series(self.ts).groupby(pd.Series(self.names), sort=False).min()
        return {str(k): int(v) for k, v in known.items()}

    def _place(
        self,
        row: int,
        turn: str,
        session: str,
        by_session: dict[str, list[tuple[int, str]]],
        by_base: dict[str, list[tuple[int, str]]],
    ) -> None:
        ts = int(self.ts[row])
        if not turn and session:  # TC-11
            table = by_session.get(session, [])
            at = bisect.bisect_right(table, (ts, "\uffff"))
            if at:
                self.names[row] = table[at - 1][1]
            else:
                self.reasons[row] = "no turn of its session started before it (TC-11)"
        elif turn:  # TC-9: turn_N without a session
            table = by_base.get(_base(turn), [])
            at = bisect.bisect_right(table, (ts, "\uffff"))
            if table:
                self.names[row] = table[at - 1][1] if at else table[0][1]
            else:
                self.reasons[row] = f"no turn is numbered {_base(turn)} (TC-9)"


def _orphan_reason(turn: str, session: str) -> str:
    if turn.startswith("tg:"):
        parts = turn.split(":")
        if len(parts) > 3 and parts[2] == "cb":
            return "callback: only the bridge writes its key (TC-14)"
        if len(parts) > 3 and parts[2] == "stop":
            return "native stop entry; stop.* rows carry the turn (TC-14)"
        return "update key never bound to a turn by turn.bound (TC-9)"
    if not turn and not session:
        return "no turn key and no session (a Watch, Brief or Insight send, TC-8)"
    return "no turn to join"


def assign_turns(events: pd.DataFrame) -> pd.Series:
    """The name of every event's turn (`<session>/<turn_N>`), None for an orphan; aligned with `events`."""
    if events.empty:
        return pd.Series([], index=events.index, dtype=object, name="turn_name")
    return pd.Series(_Plan(events).names, index=events.index, dtype=object, name="turn_name")


def orphans(events: pd.DataFrame) -> pd.DataFrame:
    """The rows no turn takes, with the reason in words; listed, never dropped (TC-14)."""
    if events.empty:
        return pd.DataFrame(columns=ORPHAN_COLUMNS)
    plan = _Plan(events)
    rows = sorted(plan.reasons)
    frame = events.iloc[rows][ORPHAN_COLUMNS[:-1]].copy()
    frame["reason"] = [plan.reasons[r] for r in rows]
    return frame.reset_index(drop=True)


def _names_of(events: pd.DataFrame, names: pd.Series | None) -> pd.Series:
    if names is not None:
        return names
    if "turn_name" in events.columns:
        return events["turn_name"]
    return assign_turns(events)


def _values(events: pd.DataFrame, key: str) -> pd.Series:
    return events["data"].map(lambda d: d.get(key) if isinstance(d, dict) else None)


def _usage(data: Any, key: str) -> float:
    usage = data.get("usage") if isinstance(data, dict) else None
    value = usage.get(key) if isinstance(usage, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def assemble_turns(events: pd.DataFrame, names: pd.Series | None = None) -> pd.DataFrame:
    """One row per turn (columns `TURN_COLUMNS`), oldest first.

    Args:
        events: an events frame from `read_trace`.
        names: the turn names from `assign_turns`, when already computed.
    """
    if events.empty:
        return empty_frame(TURN_COLUMNS)
    plan = _Plan(events) if names is None else None
    turn_names = pd.Series(plan.names if plan else names, index=events.index, dtype=object)
    chats = plan.chats if plan else _chats(events, turn_names)
    chat_turns = plan.chat_turns if plan else set(chats) | _bound_turns(events, turn_names)
    kept = turn_names.notna()
    frame = events.loc[kept, ["ts", "turn", "source", "name", "data"]].copy()
    frame["turn_name"] = turn_names[kept].astype(str)
    if frame.empty:
        return empty_frame(TURN_COLUMNS)
    groups = frame.groupby("turn_name", sort=False, observed=True)
    out = pd.DataFrame({"start": groups["ts"].min(), "end": groups["ts"].max()})
    out["events"] = groups.size()
    event_name = frame["name"].astype(str)
    steps = frame[event_name == "eve.step.completed"]
    step_groups = steps.groupby("turn_name", sort=False)
    out["steps"] = step_groups.size()
    for column, key in (("tokens_in", "in"), ("tokens_out", "out"), ("cost_usd", "costUsd")):
        values = steps["data"].map(lambda d, key=key: _usage(d, key))
        out[column] = values.groupby(steps["turn_name"]).sum()
    requested = frame[event_name == "eve.actions.requested"]
    actions = requested["data"].map(
        lambda d: len(d.get("actions") or []) if isinstance(d, dict) else 0
    )
    out["tool_calls"] = actions.groupby(requested["turn_name"]).sum()
    results = frame[event_name == "eve.action.result"]
    failed = results["data"].map(lambda d: failure_of(d) is not None)
    out["failures"] = failed.groupby(results["turn_name"]).sum()
    delivered = frame[event_name == "outbox.delivered"]
    out["delivered"] = delivered.groupby("turn_name").size()
    fell = delivered["data"].map(lambda d: isinstance(d, dict) and d.get("fellBack") is True)
    out["fell_back"] = fell.groupby(delivered["turn_name"]).sum()
    out = out.fillna(0)
    out["source"] = _sources(frame)
    out["status"] = _statuses(frame, event_name)
    suffixes = frame["turn"].astype(str).str.partition("#")[2]
    has_suffix = suffixes != ""
    out["subagents"] = (
        suffixes[has_suffix]
        .groupby(frame["turn_name"][has_suffix])
        .agg(lambda s: ",".join(sorted(set(s))))
    )
    out = out.sort_values("start", kind="stable")
    result = pd.DataFrame(
        {
            "name": out.index.astype(str),
            "kind": ["chat" if n in chat_turns else "night" for n in out.index],
            "session": [n.rsplit("/", 1)[0] for n in out.index],
            "turn": [n.rsplit("/", 1)[1] for n in out.index],
            "source": out["source"].fillna("unknown").to_numpy(dtype=object),
            "chat": [chats.get(n) for n in out.index],
            "start": out["start"].to_numpy(),
            "end": out["end"].to_numpy(),
        }
    )
    result["duration"] = result["end"] - result["start"]
    for spec in TURN_COLUMNS[9:-1]:
        series: pd.Series = out[spec.name]
        if spec.name == "subagents":
            series = series.fillna("")
        result[spec.name] = series.to_numpy(dtype=object)
    result["orphans"] = _orphans_during(events, result, plan.reasons if plan else None, turn_names)
    result = result.astype({spec.name: spec.dtype for spec in TURN_COLUMNS})
    return result.reset_index(drop=True)


def _chats(events: pd.DataFrame, names: pd.Series) -> dict[str, str]:
    chats: dict[str, str] = {}
    bound = events["name"].astype(str) == "turn.bound"
    for name, data in zip(names[bound], events.loc[bound, "data"], strict=True):
        if name is not None and isinstance(data, dict) and isinstance(data.get("chatKey"), str):
            chats.setdefault(name, data["chatKey"])
    return chats


def _bound_turns(events: pd.DataFrame, names: pd.Series) -> set[str]:
    bound = events["name"].astype(str) == "turn.bound"
    return {n for n in names[bound] if n is not None}


def _sources(frame: pd.DataFrame) -> pd.Series:
    """The first source of each turn that names a channel (unknown and bridge name none)."""
    source = frame["source"].astype(str)
    named = frame[~source.isin(_NO_CHANNEL)]
    first = source[named.index].groupby(named["turn_name"], sort=False).first()
    return first


def _statuses(frame: pd.DataFrame, event_name: pd.Series) -> pd.Series:
    ends = frame[event_name.isin(_END_STATUS)]
    rank = {"failed": 0, "cancelled": 1, "stopped": 2, "completed": 3}
    status = event_name[ends.index].map(_END_STATUS)
    best = status.groupby(ends["turn_name"]).agg(lambda s: min(s, key=rank.__getitem__))
    return best.reindex(frame["turn_name"].unique()).fillna("open")


def _chat_of(key: str) -> str | None:
    """The chat of an update key (`tg:<chat>:…`), None for other keys."""
    parts = key.split(":")
    return parts[1] if len(parts) > 2 and parts[0] == "tg" else None


def _orphans_during(
    events: pd.DataFrame, turns: pd.DataFrame, reasons: dict[int, str] | None, names: pd.Series
) -> list[int]:
    """Orphan rows inside each turn's [start, end], of the same chat when both have one."""
    rows = (
        sorted(reasons) if reasons is not None else np.flatnonzero(names.isna().to_numpy()).tolist()
    )
    if not rows:
        return [0] * len(turns)
    stamps = events["ts"].iloc[rows].to_numpy(dtype="datetime64[us]").astype(np.int64)
    chats = np.asarray([_chat_of(str(t)) for t in events["turn"].iloc[rows]], dtype=object)
    starts = turns["start"].to_numpy(dtype="datetime64[us]").astype(np.int64)
    ends = turns["end"].to_numpy(dtype="datetime64[us]").astype(np.int64)
    counts = []
    for start, end, chat in zip(starts, ends, turns["chat"], strict=True):
        turn_chat = _chat_of(f"{chat}:") if isinstance(chat, str) else None
        inside = (stamps >= start) & (stamps <= end)
        if turn_chat is not None:
            inside &= np.asarray([c is None or c == turn_chat for c in chats], dtype=bool)
        counts.append(int(inside.sum()))
    return counts


def resolve_turn(turns: pd.DataFrame, ref: str) -> str:
    """The full name a reference means: `<session>/turn_3` exactly, a bare `turn_3` the newest (TC-13).

    Raises:
        BadRequestError: the reference is empty.
        NotFoundError: no turn has that name or number.
    """
    ref = ref.strip()
    if not ref:
        raise BadRequestError("a turn reference is empty; give <session>/turn_N or turn_N.")
    if "/" in ref:
        session, turn = ref.rsplit("/", 1)
        name = f"{session}/{_base(turn)}"
        if name in set(turns["name"]):
            return name
        raise NotFoundError(
            f"no turn is named {name!r}; `trace turns DAY` lists the turns of a day."
        )
    matches = turns[turns["turn"] == _base(ref)]
    if matches.empty:
        raise NotFoundError(
            f"no turn is numbered {_base(ref)!r}; `trace turns DAY` lists the turns."
        )
    return str(matches.sort_values("start", kind="stable")["name"].iloc[-1])


def turn_events(events: pd.DataFrame, name: str, names: pd.Series | None = None) -> pd.DataFrame:
    """One turn's events in `ts` order with a `turn_name` column; a bare `turn_N` means the newest."""
    turn_names = _names_of(events, names)
    if "/" not in name:
        starts = events["ts"].groupby(turn_names).min()
        frame = pd.DataFrame({"name": starts.index.astype(str), "start": starts.to_numpy()})
        frame["turn"] = frame["name"].str.rsplit("/", n=1).str[1]
        name = resolve_turn(frame, name)
    else:
        session, turn = name.rsplit("/", 1)
        name = f"{session}/{_base(turn)}"
    picked = events[(turn_names == name).to_numpy()].copy()
    if picked.empty:
        raise NotFoundError(
            f"no turn is named {name!r}; `trace turns DAY` lists the turns of a day."
        )
    picked["turn_name"] = name
    return picked.sort_values("ts", kind="stable")
