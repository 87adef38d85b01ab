"""Nothing dropped: every key of a generated SillyTavern-Tracker or WTracker source has a report line.

Hypothesis writes sources as messy as real ones (nesting, every field type, junk entries, names
in several scripts, repeated names); the law is that each field definition appears in the report
as exact, guessed or unmapped under its own path, and each container (an object, a keyed list)
at least as the prefix of its children's lines, so no key is ever silently absent.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trackerkit.formats.imported import Imported
from trackerkit.formats.sillytavern_tracker import sillytavern_tracker_from_data
from trackerkit.formats.wtracker_import import wtracker_from_data

#: Names as real files write them, and random ones (no dots: a dot joins a path in the report).
names = st.sampled_from(
    ["Time", "StateOfDress", "当前位置", "name", "Name", "id", "title", "Hair", "好感度", "hp"]
) | st.text(
    st.characters(blacklist_characters=".", blacklist_categories=("Cs",)), min_size=1, max_size=8
)
texts = st.text(max_size=20)


def _left_whole(imported: Imported, path: str) -> bool:
    """Whether a container holding `path` was left behind whole, with its reason."""
    unmapped = {line.source for line in imported.report.of("unmapped")}
    parts = path.split(".")
    return any(".".join(parts[:n]) in unmapped for n in range(1, len(parts)))


def _assert_nothing_dropped(imported: Imported, leaves: list[str], containers: list[str]) -> None:
    sources = Counter(line.source for line in imported.report.lines)
    missing = [
        path for path in (Counter(leaves) - sources).elements() if not _left_whole(imported, path)
    ]
    assert not missing, f"no report line for {sorted(missing)}:\n{imported.report.to_text()}"
    for path in containers:
        covered = path in sources or any(s.startswith(path + ".") for s in sources)
        assert covered or _left_whole(imported, path), (
            f"no report line for {path}:\n{imported.report.to_text()}"
        )
    for line in imported.report.lines:
        assert line.kind in ("exact", "guessed", "unmapped")
        assert line.detail


# --- SillyTavern-Tracker ------------------------------------------------------------------------

_LEAF_TYPES = st.sampled_from(["STRING", "ARRAY"])
_NESTING_TYPES = st.sampled_from(["OBJECT", "FOR_EACH_OBJECT", "FOR_EACH_ARRAY", "ARRAY_OBJECT"])


def _st_spec(kind: Any, nested: Any) -> Any:
    return st.fixed_dictionaries(
        {"type": kind},
        optional={
            "name": names,
            "presence": st.sampled_from(["DYNAMIC", "STATIC", "EPHEMERAL", 3]),
            "prompt": texts,
            "defaultValue": st.none() | texts | st.lists(texts, max_size=3),
            "exampleValues": st.lists(texts | st.lists(texts, max_size=2), max_size=3),
            "nestedFields": nested,
        },
    )


_junk = (
    st.none()
    | st.integers()
    | texts
    | st.fixed_dictionaries({"type": st.sampled_from(["NUMBER", ["STRING"]])})
)
st_fields = st.recursive(
    _st_spec(_LEAF_TYPES, st.just({})) | _junk,
    lambda inner: _st_spec(_NESTING_TYPES | _LEAF_TYPES, st.dictionaries(names, inner, max_size=4)),
    max_leaves=12,
)
#: A trackerDef with at least one typed field (else the file is refused, which is the other law).
st_defs = st.dictionaries(
    st.builds(lambda n, s: f"field-{n}{s}", st.integers(0, 99), st.sampled_from(["", "x"])),
    st_fields,
    max_size=6,
).filter(lambda d: any(isinstance(v, dict) and v.get("type") in _ST_ALL for v in d.values()))
_ST_ALL = ("STRING", "ARRAY", "OBJECT", "FOR_EACH_OBJECT", "FOR_EACH_ARRAY", "ARRAY_OBJECT")


def _st_name(key: str, spec: object) -> str:
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) and name.strip() else key


def _st_paths(definition: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every field definition's report path: `(leaves, containers)`."""
    leaves: list[str] = []
    containers: list[str] = []

    def walk(key: str, spec: object, prefix: str) -> None:
        path = prefix + _st_name(key, spec)
        nested = spec.get("nestedFields") if isinstance(spec, dict) else None
        if isinstance(spec, dict) and spec.get("type") in _ST_ALL[2:]:
            containers.append(path)
            if isinstance(nested, dict) and spec.get("type") != "FOR_EACH_ARRAY":
                for sub, inner in nested.items():
                    walk(sub, inner, path + ".")
        else:
            leaves.append(path)

    for key, spec in definition.items():
        walk(key, spec, "")
    return leaves, containers


