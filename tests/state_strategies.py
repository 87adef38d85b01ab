"""Hypothesis strategies for linked trackers, stored states and update batches (the state and update laws).

Built on `strategies.trackers()`. `linked()` draws 1 to 3 trackers with unique ids and names;
`stored_states()` draws what a scene state may hold for them, misfits and stale values over a top
included; `batches()` draws update items that the update rules accept, and `bad_items()` items they
refuse. `naive_apply` is the oracle: the seed's rules applied to read values, one item at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st
from strategies import numbers, trackers

from trackerkit import Tracker, decode_tracker
from trackerkit.fields import BooleanField, ChoiceField, NumberField
from trackerkit.update import slot_of, tracker_value
from trackerkit.values import AnyField, clamp_to_range, hold_to_top, read_values

__all__ = [
    "bad_items",
    "batches",
    "linked",
    "naive_apply",
    "reads",
    "row_names",
    "stored_states",
    "topped",
    "value_for",
]

#: A few row names that differ only by case, so lookups by case are exercised.
row_names = st.sampled_from(["Rope", "rope", "ROPE", "Torch", "torch", "Gem", "a b", "Ä"])


_small = st.integers(-3, 12)


@st.composite
def topped(draw: st.DrawFn) -> Tracker:
    """A record or list of 2 to 4 small-ranged numbers whose tops chain to earlier fields, with defaults over them."""
    fields: list[dict[str, Any]] = []
    for i in range(draw(st.integers(2, 4))):
        field: dict[str, Any] = {"name": f"n{i}", "description": "", "type": "number"}
        low = draw(st.none() | _small)
        if low is not None:
            field["min"] = low
        if i and draw(st.integers(0, 3)):
            field["maxField"] = f"n{draw(st.integers(0, i - 1))}"
        elif draw(st.booleans()):
            field["max"] = max(low or 0, draw(_small))
        if draw(st.booleans()):
            default = max(low if low is not None else -99, draw(_small))
            field["default"] = min(default, field.get("max", default))
        fields.append(field)
    layout = draw(st.sampled_from(["record", "list"]))
    name = draw(st.sampled_from(["Hero", "Party", "Stats"]))
    return decode_tracker(
        {
            "id": name.lower(),
            "name": name,
            "description": "",
            "body": {"layout": layout, "fields": fields, "note": ""},
        }
    )


def linked(max_trackers: int = 3, max_fields: int = 4) -> st.SearchStrategy[list[Tracker]]:
    """1 to `max_trackers` trackers with unique ids and unique names (whatever the case); tops are common."""
    return st.lists(
        st.one_of(trackers(max_fields), topped()),
        min_size=1,
        max_size=max_trackers,
        unique_by=(lambda t: t.id, lambda t: t.name.casefold()),
    )


def value_for(field: AnyField) -> st.SearchStrategy[Any]:
    """A value the update tool accepts for `field`: numbers anywhere (they are clamped), a choice, a text, a flag."""
    if isinstance(field, NumberField):
        edges = [v for v in (field.min, field.max) if v is not None]
        return st.one_of(numbers, _small, st.sampled_from([0, -1, 1, *edges]))
    if isinstance(field, ChoiceField):
        return st.sampled_from(field.choices)
    if isinstance(field, BooleanField):
        return st.booleans()
    return st.text(max_size=8)


_misfits = st.sampled_from([None, "x", True, -(10**9), 10**9, 0.5, [1]])


@st.composite
def _stored_row(draw: st.DrawFn, tracker: Tracker) -> dict[str, object]:
    row: dict[str, object] = {}
    for field in tracker.fields:
        kind = draw(st.sampled_from(["absent", "fit", "fit", "misfit"]))
        if kind == "fit":
            row[field.name] = draw(value_for(field))
        elif kind == "misfit":
            row[field.name] = draw(_misfits)
    if draw(st.booleans()):
        row["stale_key"] = 1
    return row


@st.composite
def stored_states(draw: st.DrawFn, linked: Sequence[Tracker]) -> dict[str, dict[str, object]]:
    """What a scene state may hold for `linked`: any subset of fields, misfits, values over a top."""
    state: dict[str, dict[str, object]] = {}
    for tracker in linked:
        if not draw(st.booleans()):
            continue
        if tracker.layout == "record":
            state[slot_of(tracker)] = draw(_stored_row(tracker))
        else:
            names = draw(st.lists(row_names, max_size=4, unique=True))
            state[slot_of(tracker)] = {name: draw(_stored_row(tracker)) for name in names}
    if draw(st.booleans()):
        state["skill:open"] = {"k": 1}
    return state


@st.composite
def _item(draw: st.DrawFn, linked: Sequence[Tracker]) -> dict[str, Any]:
    tracker = draw(st.sampled_from(linked))
    item: dict[str, Any] = {"tracker": tracker.name}
    if tracker.layout == "list":
        item["row"] = draw(row_names)
        if draw(st.integers(0, 5)) == 0:
            item["remove"] = True
            return item
    fields = draw(st.lists(st.sampled_from(tracker.fields), min_size=1, unique_by=lambda f: f.name))
    item["set"] = {f.name: draw(value_for(f)) for f in draw(st.permutations(fields))}
    return item


def batches(
    linked: Sequence[Tracker], max_items: int = 6
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Update items whose shape and contents the rules accept (a remove may still miss its row)."""
    return st.lists(_item(linked), min_size=1, max_size=max_items)


