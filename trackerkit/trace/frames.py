"""Derived tables of an events frame: steps, tool calls, deliveries, gate verdicts, markers.

Every table is a list of `ColumnSpec` (the columns as data) and a function that picks the
rows and builds one record per output row; `extract` does the rest. Each table carries the
`turn_name` of its rows (from `assign_turns`, computed once unless the events frame already
has a `turn_name` column or `names` is given).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeAlias

import pandas as pd

from trackerkit.trace._columns import SKIPPED, ColumnSpec, extract
from trackerkit.trace._turn_table import known_cost
from trackerkit.trace.event_data import key_part, qualified, readable, require_data
from trackerkit.trace.failure import error_of, failure_of
from trackerkit.trace.turns import names_for

__all__ = [
    "DELIVERY_COLUMNS",
    "GATE_COLUMNS",
    "MARKER_COLUMNS",
    "STEP_COLUMNS",
    "TOOL_CALL_COLUMNS",
    "deliveries",
    "gates",
    "markers",
    "steps",
    "tool_calls",
]

_WHERE = [
    ColumnSpec("ts", "ts", "datetime"),
    ColumnSpec("turn_name", "turn_name", "str", doc="`<session>/<turn_N>`, None for an orphan"),
    ColumnSpec("turn", "turn", "str"),
    ColumnSpec("session", "session", "str"),
]

STEP_COLUMNS: list[ColumnSpec] = [
    *_WHERE,
    ColumnSpec("subagent", "data.subagent", "str", doc="set on a subagent's steps (TC-15)"),
    ColumnSpec("step", "data.stepIndex", "int"),
    ColumnSpec("sequence", "data.sequence", "int"),
    ColumnSpec("finish_reason", "data.finishReason", "str"),
    ColumnSpec("usage_in", "data.usage.in", "int"),
    ColumnSpec("usage_out", "data.usage.out", "int"),
    ColumnSpec("usage_cache_read", "data.usage.cacheRead", "int"),
    ColumnSpec("usage_cache_write", "data.usage.cacheWrite", "int"),
    ColumnSpec(
        "cost_usd",
        "cost_usd",
        "float",
        doc="usage.costUsd; absent when the model has no price or the value is no cost (a "
        "number from 0 to 1,000,000, as the turns frame counts it)",
    ),
    ColumnSpec("outcome", "outcome", "str", doc="completed (eve.step.completed) or failed"),
    ColumnSpec(
        "error_class",
        "error_class",
        "str",
        doc="a failed step's code, else the class of the step's first failed tool (TC-16)",
    ),
    ColumnSpec("error", "error", "str", doc="that failure's message as written"),
]
"""One row per step: `eve.step.completed` and `eve.step.failed`."""

TOOL_CALL_COLUMNS: list[ColumnSpec] = [
    *_WHERE,
    ColumnSpec("step", "step", "int"),
    ColumnSpec("call_id", "call_id", "str"),
    ColumnSpec("tool", "tool", "str", doc="toolName, or name (a skill)"),
    ColumnSpec("action_kind", "action_kind", "str"),
    ColumnSpec("args", "args", "object", doc="the requested args, position by position"),
    ColumnSpec("subagent", "subagent", "str"),
    ColumnSpec("result_ts", "result_ts", "datetime"),
    ColumnSpec("duration", "duration", "timedelta"),
    ColumnSpec("status", "status", "str", doc="None while no result was written"),
    ColumnSpec("is_error", "is_error", "bool"),
    ColumnSpec("error_code", "error_code", "str"),
    ColumnSpec("exit_code", "exit_code", "int"),
    ColumnSpec("failure", "failure", "str", doc="the class (TC-16), derived for pre-rule rows"),
    ColumnSpec("out_chars", "out_chars", "int", doc="the size of the answer the model got"),
    ColumnSpec("result", "result", "object"),
]
"""One row per tool call: `eve.actions.requested` paired with `eve.action.result` by callId."""

DELIVERY_COLUMNS: list[ColumnSpec] = [
    *_WHERE,
    ColumnSpec("source", "source", "str"),
    ColumnSpec("clean", "gate.clean", "bool"),
    ColumnSpec("findings", "gate.findings", "object"),
    ColumnSpec("chars", "gate.chars", "int"),
    ColumnSpec("text", "gate.text", "str", doc="after redaction; None with content off"),
    ColumnSpec("outbox", "outbox_name", "str", doc="delivered, failed, or None: no outbox (TC-17)"),
    ColumnSpec("outbox_ts", "outbox_ts", "datetime"),
    ColumnSpec("ok", "outbox.ok", "bool"),
    ColumnSpec("delivered", "outbox.delivered", "bool"),
    ColumnSpec("fell_back", "outbox.fellBack", "bool", doc="delivered, but not as asked (TC-17)"),
    ColumnSpec("error", "outbox.error", "str"),
    ColumnSpec("ms", "outbox.ms", "float"),
]
"""One row per `gate.outbound`, with its `outbox.*` when there is one (TC-17)."""

GATE_COLUMNS: list[ColumnSpec] = [
    *_WHERE,
    ColumnSpec("source", "source", "str"),
    ColumnSpec("gate", "gate", "str", doc="inbound, web or outbound"),
    ColumnSpec("surface", "data.surface", "str"),
    ColumnSpec("blocked", "data.blocked", "bool"),
    ColumnSpec("reason", "data.reason", "str"),
    ColumnSpec("flags", "data.flags", "object"),
    ColumnSpec("truncated_chars", "data.truncatedChars", "int"),
    ColumnSpec("chars", "data.chars", "int"),
    ColumnSpec("clean", "data.clean", "bool"),
    ColumnSpec("findings", "data.findings", "object"),
]
"""One row per gate verdict (`gate.inbound`, `gate.web`, `gate.outbound`)."""

MARKER_COLUMNS: list[ColumnSpec] = [
    *_WHERE,
    ColumnSpec("name", "name", "str"),
    ColumnSpec("file", "file", "str"),
    ColumnSpec("line", "line", "int"),
    ColumnSpec(
        "marker",
        "marker",
        "str",
        doc="traceTrimmed, traceUnreadable, truncated, deep, keys, unreadable",
    ),
    ColumnSpec("path", "path", "str", doc="where in the event: data.result, data.args[2], …"),
    ColumnSpec("at", "at", "str", doc="for truncated: end (the end was cut) or start (bash)"),
]
"""One row per writer's mark in an event (TC-7)."""

