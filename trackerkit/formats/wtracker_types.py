"""JSON Schema types to trackerkit field specs, with their defaults and bounds, and what is lost.

`number` and `integer` with `minimum`/`maximum` (or their exclusive forms) become a number with
that range, its default held inside it (TR-18); `enum` a choice, each value as text; `boolean` and
`string` themselves; an array of plain values one text, joined. A default or bound the field
cannot hold is named in the report line, never dropped unsaid, and makes the line guessed.
"""

from __future__ import annotations

import json
import math
from typing import Any

from trackerkit._problems import MAX_TEXT
from trackerkit.fields import describe_value, is_number
from trackerkit.formats.imported import own_start
from trackerkit.formats.leaves import number_fault, plain_text, quoted
from trackerkit.line import line_of

__all__: list[str] = []  # its helpers serve `wtracker_properties` only


def _choice(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool] | str:
    enum, default = prop["enum"], prop.get("default")
    choices = list(dict.fromkeys(_as_choice(v) for v in enum))
    if not choices or any(not c for c in choices) or any(len(c) > MAX_TEXT for c in choices):
        return "an enum with no usable values"
    spec: dict[str, Any] = {"type": "choice", "choices": choices}
    lost: list[str] = []
    if "default" in prop and _as_choice(default) in choices:
        spec["default"] = _as_choice(default)
    elif "default" in prop:
        lost.append(f"its default {describe_value(default)} (not one of the choices)")
    mixed = any(not isinstance(v, str) for v in enum)
    detail = f"choice of {len(choices)}" + (
        "; guessed: non-text enum values written as text" if mixed else ""
    )
    detail += _merged(enum)
    return spec, detail + _lost(lost, "starts at its first choice"), mixed or bool(lost)


def _merged(enum: list[object]) -> str:
    """`; 2 and the text "2" both became the choice "2"` for each choice that two or more
    different enum values became, or nothing."""
    sources: dict[str, dict[str, None]] = {}  # each choice's values, told apart as described
    for value in enum:
        sources.setdefault(_as_choice(value), {})[describe_value(value)] = None
    told = ""
    for choice, found in sources.items():
        if len(found) > 1:
            *first, last = found
            both = "both" if len(found) == 2 else "all"
            told += f"; {', '.join(first)} and {last} {both} became the choice {quoted(choice, 40)}"
    return told


def _as_choice(value: object) -> str:
    """An enum value as the text a choice holds: a text as it is, a plain value as written
    (`2` -> "2"), an object or a list as its JSON (never a Python repr), so a default is read
    the way the choices are."""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value if isinstance(value, str) else plain_text(value)


def _boolean(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
    default = prop.get("default")
    if isinstance(default, bool):
        return {"type": "boolean", "default": default}, "boolean", False
    if "default" in prop:
        lost = [f"its default {describe_value(default)} (not true or false)"]
        return {"type": "boolean"}, "boolean" + _lost(lost, "starts false"), True
    return {"type": "boolean"}, "boolean", False


def _text(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
    default = prop.get("default")
    spec: dict[str, Any] = {"type": "text"}
    lost: list[str] = []
    if isinstance(default, str) and len(default) <= MAX_TEXT:
        spec["default"] = default
    elif "default" in prop:
        why = "longer than a text holds" if isinstance(default, str) else "not a text"
        lost.append(f"its default {describe_value(default)} ({why})")
    dropped = [k for k in ("maxLength", "minLength", "pattern", "format") if k in prop]
    extra = f"; {', '.join(dropped)} not kept (a text field has no limits)" if dropped else ""
    return spec, "text" + extra + _lost(lost, "starts empty"), bool(lost or dropped)


def _joined(prop: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
    default = prop.get("default")
    spec: dict[str, Any] = {"type": "text"}
    lost: list[str] = []
    if isinstance(default, list) and all(not isinstance(v, dict | list) for v in default):
        joined = ", ".join(plain_text(v) for v in default)
        if len(joined) <= MAX_TEXT:
            spec["default"] = joined
        else:
            lost.append("its default (longer than a text holds)")
    elif "default" in prop:
        lost.append(f"its default {describe_value(default)} (not a list of plain values)")
    detail = 'text, guessed: an array of plain values kept as one text, joined with ", "'
    return spec, detail + _lost(lost, "starts empty"), True


def _lost(lost: list[str], start: str) -> str:
    """The end of a report line naming what could not be kept, or nothing."""
    if not lost:
        return ""
    starts = f", so it {start}" if any(item.startswith("its default") for item in lost) else ""
    return f"; not kept: {'; '.join(lost)}{starts}"


def _number(
    prop: dict[str, Any], kind: object, default: object
) -> tuple[dict[str, Any], str, bool]:
    spec: dict[str, Any] = {"type": "number"}
    notes: list[str] = []
    lost: list[str] = []
    guessed = False
    for bound, exclusive, key in (
        ("minimum", "exclusiveMinimum", "min"),
        ("maximum", "exclusiveMaximum", "max"),
    ):
        if is_number(prop.get(bound)) and not isinstance(prop[bound], bool):
            spec[key] = prop[bound]
            if exclusive in prop:
                lost.append(f"{exclusive} {describe_value(prop[exclusive])} beside {bound}")
        elif is_number(prop.get(exclusive)) and not isinstance(prop[exclusive], bool):
            spec[key] = prop[exclusive]
            notes.append(f"{exclusive} {prop[exclusive]} read as an inclusive {key}")
            guessed = True
            if bound in prop:
                lost.append(f"{bound} {describe_value(prop[bound])} ({number_fault(prop[bound])})")
        else:
            lost.extend(
                f"{name} {describe_value(prop[name])} ({number_fault(prop[name])})"
                for name in (bound, exclusive)
                if name in prop
            )
    dropped = None
    if "min" in spec and "max" in spec and spec["min"] > spec["max"]:
        dropped = f"the range: minimum {spec.pop('min')} lies above maximum {spec.pop('max')}"
        lost.append(dropped)
    held = _held(default, spec)
    if held is not None:
        assert isinstance(default, int | float)
        spec["default"] = held
        if held != default:
            side = f"above max {spec['max']}" if default > held else f"below min {spec['min']}"
            notes.append(
                f"its default {describe_value(default)} lies {side}, so it starts at {held}"
            )
            guessed = True
    elif "default" in prop:
        lost.append(f"its default {describe_value(default)} ({number_fault(default)})")
    if dropped is not None and "default" in spec:
        # No range holds the default now: say where the field starts, as a held default says.
        lost[lost.index(dropped)] += f", so it starts at its default {line_of(spec['default'])}"
    if kind == "integer":
        notes.append("integer (a trackerkit number may hold fractions)")
        guessed = True
    bounds = [f"{key} {spec[key]}" for key in ("min", "max") if key in spec]
    start = f"starts at {line_of(own_start(spec))}"
    detail = " ".join(["number", *bounds]) + "".join(f"; {n}" for n in notes)
    return spec, detail + _lost(lost, start), guessed or bool(lost)


def _held(default: object, spec: dict[str, Any]) -> int | float | None:
    """A number default held inside the field's range (TR-18), as a stored value would be: one
    past 2^53 too, at the top (or the bottom, for a very negative one). None for what is no
    number, and for one no bound brings to a number trackerkit holds (not finite, or past 2^53
    with no bound on its side)."""
    if not isinstance(default, int | float) or isinstance(default, bool):
        return None
    if isinstance(default, float) and not math.isfinite(default):
        return None
    held = max(default, spec["min"]) if "min" in spec else default
    held = min(held, spec["max"]) if "max" in spec else held
    return held if is_number(held) else None