# Found by this law: an ARRAY_OBJECT keyed by a text sub-field that another sub-field (an OBJECT)
# names too; the OBJECT was taken for the key and its fields dropped without a line.
_SAME_NAME = {
    "field-0": {
        "type": "ARRAY_OBJECT",
        "nestedFields": {
            "Time": {
                "type": "OBJECT",
                "name": "StateOfDress",
                "nestedFields": {"Time": {"type": "OBJECT", "nestedFields": {"Time": None}}},
            },
            "StateOfDress": {"type": "STRING"},
        },
    }
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(_SAME_NAME, False, {})
@example({"field-0": {**_SAME_NAME["field-0"], "presence": "DYNAMIC"}}, True, {})
@given(
    st_defs,
    st.booleans(),
    st.dictionaries(
        st.sampled_from(["presetName", "trackerFormat", "name", "mesTrackerTemplate"]),
        texts,
        max_size=3,
    ),
)
def test_sillytavern_tracker_drops_nothing(
    definition: dict[str, Any], preset: bool, settings_keys: dict[str, str]
) -> None:
    """Every field (at any depth) and every preset setting has its line."""
    data: dict[str, Any] = {**settings_keys, "trackerDef": definition} if preset else definition
    imported = sillytavern_tracker_from_data(data, "preset.json")
    leaves, containers = _st_paths(definition)
    if preset:
        leaves += list(settings_keys)
    _assert_nothing_dropped(imported, leaves, containers)


# --- WTracker -----------------------------------------------------------------------------------

_numbers = st.integers(-100, 100) | st.floats(-1e3, 1e3, allow_nan=False)
_plain_props = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["number", "integer"])},
        optional={
            "minimum": _numbers,
            "maximum": _numbers,
            "exclusiveMinimum": _numbers,
            "default": _numbers,
        },
    ),
    st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "enum": st.lists(texts | st.integers(), max_size=4),
            "default": texts,
            "maxLength": st.integers(0, 9),
        },
    ),
    st.fixed_dictionaries({"type": st.just("boolean")}, optional={"default": st.booleans()}),
    st.fixed_dictionaries(
        {
            "type": st.just("array"),
            "items": st.fixed_dictionaries(
                {"type": st.sampled_from(["string", "integer", "null"])}
            ),
        }
    ),
    st.fixed_dictionaries({"anyOf": st.just([{"type": "string"}, {"type": "number"}])}),
    st.fixed_dictionaries({"$ref": st.just("#/definitions/x")}),
    st.fixed_dictionaries(
        {"type": st.sampled_from([["string", "null"], ["string", "number"], "null", 5])}
    ),
    st.none() | st.integers() | texts,
)
wt_props = st.recursive(
    _plain_props,
    lambda inner: st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(names, inner, max_size=4)},
            optional={"description": texts},
        ),
        st.fixed_dictionaries(
            {
                "type": st.just("array"),
                "items": st.fixed_dictionaries(
                    {
                        "type": st.just("object"),
                        "properties": st.dictionaries(names, inner, max_size=4),
                    }
                ),
            },
            optional={"description": texts},
        ),
    ),
    max_leaves=12,
)
wt_schemas = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(names, wt_props, min_size=1, max_size=6),
    },
    optional={"$schema": st.just("http://json-schema.org/draft-07/schema#"), "description": texts},
)


def _is_row_list(prop: object) -> bool:
    return (
        isinstance(prop, dict)
        and prop.get("type") == "array"
        and isinstance(prop.get("items"), dict)
        and prop["items"].get("type") == "object"
    )


def _wt_paths(schema: dict[str, Any], where: str) -> tuple[list[str], list[str]]:
    """Every property's report path: `(leaves, containers)`."""
    leaves: list[str] = []
    containers: list[str] = []

    def walk(properties: dict[str, Any], prefix: str) -> None:
        for key, prop in properties.items():
            path = f"{prefix}.properties.{key}" if prefix else f"properties.{key}"
            if (
                isinstance(prop, dict)
                and prop.get("type") == "object"
                and isinstance(prop.get("properties"), dict)
                and prop["properties"]
            ):
                containers.append(path)
                walk(prop["properties"], path)
            elif (
                _is_row_list(prop)
                and isinstance(prop["items"].get("properties"), dict)
                and prop["items"]["properties"]
            ):
                containers.append(path)
                walk(prop["items"]["properties"], f"{path}.items")
            else:
                leaves.append(path)

    walk(schema["properties"], where)
    return leaves, containers


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(wt_schemas, min_size=1, max_size=3), st.booleans())
def test_wtracker_drops_nothing(schemas: list[dict[str, Any]], settings_file: bool) -> None:
    """Every property (nested objects, keyed-list columns, anyOf, $ref, junk) has its line."""
    leaves: list[str] = []
    containers: list[str] = []
    if settings_file:
        presets = {
            f"p{i}": {"name": f"Preset {i}", "value": s, "html": "<div/>"}
            for i, s in enumerate(schemas)
        }
        data: dict[str, Any] = {"schemaPresets": presets, "schemaPreset": "p0", "prompt": "x"}
        for key, preset in presets.items():
            found = _wt_paths(preset["value"], f"schemaPresets.{key}.value")
            leaves += [*found[0], f"schemaPresets.{key}.html"]
            containers += found[1]
        leaves += ["schemaPreset", "prompt"]
    else:
        data = schemas[0]
        leaves, containers = _wt_paths(data, "")
    _assert_nothing_dropped(wtracker_from_data(data, "wtracker.json"), leaves, containers)
