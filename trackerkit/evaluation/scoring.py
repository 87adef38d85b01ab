"""Scoring one turn: the values a model left against the values the scenario expects, field by field.

`score_turn` is pure: it takes the linked trackers, the values the turn started from, the values
expected after it and the values found after it (each by tracker name, as `Session.values()` gives
them) and returns one `FieldScore` per field: a record's fields, and for a keyed list one score for
each row's presence (its key) and one per field of every expected row. Rows are matched by name
case-folded, as the update rules match them (TR-20). A field's `should_change` compares the
expected value with the scenario's own state before the turn (`reference`, built by
`scripted_state` from the previous expectations and `moved_by` the scripted play of steps without
one), `changed` the value found with the model's.

A number is **within tolerance** when it is within `tolerance` (default 1) of the expected value,
or, for a field with both `min` and `max`, within a tenth of its range when that is less (see
`field_tolerance`): a 0-1 field is held to 0.1, so a wholly wrong value is never "within". The
edge is compared with a relative epsilon (1e-9), so a miss of exactly the tolerance is within
wherever it falls (0.3 -> 0.4 as 0.2 -> 0.3, though their float differences fall either side).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from trackerkit.fields import NumberField, describe_value
from trackerkit.scene import Scene
from trackerkit.steps import decode_steps
from trackerkit.tracker import Tracker
from trackerkit.update import name_key
from trackerkit.values import AnyField, refusal, same_value

__all__ = [
    "DEFAULT_TOLERANCE",
    "FieldScore",
    "expectation_problems",
    "field_tolerance",
    "moved_by",
    "score_turn",
    "scripted_state",
]

#: How near the expected value a number counts as within tolerance (`trackerkit eval --tolerance`).
DEFAULT_TOLERANCE = 1.0
#: The share of a bounded field's range (max - min) that caps the tolerance.
_RANGE_SHARE = 0.1
#: How far past the tolerance, relatively, an error is float rounding, not a miss.
_EPSILON = 1e-9


@dataclass(frozen=True, slots=True)
class FieldScore:
    """One field of one turn: what was expected, what was found, and how they compare.

    `field` is empty for a list row's presence (`kind` "row"); `row` is empty for a record's field.
    `expected` and `found` are JSON text (`null` for a value or row that is not there).
    """

    tracker: str
    row: str
    field: str
    kind: str
    in_list: bool
    expected: str
    found: str
    correct: bool
    abs_error: float
    within_tolerance: bool | None
    should_change: bool
    changed: bool


def _folded(rows: Mapping[str, Any]) -> dict[str, Any]:
    return {name_key(str(k)): v for k, v in rows.items()}


def _text(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def field_tolerance(field: AnyField, tolerance: float) -> float:
    """How near the expected value `field`'s numbers must be: `tolerance`, or a tenth of the
    field's range (max - min) when it has both bounds and that is less.

    A tolerance as wide as the range would count every value the field can hold as within it.

    Example: `tolerance` 1 on a field from 0 to 1 gives 0.1; on one from 0 to 100, 1.
    """
    if not isinstance(field, NumberField) or field.min is None or field.max is None:
        return tolerance
    return min(tolerance, (field.max - field.min) * _RANGE_SHARE)


def _number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def score_turn(
    trackers: Sequence[Tracker],
    before: Mapping[str, Any],
    expected: Mapping[str, Any],
    found: Mapping[str, Any],
    tolerance: float = DEFAULT_TOLERANCE,
    reference: Mapping[str, Any] | None = None,
    absent: Mapping[str, Sequence[str]] | None = None,
) -> list[FieldScore]:
    """Every field of the linked trackers the turn is expected to leave, scored.

    Args:
        trackers: the linked trackers (their layout and field types).
        before: the values the turn started from (the state its reply saw); `changed` compares
            with them.
        expected: the values the scenario expects after the turn; a tracker it does not name is
            not scored.
        found: the values after the turn.
        tolerance: a number within this of the expected one counts as within tolerance (a
            field with `min` and `max` within a tenth of its range when that is less).
        reference: the values the scenario says the turn starts from (see `scripted_state`);
            `should_change` compares with them. `before` when None.
        absent: rows expected gone, by list tracker name (`expect.absent`): each is scored as a
            row expected absent, as a row of `expected` is scored present, whether or not
            `expected` names its tracker.
    """
    reference = before if reference is None else reference
    scores: list[FieldScore] = []
    for tracker in trackers:
        named = expected.get(tracker.name)
        gone = list((absent or {}).get(tracker.name) or ()) if tracker.layout == "list" else []
        if not isinstance(named, Mapping) and not gone:
            continue
        want: Mapping[str, Any] = named if isinstance(named, Mapping) else {}
        have = found.get(tracker.name) or {}
        was = before.get(tracker.name) or {}
        ref = reference.get(tracker.name) or {}
        by_name = {f.name: f for f in tracker.fields}
        if tracker.layout == "record":
            for name, field in by_name.items():
                if name in want:
                    scores.append(
                        _field(
                            tracker.name,
                            "",
                            name,
                            field,
                            False,
                            want[name],
                            have.get(name),
                            (was.get(name), ref.get(name)),
                            tolerance,
                        )
                    )
            continue
        have_rows, was_rows, ref_rows = _folded(have), _folded(was), _folded(ref)
        # A list `expected` names is its whole list: a row found that it does not name is
        # expected gone. One it does not name has only its `absent` rows scored.
        keys = dict.fromkeys([*want, *gone, *have] if isinstance(named, Mapping) else gone)
        seen: set[str] = set()
        for row in keys:
            key = name_key(str(row))
            if key in seen:
                continue
            seen.add(key)
            expected_row = _folded(want).get(key)
            found_row, was_row, ref_row = have_rows.get(key), was_rows.get(key), ref_rows.get(key)
            present = [expected_row is not None, found_row is not None, was_row is not None]
            scripted = ref_row is not None
            scores.append(
                FieldScore(
                    tracker.name,
                    str(row),
                    "",
                    "row",
                    True,
                    _text(present[0]),
                    _text(present[1]),
                    present[0] == present[1],
                    math.nan,
                    None,
                    present[0] != scripted,
                    present[1] != present[2],
                )
            )
            if expected_row is None:
                continue
            for name, field in by_name.items():
                if name in expected_row:
                    scores.append(
                        _field(
                            tracker.name,
                            str(row),
                            name,
                            field,
                            True,
                            expected_row[name],
                            (found_row or {}).get(name),
                            ((was_row or {}).get(name), (ref_row or {}).get(name)),
                            tolerance,
                        )
                    )
    return scores


def scripted_state(
    trackers: Sequence[Tracker],
    start: Mapping[str, Any],
    expected: Mapping[str, Any],
    absent: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The values the scenario says a turn leaves: `start` with its `expected` put over it.

    A record's fields the expectation names take its values; a keyed list becomes the rows it
    names (a row it does not name, or names `null`, is expected gone), each row's fields over
    that row's fields in `start`; the `absent` rows of a list (case-folded) are gone. A tracker
    it does not name keeps its values.
    """
    state = dict(start)
    for tracker in trackers:
        want = expected.get(tracker.name)
        if not isinstance(want, Mapping):
            continue
        was = start.get(tracker.name) or {}
        if tracker.layout == "record":
            state[tracker.name] = {**was, **want}
            continue
        rows = _folded(was)
        state[tracker.name] = {
            row: {**(rows.get(name_key(str(row))) or {}), **values}
            for row, values in want.items()
            if isinstance(values, Mapping)
        }
    for name, gone in (absent or {}).items():
        drop = {name_key(str(row)) for row in gone}
        kept = state.get(name) or {}
        state[name] = {k: v for k, v in kept.items() if name_key(str(k)) not in drop}
    return state


