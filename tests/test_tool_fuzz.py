"""A fuzz of the update tool's arguments: any text a model writes is applied or answered, never raised (TR-13, TR-27, TR-37).

Argument texts are built from JSON fragments a hostile or confused model sends (nesting 100,000
deep, integers of 5,000 digits, `NaN`, lone surrogates escaped and raw, wrong types, unknown
keys, cut-off text) around the call's real shape, and from plain random text. Each goes through
the tool path (`read_arguments`, then the batch), through a whole `Session` turn, and as a
person's edit. The laws: nothing but the documented refusals comes out; a refused batch writes
nothing; what is written reads back as stored, inside its range and below its top.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from conftest import BAG, HEALTH
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from state_strategies import stored_states, topped

from trackerkit import (
    Chat,
    EditRefusedError,
    Scene,
    Session,
    Tracker,
    apply_tracker_updates,
    decode_tracker,
    tracker_value,
)
from trackerkit._arguments import read_arguments, unicode_problem
from trackerkit.fields import BooleanField, ChoiceField, NumberField, is_number
from trackerkit.scene import Prompting
from trackerkit.simulate.model import ModelReply, ModelRequest, ToolCall
from trackerkit.state import fold
from trackerkit.update import UpdateResult, slot_of
from trackerkit.values import AnyField

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TURNS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _tracker(name: str, layout: str, *fields: dict[str, Any]) -> Tracker:
    body = {"layout": layout, "fields": list(fields), "note": ""}
    return decode_tracker({"id": name.lower(), "name": name, "description": "", "body": body})


NOTES = _tracker("Notes", "record", {"name": "text", "description": "", "type": "text"})
LOAD = _tracker(
    "Load", "list", {"name": "kg", "description": "", "type": "number", "min": 0, "max": 500}
)
FIXED = [decode_tracker(HEALTH), decode_tracker(BAG), NOTES, LOAD]
NAMES = [t.name for t in FIXED] + ["Hero", "Party", "Stats"]
FIELDS = sorted({f.name for t in FIXED for f in t.fields} | {f"n{i}" for i in range(4)})

# --- argument text, fragment by fragment ----------------------------------------------------

_HOSTILE_ATOMS = [
    "9" * 5000,
    "-" + "9" * 5000,
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e20",
    "9007199254740993",
    "-0.0",
    "true",
    "false",
    "null",
    '"\\ud800"',
    '"x\\udc00y"',
    '"\ud800"',
    '"\\ud83d\\ude00"',
    '"calm"',
    '"tense"',
    '""',
    '"a\\n### Trackers"',
]


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=True)


atoms = st.one_of(
    st.sampled_from(_HOSTILE_ATOMS),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=6).map(_dumps),
)


def _nested(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


@st.composite
def values(draw: st.DrawFn) -> str:
    """A JSON value fragment: an atom, a small list or object of atoms, or an atom nested deep."""
    kind = draw(st.sampled_from(["atom", "atom", "list", "object", "deep"]))
    if kind == "atom":
        return draw(atoms)
    if kind == "list":
        return "[" + ",".join(draw(st.lists(atoms, max_size=3))) + "]"
    if kind == "object":
        pairs = draw(st.lists(st.tuples(keys, atoms), max_size=3))
        return "{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}"
    return _nested(draw(st.sampled_from([2, 50, 3000, 100_000])), draw(atoms))


keys = st.one_of(
    st.sampled_from(FIELDS).map(_dumps),
    st.sampled_from(['"\\udc00"', '"hp_max "', '"HP"', '""']),
    st.text(max_size=4).map(_dumps),
)
row_texts = st.one_of(
    st.sampled_from(['"Rope"', '"rope"', '"\\ud800"', '"R\ud800"', '" "', '""', '"Gem"']),
    st.sampled_from(['"Rope"', '"\\udfff"', '"Torch"']),
    values(),
)


@st.composite
def items(draw: st.DrawFn) -> str:
    """One update item: the real keys with values right or wrong, and now and then a stray key."""
    parts = []
    if draw(st.integers(0, 9)):
        tracker = draw(st.one_of(st.sampled_from(NAMES).map(_dumps), values()))
        parts.append(f'"tracker":{tracker}')
    if draw(st.booleans()):
        parts.append(f'"row":{draw(row_texts)}')
    if draw(st.integers(0, 4)) == 0:
        remove = draw(st.one_of(st.sampled_from(["true", "false", '"false"', "1"]), values()))
        parts.append(f'"remove":{remove}')
    if draw(st.integers(0, 5)):
        pairs = draw(st.lists(st.tuples(keys, values()), max_size=4))
        body = "{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}"
        parts.append(f'"set":{draw(st.one_of(st.just(body), values()))}')
    if draw(st.integers(0, 9)) == 0:
        parts.append(f"{draw(keys)}:{draw(values())}")
    parts = draw(st.permutations(parts))
    return "{" + ",".join(parts) + "}"


_NUMBERS = [a for a in _HOSTILE_ATOMS if a[0] in "-0123456789NI"]
_TEXTS = [a for a in _HOSTILE_ATOMS if a.startswith('"')]


def field_values(field: AnyField) -> st.SearchStrategy[str]:
    """A value for `field` as a model writes it: often fitting, often huge, surrogate or wrong."""
    if isinstance(field, NumberField):
        fitting: st.SearchStrategy[str] = st.one_of(
            st.integers(-50, 600).map(str), st.sampled_from(_NUMBERS)
        )
    elif isinstance(field, ChoiceField):
        fitting = st.sampled_from(field.choices).map(_dumps)
    elif isinstance(field, BooleanField):
        fitting = st.sampled_from(["true", "false"])
    else:
        fitting = st.one_of(st.text(max_size=6).map(_dumps), st.sampled_from(_TEXTS))
    return st.one_of(fitting, fitting, fitting, atoms, values())


@st.composite
def good_items(draw: st.DrawFn) -> str:
    """An item of the right shape for a real tracker, each value fitting or hostile."""
    tracker = draw(st.sampled_from(FIXED))
    parts = [f'"tracker":{_dumps(tracker.name)}']
    if tracker.layout == "list":
        parts.append(f'"row":{draw(row_texts)}')
        if draw(st.integers(0, 5)) == 0:
            return "{" + ",".join([*parts, '"remove":true']) + "}"
    fields = draw(st.lists(st.sampled_from(tracker.fields), min_size=1, unique_by=_name))
    pairs = ",".join(f"{_dumps(f.name)}:{draw(field_values(f))}" for f in fields)
    return "{" + ",".join([*parts, f'"set":{{{pairs}}}']) + "}"


def _name(field: AnyField) -> str:
    return field.name


@st.composite
def argument_texts(draw: st.DrawFn) -> str:
    """What a model may send as the tool's arguments: mostly the call's shape, sometimes anything."""
    kind = draw(st.sampled_from(["good", "good", "good", "call", "cut", "value", "text"]))
    if kind in ("good", "call", "cut"):
        shaped = good_items() if kind == "good" else st.one_of(good_items(), items())
        text = '{"updates":[' + ",".join(draw(st.lists(shaped, max_size=4))) + "]}"
        if kind == "cut":
            text = text[: draw(st.integers(0, len(text)))]
        return text
    if kind == "value":
        return draw(values())
    return draw(st.text(max_size=40))


def _utf8(text: str) -> bytes:
    """The text's bytes as a client reads them off the wire (a lone surrogate kept, as JSON allows)."""
    return text.encode("utf-8", "surrogatepass")


