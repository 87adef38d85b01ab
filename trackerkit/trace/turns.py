"""Putting events back together into turns, exactly as the contract says (TC-8..TC-14, TC-22).

A turn is named `<session>/<turn_N>` (TC-13) and is the pair (session, `turn_N`) of the eve
rows that carry both (TC-10); a subagent's `turn_3#node` belongs to `turn_3` (TC-8, TC-22).
It is a chat turn when a `turn.bound` row names it; then every row whose `turn` is the bound
`data.updateKey` joins it too (TC-9). The other rows join by time:

* `turn_N` without a session (TC-9, "the latest turn with that turn_N"): the turn with that
  number whose span (first to last event) holds the row, the latest started if several; else
  the nearest by time (the gap to a turn's end for a turn before the row, to its start for one
  after it; on a tie the later turn). Not simply the latest begun at or before the row: such a
  row (`context.parts`) is written as its turn begins, sometimes a moment before the turn's
  first logged event, and eve restarts `turn_0` in every session, so that would hand it to
  another session's `turn_0` that ended hours before;
* no turn key but a session (a night send's `gate.outbound` and `outbox.*`): the latest turn
  of that session that started at or before the row (TC-11);
* `source` is never part of any key (TC-12).

Everything else is an orphan: listed by `orphans`, never dropped (TC-14) — callbacks
(`tg:<chat>:cb:<id>`, only the bridge writes them), stop entries (`tg:<chat>:stop:<id>`),
update keys never bound, keyless rows without a session (Watch, Brief, Insight parts).
"""

from __future__ import annotations

import bisect
import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.trace._columns import empty_frame
from trackerkit.trace._turn_table import TURN_COLUMNS, build
from trackerkit.trace.event_data import plain_data, qualified, readable, require_data

__all__ = [
    "ORPHAN_COLUMNS",
    "TURN_COLUMNS",
    "assemble_turns",
    "assign_turns",
    "orphans",
    "resolve_turn",
    "turn_events",
]


ORPHAN_COLUMNS = ["ts", "turn", "session", "source", "name", "file", "line", "reason"]
"""The columns of the orphans frame (the event columns it keeps plus `reason`)."""


def _base(turn: str) -> str:
    """`turn_3` for `turn_3#custom-node` (TC-8, TC-22)."""
    return turn.split("#", 1)[0]


