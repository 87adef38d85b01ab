"""Trial "atk4": hostile and odd inputs to the importers and the card round trip."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from trackerkit import Library
from trackerkit.cli import main
from trackerkit.formats import import_mvu, import_wtracker
from trackerkit.formats.card import card_from_data, export_card
from trackerkit.formats.leaves import guess_range
from trackerkit.scene import Scene, load_scene

#: 100,000 characters of each shape that made a range pattern try every start in a run of digits.
_HOSTILE = {
    "digits then a hyphen": "1" * 100_000 + "-",
    "digits then a tilde": "1" * 100_000 + "~",
    "digits then a percent": "1" * 100_000 + "%",
    "digits then to": "1" * 100_000 + " to",
    "bracket then digits": "[" + "1" * 100_000,
    "bracket, a bound and digits": "[1," + "1" * 100_000,
    "a decimal's long fraction": "1." + "1" * 100_000 + "~",
    "full-width digits": "１" * 100_000 + "-",
    "Arabic-Indic digits": "٣" * 100_000 + " ..",
    "ASCII and other digits mixed": "1١" * 50_000 + "-",
}


class TestRangeProseIsLinear:
    """Finding 2: a long run of digits in a meaning is read in linear time, never quadratic."""

    @pytest.mark.parametrize("text", _HOSTILE.values(), ids=_HOSTILE.keys())
    def test_a_long_run_of_digits_is_read_at_once(self, text: str) -> None:
        """100,000 digits take milliseconds (the old patterns took minutes); 2 s is generous."""
        began = time.perf_counter()
        guess_range(text)
        assert time.perf_counter() - began < 2

    def test_a_bound_is_never_read_from_inside_a_number(self) -> None:
        """A bound starts where its number starts: `x12~30` is 12 to 30, and a range written
        after a run of other digits (`١٢ to 5`) is not read from that run's tail."""
        assert guess_range("x12~30") == (12, 30, "12~30")
        assert guess_range("ab-3~7") == (-3, 7, "-3~7")
        assert guess_range("a١٢ to 5") is None

    def test_the_mvu_file_of_the_trial_imports_at_once(self) -> None:
        """The trial's 30 KB MVU file (23.6 s before) imports in well under 2 s."""
        data = {"Li": {"affection": [5, "1" * 30_000 + " is the score"]}}
        began = time.perf_counter()
        imported = import_mvu("mvu_slow.json", orjson.dumps(data).decode())
        assert time.perf_counter() - began < 2
        assert imported.trackers[0].fields[0].type == "number"


def _mvu(data: object) -> tuple[list[str], dict[str, object]]:
    """The report lines of an MVU import, and its list tracker's columns by name (with `name`)."""
    imported = import_mvu("party.json", orjson.dumps(data).decode())
    lines = [str(line) for line in imported.report.lines]
    columns = {f.name: f.type for t in imported.trackers for f in t.fields}
    return lines, columns


_MARK = "$__META_EXTENSIBLE__$"


class TestRowsNamedByANumber:
    """Finding 5: a row whose name is a number or null costs that row at most, never the list."""

    @pytest.mark.parametrize("extensible", [True, False], ids=["extensible", "locked"])
    def test_a_number_names_its_row_by_its_text(self, extensible: bool) -> None:
        """`"name": 2` names the row "2" (a guessed line says so); the `hp` column is kept."""
        rows: list[object] = [{"name": "Bob", "hp": 10}, {"name": 2, "hp": 50}]
        lines, columns = _mvu({"Party": {"members": rows + [_MARK] * extensible}})
        assert columns == {"hp": "number"}
        assert "exact: Party.members.*.hp -> Party members.hp: number; read from the rows" in lines
        assert (
            'guessed: Party.members[1].name -> Party members: row "2": its name is the number 2, '
            "read as its text"
        ) in lines
        assert any(
            line.startswith('unmapped: Party.members row "2": a starting row') for line in lines
        )

    @pytest.mark.parametrize("extensible", [True, False], ids=["extensible", "locked"])
    def test_a_null_name_leaves_out_that_row_alone(self, extensible: bool) -> None:
        """A row named null is reported and left out; the other rows and the columns are kept."""
        rows: list[object] = [{"name": "Bob", "hp": 10}, {"name": None, "hp": 50}]
        lines, columns = _mvu({"Party": {"members": rows + [_MARK] * extensible}})
        assert columns == {"hp": "number"}
        assert (
            "unmapped: Party.members[1]: a row whose name is null, not a text or a number: a row "
            "needs a name, so this one is left out"
        ) in lines
        assert any(line.startswith('unmapped: Party.members row "Bob"') for line in lines)

    @pytest.mark.parametrize(
        "items",
        [
            [{"name": "Bob", "hp": 10}, {"name": 2, "hp": 50}, {"name": None}, True, None],
            [{"hp": 10}, {"hp": 50}, "Ann"],
            [{"name": "Bob"}, "Ann", 3, ["x"]],
        ],
        ids=["names of every kind", "no name key", "objects and plain items"],
    )
    def test_no_row_is_named_by_a_python_repr(self, items: list[object]) -> None:
        """Whatever an extensible list holds, no line names a row `{'name': ...}` or `None`."""
        lines, _ = _mvu({"Party": {"members": [*items, _MARK]}})
        assert not [line for line in lines if "{'" in line or "None" in line or "['" in line]

    def test_a_pair_holding_an_object_is_said_to_be_one(self) -> None:
        """`[{...}, "Ann"]` reads as a [value, meaning] pair, and its line says so: it is a list."""
        lines, _ = _mvu({"Party": {"members": [{"name": "Bob", "hp": 10}, "Ann"]}})
        assert lines[0] == (
            "unmapped: Party.members: a [value, meaning] pair (a list of two, the second a text) "
            "whose value is an object, which no field holds"
        )


