"""Hypothesis strategies for tracker documents, shared by every test that needs trackers.

`tracker_docs()` draws plain documents (as stored on disk) that the strict decoder accepts:
records and lists, all four field types, ranges, tops taken from other fields without loops,
defaults that fit, icons and templates. `trackers()` decodes them. `json_values()` draws any
JSON value, for fuzzing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from trackerkit import Tracker, decode_tracker
from trackerkit.fields import MAX_SAFE_INTEGER

__all__ = [
    "field_names",
    "icon_ids",
    "json_values",
    "numbers",
    "piece_ids",
    "templates",
    "tracker_docs",
    "trackers",
]

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
# Built from characters rather than `from_regex`, which is several times slower to draw.
field_names = st.builds(
    str.__add__,
    st.sampled_from(_LOWER),
    st.text(alphabet=_LOWER + _DIGITS + "_", max_size=63),
)
_icon_word = st.text(alphabet=_LOWER + _DIGITS, min_size=1, max_size=8)
icon_ids = st.builds(
    lambda prefix, words: prefix + ":" + "-".join(words),
    st.sampled_from(["lucide", "mdi"]),
    st.lists(_icon_word, min_size=1, max_size=3),
)
piece_ids = st.builds(
    str.__add__,
    st.sampled_from(_LOWER + _LOWER.upper() + _DIGITS),
    st.text(alphabet=_LOWER + _LOWER.upper() + _DIGITS + "_-", max_size=30),
)
texts = st.text(max_size=30)
numbers = st.one_of(
    st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
    st.integers(-1000, 1000),
    st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False),
)
_MACROS = ("{{user}}", "{{char}}", "{{tracker::Health}}", "{{tracker::Health::hp}}")
templates = st.lists(st.one_of(texts, st.sampled_from(_MACROS)), max_size=4).map("".join)


@st.composite
def _number_field(draw: st.DrawFn) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "number"}
    low = draw(st.none() | numbers)
    high = draw(st.none() | numbers)
    if low is not None and high is not None and low > high:
        low, high = high, low
    if low is not None:
        field["min"] = low
    if high is not None:
        field["max"] = high
    if draw(st.booleans()):
        default = draw(numbers)  # held inside the range, so it always fits
        if high is not None and default > high:
            default = high
        if low is not None and default < low:
            default = low
        field["default"] = default
    return field


@st.composite
def _choice_field(draw: st.DrawFn) -> dict[str, Any]:
    choices = draw(st.lists(texts, min_size=1, max_size=5, unique=True))
    field: dict[str, Any] = {"type": "choice", "choices": choices}
    if draw(st.booleans()):
        field["default"] = draw(st.sampled_from(choices))
    return field


@st.composite
def _plain_field(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    field: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        field["default"] = draw(texts if kind == "text" else st.booleans())
    return field


@st.composite
def tracker_docs(draw: st.DrawFn, max_fields: int = 6) -> dict[str, Any]:
    """A tracker document the strict decoder accepts."""
    layout = draw(st.sampled_from(["record", "list"]))
    names = draw(
        st.lists(
            field_names.filter(lambda n: layout == "record" or n != "name"),
            min_size=1,
            max_size=max_fields,
            unique=True,
        )
    )
    fields: list[dict[str, Any]] = []
    for name in names:
        kind = draw(st.sampled_from(["text", "number", "boolean", "choice"]))
        if kind == "number":
            field = draw(_number_field())
        elif kind == "choice":
            field = draw(_choice_field())
        else:
            field = draw(_plain_field(kind))
        field = {"name": name, "description": draw(texts), **field}
        if draw(st.booleans()):
            field["icon"] = draw(icon_ids)
        fields.append(field)
    # Tops: a number field without a max may take its top from a number field of lower rank,
    # so the tops can point either way in the list and still never loop.
    rank = draw(st.permutations(range(len(fields))))
    for i, field in enumerate(fields):
        if field["type"] != "number" or "max" in field:
            continue
        lower = [
            fields[j]["name"]
            for j in range(len(fields))
            if rank[j] < rank[i] and fields[j]["type"] == "number"
        ]
        if lower and draw(st.booleans()):
            field["maxField"] = draw(st.sampled_from(lower))
    body: dict[str, Any] = {"layout": layout, "fields": fields, "note": draw(texts)}
    if draw(st.booleans()):
        body["template"] = draw(templates)
    if draw(st.booleans()):
        body["icon"] = draw(icon_ids)
    if draw(st.booleans()):
        body["changes"] = draw(st.sampled_from(["chips", "card", "toast", "hidden"]))
    doc: dict[str, Any] = {
        "id": draw(piece_ids),
        "name": draw(texts.filter(lambda t: t.strip() != "")),
        "description": draw(texts),
        "body": body,
    }
    if draw(st.booleans()):
        doc["kind"] = "tracker"
    if draw(st.booleans()):
        doc["revision"] = draw(st.integers(0, 10_000))
    return doc


def trackers(max_fields: int = 6) -> st.SearchStrategy[Tracker]:
    """Decoded trackers drawn from `tracker_docs()`."""
    return tracker_docs(max_fields).map(decode_tracker)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
    st.sampled_from(["tracker", "record", "list", "number", "choice", "text", "boolean"]),
)
#: Any JSON value (with Python's extras: NaN, infinities, huge ints), nested a few levels.
json_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=30,
)