def _codes(series: pd.Series) -> tuple[np.ndarray[Any, Any], list[str]]:
    """Integer codes of a string column and the values they stand for (missing reads as "")."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = np.asarray(series.cat.codes, dtype=np.int64)
        values = [str(v) for v in series.cat.categories]
    else:
        codes, uniques = pd.factorize(series.astype(object), use_na_sentinel=True)
        codes = np.asarray(codes, dtype=np.int64)
        values = [str(v) for v in uniques]
    codes = np.where(codes < 0, len(values), codes)
    return codes, [*values, ""]


class _Plan:
    """Every row's turn (a code into `labels`, -1 for an orphan) and, for orphans, the reason.

    TC-9..TC-14 in one pass over the distinct (turn, session) pairs; only rows placed by
    time (keyless with a session, turn_N without one) are looked at one by one.
    """

    def __init__(self, events: pd.DataFrame) -> None:
        self.ts = events["ts"].to_numpy(dtype="datetime64[us]").astype(np.int64)
        turn_codes, turn_values = _codes(events["turn"])
        session_codes, session_values = _codes(events["session"])
        self.turns, self.sessions = turn_codes, session_codes
        self.turn_values, self.session_values = turn_values, session_values
        self.labels: list[str] = []
        self._index: dict[str, int] = {}
        self.reasons: dict[int, str] = {}
        self.chats: dict[str, str] = {}
        self.chat_turns: set[str] = set()
        bound: dict[str, int] = {}
        rows = np.flatnonzero((events["name"] == "turn.bound").to_numpy(dtype=bool))
        for row in rows[np.argsort(self.ts[rows], kind="stable")].tolist():
            session, turn = session_values[session_codes[row]], _base(turn_values[turn_codes[row]])
            data = plain_data(events["data"].iat[row])  # JSON text too (data="raw")
            if not session or not turn or turn.startswith("tg:"):
                continue
            code = self._label(f"{session}/{turn}")
            self.chat_turns.add(self.labels[code])
            if isinstance(data, Mapping):
                if isinstance(data.get("updateKey"), str):
                    bound.setdefault(data["updateKey"], code)
                if isinstance(data.get("chatKey"), str):
                    self.chats.setdefault(self.labels[code], data["chatKey"])
        width = len(session_values)
        pairs, uniques = pd.factorize(turn_codes * width + session_codes)
        by_pair = np.full(len(uniques) + 1, -1, dtype=np.int64)
        late: list[int] = []  # pair codes whose rows are placed by time
        for pair, value in enumerate(uniques.tolist()):
            turn, session = turn_values[value // width], session_values[value % width]
            if turn.startswith("tg:"):
                by_pair[pair] = bound.get(turn, -1)
            elif turn and session:
                by_pair[pair] = self._label(f"{session}/{_base(turn)}")
            else:
                late.append(pair)
        self.codes: np.ndarray[Any, Any] = by_pair[pairs]
        self._place_late(np.flatnonzero(np.isin(pairs, late)).tolist())
        for row in np.flatnonzero(self.codes < 0).tolist():
            if row not in self.reasons:
                self.reasons[row] = _orphan_reason(*self._keys(row))

    def _label(self, name: str) -> int:
        if name not in self._index:
            self._index[name] = len(self.labels)
            self.labels.append(name)
        return self._index[name]

    def _keys(self, row: int) -> tuple[str, str]:
        return self.turn_values[self.turns[row]], self.session_values[self.sessions[row]]

    def _place_late(self, rows: list[int]) -> None:
        """TC-9 (turn_N without a session) and TC-11 (no turn key, a session): by time."""
        if not rows:
            return
        known = self.codes >= 0
        stamps = pd.Series(self.ts[known]).groupby(self.codes[known])
        starts, ends = stamps.min(), stamps.max()
        by_session: dict[str, list[tuple[int, int]]] = defaultdict(list)
        by_base: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        for code, start, end in zip(
            starts.index.tolist(), starts.tolist(), ends.tolist(), strict=True
        ):
            session, turn = self.labels[code].rsplit("/", 1)
            by_session[session].append((start, code))
            by_base[turn].append((start, end, code))
        for table in by_session.values():
            table.sort()
        numbered: dict[str, list[int]] = defaultdict(list)
        for row in rows:
            turn, session = self._keys(row)
            if not turn and session:  # TC-11
                table = by_session.get(session, [])
                at = bisect.bisect_right(table, (int(self.ts[row]), len(self.labels)))
                if at:
                    self.codes[row] = table[at - 1][1]
                else:
                    self.reasons[row] = "no turn of its session started before it (TC-11)"
            elif turn:  # TC-9: turn_N without a session
                numbered[_base(turn)].append(row)
        for base, placed in numbered.items():
            if base in by_base:
                self._place_numbered(placed, sorted(by_base[base]))
            else:
                for row in placed:
                    self.reasons[row] = f"no turn is numbered {base} (TC-9)"

    def _place_numbered(self, rows: list[int], spans: list[tuple[int, int, int]]) -> None:
        """TC-9: each row to the turn whose span (first to last event) holds it, the latest
        started if several; else the nearest turn by time (the gap to the end of a turn before
        it, to the start of one after it; on a tie the later turn).

        One sweep in `ts` order: the turns begun by a row's time wait in a heap, latest start
        on top, and a turn ended before that time leaves it for good.
        """
        starts = [start for start, _, _ in spans]
        latest_end: list[tuple[int, int]] = []  # of spans[:i + 1]: the latest end, its turn
        for number, (_, end, code) in enumerate(spans):
            if not latest_end or end >= latest_end[-1][0]:
                latest_end.append((end, code))
            else:
                latest_end.append(latest_end[number - 1])
        begun: list[tuple[int, int, int, int]] = []  # (-start, -position, end, code)
        taken = 0
        for row in sorted(rows, key=lambda r: int(self.ts[r])):
            ts = int(self.ts[row])
            while taken < len(spans) and spans[taken][0] <= ts:
                start, end, code = spans[taken]
                heapq.heappush(begun, (-start, -taken, end, code))
                taken += 1
            while begun and begun[0][2] < ts:
                heapq.heappop(begun)
            if begun:
                self.codes[row] = begun[0][3]
                continue
            after = bisect.bisect_right(starts, ts)
            if not after:  # before every turn: the first begun (the later of equal starts)
                self.codes[row] = spans[bisect.bisect_right(starts, starts[0]) - 1][2]
            elif after == len(spans):
                self.codes[row] = latest_end[-1][1]
            else:
                end, code = latest_end[after - 1]
                following = bisect.bisect_right(starts, starts[after]) - 1  # last of equal starts
                self.codes[row] = code if ts - end < starts[after] - ts else spans[following][2]

    @property
    def names(self) -> np.ndarray[Any, Any]:
        """Every row's turn name, None for an orphan."""
        names: np.ndarray[Any, Any] = np.asarray([*self.labels, None], dtype=object)[self.codes]
        return names


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
    require_data(events, "assign_turns")
    events = qualified(events)
    if events.empty:
        return pd.Series([], index=events.index, dtype=object, name="turn_name")
    return _names(events, _Plan(events))