_Names: TypeAlias = pd.Series | Sequence[str | None] | None
"""`names=` of each table: a Series pairs with the events by index label, a list by position."""

_VALUE_MARKS = {"…[deep]": "deep", "…[unreadable]": "unreadable"}
_TRUNCATED = "…[truncated]"


def _records(
    events: pd.DataFrame, names: _Names, wanted: set[str], what: str
) -> Iterator[dict[str, Any]]:
    """The events named in `wanted` as plain dicts with their `turn_name`, in `ts` order.

    Raises:
        BadRequestError: the events have no `data` column (read with data="none").
    """
    require_data(events, what)
    events = qualified(events)
    turn_names = names_for(events, names, what)
    mask = events["name"].astype(str).isin(wanted).to_numpy()
    picked = readable(events[mask], what).copy()
    picked["turn_name"] = turn_names[mask].to_numpy()
    picked = picked.sort_values("ts", kind="stable")
    columns = [
        c
        for c in ("ts", "turn", "session", "source", "name", "data", "file", "line", "turn_name")
        if c in picked.columns
    ]
    for values in zip(*(picked[c].tolist() for c in columns), strict=True):
        record = dict(zip(columns, values, strict=True))
        if not isinstance(record.get("data"), Mapping):
            record["data"] = {}
        yield record


def _step_key(rec: Mapping[str, Any]) -> tuple[Any, ...]:
    return (rec["turn_name"], rec["session"], rec["turn"], key_part(rec["data"].get("stepIndex")))


