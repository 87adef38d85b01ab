"""A take's tracker history as a tidy table, ready for pandas and `plotly.express`.

One row per live message x linked tracker x field (x row for a list), built in one forward pass:
the changes read's own `ForwardPass` folds each message in and says what it changed, and only
the trackers it changed are read again, the way a turn reads them (`tracker_value`: initial values
filled, tops applied). So `changed` here and the changes read never disagree.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from trackerkit._slots import slot_of
from trackerkit.changes import ForwardPass, number_bar
from trackerkit.chat import Chat
from trackerkit.fields import NumberField, is_number
from trackerkit.tracker import Tracker
from trackerkit.update import tracker_value
from trackerkit.values import Value, read_values

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HISTORY_COLUMNS", "history_frame"]

#: The frame's columns, in order: (name, what it holds).
HISTORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("message_index", "the message's position in the take, from 0"),
    ("message_id", "the message's id"),
    ("role", "user or assistant"),
    ("version", "the index of the version the message shows"),
    ("versions", "how many versions the message has"),
    ("tracker_id", "the tracker piece's id"),
    ("tracker", "the tracker's name (today's piece)"),
    ("layout", "record or list"),
    ("field", "the field's name"),
    ("row", "the list row's name; None for a record"),
    ("value", "the value as a turn reads it at this message (text, number or boolean)"),
    ("number", "the value as a float for a number field, else NaN"),
    ("min", "a number field's bottom (its min, 0 when it sets none), else NaN"),
    ("top", "a number's top at this message (own max or its maxField's value), else NaN"),
    ("changed", "True when this message changed this value"),
)

_NAN = math.nan
# `value` mixes kinds and `row` holds None for records: both stay Python objects.
_DTYPES = {
    "message_index": "int64",
    "version": "int64",
    "versions": "int64",
    "value": "object",
    "row": "object",
    "number": "float64",
    "min": "float64",
    "top": "float64",
    "changed": "bool",
}
# The per-value part of a row: field, row, value, number, min, top, changed.
_Cell = tuple[str, str | None, Value, float, float, float, bool]


def history_frame(chat: Chat, take: str | None = None) -> pd.DataFrame:
    """The tracker history of a take: one row per live message x linked tracker x field (x row).

    Args:
        chat: the chat; its scene's linked trackers are read through today's pieces.
        take: the take id; None for the take being shown.
    Returns:
        A DataFrame with the columns of `HISTORY_COLUMNS`, in message order, then link order,
        then row order, then field order. A list with no rows at a message has no rows there.
    Raises:
        NotFoundError: the take is not there.
    """
    import pandas as pd  # here, not at the top: `import trackerkit` stays fast

    branch = chat.get_take(take)
    trackers = chat.linked().trackers
    columns: dict[str, list[Any]] = {name: [] for name, _ in HISTORY_COLUMNS}
    pass_ = ForwardPass({}, chat.source, trackers)
    # Each tracker's cells as last read (changed flags off), kept while no message changes it.
    idle = {t.id: _cells(t, tracker_value(t, pass_.state), set()) for t in trackers}
    slots = [(t, slot_of(t)) for t in trackers]
    lists: dict[str, dict[str, dict[str, Value]]] = {t.id: {} for t in trackers}
    for index, message in enumerate(branch.messages):
        changed = pass_.step(message)
        written = pass_.written
        head = (index, message.id, message.role, message.shown, len(message.versions))
        for tracker, slot in slots:
            keys = written.get(slot)
            if keys is not None:
                # Read again even when nothing changed: a write of 1.0 over 1 reads the same,
                # yet the value column holds what the state holds now.
                if tracker.layout == "record":
                    value = pass_.record(tracker) or tracker_value(tracker, pass_.state)
                else:
                    value = lists[tracker.id] = _list_value(
                        tracker, pass_.state.get(slot, {}), keys, lists[tracker.id]
                    )
                entry = changed.get(slot)
                cells = _cells(tracker, value, entry.changed_cells() if entry else set())
                idle[tracker.id] = [(*c[:6], False) for c in cells]
            else:
                cells = idle[tracker.id]
            _extend(columns, head, tracker, cells)
    return pd.DataFrame(
        {name: pd.Series(values, dtype=_DTYPES.get(name)) for name, values in columns.items()}
    )


def _list_value(
    tracker: Tracker,
    stored: Mapping[str, object],
    written: Collection[str],
    last: Mapping[str, dict[str, Value]],
) -> dict[str, dict[str, Value]]:
    """A list's value as `tracker_value` reads it, reading again only the rows just written (the
    others are as `last` read them), in the stored order."""
    rows: dict[str, dict[str, Value]] = {}
    for name, row in stored.items():
        if name in written:
            if isinstance(row, Mapping):
                rows[name] = read_values(tracker.fields, row, tracker.order)
        elif name in last:
            rows[name] = last[name]
    return rows


def _cells(
    tracker: Tracker, value: Mapping[str, Any], changed: set[tuple[str | None, str]]
) -> list[_Cell]:
    """The cells of one tracker's read value; `changed` holds the `(row, field)` pairs to flag."""
    if tracker.layout == "record":
        return _row_cells(tracker, None, value, changed)
    cells: list[_Cell] = []
    for row, values in value.items():
        cells.extend(_row_cells(tracker, row, values, changed))
    return cells


def _row_cells(
    tracker: Tracker,
    row: str | None,
    values: Mapping[str, Value],
    changed: set[tuple[str | None, str]],
) -> list[_Cell]:
    cells: list[_Cell] = []
    for field in tracker.fields:
        name = field.name
        value = values[name]
        number = float(value) if is_number(value) else _NAN
        bar = number_bar(field, values)
        if bar is not None:
            bottom, top = float(bar.min), float(bar.top)
        elif isinstance(field, NumberField):
            bottom, top = float(field.min if field.min is not None else 0), _NAN
        else:
            bottom, top = _NAN, _NAN
        cells.append((name, row, value, number, bottom, top, (row, name) in changed))
    return cells


def _extend(
    columns: dict[str, list[Any]],
    head: tuple[int, str, str, int, int],
    tracker: Tracker,
    cells: list[_Cell],
) -> None:
    count = len(cells)
    if not count:
        return
    for name, item in zip(
        ("message_index", "message_id", "role", "version", "versions"), head, strict=True
    ):
        columns[name].extend([item] * count)
    columns["tracker_id"].extend([tracker.id] * count)
    columns["tracker"].extend([tracker.name] * count)
    columns["layout"].extend([tracker.layout] * count)
    for position, name in enumerate(("field", "row", "value", "number", "min", "top", "changed")):
        columns[name].extend([cell[position] for cell in cells])
