"""The designer's "Import…" (issue 16, item 6): read a file, show its report, take trackers in."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest
from conftest import DATA_TRACKERS

import trackerkit.design.importing as importing
from trackerkit import Draft, Library, Tracker, export_card
from trackerkit.design import (
    ALL_IMPORTED,
    format_options,
    free_id,
    open_imported,
    read_path,
    read_upload,
    report_html,
    take_imported,
)
from trackerkit.formats import FORMATS
from trackerkit.formats.card import card_into_png
from trackerkit.formats.png import png_chunk

#: An MVU `[InitVar]` entry as cards write it: Chinese keys, [value, meaning] pairs, a range in prose.
MVU = """\
世界:
  当前位置: ["雾港镇码头", "主角现在所在的地点"]
  是否夜晚: [false, "现在是否是夜晚"]
李:
  好感度: [20, "李对主角的好感，范围[-30,100]"]
  心情: ["平静", "李此刻的心情"]
"""

#: A SillyTavern-Tracker preset: a STRING, an ARRAY (joined, guessed) and a FOR_EACH_OBJECT.
ST = {
    "trackerDef": {
        "field-0": {"name": "Time", "type": "STRING", "presence": "DYNAMIC", "prompt": "Current time",
                    "defaultValue": "", "exampleValues": ["09:15", "18:45"], "nestedFields": {}},
        "field-1": {"name": "CharactersPresent", "type": "ARRAY", "presence": "DYNAMIC", "prompt": "Who is here",
                    "defaultValue": "", "exampleValues": [], "nestedFields": {}},
        "field-2": {"name": "Characters", "type": "FOR_EACH_OBJECT", "presence": "DYNAMIC", "prompt": "",
                    "defaultValue": "", "exampleValues": [], "nestedFields": {
                        "field-3": {"name": "StateOfDress", "type": "STRING", "presence": "DYNAMIC",
                                    "prompt": "How dressed", "defaultValue": "", "exampleValues": [],
                                    "nestedFields": {}}}},
    }
}  # fmt: skip


@pytest.fixture
def mvu_file(tmp_path: Path) -> Path:
    path = tmp_path / "变量.yaml"
    path.write_text(MVU, encoding="utf-8")
    return path


class TestReading:
    def test_a_path_is_read_in_the_format_its_content_shows(self, mvu_file: Path) -> None:
        """The view names the file, the detected format and the counts; no problem."""
        view = read_path(mvu_file)
        assert (view.detected, view.format, view.problem) == ("mvu", "mvu", None)
        assert [t.name for t in view.trackers] == ["世界", "李"]
        assert view.summary() == (
            f"**{mvu_file}** · read as MagVarUpdate (mvu), the format its content shows · "
            '2 trackers used together as "变量" · 3 exact, 1 guessed, 0 unmapped'
        )
        assert view.choices() == {
            "All 2 trackers": ALL_IMPORTED,
            "世界 (2 fields)": "shi-jie",
            "李 (2 fields)": "li",
        }

    def test_an_upload_is_read_by_its_name(self) -> None:
        """An upload's bytes are read as the file; messages name the upload, not a temporary file."""
        view = read_upload("preset.json", json.dumps(ST).encode())
        assert view.format == "sillytavern-tracker"
        assert [t.name for t in view.trackers] == ["preset", "Characters"]
        assert view.choices()["Characters (1 field)"] == "characters"
        assert view.summary().startswith(
            "**preset.json** · read as SillyTavern-Tracker (sillytavern-tracker), the format"
        )

    def test_a_png_card_is_read_from_its_bytes(self) -> None:
        """A character card PNG carrying trackers imports from the upload, named by the upload."""
        health = Library(DATA_TRACKERS).get("health")
        image = b"\x89PNG\r\n\x1a\n" + png_chunk(
            b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
        )
        image += png_chunk(b"IDAT", zlib.compress(b"\x00\x80")) + png_chunk(b"IEND", b"")
        card = card_into_png(image, export_card([health], name="Vera"), "vera.png")
        view = read_upload("vera.png", card)
        assert (view.format, view.problem) == ("card", None)
        assert [t.model_copy(update={"id": "health"}) for t in view.trackers] == [health]
        assert view.summary().startswith("**vera.png** · read as Character Card V2 with trackerkit")

    def test_the_format_chosen_overrides_the_detected_one(self) -> None:
        """Read as another format, the summary says both: what was chosen and what the content shows."""
        view = read_upload("preset.json", json.dumps(ST).encode(), "mvu")
        assert (view.detected, view.format) == ("sillytavern-tracker", "mvu")
        assert (
            "read as MagVarUpdate (mvu), as chosen (its content shows SillyTavern-Tracker"
            in view.summary()
        )

    def test_the_read_as_choices_start_with_the_detected_format(self) -> None:
        options = format_options()
        assert next(iter(options.items())) == ("the format its content shows", "")
        assert list(options.values())[1:] == list(FORMATS)

    @pytest.mark.parametrize(
        ("name", "contents", "said"),
        [
            (
                "broken.json",
                b'{"trackerDef": {',
                "Could not read the file: broken.json: is not JSON, YAML or JSON5",
            ),
            (
                "latin.json",
                '{"a": "caf\xe9"}'.encode("latin-1"),
                "Could not read the file: latin.json: is not UTF-8 text (byte 10 is not UTF-8)",
            ),
            (
                "plain.json",
                b'{"hello": "world"}',
                "plain.json: trackerkit cannot tell its format by its content; it reads MagVarUpdate (mvu)",
            ),
            ("card.png", b"\x89PNG\r\n\x1a\nbroken", "Could not read the file: card.png:"),
        ],
        ids=["not json", "not utf-8", "no format", "broken png"],
    )
    def test_a_bad_file_is_a_message_never_an_exception(
        self, name: str, contents: bytes, said: str
    ) -> None:
        view = read_upload(name, contents)
        assert view.imported is None
        assert view.problem is not None
        assert view.problem.startswith(said), view.problem

    def test_a_file_past_the_size_limit_is_refused_unread(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(importing, "MAX_BYTES", 10)
        view = read_upload("big.json", b"{" + b" " * 20 + b"}")
        assert (
            view.problem
            == "Could not read the file: big.json: is 22 bytes; an import reads at most 10"
        )

    def test_a_path_that_is_missing_empty_or_a_folder_is_a_message(self, tmp_path: Path) -> None:
        assert (
            read_path(tmp_path / "nope.json").problem
            == f"Could not read the file: {tmp_path / 'nope.json'}: is not there"
        )
        assert read_path("  ").problem == "Give a file's path to import it."
        assert (
            read_path(tmp_path).problem
            == f"Could not read the file: {tmp_path}: is not a regular file"
        )

    def test_an_importer_that_fails_is_a_message(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Even a fault inside an importer reaches the page as words, named as the app's fault."""

        def broken(data: object, file: str) -> object:
            raise KeyError("field-0")

        monkeypatch.setitem(importing.IMPORTERS, "sillytavern-tracker", broken)
        view = read_upload("preset.json", json.dumps(ST).encode())
        assert view.problem == (
            "Could not read it as SillyTavern-Tracker (sillytavern-tracker): KeyError: 'field-0' "
            "(a fault of the app, not of what you typed)"
        )

    def test_a_file_that_makes_no_tracker_keeps_its_report(self) -> None:
        """An MVU entry of options and empty objects still shows why nothing came of it, line by line."""
        view = read_upload(
            "empty.yaml", "strictSet: true\n世界:\n  $meta: {extensible: true}\n".encode()
        )
        assert view.trackers == ()
        assert view.problem is not None
        assert "no tracker could be made from it" in view.problem
        assert view.imported is not None
        assert len(view.imported.report.of("unmapped")) == 3


class TestReportTable:
    def test_one_row_per_key_original_beside_new_name(self, mvu_file: Path) -> None:
        """Exact, guessed (with the text it was guessed from) and unmapped rows, in the source's order."""
        table = report_html(read_path(mvu_file).imported.report)  # type: ignore[union-attr]
        assert table.count("<tr class=") == 4
        assert (
            '<tr class="report-guessed"><td class="kind">≈ guessed</td><td><code>李.好感度</code></td>'
            "<td><code>李.hao_gan_du</code></td><td>number; min -30, max 100 guessed from &quot;[-30,100]&quot;"
        ) in table
        assert (
            '<td class="kind">✓ exact</td><td><code>世界.当前位置</code></td><td><code>世界.dang_qian_wei_zhi</code>'
            in table
        )

    def test_unmapped_rows_give_the_reason_and_text_is_escaped(self) -> None:
        view = read_upload(
            "p.json",
            json.dumps(
                {
                    "trackerDef": {
                        "a": {"name": "A", "type": "STRING"},
                        "b": {"name": "<b>x</b>", "type": "NOPE"},
                    }
                }
            ).encode(),
        )
        table = report_html(view.imported.report)  # type: ignore[union-attr]
        assert '<tr class="report-unmapped"><td class="kind">✗ unmapped</td>' in table
        assert "<b>" not in table.split("</style>")[1]
        assert "&lt;b&gt;" in table


class TestTaking:
    def test_all_trackers_and_their_scene(
        self, library: Library, mvu_file: Path, tmp_path: Path
    ) -> None:
        """Every tracker is saved as a new piece equal to the import; a scene links them."""
        view = read_path(mvu_file)
        taken = take_imported(view.imported, library, ALL_IMPORTED, tmp_path / "scenes")  # type: ignore[arg-type]
        assert taken.ok
        assert [t.id for t in taken.saved] == ["shi-jie", "li"]
        for imported, stored in zip(view.trackers, taken.saved, strict=True):
            assert library.get(stored.id) == stored == imported
        assert taken.scene == tmp_path / "scenes" / "bian-liang.json"
        scene = json.loads(taken.scene.read_text(encoding="utf-8"))
        assert (scene["title"], scene["prompting"]["trackers"]) == ("变量", ["shi-jie", "li"])
        assert taken.message() == (
            "Took 2 into the library.\n\n"
            '- saved "世界" as `shi-jie.json`\n'
            '- saved "李" as `li.json`\n'
            "- a scene linking them: `bian-liang.json`"
        )

    def test_a_taken_id_gets_a_suffix(self, library: Library, mvu_file: Path) -> None:
        """Taking the same tracker twice writes `li-2`, never over `li`."""
        view = read_path(mvu_file)
        first = take_imported(view.imported, library, "li")  # type: ignore[arg-type]
        second = take_imported(view.imported, library, "li", allow_duplicates=True)  # type: ignore[arg-type]
        assert [t.id for t in first.saved + second.saved] == ["li", "li-2"]
        assert second.renamed == {"li": "li-2"}
        assert "- `li` was taken, so it is `li-2`" in second.message()
        assert first.scene is None
        assert library.get("li").revision == 0

    def test_a_second_take_names_the_trackers_of_the_same_name(
        self, library: Library, mvu_file: Path
    ) -> None:
        """Taken twice (the second time taken anyway), each tracker's line says which trackers
        already bear its name (a scene linking two of one name leaves one out); the first take
        says nothing of the kind."""
        view = read_path(mvu_file)
        first = take_imported(view.imported, library)  # type: ignore[arg-type]
        assert first.namesakes == {}
        assert "of this name" not in first.message()
        second = take_imported(view.imported, library, allow_duplicates=True)  # type: ignore[arg-type]
        assert [t.id for t in second.saved] == ["shi-jie-2", "li-2"]
        assert {i: [t.id for t in same] for i, same in second.namesakes.items()} == {
            "shi-jie-2": ["shi-jie"],
            "li-2": ["li"],
        }
        said = second.message()
        assert (
            '- saved "世界" as `shi-jie-2.json`; the library already holds a tracker of this '
            'name: "世界" (shi-jie)\n'
        ) in said
        assert (
            '- saved "李" as `li-2.json`; the library already holds a tracker of this name: "李" (li)\n'
            in said
        )
        assert said.endswith(
            "- `shi-jie`, `shi-jie-2` share a name: a scene that links two trackers of one name "
            "leaves one of them out of every turn: rename one before linking both\n"
            "- `li`, `li-2` share a name: a scene that links two trackers of one name leaves one "
            "of them out of every turn: rename one before linking both"
        )

    def test_the_scene_written_is_said_to_link_one_or_both_namesakes(self) -> None:
        """The namesake line names the trackers and says whether the scene written links both (a
        trial: a general sentence read as if the new scene, linking only li-2, linked both)."""
        li, li_2, other = (Draft.blank(i, "Li").tracker() for i in ("li", "li-2", "shi-jian"))
        one = importing.Taken(
            (li_2, other),
            scene=Path("lorebook.json"),
            namesakes={"li-2": (li,)},
            scene_links=("li-2", "shi-jian"),
        )
        assert one.message().endswith(
            "- `li`, `li-2` share a name: `lorebook.json` links one of them; a scene that links "
            "two trackers of one name leaves one of them out of every turn: rename one before "
            "linking both"
        )
        both = importing.Taken(
            (li, li_2),
            scene=Path("pair.json"),
            namesakes={"li": (li_2,), "li-2": (li,)},
            scene_links=("li", "li-2"),
        )
        said = both.message()
        assert said.endswith(
            "- the scene written, `pair.json`, links `li`, `li-2`, which share a name: every "
            "turn leaves one of them out: rename one"
        )
        assert said.count("share a name") == 1

    def test_an_id_saved_meanwhile_is_skipped_not_overwritten(
        self, library: Library, mvu_file: Path
    ) -> None:
        """A file written under the id between the look and the save is kept; the next suffix is used."""
        view = read_path(mvu_file)
        theirs = library.save(Draft.blank("li", "Theirs").tracker(), base_revision=-1)
        real_ids = library.ids
        looks = iter([[i for i in real_ids() if i != "li"]])
        library.ids = lambda: next(looks, None) or real_ids()  # type: ignore[method-assign]
        taken = take_imported(view.imported, library, "li")  # type: ignore[arg-type]
        assert [t.id for t in taken.saved] == ["li-2"]
        assert library.get("li") == theirs

    def test_one_unknown_tracker_is_refused(self, library: Library, mvu_file: Path) -> None:
        taken = take_imported(read_path(mvu_file).imported, library, "nope")  # type: ignore[arg-type]
        assert not taken.ok
        assert taken.message() == "Nothing was taken.\n\n- the import holds no tracker 'nope'"


class TestOpening:
    def test_one_tracker_opens_as_a_new_draft_with_a_free_id(self, mvu_file: Path) -> None:
        view = read_path(mvu_file)
        draft, new_id = open_imported(view.imported, "li", ["li"])  # type: ignore[arg-type]
        assert new_id == draft.id == "li-2"
        assert isinstance(draft.tracker(), Tracker)
        assert draft.tracker() == view.trackers[1].model_copy(update={"id": "li-2"})
        assert [f.name for f in draft.fields] == ["hao_gan_du", "xin_qing"]

    def test_all_cannot_be_opened(self, mvu_file: Path) -> None:
        with pytest.raises(Exception, match="choose one tracker to open"):
            open_imported(read_path(mvu_file).imported, ALL_IMPORTED, [])  # type: ignore[arg-type]


def test_free_id() -> None:
    assert free_id("li", []) == "li"
    assert free_id("li", ["li", "li-2"]) == "li-3"