def _tool_errors(records: list[dict[str, Any]]) -> dict[int, tuple[str, str | None]]:
    """Each step attempt's first failed tool call (its class and message), by the `id` of the
    attempt's step row among `records` (in `ts` order).

    A stepIndex may run more than once (a retry), so a tool result belongs to the attempt of
    its step (same turn and stepIndex) that the step rows before it say is running: after a
    step.completed or step.failed, that attempt (the calls a step asks for come after it);
    after a step.started, or before any step row, the attempt that completes next.
    """
    current: dict[tuple[Any, ...], dict[str, Any]] = {}
    waiting: dict[tuple[Any, ...], list[tuple[str, str | None]]] = defaultdict(list)
    errors: dict[int, tuple[str, str | None]] = {}
    for rec in records:
        key = _step_key(rec)
        if rec["name"] == "eve.step.started":
            current.pop(key, None)
        elif rec["name"] in ("eve.step.completed", "eve.step.failed"):
            current[key] = rec
            for earlier in waiting.pop(key, []):
                errors.setdefault(id(rec), earlier)
        elif (error := error_of(rec["name"], rec["data"])) is not None:
            if key in current:
                errors.setdefault(id(current[key]), error)
            else:
                waiting[key].append(error)
    return errors


def steps(events: pd.DataFrame, names: _Names = None) -> pd.DataFrame:
    """One row per step, completed or failed, with its usage (columns `STEP_COLUMNS`).

    `error_class` and `error`: a failed step's code and message; for a completed step, the
    first failed tool call of that step (same turn and `stepIndex`; of this attempt when the
    step was retried, `_tool_errors`): its class (TC-16) and the message it gave. Both are None
    for a step without a failure.

    `cost_usd` is known as the turns frame knows it (`known_cost`): a negative, infinite or
    larger than 1,000,000 `costUsd` is none, counted in `attrs["skipped"]`. The turns and
    `costs_by_day` count completed steps (the contract gives usage to `step.completed` only): the
    completed rows' `cost_usd` and usage sum to their totals; a failed step's usage, when a
    writer gives one, is shown as written and left out of them.
    """
    wanted = {"eve.step.started", "eve.step.completed", "eve.step.failed", "eve.action.result"}
    records = list(_records(events, names, wanted, "steps"))
    tools = _tool_errors(records)
    rows = []
    odd_costs = 0
    for rec in records:
        if rec["name"] not in ("eve.step.completed", "eve.step.failed"):
            continue
        usage = rec["data"].get("usage")
        cost = usage.get("costUsd") if isinstance(usage, Mapping) else None
        if cost is not None and not known_cost(cost):
            odd_costs += 1
            cost = None
        rec["cost_usd"] = cost
        failed = rec["name"] == "eve.step.failed"
        error = error_of(rec["name"], rec["data"]) if failed else tools.get(id(rec))
        rec["outcome"] = "failed" if failed else "completed"
        rec["error_class"], rec["error"] = error if error is not None else (None, None)
        rows.append(rec)
    frame = extract(rows, STEP_COLUMNS)
    if odd_costs:
        skipped = frame.attrs[SKIPPED]
        skipped["data.usage.costUsd"] = skipped.get("data.usage.costUsd", 0) + odd_costs
    return frame


