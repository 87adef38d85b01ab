"""Plain-text tables for the command line: a session's turns and the changes read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trackerkit.changes import Changes, FieldChange, MessageChanges, TrackerChanges
from trackerkit.line import fields_line, line_of
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


def _tracker_summary(tracker: TrackerChanges) -> str:
    """One tracker's changes on one line: `Health: hp 30→22, mood calm→tense` or `Pack: +Rope`."""
    bits = []
    for change in tracker.changes:
        if isinstance(change, FieldChange):
            bits.append(f"{change.field} {_value(change.before)}→{_value(change.after)}")
        else:
            mark = "+" if change.added else "-" if change.removed else "~"
            bits.append(f"{mark}{line_of(change.row)}")
    return f"{tracker.name}: {', '.join(bits)}"


def _value(value: object) -> str:
    # A record's value as stored may be a whole object (a piece that cannot be read any more).
    if isinstance(value, Mapping):
        return "{" + fields_line(value) + "}"
    return line_of(value)


def change_summary(entry: MessageChanges | None) -> str:
    """One reply's changes on one line: `Health: hp 30→22; Pack: +Rope`."""
    if entry is None:
        return ""
    return "; ".join(_tracker_summary(tracker) for tracker in entry.trackers)


def turn_table(reports: Sequence[TurnReport]) -> str:
    """One row per turn: its step (from 1, as the expectation messages and the simulator page
    count), kind, user text, tool calls, changes, prompt tokens by part."""
    rows = []
    for r in reports:
        parts = r.request.parts if r.request else {}
        ok = sum(c.ok for c in r.calls)
        calls = f"{ok}/{len(r.calls)} ok" if r.calls else "-"
        changes = change_summary(r.changes) if r.ok else f"FAILED: {r.failed}"
        rows.append(
            [
                str(r.index + 1),
                r.kind,
                _short(r.user),
                calls,
                changes or "-",
                # Under the text protocol the "tool" column counts its instructions, in the tool's place.
                *(
                    str(parts.get(p, parts.get("protocol", 0) if p == "tool" else 0))
                    for p in _PARTS
                ),
            ]
        )
    return table(["step", "kind", "user", "calls", "changes", *_PARTS], rows)


def changes_lines(result: Changes) -> str:
    """The changes read as text: one line per message and tracker."""
    lines = [
        f"{message.message_id}  {_tracker_summary(tracker)}  [{tracker.style}]"
        for message in result.messages
        for tracker in message.trackers
    ]
    return "\n".join(lines) if lines else "no changes"
