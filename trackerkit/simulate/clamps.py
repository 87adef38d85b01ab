"""The numbers written other than asked: the rules held them to their range or top (TR-13, TR-14).

A `Clamp` names one; `clamps_of` reads them from a batch's or an edit's items against the values
after, `turn_clamps` from a turn's accepted update calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.fields import is_number
from trackerkit.simulate.report import TurnReport
from trackerkit.update import name_key
from trackerkit.values import same_value

__all__ = ["Clamp", "clamps_of", "turn_clamps"]


@dataclass(frozen=True, slots=True)
class Clamp:
    """A number written other than asked: the rules held it to its range or top (TR-13, TR-14)."""

    tracker: str
    row: str | None
    field: str
    asked: object
    written: object

    def __str__(self) -> str:
        where = f"{self.tracker}" + (f" · {self.row}" if self.row is not None else "")
        return f"{where} · {self.field}: asked {_plain(self.asked)}, written {_plain(self.written)}"


def _plain(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value) if isinstance(value, str) else str(value)


def _asked_numbers(items: object) -> dict[tuple[str, str | None, str], object]:
    """The numbers a batch asked for, by (tracker, row, field); a later item wins."""
    updates = items.get("updates") if isinstance(items, Mapping) else items
    asked: dict[tuple[str, str | None, str], object] = {}
    if not isinstance(updates, list):
        return asked
    for item in updates:
        if not isinstance(item, Mapping):
            continue
        tracker, row, values = item.get("tracker"), item.get("row"), item.get("set")
        if not isinstance(tracker, str) or not isinstance(values, Mapping):
            continue
        for name, value in values.items():
            # Any number asked, past the safe range too: the update clamps 9007199254740993 or
            # 1e300 to a top like any other number, and the page says so.
            if type(value) in (int, float):
                asked[(tracker, row if isinstance(row, str) else None, str(name))] = value
    return asked


def clamps_of(asked: object, values: Mapping[str, Any]) -> tuple[Clamp, ...]:
    """The numbers of `asked` (an update call's arguments) that `values` hold otherwise.

    Args:
        asked: the arguments of the accepted `update_trackers` calls, or one edit's item list.
        values: each tracker's value after the writes, by name (`Session.values()`).
    """
    found = []
    for (tracker, row, name), wanted in _asked_numbers(asked).items():
        value = values.get(tracker)
        if row is not None and isinstance(value, Mapping):
            # Rows are matched as the update rules match them (`name_key`).
            key = name_key(row)
            value = next((v for k, v in value.items() if name_key(str(k)) == key), None)
        if not isinstance(value, Mapping) or name not in value:
            continue
        written = value[name]
        if is_number(written) and not same_value(written, wanted):
            found.append(Clamp(tracker, row, name, wanted, written))
    return tuple(found)


def turn_clamps(report: TurnReport) -> tuple[Clamp, ...]:
    """The numbers a turn's accepted update calls asked for that its reply version stored otherwise
    (none for a failed turn).

    Only the range rules make a clamp: a person's edit on the message lies over every version
    (TR-27), so the values are read as the version wrote them (`report.written`), not as shown.
    """
    updates: list[object] = []
    for call in report.calls:
        if call.ok and call.name == report.tool_name:
            arguments, problem = read_arguments(call.arguments)
            if problem is None and isinstance(arguments, Mapping):
                found = arguments.get("updates")
                updates.extend(found if isinstance(found, list) else [])
    written = report.written if report.written is not None else report.values
    return clamps_of(updates, written) if report.ok else ()