def tool_calls(events: pd.DataFrame, names: _Names = None) -> pd.DataFrame:
    """One row per tool call: the request's args paired with the result by callId (TC-15, TC-16).

    A result without a request and a request without a result (still running, cancelled)
    each stand alone; `failure` is the written class, derived for rows before the rule.
    """
    calls: dict[tuple[str, str], dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    wanted = {"eve.actions.requested", "eve.action.result"}
    for rec in _records(events, names, wanted, "tool_calls"):
        data = rec["data"]
        where = {k: rec[k] for k in ("ts", "turn_name", "turn", "session")}
        if rec["name"] == "eve.actions.requested":
            actions = data.get("actions") if isinstance(data.get("actions"), list) else []
            args = data.get("args") if isinstance(data.get("args"), list) else []
            for position, action in enumerate(actions):
                action = action if isinstance(action, dict) else {}
                row = where | {
                    "step": data.get("stepIndex"),
                    "call_id": action.get("callId"),
                    "tool": action.get("toolName") or action.get("name"),
                    "action_kind": action.get("kind"),
                    "args": args[position] if position < len(args) else None,
                    "subagent": data.get("subagent"),
                }
                rows.append(row)
                if row["call_id"] is not None:
                    calls[(rec["session"], key_part(row["call_id"]))] = row
            continue
        call_id = data.get("callId")
        paired = (
            calls.pop((rec["session"], key_part(call_id)), None) if call_id is not None else None
        )
        if paired is not None:
            row = paired
        else:
            row = where | {"step": data.get("stepIndex"), "call_id": call_id, "args": None}
            rows.append(row)
        row.update(
            tool=row.get("tool") or data.get("toolName") or data.get("name"),
            subagent=row.get("subagent") or data.get("subagentName") or data.get("subagent"),
            result_ts=rec["ts"],
            duration=rec["ts"] - row["ts"],
            status=data.get("status"),
            is_error=data.get("isError"),
            error_code=data.get("errorCode"),
            exit_code=data.get("exitCode"),
            failure=failure_of(data),
            out_chars=data.get("outChars"),
            result=data.get("result"),
        )
    return extract(rows, TOOL_CALL_COLUMNS)


def deliveries(events: pd.DataFrame, names: _Names = None) -> pd.DataFrame:
    """One row per `gate.outbound` with the `outbox.*` that followed it, if any (TC-17).

    Within one turn (or, outside turns, one session and source) an outbox row pairs with
    the latest earlier verdict still unpaired; a verdict may stand alone (status lines and
    failure explanations pass the gate but not the Outbox), and an outbox row without a
    verdict gets a row of its own.
    """
    waiting: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    rows: list[dict[str, Any]] = []
    wanted = {"gate.outbound", "outbox.delivered", "outbox.failed"}
    for rec in _records(events, names, wanted, "deliveries"):
        group = (rec["turn_name"],) if rec["turn_name"] else (rec["session"], rec["source"])
        where = {k: rec[k] for k in ("ts", "turn_name", "turn", "session", "source")}
        if rec["name"] == "gate.outbound":
            row = where | {"gate": rec["data"]}
            rows.append(row)
            waiting[group].append(row)
            continue
        if waiting[group]:
            row = waiting[group].pop()
        else:
            row = dict(where)
            rows.append(row)
        row.update(
            outbox_name=rec["name"].split(".", 1)[1], outbox_ts=rec["ts"], outbox=rec["data"]
        )
    return extract(rows, DELIVERY_COLUMNS)


def gates(events: pd.DataFrame, names: _Names = None) -> pd.DataFrame:
    """One row per gate verdict, inbound, web and outbound (columns `GATE_COLUMNS`)."""
    records = []
    for rec in _records(events, names, {"gate.inbound", "gate.web", "gate.outbound"}, "gates"):
        rec["gate"] = rec["name"].split(".", 1)[1]
        records.append(rec)
    return extract(records, GATE_COLUMNS)


def _marks(value: Any, path: str) -> Iterator[tuple[str, str, str | None]]:
    if isinstance(value, str):
        if value in _VALUE_MARKS:
            yield _VALUE_MARKS[value], path, None
        elif value == _TRUNCATED:  # the last item of a list that was cut
            yield "truncated", path.rsplit("[", 1)[0], "end"
        elif value.startswith(_TRUNCATED):
            yield "truncated", path, "start"
        elif value.endswith(_TRUNCATED):
            yield "truncated", path, "end"
    elif isinstance(value, Mapping):
        if "…[keys]" in value:
            yield "keys", path, None
        for key, item in value.items():
            yield from _marks(item, f"{path}.{key}")
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _marks(item, f"{path}[{position}]")


def markers(events: pd.DataFrame, names: _Names = None) -> pd.DataFrame:
    """One row per writer's mark: `traceTrimmed`, `traceUnreadable` and the value marks (TC-7)."""
    rows = []
    for rec in _records(events, names, set(events["name"].astype(str).unique()), "markers"):
        data = rec["data"]
        found: list[tuple[str, str, str | None]] = [
            (flag, f"data.{flag}", None)
            for flag in ("traceTrimmed", "traceUnreadable")
            if data.get(flag) is True
        ]
        found.extend(_marks(data, "data"))
        for marker, path, at in found:
            rows.append(rec | {"marker": marker, "path": path, "at": at})
    return extract(rows, MARKER_COLUMNS)
