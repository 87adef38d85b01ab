"""Reading an import's file and telling its format by content (issue 16 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit import ImportRefusedError, detect_format, import_file
from trackerkit.formats.detect import parse_document

FIXTURES = Path(__file__).parent / "fixtures"


class TestDetect:
    """Every fixture is told by its content, whatever its name."""

    @pytest.mark.parametrize(
        ("fixture", "format"),
        [
            ("mvu_initvar.yaml", "mvu"),
            ("mvu_lorebook.json", "mvu"),
            ("st_tracker_preset.json", "sillytavern-tracker"),
            ("wtracker_settings.json", "wtracker"),
            ("rpg_companion_settings.json", "rpg-companion"),
            ("marinara_state.json", "marinara"),
        ],
        ids=["mvu", "mvu-book", "st-tracker", "wtracker", "rpg-companion", "marinara"],
    )
    def test_fixture(self, fixture: str, format: str, tmp_path: Path) -> None:
        """The name does not matter: the content is read."""
        renamed = tmp_path / "download.txt"
        renamed.write_bytes((FIXTURES / fixture).read_bytes())
        assert detect_format(renamed) == format
        assert import_file(renamed).report.format == format

    @pytest.mark.parametrize(
        ("text", "format"),
        [
            ('{"field-0": {"name": "Time", "type": "STRING"}}', "sillytavern-tracker"),
            ('{"type": "object", "properties": {}}', "wtracker"),
            (
                '{"name": "p", "value": {"type": "object", "properties": {}}, "html": ""}',
                "wtracker",
            ),
            ('{"userStats": {}, "infoBox": {}}', "rpg-companion"),
            ('{"personaStats": []}', "marinara"),
            ('{"hp": {"value": 3, "description": "hit points"}}', "mvu"),
            ('{"bag": {"$meta": {"extensible": true}}}', "mvu"),
        ],
        ids=[
            "bare-def",
            "bare-schema",
            "one-preset",
            "bare-config",
            "persona",
            "value-form",
            "meta",
        ],
    )
    def test_shapes(self, text: str, format: str) -> None:
        """Bare definitions, single presets and MVU marks are recognised."""
        assert detect_format("x.json", text) == format

    def test_unknown(self) -> None:
        """Plain JSON with no format's marks is refused, naming the file and the formats."""
        with pytest.raises(ImportRefusedError, match=r"^x\.json: is not a tracker format"):
            detect_format("x.json", '{"a": 1}')

    def test_plain_variables_name_the_flag(self) -> None:
        """Bare MVU variables with plain values only are not guessed at (any JSON object has
        that shape), but the error names the one flag that imports them."""
        with pytest.raises(ImportRefusedError) as caught:
            detect_format("x.json", '{"Li": {"hp": 5, "tags": ["a"]}}')
        assert str(caught.value).endswith(
            "It has the shape of MagVarUpdate variables with plain values only (no "
            "[value, meaning] pair or $meta to tell them by): if that is what it is, add "
            "--from mvu"
        )
        assert import_file("x.json", "mvu", '{"Li": {"hp": 5}}').trackers[0].name == "Li"

    def test_other_unknown_shapes_name_no_format(self) -> None:
        """A shape no format has (a list of objects) is not said to be MVU."""
        with pytest.raises(ImportRefusedError) as caught:
            detect_format("x.json", '[{"a": 1}]')
        assert str(caught.value).endswith("If it is one of them, name it with --from FORMAT")

    def test_unknown_format_name(self) -> None:
        """import_file refuses a format name it does not know."""
        with pytest.raises(ImportRefusedError) as caught:
            import_file("x.json", "tavern", '{"a": 1}')
        assert str(caught.value) == (
            "x.json: cannot be read as 'tavern': the formats are mvu, sillytavern-tracker, "
            "wtracker, rpg-companion, marinara, card"
        )


class TestParse:
    """JSON, then YAML, then JSON5; plain JSON data out, bounded."""

    def test_yaml_dates_and_keys_are_text(self) -> None:
        """A YAML date or number key becomes text, so an importer sees JSON data only."""
        assert parse_document("when: 2026-12-01\n1: one\n", "a.yaml") == {
            "when": "2026-12-01",
            "1": "one",
        }

    def test_json5(self) -> None:
        """JSON5 (comments, trailing commas, single quotes) is read."""
        assert parse_document("// c\n{a: ['x',],}", "a.json5") == {"a": ["x"]}

    def test_alias_bomb_is_refused(self) -> None:
        """YAML aliases that multiply past a million values are refused, not expanded."""
        lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for n in range(1, 8):
            previous = chr(ord("a") + n - 1)
            name = chr(ord("a") + n)
            lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]")
        with pytest.raises(
            ImportRefusedError, match=r"^bomb\.yaml: holds more than 1,000,000 values$"
        ):
            parse_document("\n".join(lines), "bomb.yaml")

    def test_deep_nesting_is_refused(self) -> None:
        """Nesting past 100 levels is refused."""
        with pytest.raises(ImportRefusedError, match=r"^deep\.yaml: nests deeper than 100 levels$"):
            parse_document("[" * 150 + "]" * 150, "deep.yaml")