@st.composite
def bad_items(draw: st.DrawFn, linked: Sequence[Tracker]) -> dict[str, Any]:
    """An item the update rules refuse whatever the state."""
    tracker = draw(st.sampled_from(linked))
    field = tracker.fields[0]
    wrong: object = "x" if isinstance(field, NumberField | BooleanField) else 3
    unknown = "".join(t.name for t in linked) + "?"  # longer than any one name
    choices = [
        {"tracker": unknown, "set": {field.name: 1}},
        {"tracker": tracker.name, "row": "r", "set": {"NoSuchField": 1}},
        {"tracker": tracker.name, "row": "r", "set": {field.name: wrong}},
    ]
    if tracker.layout == "record":
        choices.append({"tracker": tracker.name, "row": "r", "set": {field.name: wrong}})
    else:
        choices.append({"tracker": tracker.name, "set": {field.name: wrong}})
        choices.append({"tracker": tracker.name, "row": "r", "remove": True, "set": {}})
    return draw(st.sampled_from(choices))


def _find(rows: Mapping[str, object], name: str) -> str | None:
    if name in rows:
        return name
    return next((k for k in rows if k.casefold() == name.casefold()), None)


def _settle(
    tracker: Tracker, shown: Mapping[str, Any], values: Mapping[str, Any]
) -> dict[str, Any]:
    """The seed's rule on read values: named values clamped, then every number held to its top as it now stands."""
    out: dict[str, Any] = {}
    for position in tracker.order:
        field = tracker.fields[position]
        value = values.get(field.name, shown[field.name])
        if isinstance(field, NumberField):
            if field.name in values:
                value = clamp_to_range(field, value)
            if field.max_field is not None:
                value = hold_to_top(field, value, out[field.max_field])
        out[field.name] = value
    return {f.name: out[f.name] for f in tracker.fields}


def naive_apply(
    linked: Sequence[Tracker], reads: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
) -> dict[str, Any] | None:
    """What every tracker must read after `items`, from the values read before; None when an item is refused."""
    out = {name: dict(value) for name, value in reads.items()}
    by_name = {t.name: t for t in linked}
    for item in items:
        tracker = by_name[item["tracker"]]
        if tracker.layout == "record":
            out[tracker.name] = _settle(tracker, out[tracker.name], item["set"])
            continue
        rows = out[tracker.name]
        key = _find(rows, item["row"])
        if item.get("remove"):
            if key is None:
                return None
            del rows[key]
            continue
        shown = rows[key] if key is not None else read_values(tracker.fields, {}, tracker.order)
        rows[key if key is not None else item["row"]] = _settle(tracker, shown, item["set"])
    return out


def reads(linked: Sequence[Tracker], state: Mapping[str, Mapping[str, object]]) -> dict[str, Any]:
    """Every tracker's value as a turn reads it, by name."""
    return {t.name: tracker_value(t, state) for t in linked}