def orphans(events: pd.DataFrame) -> pd.DataFrame:
    """The rows no turn takes, with the reason in words; listed, never dropped (TC-14)."""
    require_data(events, "orphans")
    events = qualified(events)
    if events.empty:
        return pd.DataFrame(columns=ORPHAN_COLUMNS)
    return _orphans(events, _Plan(events))


def names_and_orphans(events: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """`assign_turns(events)` and `orphans(events)` from one assembly (for a reader of both)."""
    require_data(events, "assign_turns")
    events = qualified(events)
    if events.empty:
        return assign_turns(events), orphans(events)
    plan = _Plan(events)
    return _names(events, plan), _orphans(events, plan)


def _names(events: pd.DataFrame, plan: _Plan) -> pd.Series:
    return pd.Series(plan.names, index=events.index, dtype=object, name="turn_name")


def _orphans(events: pd.DataFrame, plan: _Plan) -> pd.DataFrame:
    rows = sorted(plan.reasons)
    picked = events.iloc[rows]
    # A frame built by hand may lack `file` and `line`: those columns are empty then.
    frame = pd.DataFrame(
        {c: picked[c] if c in picked.columns else None for c in ORPHAN_COLUMNS[:-1]},
        index=picked.index,
    )
    frame["reason"] = [plan.reasons[r] for r in rows]
    return frame.reset_index(drop=True)


def names_for(events: pd.DataFrame, names: Any, what: str) -> pd.Series:
    """Every event's turn name as a Series on `events.index`: `names` as given, paired the pandas way.

    A Series is aligned by index label (sorting or filtering the events after `assign_turns`
    keeps each row's name): an index equal to the events' is used as is, a unique one that
    holds every event's label is reindexed, anything else is refused. A list or array pairs by
    position and must have one name a row. None: the frame's `turn_name` column, else
    `assign_turns(events)`.

    Raises:
        BadRequestError: the names cannot be paired with the events (`what` names the call).
    """
    if names is None:
        if "turn_name" in events.columns:
            return events["turn_name"]
        return assign_turns(events)
    if isinstance(names, pd.Series):
        if names.index.equals(events.index):
            return names
        missing = int((~events.index.isin(names.index)).sum())
        if names.index.is_unique and events.index.is_unique and not missing:
            return names.reindex(events.index)
        why = (
            f"{missing} of the {len(events)} events' index labels are not in its index"
            if missing
            else "index labels repeat, so they do not tell the rows apart"
        )
        raise BadRequestError(
            f"{what}: names= is a Series paired with the events by index label, and {why}; "
            "compute assign_turns on the frame you pass (or pass names in its row order as "
            "a list)."
        )
    values = np.asarray(names, dtype=object)
    if values.ndim != 1 or len(values) != len(events):
        count = len(values) if values.ndim == 1 else values.size
        raise BadRequestError(
            f"{what}: names= gives {count} names for {len(events)} events; a list or array "
            "pairs with the events by position, one name a row: compute assign_turns on the "
            "frame you pass."
        )
    return pd.Series(values, index=events.index, dtype=object, name="turn_name")


def assemble_turns(
    events: pd.DataFrame, names: pd.Series | Sequence[str | None] | None = None
) -> pd.DataFrame:
    """One row per turn (columns `TURN_COLUMNS`, each documented there), oldest first.

    * `day`: the day file of the turn's first event (TC-2), so per-day totals follow the files
      (a turn started before UTC midnight belongs to its file's day); empty when the events
      were not read from files.
    * `status`: how the turn ended, from its own end events (a subagent's `turn_3#node` end
      events end only the subagent): failed (`eve.turn.failed`), cancelled, completed, stopped
      (a `stop.requested` and no end event), or open (none yet).
    * `failures`: failed tool calls (TC-16) only. A tool may fail and the model go on (a
      completed turn with failures), and a turn may fail with no tool failing (a step failed:
      failed with failures 0); `error_class` and `error` say why.
    * `error_class`, `error`: the code and message of the first failed step or turn, else the
      class (TC-16) and message of the first failed tool call; None without a failure.
    * `cost_usd` sums the known step costs; `steps_without_cost` counts the steps that have
      none (a model without a price), so a total is never silently short.

    Args:
        events: an events frame from `read_trace`.
        names: the turn names from `assign_turns`, when already computed: a Series pairs with
            the events by index label, a list by position (`names_for`).

    Raises:
        BadRequestError: the events have no `data` column (read with data="none"), or `names`
            does not pair with them.
    """
    events = readable(events, "assemble_turns")
    if events.empty:
        return empty_frame(TURN_COLUMNS)
    if names is None:
        plan = _Plan(events)
        return build(events, plan.codes, plan.labels, plan.chats, plan.chat_turns)
    aligned = names_for(events, names, "assemble_turns")
    found, uniques = pd.factorize(aligned.astype(object), use_na_sentinel=True)
    codes = np.asarray(found, dtype=np.int64)
    labels = [str(u) for u in uniques]
    bound = (events["name"] == "turn.bound").to_numpy(dtype=bool) & (codes >= 0)
    chats: dict[str, str] = {}
    for code, data in zip(
        codes[bound].tolist(), events["data"].to_numpy(dtype=object)[bound], strict=True
    ):
        if isinstance(data, Mapping) and isinstance(data.get("chatKey"), str):
            chats.setdefault(labels[code], data["chatKey"])
    return build(events, codes, labels, chats, {labels[c] for c in codes[bound].tolist()})


def resolve_turn(turns: pd.DataFrame, ref: str) -> str:
    """The full name a reference means: `<session>/turn_3` exactly, a bare `turn_3` the newest (TC-13),
    a bare `turn_3#planner` the newest that ran that subagent (when `turns` has `subagents`).

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
    if "#" in ref and "subagents" in turns.columns:  # `turn_3#planner`: the turns that ran it
        node = ref.split("#", 1)[1]
        matches = matches[[node in str(s).split(",") for s in matches["subagents"]]]
        if matches.empty:
            raise NotFoundError(
                f"no turn numbered {_base(ref)!r} ran the subagent {node!r}; `trace turns DAY` "
                "lists the turns and their subagents."
            )
    if matches.empty:
        raise NotFoundError(
            f"no turn is numbered {_base(ref)!r}; `trace turns DAY` lists the turns."
        )
    return str(matches.sort_values("start", kind="stable")["name"].iloc[-1])


def turn_events(
    events: pd.DataFrame, name: str, names: pd.Series | Sequence[str | None] | None = None
) -> pd.DataFrame:
    """One turn's events in `ts` order with a `turn_name` column; a bare `turn_N` means the newest,
    and a bare `turn_N#node` the newest that ran that subagent."""
    turn_names = names_for(events, names, "turn_events")
    if "/" not in name:
        starts = events["ts"].groupby(turn_names).min()
        if "#" in name:  # `turn_3#planner`: the turns that ran that subagent (TC-22)
            ran = set(turn_names[(events["turn"] == name.strip()).to_numpy()].dropna())
            starts = starts[starts.index.isin(ran)]
            if starts.empty:
                raise NotFoundError(
                    f"no turn ran the subagent step {name.strip()!r}; `trace turns DAY` lists "
                    "the turns and their subagents."
                )
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
