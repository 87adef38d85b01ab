"""Plain-text tables for the command line: a session's turns and the changes read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trackerkit.line import line_of
from trackerkit.simulate.report import TurnReport

__all__ = ["changes_lines", "table", "turn_table"]

_PARTS = ("card", "trackers", "tool", "history")


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; numbers right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def cell(i: int, text: str) -> str:
        return text.rjust(widths[i]) if text.replace(".", "").isdigit() else text.ljust(widths[i])

    lines = ["  ".join(cell(i, h) for i, h in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(cell(i, str(c)) for i, c in enumerate(row)).rstrip() for row in rows]
    return "\n".join(lines)


def _short(text: str | None, width: int = 32) -> str:
    if not text:
        return ""
    text = line_of(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _value(value: object) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}={_value(v)}" for k, v in value.items()) + "}"
    return line_of(value)


def change_summary(entry: Mapping[str, Any] | None) -> str:
    """One reply's changes on one line: `Health: hp 30→22; Pack: +Rope`."""
    if not entry:
        return ""
    parts = []
    for tracker in entry["trackers"]:
        bits = []
        for change in tracker["changes"]:
            if "field" in change:
                bits.append(
                    f"{change['field']} {_value(change['before'])}→{_value(change['after'])}"
                )
            elif change.get("added"):
                bits.append(f"+{line_of(change['row'])}")
            elif change.get("removed"):
                bits.append(f"-{line_of(change['row'])}")
            else:
                bits.append(f"~{line_of(change['row'])}")
        parts.append(f"{tracker['name']}: {', '.join(bits)}")
    return "; ".join(parts)


def turn_table(reports: Sequence[TurnReport]) -> str:
    """One row per turn: turn, kind, user text, tool calls, changes, prompt tokens by part."""
    rows = []
    for r in reports:
        parts = r.request.parts if r.request else {}
        ok = sum(c.ok for c in r.calls)
        calls = f"{ok}/{len(r.calls)} ok" if r.calls else "-"
        changes = change_summary(r.changes) if r.ok else f"FAILED: {r.failed}"
        rows.append(
            [
                str(r.index),
                r.kind,
                _short(r.user),
                calls,
                changes or "-",
                *(str(parts.get(p, 0)) for p in _PARTS),
            ]
        )
    return table(["turn", "kind", "user", "calls", "changes", *_PARTS], rows)


def changes_lines(result: Mapping[str, Any]) -> str:
    """The changes read as text: one line per message and tracker."""
    lines = []
    for message in result["messages"]:
        for tracker in message["trackers"]:
            lines.append(
                f"{message['messageId']}  {change_summary({'trackers': [tracker]})}  [{tracker['style']}]"
            )
    return "\n".join(lines) if lines else "no changes"
