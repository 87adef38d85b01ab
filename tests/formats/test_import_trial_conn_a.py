"""Trial "conn" finding 1: a key a starting row holds that its list's definition lacks has a line."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st
from imported_fields import field_of

from trackerkit.formats import Imported, import_mvu
from trackerkit.formats.sillytavern_tracker import sillytavern_tracker_from_data

NPCS = """\
NPC:
  $meta:
    extensible: true
    template:
      mood: ["calm", "her mood"]
  Bob:
    mood: ["tense", "his mood"]
    secret: ["smuggler", "what he hides"]
"""


def _lines(imported: Imported) -> list[str]:
    return [str(line) for line in imported.report.lines]


def _st(default: object, nested: dict[str, object] | None = None) -> Imported:
    """A SillyTavern-Tracker FOR_EACH_OBJECT `Characters` with a `Hair` field and `default`."""
    fields: dict[str, object] = nested or {
        "f1": {"name": "Hair", "type": "STRING", "defaultValue": "", "nestedFields": {}},
    }
    definition = {
        "f0": {
            "name": "Characters",
            "type": "FOR_EACH_OBJECT",
            "presence": "DYNAMIC",
            "prompt": "each",
            "defaultValue": default,
            "nestedFields": fields,
        }
    }
    return sillytavern_tracker_from_data({"trackerDef": definition}, "st.json")


class TestMvuTemplateRowKeys:
    """A key a starting row holds that `$meta.template` lacks becomes a column, as without one."""

    def test_the_key_becomes_a_guessed_column(self) -> None:
        """`secret` is a column of NPC, reported as read from the rows and not in the template."""
        imported = import_mvu("npcs.yaml", NPCS)
        assert [f.name for f in imported.trackers[0].fields] == ["mood", "secret"]
        assert _lines(imported)[1:] == [
            "exact: NPC.$meta.template.mood -> NPC.mood: text; from the template; start and "
            "meaning from a [value, meaning] pair",
            "guessed: NPC.*.secret -> NPC.secret: text; read from the rows, not in the template: "
            'row "Bob" holds it',
            'unmapped: NPC row "Bob": a starting row (mood="tense", secret="smuggler"), not kept: '
            "a list starts with no rows; the model or a person's edit adds it",
        ]
        assert field_of(imported, "NPC", "secret") == {
            "name": "secret",
            "description": "what he hides",
            "type": "text",
        }

    def test_a_key_no_column_holds_is_reported_with_its_rows(self) -> None:
        """A row key holding an object is unmapped, the line naming the key path and the rows."""
        text = NPCS + "    gear: {sword: 1}\n  Ann:\n    gear: {axe: 2}\n"
        lines = _lines(import_mvu("npcs.yaml", text))
        assert (
            'unmapped: NPC.*.gear: an object inside a row (rows "Bob", "Ann"); a row holds plain '
            "fields only" in lines
        )

    def test_rows_agreeing_on_an_extra_key_start_it(self) -> None:
        """Two rows holding the same extra value give the extra column its start (guessed)."""
        text = NPCS + '  Ann:\n    secret: ["smuggler", "what she hides"]\n'
        imported = import_mvu("npcs.yaml", text)
        assert field_of(imported, "NPC", "secret")["default"] == "smuggler"
        assert (
            "guessed: NPC.*.secret -> NPC.secret: text; read from the rows, not in the template: "
            'rows "Bob", "Ann" hold it' in _lines(imported)
        )

    def test_plain_entries_beside_a_template_get_their_column(self) -> None:
        """An entry that is a plain value, beside a template, is read as without one."""
        text = "NPC:\n  $meta: {extensible: true, template: {mood: calm}}\n  Bob: tense\n"
        imported = import_mvu("npcs.yaml", text)
        assert [f.name for f in imported.trackers[0].fields] == ["mood", "value"]
        assert 'unmapped: NPC row "Bob": a starting row (value="tense"), not kept' in "\n".join(
            _lines(imported)
        )

    def test_the_larger_repro(self) -> None:
        """`秘密`, held by one of two NPCs and absent from the template, is a column."""
        text = """\
