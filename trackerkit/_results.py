"""The outcome of an `update_trackers` batch: its net deltas, each change as read, and the answer (TR-38).

On success the answer names only what changed, per tracker; on refusal it says nothing was
written and lists every item's error (TR-37).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trackerkit._items import ItemRefusal
from trackerkit._readings import _read_row, tracker_value
from trackerkit._slots import slot_of
from trackerkit.line import fields_line, quoted_line
from trackerkit.state import Delta, State
from trackerkit.tracker import Tracker
from trackerkit.values import same_value

__all__ = ["Change", "UpdateResult"]


@dataclass(frozen=True, slots=True)
class Change:
    """The net change of one tracker key in a batch: a record field or a list row."""

    tracker: str
    key: str
    before: object
    after: object


@dataclass(frozen=True, slots=True)
class UpdateResult:
    """The outcome of a batch: `ok`, the deltas to keep, the answer for the model, and any errors."""

    ok: bool
    deltas: tuple[Delta, ...] = ()
    answer: str = ""
    errors: tuple[ItemRefusal, ...] = ()
    changes: tuple[Change, ...] = field(default=())

    @property
    def change_count(self) -> int:
        """How many keys the batch changed, as read (what the trace keeps instead of the answer,
        TR-39): a key stored anew that reads as before is no change, as in the answer."""
        return len(self.changes)


def _net(
    touched: Sequence[Tracker], before: Mapping[str, Mapping[str, object]], after: State
) -> tuple[list[Delta], list[Change]]:
    """The net deltas of a batch, and each changed key read the way a turn reads it."""
    deltas: list[Delta] = []
    changes: list[Change] = []
    for tracker in touched:
        slot = slot_of(tracker)
        old = before.get(slot, {})
        new = after.get(slot, {})
        keys = [k for k, v in new.items() if k not in old or not same_value(old[k], v)]
        if tracker.layout == "list":
            keys += [k for k in old if k not in new]
        if not keys:
            continue
        deltas.extend(Delta(slot, k, new.get(k)) for k in keys)
        # A key stored anew that reads as it did (a field's initial value written where none was
        # stored, a row set back as it was) is no change: the answer leaves it out, as the
        # changes read of the history does. Its delta stays, so a batch stores what its items
        # one by one would (and a later top keeps the value shown).
        if tracker.layout == "record":
            read_before, read_after = tracker_value(tracker, before), tracker_value(tracker, after)
            written = set(keys)
            changes.extend(
                Change(tracker.name, f.name, read_before[f.name], read_after[f.name])
                for f in tracker.fields  # answer in field order
                if f.name in written and not same_value(read_before[f.name], read_after[f.name])
            )
        else:
            # Only the changed rows are read, so the cost follows the change, not the list.
            fields, order = tracker.fields, tracker.order
            for k in keys:
                was = _read_row(fields, order, old.get(k))
                now = _read_row(fields, order, new.get(k))
                if was is None or now is None or not same_value(was, now):
                    changes.append(Change(tracker.name, k, was, now))
    return deltas, changes


def _answer(touched: Sequence[Tracker], changes: Sequence[Change]) -> str:
    if not touched:
        return "No change: the call held no updates."
    lines = []
    for tracker in touched:
        mine = [c for c in changes if c.tracker == tracker.name]
        if not mine:
            lines.append(f"{tracker.name}: no change")
        elif tracker.layout == "record":
            parts = [f"{c.key} {quoted_line(c.before)} -> {quoted_line(c.after)}" for c in mine]
            lines.append(f"{tracker.name}: " + ", ".join(parts))
        else:
            rows = []
            for change in mine:
                if change.after is None:
                    rows.append(f"removed row {quoted_line(change.key)}")
                    continue
                row = change.after if isinstance(change.after, Mapping) else {}
                verb = "added" if change.before is None else "set"
                row_text = fields_line(row, quoted_line)
                rows.append(f"{verb} row {quoted_line(change.key)} ({row_text})")
            lines.append(f"{tracker.name}: " + "; ".join(rows))
    return "\n".join(lines)


def _refused(errors: Sequence[ItemRefusal]) -> UpdateResult:
    count = len(errors)
    head = (
        f"Nothing was written: {count} {'error' if count == 1 else 'errors'}. "
        f"Fix {'it' if count == 1 else 'them'} and send the whole call again."
    )
    return UpdateResult(False, (), "\n".join([head, *(f"- {e}" for e in errors)]), tuple(errors))
