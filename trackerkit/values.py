"""What a field accepts, what it starts at, and how numbers are held to their range and top.

One small module, used by the decoder, the update tool, the read and the changes read alike, so
the rules cannot drift apart (TR-8, TR-13..TR-18).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from trackerkit.fields import (
    BooleanField,
    ChoiceField,
    NumberField,
    TextField,
    describe_value,
    is_number,
)

__all__ = [
    "AnyField",
    "Value",
    "accepts",
    "clamp_to_range",
    "hold_to_top",
    "initial_value",
    "read_values",
    "refusal",
    "same_value",
    "top_order",
]

AnyField: TypeAlias = TextField | NumberField | BooleanField | ChoiceField
#: A tracker value: text, a number, true or false.
Value: TypeAlias = str | int | float | bool


def refusal(field: AnyField, value: object) -> str | None:
    """Why `field` does not accept `value` (type, choices, range), or None when it does (TR-8)."""
    if isinstance(field, NumberField):
        if not is_number(value):
            return f"must be a number; found {describe_value(value)}"
        assert isinstance(value, int | float)
        if field.min is not None and value < field.min:
            return f"must be at least {field.min}; found {value!r}"
        if field.max is not None and value > field.max:
            return f"must be at most {field.max}; found {value!r}"
        return None
    if isinstance(field, BooleanField):
        return (
            None
            if isinstance(value, bool)
            else f"must be true or false; found {describe_value(value)}"
        )
    if isinstance(field, ChoiceField):
        if not isinstance(value, str):
            return f"must be one of {'|'.join(field.choices)}; found {describe_value(value)}"
        if value not in field.choices:
            return f'must be one of {"|".join(field.choices)}; found "{value}"'
        return None
    return None if isinstance(value, str) else f"must be text; found {describe_value(value)}"


def accepts(field: AnyField, value: object) -> bool:
    """True when `value` fits `field`: its type, its choices and its range (TR-8)."""
    return refusal(field, value) is None


def clamp_to_range(field: NumberField, value: int | float) -> int | float:
    """Bring a number inside the field's own `min`/`max` (TR-13)."""
    if field.max is not None and value > field.max:
        value = field.max
    if field.min is not None and value < field.min:
        value = field.min
    return value


def hold_to_top(field: NumberField, value: int | float, top: int | float | None) -> int | float:
    """Bring a number down to its top; a top below the field's own min leaves the min (TR-18)."""
    if top is not None and value > top:
        value = top
    if field.min is not None and value < field.min:
        value = field.min
    return value


def initial_value(field: AnyField) -> Value:
    """What a new record or row holds for `field`: its default, else the type's own (TR-8).

    A number starts at 0 held inside its range, so `min: 5` starts at 5 and `max: -3` at -3; a
    boolean starts false, a choice at its first choice, a text empty.
    """
    if isinstance(field, NumberField):
        start = field.default if field.default is not None else 0
        return clamp_to_range(field, start)
    if isinstance(field, BooleanField):
        return field.default if field.default is not None else False
    if isinstance(field, ChoiceField):
        return field.default if field.default is not None else field.choices[0]
    return field.default if field.default is not None else ""


def same_value(a: object, b: object) -> bool:
    """The one equality for tracker values: `True` is not `1`, at any depth, but `1` is `1.0`.

    Rows and other mappings are the same when they hold the same keys with the same values;
    lists and tuples when they hold the same values in the same order. Every comparison of values
    (the update tool, the changes read and so the history frame, a scenario's `expect`, a draft's
    patch, the evaluation's scoring) goes through here, since Python's `==` takes `True` for `1`.
    """
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    # The common case first, with no container to walk (a tuple of types: isinstance takes it
    # faster than a union, and this runs on every comparison of the changes read).
    if isinstance(a, (str, int, float)) or a is None:
        return a == b
    if isinstance(a, Mapping):
        return (
            isinstance(b, Mapping)
            and a.keys() == b.keys()
            and all(same_value(value, b[key]) for key, value in a.items())
        )
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(same_value(x, y) for x, y in zip(a, b, strict=True))
        )
    return a == b


def top_order(fields: Sequence[AnyField]) -> tuple[int, ...]:
    """Field positions ordered so that every top comes before the fields it bounds (TR-14).

    Assumes the tops form no loop (the decoder refuses loops); a field whose top is unknown is
    placed as if it had none.
    """
    index = {f.name: i for i, f in enumerate(fields)}
    order: list[int] = []
    # 0 not seen, 1 on the current chain, 2 placed: each field is walked once, so a chain of
    # 10,000 tops is linear (a membership test on the chain itself made it quadratic).
    state = bytearray(len(fields))
    for start in range(len(fields)):
        chain: list[int] = []
        at: int | None = start
        while at is not None and state[at] == 0:
            state[at] = 1
            chain.append(at)
            field = fields[at]
            top = field.max_field if isinstance(field, NumberField) else None
            at = index.get(top) if top is not None else None
        for i in reversed(chain):
            state[i] = 2
            order.append(i)
    return tuple(order)


def read_values(
    fields: Sequence[AnyField], stored: Mapping[str, object], order: Sequence[int] | None = None
) -> dict[str, Value]:
    """Read one record or row: initial values filled, misfits read as initial, tops applied (TR-22).

    Args:
        fields: the tracker's fields.
        stored: what the state holds (may miss keys, hold stale keys or values of the wrong kind).
        order: `top_order(fields)` when the caller has it already.
    Returns:
        Every field's value, in field order.
    """
    values: dict[str, Value] = {}
    for i in order if order is not None else top_order(fields):
        field = fields[i]
        raw = stored.get(field.name, _MISSING)
        value: Value = raw if raw is not _MISSING and accepts(field, raw) else initial_value(field)  # type: ignore[assignment]
        if isinstance(field, NumberField) and field.max_field is not None:
            top = values.get(field.max_field)
            if is_number(top):
                assert isinstance(value, int | float)
                assert isinstance(top, int | float)
                value = hold_to_top(field, value, top)
        values[field.name] = value
    return {f.name: values[f.name] for f in fields}


_MISSING = object()