def moved_by(
    trackers: Sequence[Tracker],
    state: Mapping[str, Any],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
) -> dict[str, Any]:
    """`state` moved by what a step changed from `before` to `after` (a person's edit, a cut):
    each field of a record and each row of a list (matched case-folded) that changed takes its
    value after, or goes if it is gone."""
    moved = dict(state)
    for tracker in trackers:
        was = before.get(tracker.name) or {}
        now = after.get(tracker.name) or {}
        if same_value(was, now):
            continue
        fold = name_key if tracker.layout == "list" else str
        # By folded key: (the key as spelt, its value), so a row keeps its spelling.
        parts = {fold(str(k)): (k, v) for k, v in (moved.get(tracker.name) or {}).items()}
        for key in dict.fromkeys([*was, *now]):
            if key not in now:
                parts.pop(fold(str(key)), None)
            elif key not in was or not same_value(was[key], now[key]):
                parts[fold(str(key))] = (key, now[key])
        moved[tracker.name] = dict(parts.values())
    return moved


def _field(
    tracker: str,
    row: str,
    name: str,
    field: AnyField,
    in_list: bool,
    want: object,
    have: object,
    was: tuple[object, object],
    tolerance: float,
) -> FieldScore:
    """One field's score; `was` is its value before the turn, then the scenario's (`reference`)."""
    a, b = _number(want), _number(have)
    error = abs(a - b) if a is not None and b is not None else math.nan
    within = None
    if field.type == "number":
        within = (
            a is not None
            and b is not None
            and _within(error, a, b, field_tolerance(field, tolerance))
        )
    return FieldScore(
        tracker,
        row,
        name,
        field.type,
        in_list,
        _text(want),
        _text(have),
        same_value(want, have),
        error,
        within,
        not same_value(want, was[1]),
        not same_value(have, was[0]),
    )