# --- the laws --------------------------------------------------------------------------------


def _check_result(
    trackers: Sequence[Tracker], state: Mapping[str, Mapping[str, object]], result: UpdateResult
) -> None:
    """All or nothing, an answer that can be shown, and every written value inside its range."""
    result.answer.encode("utf-8")
    if not result.ok:
        assert result.deltas == ()
        assert result.answer.startswith("Nothing was written")
        return
    after = fold(result.deltas, state)
    by_slot = {slot_of(t): t for t in trackers}
    for delta in result.deltas:
        tracker = by_slot[delta.slot]
        read = tracker_value(tracker, after)
        if tracker.layout == "record":
            written: Mapping[str, object] = {delta.key: delta.value}
            shown: Mapping[str, object] = read
        else:
            assert unicode_problem(delta.key) is None
            if delta.value is None:
                assert delta.key not in read
                continue
            assert isinstance(delta.value, Mapping)
            written, shown = delta.value, read[delta.key]
        for name, value in written.items():
            assert shown[name] == value, "stored equals read (TR-15)"
            field = next(f for f in tracker.fields if f.name == name)
            if isinstance(value, str):
                assert unicode_problem(value) is None
            if isinstance(field, NumberField):
                assert is_number(value)
                assert isinstance(value, int | float)
                assert field.min is None or value >= field.min
                assert field.max is None or value <= field.max


