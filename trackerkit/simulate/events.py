"""The trace events of a simulated session: one method per event, each event's data built here alone.

A `SessionTrace` numbers every event of a session in one sequence and stamps it with the session's
clock; `turn(index)` gives the `TurnTrace` that writes one turn's events under its key
(`turn_<index>`). The shapes follow the journal the trace reader reads (TR-39: an update call's
result keeps its change count, never its answer). With no sink, nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from trackerkit.simulate.model import ToolCall
from trackerkit.simulate.report import CallReport

__all__ = ["SessionTrace", "TraceSink", "TurnTrace"]


class TraceSink(Protocol):
    """Where turn events go: one call per event, with the journal's seven fields (what it returns is not read)."""

    def write(
        self,
        *,
        turn: str,
        session: str,
        source: str,
        kind: str,
        name: str,
        data: Mapping[str, Any],
        ts: datetime | None = None,
    ) -> object: ...


class SessionTrace:
    """A session's events: numbered in one sequence, stamped by `clock`, written to `sink` (if any)."""

    def __init__(
        self, sink: TraceSink | None, session_id: str, clock: Callable[[], datetime]
    ) -> None:
        self.sink = sink
        self.session_id = session_id
        self.clock = clock
        self._sequence = 0

    def turn(self, index: int, scene_id: str, protocol: str = "tools") -> TurnTrace:
        """Open turn `index`: its `bound` event (chat and update keys) and `turn.started`, which
        names the protocol the updates travel by ("tools" or "text")."""
        trace = TurnTrace(self, f"turn_{index}")
        trace.write(
            "bound",
            {"chatKey": f"sim:{scene_id}", "updateKey": f"sim:{scene_id}:{index}"},
            kind="turn",
        )
        trace.eve("turn.started", protocol=protocol)
        return trace

    def next_sequence(self) -> int:
        """The next number of the session's one sequence."""
        self._sequence += 1
        return self._sequence


class TurnTrace:
    """One turn's events, under its key."""

    def __init__(self, session: SessionTrace, key: str) -> None:
        self.session = session
        self.key = key

    def step_started(self, step: int) -> None:
        """A model call (round) begins."""
        self.eve("step.started", stepIndex=step)

    def actions_requested(self, step: int, calls: Sequence[ToolCall]) -> None:
        """The model asked for tool calls: their ids and names, and their arguments as sent."""
        actions = [{"kind": "tool", "callId": c.id, "toolName": c.name} for c in calls]
        self.eve(
            "actions.requested", stepIndex=step, actions=actions, args=[c.arguments for c in calls]
        )

    def action_result(self, step: int, result: CallReport, *, counts_changes: bool) -> None:
        """One call's outcome: the answer's length and, for the update tool, its change count (TR-39)."""
        data: dict[str, Any] = {
            "stepIndex": step,
            "status": "ok" if result.ok else "failed",
            "callId": result.id,
            "toolName": result.name,
            "isError": not result.ok,
            "outChars": len(result.answer),
        }
        if result.failure:
            data["failure"] = result.failure
        summary = (
            {"ok": result.ok, "changes": result.changes} if counts_changes else {"ok": result.ok}
        )
        data["result"] = json.dumps(summary)  # one line of JSON, as the journal keeps results
        self.eve("action.result", **data)

    def step_completed(self, step: int, finish: str, tokens_in: int, tokens_out: int) -> None:
        """A round ends: why the model stopped, and the tokens in and out."""
        usage = {"in": tokens_in, "out": tokens_out, "cacheRead": 0, "cacheWrite": 0}
        self.eve("step.completed", stepIndex=step, finishReason=finish, usage=usage)

    def message_completed(self, step: int, finish: str, text: str) -> None:
        """The reply was committed: its text and why the model stopped."""
        self.eve("message.completed", stepIndex=step, finishReason=finish, message=text)

    def turn_completed(self) -> None:
        """The turn ended with a reply."""
        self.eve("turn.completed")

    def turn_failed(self, step: int, code: str, sentence: str) -> None:
        """The turn failed and kept nothing: a code (`model_error`, `round_limit`, ...) and why."""
        self.eve("turn.failed", stepIndex=step, code=code, message=sentence)

    def eve(self, name: str, **data: Any) -> None:
        """An `eve` event: the next sequence number, then `data`."""
        self.write(name, {"sequence": self.session.next_sequence(), **data})

    def write(self, name: str, data: Mapping[str, Any], *, kind: str = "eve") -> None:
        """Write one event to the session's sink, stamped now."""
        session = self.session
        if session.sink is not None:
            session.sink.write(
                turn=self.key,
                session=session.session_id,
                source="web",
                kind=kind,
                name=name,
                data=data,
                ts=session.clock(),
            )