ROOT = Path(__file__).resolve().parents[2]
WHERE = "data.extensions.trackerkit"


def _scene_folder(tmp_path: Path, **scene: str) -> Path:
    """The bundled typical scene (char "Narrator", user "Vera"), changed by `scene`, with its
    trackers beside it; returns the scene file."""
    shutil.copytree(ROOT / "data" / "trackers", tmp_path / "trackers")
    (tmp_path / "scenes").mkdir()
    data = orjson.loads((ROOT / "data" / "scenes" / "typical.json").read_bytes())
    path = tmp_path / "scenes" / "typical.json"
    path.write_bytes(orjson.dumps({**data, **scene}))
    return path


def _round_trip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scene: Path, *argv: str
) -> tuple[Scene, dict[str, Any], str]:
    """The scene exported as a card (with `argv`) and imported again: the scene, card, report."""
    assert main(["export", "--to", "card", *argv, str(scene)]) == 0
    card = orjson.loads(capsys.readouterr().out)
    path = tmp_path / "card.json"
    path.write_bytes(orjson.dumps(card))
    assert main(["import", str(path), "--into", str(tmp_path / "back")]) == 0
    report = capsys.readouterr().out
    (back,) = (tmp_path / "back" / "scenes").glob("*.json")
    return load_scene(back), card, report


