"""Hostile input to the strict decoder (TR-11, TR-12): a fuzz of the bundled pieces, and files.

Each fuzz case takes one of the pieces in `data/trackers/`, applies one to four mutations at
random places (a value swapped for another type, a list or object where text is expected, a lone
surrogate, a whole number of thousands of digits, a key dropped or added) and decodes it. Only
`TrackerDecodeError` may come out, its message printable as UTF-8; what decodes keeps every rule.
Then the CLI and the library meet such files: one refused verdict each, no traceback.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit import Library, Tracker, TrackerDecodeError, decode_tracker, encode_tracker
from trackerkit.cli import main
from trackerkit.fields import NAME_PATTERN, ChoiceField, NumberField, is_number
from trackerkit.values import AnyField, accepts, top_order

_PIECES: list[Any] = [
    orjson.loads(p.read_bytes())
    for p in sorted((Path(__file__).resolve().parent.parent / "data" / "trackers").glob("*.json"))
]
_HUGE_DIGITS = 4_400  # past Python's 4,300-digit limit for int <-> str

#: Keys a piece knows, so an added key often lands on a key some other type owns.
_KEYS = st.sampled_from(
    [
        "type",
        "name",
        "id",
        "kind",
        "min",
        "max",
        "maxField",
        "default",
        "choices",
        "icon",
        "layout",
        "fields",
        "changes",
        "template",
        "\ud800",
        "x\udfffy",
        "",
    ]
)
_TEXTS = st.one_of(
    st.sampled_from(["", " ", "hp", "hp_max", "name", "number", "choice", "list", "lucide:heart"]),
    st.sampled_from(["\ud800", "hp\udc00", "a\ud83d", "é\udfff"]),
    st.text(max_size=12),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([2**53, -(2**53), 2**64]),
    st.sampled_from([1, -1, 7]).map(lambda k: k * 10**_HUGE_DIGITS),
    st.integers(-1_000, 1_000),
    st.floats(allow_nan=True, allow_infinity=True),
    _TEXTS,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(_KEYS, st.text(max_size=4)), inner, max_size=3),
    ),
    max_leaves=6,
)


def _places(doc: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside `doc` (the root is the empty path)."""
    out = [path]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _places(value, (*path, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out += _places(value, (*path, i))
    return out


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


class _Case:
    """A mutated document; its repr stays printable with numbers past 4,300 digits in it."""

    def __init__(self, doc: object) -> None:
        self.doc = doc

    def __repr__(self) -> str:
        return f"_Case({_safe_repr(self.doc)})"


def _safe_repr(value: object) -> str:
    if isinstance(value, int) and value.bit_length() > 1_000:
        return f"{'-' if value < 0 else ''}<a whole number of {value.bit_length()} bits>"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_safe_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_safe_repr(v) for v in value) + "]"
    return repr(value)


@st.composite
def _mutated(draw: st.DrawFn) -> _Case:
    doc: Any = copy.deepcopy(draw(st.sampled_from(_PIECES)))
    for _ in range(draw(st.integers(1, 4))):
        place = draw(st.sampled_from(_places(doc)))
        how = draw(st.sampled_from(["swap", "wrap", "drop", "add", "huge", "surrogate"]))
        if not place:
            if how == "swap":
                doc = draw(_VALUES)
            continue
        holder, key = _at(doc, place[:-1]), place[-1]
        if how == "swap":
            holder[key] = draw(_VALUES)
        elif how == "wrap":
            holder[key] = draw(st.sampled_from([[holder[key]], {"v": holder[key]}]))
        elif how == "huge":
            holder[key] = draw(st.sampled_from([1, -1]).map(lambda k: k * 10**_HUGE_DIGITS))
        elif how == "surrogate":
            holder[key] = draw(st.sampled_from(["\ud800", "hp\udc00", "Vera\ud83d"]))
        elif how == "drop":
            del holder[key]
        elif isinstance(holder, dict):
            holder[draw(_KEYS)] = draw(_VALUES)
        else:
            holder.insert(key, draw(_VALUES))
    return _Case(doc)


@st.composite
def _plausible(draw: st.DrawFn) -> _Case:
    """A bundled piece with keys of its fields set to values of the right kind, often breaking a
    rule across keys (a range upside down, a default out of range, a top that loops or is no
    number, a repeated name or choice), so that many cases still decode."""
    doc: Any = copy.deepcopy(draw(st.sampled_from(_PIECES)))
    fields = doc["body"]["fields"]
    names = [f["name"] for f in fields] + ["name", "nope"]
    small = st.one_of(st.integers(-5, 5), st.floats(-5, 5, allow_nan=False))
    for _ in range(draw(st.integers(1, 4))):
        field = draw(st.sampled_from(fields))
        key = draw(
            st.sampled_from(["min", "max", "default", "maxField", "choices", "name", "type"])
        )
        if key in ("min", "max"):
            field[key] = draw(small)
        elif key == "default":
            field[key] = draw(st.one_of(small, st.booleans(), st.sampled_from(["a", "calm", ""])))
        elif key in ("maxField", "name"):
            field[key] = draw(st.sampled_from(names))
        elif key == "choices":
            field[key] = draw(st.lists(st.sampled_from(["a", "b", "calm"]), max_size=3))
        else:
            field[key] = draw(st.sampled_from(["text", "number", "boolean", "choice"]))
        if draw(st.booleans()):
            field.pop(draw(st.sampled_from(["min", "max", "default", "maxField", "choices"])), None)
    if draw(st.booleans()):
        doc["body"]["layout"] = draw(st.sampled_from(["record", "list"]))
    return _Case(doc)


def _holds_every_rule(tracker: Tracker) -> None:
    """What the decoder accepted keeps TR-1, TR-4, TR-7, TR-9 and round-trips (TR-12)."""
    names = [f.name for f in tracker.fields]
    assert tracker.fields
    assert len(set(names)) == len(names)
    assert all(NAME_PATTERN.fullmatch(n) for n in names)
    assert tracker.name.strip()
    for field in tracker.fields:
        if isinstance(field, NumberField):
            for bound in (field.min, field.max, field.default):
                assert bound is None or is_number(bound)
            if field.min is not None and field.max is not None:
                assert field.min <= field.max
        if field.default is not None:
            assert accepts(field, field.default)
    if tracker.layout == "list":
        assert "name" not in names
    by_name = {f.name: f for f in tracker.fields}
    for field in tracker.fields:
        if isinstance(field, ChoiceField):
            assert field.choices
            assert len(set(field.choices)) == len(field.choices)
        seen = {field.name}
        at: AnyField = field
        while isinstance(at, NumberField) and at.max_field is not None:  # TR-5: no loop
            assert at.max is None
            at = by_name[at.max_field]
            assert isinstance(at, NumberField)
            assert at.name not in seen
            seen.add(at.name)
    assert sorted(top_order(tracker.fields)) == list(range(len(names)))
    data = encode_tracker(tracker)
    assert decode_tracker(orjson.loads(orjson.dumps(data))) == tracker


class TestMutatedPieces:
    """TR-12: whatever is done to a bundled piece, the decoder returns a tracker or refuses it."""

    @settings(
        max_examples=400,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(_mutated())
    def test_only_decode_errors(self, case: _Case) -> None:
        """TR-12: a mutated piece decodes keeping every rule, or is refused with printable problems."""
        outcome = _outcome(case.doc)
        if isinstance(outcome, Tracker):
            _holds_every_rule(outcome)
            return
        assert outcome.problems
        assert all(isinstance(p.path, str) and p.message for p in outcome.problems)
        str(outcome).encode("utf-8")  # printable, so `trackerkit check` can show it
        assert len(str(outcome)) < 200_000

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_plausible())
    def test_rules_across_keys(self, case: _Case) -> None:
        """TR-3..TR-7, TR-12: pieces with plausible values decode keeping every rule, or are
        refused with a problem at a path inside the piece."""
        outcome = _outcome(case.doc)
        expected = _naive_paths(case.doc)
        if isinstance(outcome, Tracker):
            assert not expected
            _holds_every_rule(outcome)
            return
        assert outcome.problems
        assert all(p.message for p in outcome.problems)
        assert expected <= {p.path for p in outcome.problems}


def _naive_paths(doc: Any) -> set[str]:
    """Where some rules across keys must be reported, whatever else is wrong (TR-12), found the
    slow and obvious way: min above max, a default outside them, a top that is itself or no field,
    a repeated choice, a repeated or reserved name."""
    paths: set[str] = set()
    seen: set[str] = set()
    every = {f["name"] for f in doc["body"]["fields"]}
    for i, field in enumerate(doc["body"]["fields"]):
        low, high, name = field.get("min"), field.get("max"), field["name"]
        default, top = field.get("default"), field.get("maxField")
        if field["type"] == "number" and is_number(low) and is_number(high) and low > high:
            paths.add(f"body.fields[{i}].min")
        below = is_number(default) and is_number(low) and default < low
        above = is_number(default) and is_number(high) and default > high
        if field["type"] == "number" and (below or above):
            paths.add(f"body.fields[{i}].default")
        if field["type"] == "number" and isinstance(top, str) and (top == name or top not in every):
            paths.add(f"body.fields[{i}].maxField")
        if field["type"] == "choice" and isinstance(field.get("choices"), list):
            choices = field["choices"]
            paths |= {
                f"body.fields[{i}].choices[{j}]"
                for j in range(len(choices))
                if choices[j] in choices[:j]
            }
        if name in seen or (name == "name" and doc["body"]["layout"] == "list"):
            paths.add(f"body.fields[{i}].name")
        seen.add(name)
    return paths


def _outcome(doc: object) -> Tracker | TrackerDecodeError:
    """The tracker, or the decoder's refusal; any other exception escapes the test."""
    try:
        return decode_tracker(doc, source="fuzz.json")
    except TrackerDecodeError as exc:
        return exc


def _hostile_folder(folder: Path) -> dict[str, bytes]:
    """A folder of one good piece and pieces that once crashed the decoder; returns the files."""
    good = _PIECES[0]
    typed = {**copy.deepcopy(good), "id": "typed", "type": [1]}
    fields = copy.deepcopy(good)
    fields["id"] = "fields"
    fields["body"]["fields"][0].update(name="HP", type="number", min=5, max=1)
    fields["body"]["fields"].append({"name": ["x"], "description": {}, "type": {"a": 1}})
    files = {
        f"{good['id']}.json": orjson.dumps(good),
        "typed.json": orjson.dumps(typed),
        "fields.json": orjson.dumps(fields),
        "surrogate.json": b'{"id": "\\ud800"}',
        "digits.json": b'{"revision": 1' + b"0" * 5_000 + b"}",
    }
    for name, raw in files.items():
        (folder / name).write_bytes(raw)
    return files


class TestHostileFiles:
    """TR-12, TR-25: each hostile file is one refused verdict, and hides no other file."""

    def test_library_verdicts(self, tmp_path: Path) -> None:
        """TR-12: `Library.verdicts()` gives every file its verdict; only the good piece decodes."""
        files = _hostile_folder(tmp_path)
        verdicts = {Path(v.file).name: v for v in Library(tmp_path).verdicts()}
        assert set(verdicts) == set(files)
        assert [name for name, v in verdicts.items() if v.ok] == [f"{_PIECES[0]['id']}.json"]
        assert any(p.path == "type" for p in verdicts["typed.json"].problems)
        paths = {p.path for p in verdicts["fields.json"].problems}
        assert {"body.fields[0].name", "body.fields[0].min", "body.fields[3].type"} <= paths

    def test_check_command(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """TR-12: `trackerkit check` prints one line per problem, no traceback, and exits 1."""
        _hostile_folder(tmp_path)
        code = main(["check", str(tmp_path)])
        out, err = capsys.readouterr()
        assert (code, err) == (1, "")
        assert out.endswith(f"{tmp_path}: 4 of 5 trackers refused\n")
        assert f"{tmp_path / 'typed.json'}: type: is not a known key\n" in out
        assert f"{tmp_path / 'fields.json'}: body.fields[0].min: must be at most max (1)" in out
        assert main(["check", "--json", str(tmp_path)]) == 1
        assert len(orjson.loads(capsys.readouterr().out)) == 5