def _within(error: float, want: float, have: float, limit: float) -> bool:
    """`error` (|want - have|) is at most `limit`, the edge compared with a relative epsilon: in
    floats 0.4 - 0.3 is 0.10000000000000003, 0.3 - 0.2 is 0.09999999999999998, and both are one
    step of 0.1."""
    slack = _EPSILON * max(abs(want), abs(have))
    return error <= limit or math.isclose(error, limit, rel_tol=_EPSILON, abs_tol=slack)


def expectation_problems(scene: Scene, trackers: Sequence[Tracker]) -> list[str]:
    """What in `scene`'s `expect`s the linked `trackers` cannot be scored on, each with its path.

    `score_turn` scores only what it finds in the design, so an expectation naming a tracker, a
    field or a row shape the design does not have would be skipped without a word and the scores
    would rise (an attack trial: `Helth` and `stamnia` scored 1). Each such place is refused here:
    a tracker the scene does not link, a field its tracker does not have, a value its field
    cannot hold (a word for a number, a choice not among its choices, a number outside its range),
    a record's field given rows or a list's row given a bare value. So is what no state can meet:
    `null` for a field (a field always holds a value of its type; `null` for a row is accepted,
    a row expected gone), a number above its top given in the same expect (hp 40 with hp_max
    30), two rows of one list that differ only in case (rows are matched case-folded, so one
    would replace the other), and a row both expected and `absent`.

    Returns:
        one line per problem, such as `turns[0].expect.Helth: the scene links no tracker named
        Helth (it links Health, Stamina)`; empty when every expectation can be scored.
    """
    by_name = {t.name: t for t in trackers}
    linked = ", ".join(by_name) or "no tracker"
    problems: list[str] = []
    for index, step in enumerate(decode_steps(scene.turns)):
        if step.expect is None:
            continue
        where = f"turns[{index}].expect"
        wanted = step.expect.as_mapping()
        for name, want in wanted.items():
            if name == "absent":
                problems += _absent_problems(where, by_name, want, wanted)
                continue
            tracker = by_name.get(name)
            if tracker is None:
                problems.append(
                    f"{where}.{name}: the scene links no tracker named {name} (it links {linked})"
                )
                continue
            fields = {f.name: f for f in tracker.fields}
            if tracker.layout == "record":
                problems += _values_problems(f"{where}.{name}", tracker.name, fields, want)
                continue
            spelt: dict[str, str] = {}
            for row, values in want.items():
                first = spelt.setdefault(name_key(str(row)), row)
                if first != row:
                    problems.append(
                        f"{where}.{name}: rows {first!r} and {row!r} differ only in case, and rows "
                        "are matched whatever the case; give the row once"
                    )
                if values is None:
                    continue
                if not isinstance(values, Mapping):
                    problems.append(
                        f"{where}.{name}.{row}: {name} is a list: each row must be an object of "
                        f"fields; found {describe_value(values)}"
                    )
                    continue
                problems += _values_problems(f"{where}.{name}.{row}", tracker.name, fields, values)
    return problems