NPC:
  $meta:
    extensible: true
    template:
      好感: [0, "[-100,100]"]
      位置: ["未知", "where"]
  艾琳:
    好感: [20, "[-100,100] 对主角的好感"]
    位置: ["酒馆", "where"]
  Bob:
    好感: [-5, "[-100,100]"]
    位置: ["港口", "where"]
    秘密: ["smuggler", "hidden"]
"""
        imported = import_mvu("npcs.yaml", text)
        assert [f.name for f in imported.trackers[0].fields] == ["hao_gan", "wei_zhi", "mi_mi"]
        assert sum("秘密" in line for line in _lines(imported)) == 1


ROW_KEYS = st.sampled_from(["mood", "secret", "好感", "gear", "a b"])
ROW_VALUE = (
    st.text(max_size=5)
    | st.integers(-5, 5)
    | st.booleans()
    | st.dictionaries(st.just("x"), st.integers(0, 3), min_size=1)
)


@given(
    template=st.dictionaries(ROW_KEYS, st.text(max_size=3), max_size=3),
    rows=st.dictionaries(
        st.sampled_from(["Bob", "Ann", "Zoë"]),
        st.dictionaries(ROW_KEYS, ROW_VALUE, max_size=4),
        min_size=1,
    ),
)
def test_law_every_row_key_has_a_line(
    template: dict[str, object], rows: dict[str, dict[str, object]]
) -> None:
    """Each key a starting row holds has a line: its template column's, or its own."""
    data = {"NPC": {"$meta": {"extensible": True, "template": template}, **rows}}
    imported = import_mvu("npcs.json", orjson.dumps(data).decode())
    sources = {line.source for line in imported.report.lines}
    for row in rows.values():
        for key in row:
            assert f"NPC.$meta.template.{key}" in sources or f"NPC.*.{key}" in sources, key


class TestStRowKeys:
    """SillyTavern-Tracker FOR_EACH_OBJECT starting rows follow the same rule."""

    def test_a_key_no_nested_field_has_becomes_a_column(self) -> None:
        """`Scar` is a text column, reported as guessed: none of the nested fields."""
        imported = _st({"Zoë": {"Hair": "red", "Scar": "left cheek"}})
        assert [f.name for f in imported.trackers[0].fields] == ["hair", "scar"]
        assert _lines(imported)[2:] == [
            "guessed: Characters.defaultValue.*.Scar -> Characters.scar: text, guessed: none of "
            'the nested fields: row "Zoë" holds it',
            'unmapped: Characters.defaultValue row "Zoë": a starting row (hair="red", '
            'scar="left cheek"), not kept: a list starts with no rows; the model or a person\'s '
            "edit adds it",
        ]

    def test_a_nested_object_in_a_row_fills_its_dotted_columns(self) -> None:
        """A row's `Mood: {Name}` is the flattened column `Mood.Name`, not an extra column."""
        nested = {
            "f1": {"name": "Hair", "type": "STRING", "nestedFields": {}},
            "f2": {
                "name": "Mood",
                "type": "OBJECT",
                "nestedFields": {"f3": {"name": "Name", "type": "STRING", "nestedFields": {}}},
            },
        }
        imported = _st({"Zoë": {"Hair": "red", "Mood": {"Name": "calm"}}}, nested)
        assert [f.name for f in imported.trackers[0].fields] == ["hair", "mood_name"]
        assert 'a starting row (hair="red", mood_name="calm")' in _lines(imported)[-1]

    def test_a_key_of_an_unmapped_nested_field_is_no_new_column(self) -> None:
        """A row key naming a nested field that has its own unmapped line is not a column."""
        nested = {
            "f1": {"name": "Hair", "type": "STRING", "nestedFields": {}},
            "f2": {"name": "Secrets", "type": "FOR_EACH_OBJECT", "nestedFields": {}},
        }
        imported = _st({"Zoë": {"Hair": "red", "Secrets": {"a": "b"}}}, nested)
        assert [f.name for f in imported.trackers[0].fields] == ["hair"]

    def test_a_row_that_is_no_object_is_reported(self) -> None:
        """A row whose value is a text, not an object of fields, says its value is left behind."""
        imported = _st({"Zoë": "red hair"})
        assert (
            'unmapped: Characters.defaultValue row "Zoë": its value "red hair" is not an object '
            "of the nested fields, so no column holds it" in _lines(imported)
        )
