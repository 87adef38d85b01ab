"""Random JSON and YAML into detect_format and every importer: only ImportRefusedError comes out."""

from __future__ import annotations

from collections.abc import Callable

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit import ImportRefusedError, decode_tracker, detect_format, encode_tracker
from trackerkit.formats import FORMATS, Imported, import_file

#: Keys the formats give meaning to, so random documents reach deep into each importer.
KEYS = [
    "trackerDef",
    "name",
    "type",
    "presence",
    "prompt",
    "defaultValue",
    "exampleValues",
    "nestedFields",
    "STRING",
    "schemaPresets",
    "value",
    "html",
    "properties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "default",
    "$ref",
    "anyOf",
    "trackerConfig",
    "userStats",
    "customStats",
    "maxValue",
    "infoBox",
    "widgets",
    "presentCharacters",
    "relationships",
    "customFields",
    "inventory",
    "playerStats",
    "stats",
    "max",
    "personaStats",
    "activeQuests",
    "entries",
    "comment",
    "content",
    "$meta",
    "extensible",
    "template",
    "description",
    "当前位置",
    "name ",
]
TYPES = ["STRING", "ARRAY", "OBJECT", "FOR_EACH_OBJECT", "object", "array", "number", "string"]
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([*TYPES, "[InitVar] x", "$__META_EXTENSIBLE__$", "[-30,100]", "a: [1,"])
    | st.text(max_size=20)
)
DOCUMENTS = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)


def _some(**keys: st.SearchStrategy[object]) -> st.SearchStrategy[dict[str, object]]:
    """Objects holding any of `keys` (each with its strategy) and sometimes a random extra key."""
    return st.fixed_dictionaries({}, optional={**keys, "extra": DOCUMENTS})


ANY = DOCUMENTS
ST_FIELD = st.recursive(
    _some(
        name=LEAVES,
        type=st.sampled_from([*TYPES[:4], "ARRAY_OBJECT", "FOR_EACH_ARRAY"]) | LEAVES,
        presence=st.sampled_from(["STATIC", "EPHEMERAL", "DYNAMIC"]),
        prompt=LEAVES,
        defaultValue=ANY,
        exampleValues=ANY,
    ),
    lambda inner: _some(
        name=LEAVES,
        type=st.sampled_from(TYPES[:4]),
        nestedFields=st.dictionaries(st.text(max_size=6), inner, max_size=4),
    ),
    max_leaves=8,
)
SCHEMA = st.recursive(
    _some(
        type=st.sampled_from([*TYPES[4:], "integer", "boolean", "null"])
        | st.lists(st.sampled_from(["string", "null", "integer"]), max_size=3),
        minimum=LEAVES,
        maximum=LEAVES,
        exclusiveMinimum=LEAVES,
        default=LEAVES,
        enum=st.lists(LEAVES, max_size=4),
        description=LEAVES,
    ),
    lambda inner: _some(
        type=st.just("object") | st.just("array"),
        properties=st.dictionaries(
            st.sampled_from(["name", "title", "hp", "x"]) | st.text(max_size=6), inner, max_size=4
        ),
        items=inner,
        anyOf=st.lists(inner, max_size=2),
    ),
    max_leaves=10,
)
STAT = _some(
    name=LEAVES | st.text(min_size=1, max_size=8),
    value=LEAVES,
    max=LEAVES,
    maxValue=LEAVES,
    color=LEAVES,
    enabled=LEAVES,
)
SHAPED = st.one_of(
    _some(trackerDef=st.dictionaries(st.text(max_size=6), ST_FIELD, max_size=5), presetName=LEAVES),
    _some(
        schemaPresets=st.dictionaries(
            st.text(max_size=6), _some(name=LEAVES, value=SCHEMA, html=LEAVES), max_size=3
        )
    ),
    SCHEMA,
    _some(
        trackerConfig=_some(
            userStats=_some(customStats=st.lists(STAT, max_size=4) | ANY, statsDisplayMode=LEAVES),
            rpgAttributes=ANY | _some(attributes=st.lists(STAT | LEAVES, max_size=3)),
            statusSection=_some(
                showMoodEmoji=LEAVES, customFields=st.lists(STAT | LEAVES, max_size=3)
            ),
            infoBox=_some(
                widgets=st.dictionaries(
                    st.sampled_from(["date", "time", "recentEvents", "moon"]), ANY, max_size=4
                )
                | ANY
            ),
            presentCharacters=_some(
                relationships=ANY, customFields=st.lists(STAT | LEAVES, max_size=3), thoughts=ANY
            ),
            inventory=ANY,
        )
    ),
    _some(
        date=LEAVES,
        location=ANY,
        recentEvents=ANY,
        worldCustomFields=st.lists(_some(name=LEAVES, value=LEAVES, icon=LEAVES), max_size=3),
        playerStats=_some(
            stats=st.lists(STAT, max_size=3),
            attributes=ANY,
            skills=ANY,
            inventory=ANY,
            activeQuests=ANY,
            customTrackerFields=ANY,
            inventoryTrackerCarried=ANY,
        ),
        personaStats=st.lists(STAT, max_size=3) | ANY,
        presentCharacters=st.lists(
            _some(name=LEAVES, stats=st.lists(STAT, max_size=2), customFields=ANY, mood=LEAVES),
            max_size=3,
        ),
    ),
    _some(
        entries=st.dictionaries(
            st.text(max_size=3),
            _some(
                comment=st.sampled_from(["[InitVar] a", "lore"]) | LEAVES,
                content=DOCUMENTS.map(lambda d: orjson.dumps(d).decode()) | LEAVES,
            ),
            max_size=3,
        )
    ),
)


