"""What one item writes into a record or a row: its values checked, tops first, dependents clamped (TR-13..TR-17).

A value of the wrong kind is refused; a number outside its range is clamped, and one past a top
taken from another field is brought down to that field's value, tops settled before their
dependents. A number past the safe range is held to the end of its sign first, or refused when
its field has no bound on that side. What is left is judged against what is stored (TR-17).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trackerkit._arguments import unicode_problem
from trackerkit._items import ItemRefusal, _describe
from trackerkit.fields import MAX_SAFE_INTEGER, BooleanField, ChoiceField, NumberField, is_number
from trackerkit.line import line_of
from trackerkit.tracker import Tracker
from trackerkit.values import (
    AnyField,
    Value,
    clamp_to_range,
    hold_to_top,
    initial_value,
    read_values,
    refusal,
    same_value,
)

__all__: list[str] = []  # its helpers serve `apply_tracker_updates` (`trackerkit.update`) only


@dataclass(frozen=True, slots=True)
class _Shape:
    """What one batch needs of a tracker, read once: its fields, their top order, by name, initial values."""

    tracker: Tracker
    fields: Sequence[AnyField]
    order: tuple[int, ...]
    by_name: Mapping[str, AnyField]
    initial: Mapping[str, Value]
    has_tops: bool

    @classmethod
    def of(cls, tracker: Tracker) -> _Shape:
        fields = tracker.fields
        return cls(
            tracker,
            fields,
            tracker.order,
            {f.name: f for f in fields},
            {f.name: initial_value(f) for f in fields},
            any(isinstance(f, NumberField) and f.max_field is not None for f in fields),
        )


def _write_fields(
    shape: _Shape,
    values: Mapping[str, object],
    stored: Mapping[str, object],
    index: int,
    row: str | None,
) -> tuple[dict[str, object], list[ItemRefusal]]:
    """What one item writes into one record or row: tops first, dependents clamped (TR-14..TR-17)."""
    checked, errors = _checked_values(shape, values, index, row)
    if errors:
        return {}, errors
    after = _settled(shape, checked, stored)
    # TR-17: judged against what is stored. A key never stored holds its initial value, which a
    # read holds to its top only while the top lasts, so it is the baseline, not the value shown.
    written = {
        name: value
        for name, value in after.items()
        if not same_value(stored[name] if name in stored else shape.initial[name], value)
    }
    return written, []


def _checked_values(
    shape: _Shape, values: Mapping[str, object], index: int, row: str | None
) -> tuple[dict[str, object], list[ItemRefusal]]:
    """The item's values with a huge number held where its field allows, or every refusal."""
    tracker = shape.tracker
    errors: list[ItemRefusal] = []
    checked = dict(values)
    for name, value in values.items():
        field_ = shape.by_name.get(name)
        if field_ is None:
            known = ", ".join(f.name for f in shape.fields)
            errors.append(
                ItemRefusal(
                    index,
                    tracker.name,
                    f"{tracker.name} has no field {line_of(name)!r} (fields: {known})",
                    field=name,
                    row=row,
                )
            )
            continue
        if isinstance(field_, NumberField) and is_number(value):
            continue  # the common case, taken as it is (clamped when settled)
        reason, held = _value_refusal(field_, value)
        if held is not None:
            checked[name] = held
        if reason is not None:
            errors.append(ItemRefusal(index, tracker.name, reason, field=name, row=row))
    return checked, errors


def _value_refusal(field_: AnyField, value: object) -> tuple[str | None, int | float | None]:
    """Why a field refuses `value` (None when it takes it), and a huge number as it is held."""
    # TR-13: a number out of its range is clamped, never refused; only its kind is checked.
    if isinstance(field_, NumberField):
        if is_number(value):
            return None, None
        held = _held(field_, value)
        if held is not None:
            return None, held
        return (_huge_refusal(field_, value) if _huge(value) else refusal(field_, value)), None
    if _huge(value):
        return f"{_expects(field_)}; found {_describe(value)}", None
    if isinstance(value, str) and (bad := unicode_problem(value)) is not None:
        return f"{bad}; send text without it", None
    return refusal(field_, value), None


def _settled(
    shape: _Shape, values: Mapping[str, object], stored: Mapping[str, object]
) -> dict[str, object]:
    """Every field the item settles, tops first: the named ones and their dependents, clamped."""
    # What the model was shown matters only for a top and its dependents (TR-16).
    shown = read_values(shape.fields, stored, shape.order) if shape.has_tops else {}
    after: dict[str, object] = {}
    for position in shape.order:
        field_ = shape.fields[position]
        name = field_.name
        top_name = field_.max_field if isinstance(field_, NumberField) else None
        if name in values:
            value = values[name]
        elif top_name is not None and top_name in after:
            value = shown[name]  # TR-16: from the value the model was shown
        else:
            continue
        if isinstance(field_, NumberField):
            assert isinstance(value, int | float)
            value = clamp_to_range(field_, value)
            if top_name is not None:
                top = after.get(top_name, shown.get(top_name))
                if is_number(top):
                    assert isinstance(top, int | float)
                    value = hold_to_top(field_, value, top)  # TR-14: the top as it stands now
        after[name] = value
    return after


# --- numbers past the safe range -----------------------------------------------------------


def _huge(value: object) -> bool:
    """An int or float (not a bool, not NaN) past the safe range of 2^53-1 in magnitude, or infinite."""
    if type(value) is int:
        return abs(value) > MAX_SAFE_INTEGER
    return type(value) is float and not math.isnan(value) and not is_number(value)


def _held(field_: NumberField, value: object) -> int | float | None:
    """A huge number as the clamps start from it (TR-13), or None when the field has no bound on its side.

    The number becomes the safe-range end of its sign, which the field's max, top or min then
    brings inside its range; the huge value itself is never stored or shown.
    """
    if not _huge(value):
        return None
    assert isinstance(value, int | float)
    if value > 0 and (field_.max is not None or field_.max_field is not None):
        return MAX_SAFE_INTEGER
    if value < 0 and field_.min is not None:
        return -MAX_SAFE_INTEGER
    return None


def _huge_refusal(field_: NumberField, value: object) -> str:
    assert isinstance(value, int | float)
    side = "max" if value > 0 else "min"
    return (
        f"is past the safe range of ±{MAX_SAFE_INTEGER} and has no {side} to hold it to; "
        f"found {_describe(value)}"
    )


def _expects(field_: AnyField) -> str:
    if isinstance(field_, BooleanField):
        return "must be true or false"
    if isinstance(field_, ChoiceField):
        return "must be one of " + "|".join(field_.choices)
    return "must be text"
