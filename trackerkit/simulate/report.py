"""What a simulated turn did: its rounds, its tool calls, the reply, the values and changes after.

Also the scenario check: `expect_mismatches` compares a step's `expect` with the values after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trackerkit.changes import MessageChanges
from trackerkit.prompt import Request
from trackerkit.values import same_value

__all__ = ["CallReport", "RoundReport", "TurnReport", "expect_mismatches"]


@dataclass(frozen=True, slots=True)
class CallReport:
    """One tool call of a turn: what was asked, whether it ran, and what the model was told."""

    round: int
    id: str
    name: str
    arguments: str
    ok: bool
    answer: str
    changes: int = 0
    failure: str | None = None
    #: False for a call to a tool the turn did not offer (answered so, never run).
    offered: bool = True


@dataclass(frozen=True, slots=True)
class RoundReport:
    """One model call: its request's parts in tokens and the model's answer."""

    index: int
    parts: dict[str, int]
    tokens_in: int
    tokens_out: int
    calls: tuple[str, ...]
    finish_reason: str


@dataclass(slots=True)
class TurnReport:
    """Everything one turn did, for tables, notebooks and tests."""

    index: int
    kind: str
    user: str | None
    tool_offered: bool
    tool_name: str | None
    tool_description: str | None
    block: str | None
    request: Request | None
    rounds: list[RoundReport] = field(default_factory=list)
    calls: list[CallReport] = field(default_factory=list)
    reply: str | None = None
    message_id: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    #: Each tracker's value as the reply's own version stored it, without a person's edits on
    #: its message (they lie over every version, TR-27): what a clamp is read against. None for a
    #: report made elsewhere, which is read against `values`.
    written: dict[str, Any] | None = None
    changes: MessageChanges | None = None
    failed: str | None = None
    #: How the updates travelled: "tools" (tool calls) or "text" (the reply's update block).
    protocol: str = "tools"

    @property
    def ok(self) -> bool:
        """True when the turn committed a reply."""
        return self.failed is None

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data."""
        return {
            "index": self.index,
            "kind": self.kind,
            "protocol": self.protocol,
            "user": self.user,
            "toolOffered": self.tool_offered,
            "toolName": self.tool_name,
            "block": self.block,
            "parts": dict(self.request.parts) if self.request else {},
            "dropped": self.request.dropped if self.request else 0,
            "rounds": [
                {
                    "index": r.index,
                    "parts": r.parts,
                    "in": r.tokens_in,
                    "out": r.tokens_out,
                    "calls": list(r.calls),
                    "finishReason": r.finish_reason,
                }
                for r in self.rounds
            ],
            "calls": [
                {
                    "round": c.round,
                    "id": c.id,
                    "name": c.name,
                    "arguments": c.arguments,
                    "ok": c.ok,
                    "answer": c.answer,
                    "changes": c.changes,
                    "failure": c.failure,
                }
                for c in self.calls
            ],
            "reply": self.reply,
            "messageId": self.message_id,
            "values": self.values,
            "changes": self.changes.to_json() if self.changes is not None else None,
            "failed": self.failed,
        }


def expect_mismatches(values: Mapping[str, Any], expect: Mapping[str, Any]) -> list[str]:
    """Where `values` (by tracker name) differ from a scenario step's `expect`."""
    found: list[str] = []
    for tracker, wanted in expect.items():
        if tracker == "absent":
            for name, rows in wanted.items():
                found += [
                    f"{name} still has row {row!r}" for row in rows if row in values.get(name, {})
                ]
            continue
        have = values.get(tracker)
        if have is None:
            found.append(f"{tracker} is not a loaded tracker")
            continue
        for key, value in wanted.items():
            if isinstance(value, Mapping):
                row = have.get(key)
                if not isinstance(row, Mapping):
                    found.append(f"{tracker} has no row {key!r}")
                    continue
                found += [
                    f"{tracker}.{key}.{f}: expected {v!r}, found {row.get(f)!r}"
                    for f, v in value.items()
                    if not same_value(row.get(f), v)
                ]
            elif not same_value(have.get(key), value):
                found.append(f"{tracker}.{key}: expected {value!r}, found {have.get(key)!r}")
    return found