@settings(max_examples=300, deadline=None)
@given(SHAPED)
def test_shaped_documents(document: object) -> None:
    """Documents shaped like each format, with random values where the format has its own."""
    _check(orjson.dumps(document).decode())


def _outcome(call: Callable[[], object]) -> object:
    try:
        return call()
    except ImportRefusedError as error:
        return error


def _check(text: str) -> None:
    """Every call returns trackers the strict decoder takes, or refuses with the file's name."""
    outcomes = [_outcome(lambda: detect_format("f.txt", text))]
    outcomes.append(_outcome(lambda: import_file("f.txt", None, text)))
    outcomes += [_outcome(lambda f=f: import_file("f.txt", f, text)) for f in FORMATS]  # type: ignore[misc]
    for outcome in outcomes:
        if isinstance(outcome, ImportRefusedError):
            assert str(outcome).startswith("f.txt: ")
        elif isinstance(outcome, Imported):
            for tracker in outcome.trackers:
                assert decode_tracker(encode_tracker(tracker)) == tracker
            assert outcome.scene_links == tuple(t.id for t in outcome.trackers)
        else:
            assert outcome in FORMATS


@settings(max_examples=150, deadline=None)
@given(DOCUMENTS)
def test_random_json(document: object) -> None:
    """Random JSON documents built from the formats' own keys."""
    _check(orjson.dumps(document).decode())


@settings(max_examples=100, deadline=None)
@given(DOCUMENTS)
def test_random_yaml(document: object) -> None:
    """The same documents written as YAML."""
    _check(yaml.safe_dump(document, allow_unicode=True))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_random_text(text: str) -> None:
    """Any text at all."""
    _check(text)


@pytest.mark.parametrize(
    "text",
    ["[" * 3000, "a: &a [*a]", "{x: !!python/object:os.system {}}", "\x00", "- - - - -"],
    ids=["deep", "self-alias", "python-tag", "nul", "nested-dashes"],
)
def test_hostile_text(text: str) -> None:
    """Hostile inputs are refused or read, never a crash."""
    _check(text)