def _absent_problems(
    where: str,
    by_name: Mapping[str, Tracker],
    absent: Mapping[str, Any],
    wanted: Mapping[str, Any],
) -> list[str]:
    """Problems of `absent` (at `where`.absent): a tracker that is no linked list, and a row the
    same expect (`wanted`) names present as well, which no state can meet."""
    problems = []
    for name, rows in absent.items():
        tracker = by_name.get(name)
        if tracker is None:
            problems.append(
                f"{where}.absent.{name}: the scene links no tracker named {name} (it links "
                f"{', '.join(by_name) or 'no tracker'})"
            )
            continue
        if tracker.layout != "list":
            problems.append(
                f"{where}.absent.{name}: {name} is a record, not a list; it has no rows to be "
                "absent"
            )
            continue
        named = wanted.get(name)
        present = {
            name_key(str(row)): row
            for row, values in (named.items() if isinstance(named, Mapping) else ())
            if values is not None
        }
        for row in rows:
            both = present.get(name_key(str(row)))
            if both is not None:
                problems.append(
                    f"{where}.absent.{name}: row {row!r} is expected both present "
                    f"({where}.{name}.{both}) and absent; keep it in one of them"
                )
    return problems


def _values_problems(
    where: str, tracker: str, fields: Mapping[str, AnyField], values: Mapping[str, Any]
) -> list[str]:
    problems = []
    for name, value in values.items():
        field = fields.get(name)
        if field is None:
            problems.append(
                f"{where}.{name}: {tracker} has no field {name} (its fields: "
                f"{', '.join(fields) or 'none'})"
            )
        elif isinstance(value, Mapping):
            problems.append(
                f"{where}.{name}: {tracker} is a record: a field holds a value, not rows"
            )
        elif value is None:
            problems.append(
                f"{where}.{name}: {name} always holds {_HOLDS[field.type]} (a value not set reads "
                "as its initial value), so null cannot be met; give the value or leave the field "
                "out"
            )
        elif (why := refusal(field, value)) is not None:
            problems.append(f"{where}.{name}: {why}")
        else:
            problems += _over_top(where, name, field, value, values)
    return problems


#: What a field of each type always holds (TR-8, TR-22), for the sentence refusing a null.
_HOLDS = {
    "number": "a number",
    "text": "a text",
    "boolean": "true or false",
    "choice": "one of its choices",
}


def _over_top(
    where: str, name: str, field: AnyField, value: object, values: Mapping[str, Any]
) -> list[str]:
    """A number expected above its top from another field given in the same expect (hp 40 with
    hp_max 30): it is read held to the top (TR-13, TR-18), so no state can meet it. A top below
    the field's own min leaves the min (TR-18), so a value at the min is left alone."""
    if not isinstance(field, NumberField) or field.max_field is None:
        return []
    number, top = _number(value), _number(values.get(field.max_field))
    if number is None or top is None or number <= top:
        return []
    if field.min is not None and number <= field.min:
        return []
    return [
        f"{where}.{name}: {value} is above {field.max_field} ({values[field.max_field]}, in the "
        f"same expect), its top: {name} can never read more than {field.max_field}, so this "
        "cannot be met"
    ]