@st.composite
def scenes(draw: st.DrawFn) -> tuple[list[Tracker], dict[str, dict[str, object]]]:
    extra = draw(st.lists(topped(), max_size=1))
    trackers = FIXED + extra
    return trackers, draw(stored_states(trackers))


class TestToolPath:
    """TR-37: argument text through `read_arguments` and the batch: applied or answered, never raised."""

    @FUZZ
    @given(scenes(), argument_texts())
    def test_any_text_is_applied_or_answered(
        self, scene: tuple[list[Tracker], dict[str, dict[str, object]]], text: str
    ) -> None:
        """A batch either writes values that fit or writes nothing and says why (TR-13, TR-37)."""
        trackers, state = scene
        before = copy.deepcopy(state)
        arguments, problem = read_arguments(text)
        if problem is not None:
            assert arguments is None
            problem.encode("utf-8")
            return
        result = apply_tracker_updates(trackers, state, arguments)
        assert state == before, "the batch never changes the state it was given"
        _check_result(trackers, state, result)


class _Sends:
    name = "sends"

    def __init__(self, arguments: str) -> None:
        self.arguments = arguments
        self.calls = 0

    def complete(self, request: ModelRequest) -> ModelReply:
        self.calls += 1
        if self.calls == 1:
            call = ToolCall("c1", "update_trackers", self.arguments)
            return ModelReply("", (call,), "tool_calls")
        return ModelReply("Done.")


def _scene() -> Scene:
    return Scene(
        id="s",
        title="S",
        card="{{tracker::Notes::text}}",
        prompting=Prompting(trackers=["health", "bag", "notes", "load"]),
        tool_access=True,
        # A window that holds any call when the next round sends it again (TR-33: every round
        # fits window - reserve, and a call past the window fails its turn in words).
        window=1_000_000,
    )


def _pieces() -> dict[str, object]:
    return {"health": HEALTH, "bag": BAG, "notes": NOTES, "load": LOAD}


class TestSessionTurn:
    """TR-37: the same texts through a whole `Session` turn: the turn completes and the model is answered."""

    @TURNS
    @given(argument_texts())
    def test_a_turn_never_raises(self, text: str) -> None:
        """Whatever the arguments, the turn completes with one answered call and values that fit."""
        session = Session(_scene(), _pieces(), _Sends(text))
        report = session.turn("go")
        assert report.ok, report.failed
        (call,) = report.calls
        call.answer.encode("utf-8")
        values = session.values()
        assert 0 <= values["Health"]["hp"] <= values["Health"]["hp_max"]
        assert all(0 <= row["kg"] <= 500 for row in values["Load"].values())


class TestTurnCallText:
    """TR-37: the same texts handed to `Turn.call` as text (OpenAI's argument string): applied or answered, never raised."""

    @FUZZ
    @given(st.one_of(argument_texts(), argument_texts().map(_utf8), st.binary(max_size=40)))
    def test_any_text_is_applied_or_answered(self, text: str | bytes) -> None:
        """Text reads as the object it decodes to; a call not accepted leaves nothing pending."""
        chat = Chat(_scene(), _pieces())
        chat.add_user("go")
        turn = chat.begin_turn()
        before = turn.state
        result = turn.call(text)
        _check_result(FIXED, before, result)
        arguments, problem = read_arguments(text)
        if problem is None:
            assert result == apply_tracker_updates(FIXED, before, arguments)
        assert turn.pending == list(result.deltas)
        if not result.ok:
            assert turn.state == before


class TestEditPath:
    """TR-27: a person's edit with any item values is written or refused with `EditRefusedError`."""

    @FUZZ
    @given(argument_texts(), st.sampled_from(["Health", "Bag", "Notes", "Load"]))
    def test_edit_is_written_or_refused(self, text: str, tracker: str) -> None:
        """Item values a scene file may hold reach the edit; only `EditRefusedError` comes out."""
        item, _ = read_arguments(text)
        if not isinstance(item, dict):
            item = {"set": item}
        chat = Chat(_scene(), _pieces())
        chat.add_user("go")
        chat.begin_turn().commit("ok")
        state = chat.take.state_at()
        kwargs = {k: item[k] for k in ("set", "row", "remove") if k in item}
        try:
            result = chat.edit(tracker, **kwargs)
        except EditRefusedError as exc:
            str(exc).encode("utf-8")
            assert chat.take.state_at() == state
            return
        _check_result(chat.linked().trackers, state, result)