class TestCardGivenKeepsTheScenesChar:
    """Finding 6: a scene exported into a card of its own name comes back playing its own char."""

    def test_the_readmes_vera_card_round_trip(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """`--card examples/vera.json`: the card keeps "Vera", the scene keeps "Narrator"."""
        scene = _scene_folder(tmp_path)
        back, card, report = _round_trip(
            capsys, tmp_path, scene, "--card", str(ROOT / "examples" / "vera.json")
        )
        assert card["data"]["name"] == "Vera"
        assert card["data"]["extensions"]["trackerkit"]["scene"]["char"] == "Narrator"
        assert (back.char, back.user) == ("Narrator", "Vera")
        assert f'exact: {WHERE}.scene.char -> scene.char: "Narrator"' in report
        assert (
            "unmapped: data.name: the card's own name \"Vera\", not the scene's char: the scene "
            f'exported into this card plays "Narrator" ({WHERE}.scene.char)'
        ) in report

    def test_the_scenes_card_text_comes_back_too(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """The card keeps Vera's description, and the scene its narrator's card text (it came
        back as Vera's description)."""
        scene = _scene_folder(tmp_path)
        narrator = load_scene(scene).card
        vera = orjson.loads((ROOT / "examples" / "vera.json").read_bytes())["data"]["description"]
        assert narrator != vera
        back, card, report = _round_trip(
            capsys, tmp_path, scene, "--card", str(ROOT / "examples" / "vera.json")
        )
        assert card["data"]["description"] == vera
        assert card["data"]["extensions"]["trackerkit"]["scene"]["card"] == narrator
        assert back.card == narrator
        assert "unmapped: data.description: the card's own description" in report

    def test_a_new_cards_description_is_the_scenes_card_text_alone(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        back, card, _report = _round_trip(capsys, tmp_path, _scene_folder(tmp_path))
        assert "card" not in card["data"]["extensions"]["trackerkit"]["scene"]
        assert back.card == card["data"]["description"]

    def test_a_card_without_the_scenes_char_is_read_as_before(self) -> None:
        """A card written before the char was kept there takes its char from `data.name`."""
        card = export_card([Library(ROOT / "data" / "trackers").get("health")], name="Zoë")
        card["data"]["extensions"]["trackerkit"]["scene"] = {"id": "z", "title": "Z", "user": "U"}
        imported = card_from_data(card, "zoe.json")
        assert (imported.scene_details["char"], imported.scene_details["user"]) == ("Zoë", "U")


class TestEmptyAndSpacedIdentity:
    """Finding 7: scene -> card -> scene keeps an empty or spaced title, char and user as written."""

    @pytest.mark.parametrize(
        "identity",
        [
            {"title": "", "char": "", "user": "", "card": ""},
            {"title": " spaced ", "char": "  ", "user": "\u2028", "card": "line1\r\nline2"},
            {"title": "T", "char": "Assistant", "user": "User", "card": "c"},
        ],
        ids=["empty", "spaced", "the defaults"],
    )
    def test_the_round_trip_keeps_them(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, identity: dict[str, str]
    ) -> None:
        """Each is a valid scene value (`load_scene` reads it), and comes back as it was."""
        scene = _scene_folder(tmp_path, **identity)
        before = load_scene(scene)
        back, _, report = _round_trip(capsys, tmp_path, scene)
        assert back == before
        assert "not a text" not in report

    def test_the_report_shows_an_empty_or_spaced_value_as_written(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """An empty title is `""`; a value with outer spaces or a line break is shown escaped."""
        scene = _scene_folder(tmp_path, title="", char=" N ", user="\u2028")
        _, _, report = _round_trip(capsys, tmp_path, scene)
        assert f'exact: {WHERE}.scene.title -> scene.title: "" (empty)' in report
        assert f'exact: {WHERE}.scene.char -> scene.char: " N " (as written)' in report
        assert f'exact: {WHERE}.scene.user -> scene.user: "\\u2028" (as written)' in report

    def test_a_value_that_is_not_a_text_says_what_it_is(self) -> None:
        """A number where a title belongs is reported as the number it is."""
        card = export_card([Library(ROOT / "data" / "trackers").get("health")], name="Zoë")
        card["data"]["extensions"]["trackerkit"]["scene"] = {"id": "z", "title": 3}
        imported = card_from_data(card, "zoe.json")
        assert imported.scene == "Zoë"
        assert [str(line) for line in imported.report.of("unmapped")] == [
            f"unmapped: {WHERE}.scene.title: not a text (found 3), so not read"
        ]


class TestWTrackerEnumMerges:
    """Finding 10 (WTracker): enum values that become one choice are named on the field's line."""

    @staticmethod
    def _line(enum: list[object]) -> str:
        preset = {"type": "object", "properties": {"lvl": {"enum": enum}}}
        settings = {"schemaPresets": {"ship": {"name": "Ship", "value": preset}}}
        imported = import_wtracker("wt.json", orjson.dumps(settings).decode())
        (line,) = [str(x) for x in imported.report.lines if x.source.endswith(".lvl")]
        return line

    def test_two_values_that_became_one_choice_are_named(self) -> None:
        """`[1.0, 2, "2"]` is 2 choices, and the line says 2 and "2" both became "2"."""
        assert self._line([1.0, 2, "2"]).endswith(
            'choice of 2; guessed: non-text enum values written as text; 2 and the text "2" '
            'both became the choice "2"'
        )

    def test_values_that_stay_apart_say_nothing_more(self) -> None:
        assert self._line([1, 2, 3]).endswith(
            "choice of 3; guessed: non-text enum values written as text"
        )

    def test_an_object_or_list_value_is_its_json_not_a_python_repr(self) -> None:
        """Found when fixing the above: `{"a": 1}` in an enum became the choice "{'a': 1}"."""
        preset = {"type": "object", "properties": {"lvl": {"enum": [{"a": 1}, "b", [1, "é"]]}}}
        settings = {"schemaPresets": {"ship": {"name": "Ship", "value": preset}}}
        imported = import_wtracker("wt.json", orjson.dumps(settings).decode())
        (tracker,) = imported.trackers
        (field,) = [f for f in tracker.fields if f.name == "lvl"]
        assert field.choices == ['{"a":1}', "b", '[1,"é"]']
