"""`trackerkit import FILE [--from FORMAT] [--into DIR] [--dry-run]`: exact output, one-line errors."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cli_run import run_cli as _run
from conftest import DATA_TRACKERS

from trackerkit.formats.card import export_card
from trackerkit.library import Library
from trackerkit.scene import load_scene
from trackerkit.workspace import BUNDLED, user_workspace

LI = {
    "Li": {
        "affection": [0, "[-30,100]: Li's affection for the user"],
        "place": ["church", "where Li is; changes when she moves"],
    }
}
REPORT = (
    "{file}: MagVarUpdate, 1 tracker (1 exact, 1 guessed, 0 unmapped)\n"
    '  guessed: Li.affection -> Li.affection: number; min -30, max 100 guessed from "[-30,100]"; '
    "start and meaning from a [value, meaning] pair\n"
    "  exact: Li.place -> Li.place: text; start and meaning from a [value, meaning] pair\n"
)


@pytest.fixture
def card(tmp_path: Path) -> Path:
    """An MVU [InitVar] content file holding one character."""
    path = tmp_path / "li.json"
    path.write_bytes(orjson.dumps(LI))
    return path


class TestImport:
    """Writing pieces through the library."""

    def test_writes_new_pieces(
        self, capsys: pytest.CaptureFixture[str], card: Path, tmp_path: Path
    ) -> None:
        """The report, then each piece written and the scene links; the piece decodes."""
        data = tmp_path / "data"
        assert _run(capsys, "import", str(card), "--into", str(data)) == (
            0,
            REPORT.format(file=card)
            + f"wrote {data / 'trackers' / 'li.json'} (Li)\n"
            + 'scene links: ["li"]\n'
            + f"wrote {data / 'scenes' / 'li.json'} (scene li)\n",
            "",
        )
        tracker = Library(data / "trackers").get("li")
        assert (tracker.name, tracker.revision, [f.name for f in tracker.fields]) == (
            "Li",
            0,
            ["affection", "place"],
        )

    def test_taken_id_gets_the_next(
        self, capsys: pytest.CaptureFixture[str], card: Path, tmp_path: Path
    ) -> None:
        """A second import allowed to duplicate never overwrites the first: the new piece is li-2."""
        data = tmp_path / "data"
        _run(capsys, "import", str(card), "--into", str(data))
        first = (data / "trackers" / "li.json").read_bytes()
        code, out, _ = _run(
            capsys, "import", str(card), "--into", str(data), "--from", "mvu", "--allow-duplicates"
        )
        assert (code, out.splitlines()[-3:]) == (
            0,
            [
                f"wrote {data / 'trackers' / 'li-2.json'} (Li)",
                'scene links: ["li-2"]',
                f"wrote {data / 'scenes' / 'li-2.json'} (scene li)",
            ],
        )
        assert (data / "trackers" / "li.json").read_bytes() == first
        assert load_scene(data / "scenes" / "li.json").trackers == ["li"]
        assert load_scene(data / "scenes" / "li-2.json").trackers == ["li-2"]

    def test_dry_run_writes_nothing(
        self, capsys: pytest.CaptureFixture[str], card: Path, tmp_path: Path
    ) -> None:
        """--dry-run prints what would be written and creates no file or folder."""
        data = tmp_path / "data"
        assert _run(capsys, "import", str(card), "--into", str(data), "--dry-run") == (
            0,
            REPORT.format(file=card)
            + f"would write {data / 'trackers' / 'li.json'} (Li)\n"
            + 'scene links: ["li"]\n'
            + f"would write {data / 'scenes' / 'li.json'} (scene li)\n"
            + "dry run: nothing written\n",
            "",
        )
        assert not data.exists()


class TestRefused:
    """Every bad file is one line naming it, exit 1, nothing written."""

    @pytest.mark.parametrize(
        ("content", "reason"),
        [
            (b"", "holds no JSON, YAML or JSON5 object or list, so it holds no tracker"),
            (
                b"\xff\xfe{}",
                "is UTF-16 text, not UTF-8; save it as UTF-8 (JSON files are UTF-8, RFC 8259)",
            ),
            (
                b"{a: [1,",
                "is not JSON, YAML or JSON5 (YAML: expected the node content, but found '<stream end>' at line 1, column 8); import reads MagVarUpdate "
                "(mvu), SillyTavern-Tracker (sillytavern-tracker), WTracker (wtracker), RPG "
                "Companion (rpg-companion), Marinara Engine (marinara), Character Card V2 with "
                "trackerkit trackers (card)",
            ),
            (
                b'{"hello": "world"}',
                "is not a tracker format trackerkit can tell by content; it reads MagVarUpdate "
                "(mvu), SillyTavern-Tracker (sillytavern-tracker), WTracker (wtracker), RPG "
                "Companion (rpg-companion), Marinara Engine (marinara), Character Card V2 with "
                "trackerkit trackers (card). If it is one of them, name it with --from FORMAT",
            ),
        ],
        ids=["empty", "not-utf8", "broken", "unknown"],
    )
    def test_bad_file(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, reason: str
    ) -> None:
        """The error names the file; the data folder is not made."""
        path = tmp_path / "bad.json"
        path.write_bytes(content)
        data = tmp_path / "data"
        assert _run(capsys, "import", str(path), "--into", str(data)) == (
            1,
            "",
            f"trackerkit: {path}: {reason}\n",
        )
        assert not data.exists()

    def test_wrong_format_named(self, capsys: pytest.CaptureFixture[str], card: Path) -> None:
        """--from a format the file is not: that importer's refusal, naming the file."""
        assert _run(capsys, "import", str(card), "--from", "marinara", "--dry-run") == (
            1,
            "",
            f"trackerkit: {card}: is not a Marinara Engine game state: no scene fields, "
            "playerStats, personaStats or presentCharacters\n",
        )

    def test_folder(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A folder is no file to import."""
        assert _run(capsys, "import", str(tmp_path)) == (
            1,
            "",
            f"trackerkit: {tmp_path}: is not a regular file\n",
        )


class TestCard:
    """A card trackerkit exported is imported back by content."""

    def test_card(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """The card's trackers are written under their own ids."""
        health = Library(DATA_TRACKERS).get("health")
        path = tmp_path / "vera.json"
        path.write_bytes(orjson.dumps(export_card([health], name="Vera")))
        data = tmp_path / "data"
        assert _run(capsys, "import", str(path), "--into", str(data)) == (
            0,
            f"{path}: Character Card V2 with trackerkit trackers, 1 tracker (3 exact, 0 guessed, "
            "0 unmapped)\n"
            '  exact: data.name -> scene.char: "Vera"\n'
            "  exact: data.description -> scene.card: empty\n"
            "  exact: data.extensions.trackerkit.trackers[0] -> Health: record, 3 fields\n"
            f"wrote {data / 'trackers' / 'health.json'} (Health)\n"
            'scene links: ["health"]\n'
            f"wrote {data / 'scenes' / 'vera.json'} (scene Vera)\n",
            "",
        )
        assert Library(data / "trackers").get("health") == health


class TestWhere:
    """Without --into, pieces go to the data folder (trackerkit.workspace): TRACKERKIT_DATA, else
    the per-user workspace; a dry run names the files a real run writes, never the repository's."""

    def test_environment(
        self,
        capsys: pytest.CaptureFixture[str],
        card: Path,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """TRACKERKIT_DATA is used in place and named on stderr with why: a dry run names its
        files and makes nothing; the real run writes just those."""
        data = tmp_path / "env-data"
        monkeypatch.setenv("TRACKERKIT_DATA", str(data))
        said = f"trackerkit: data folder {data} (TRACKERKIT_DATA)\n"
        code, out, err = _run(capsys, "import", str(card), "--dry-run")
        assert (code, err) == (0, said)
        assert f"would write {data / 'trackers' / 'li.json'} (Li)\n" in out
        assert f"would write {data / 'scenes' / 'li.json'} (scene li)\n" in out
        assert not data.exists()
        code, out, err = _run(capsys, "import", str(card))
        assert (code, err) == (0, said)
        assert f"wrote {data / 'trackers' / 'li.json'} (Li)\n" in out
        assert Library(data / "trackers").ids() == ["li"]

    def test_data_option_is_into(
        self,
        capsys: pytest.CaptureFixture[str],
        card: Path,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """--data DIR, as every command spells it, is --into DIR, and wins over TRACKERKIT_DATA."""
        monkeypatch.setenv("TRACKERKIT_DATA", str(tmp_path / "env-data"))
        data = tmp_path / "given"
        code, out, err = _run(capsys, "import", str(card), "--data", str(data), "--dry-run")
        assert (code, err) == (0, "")
        assert f"would write {data / 'trackers' / 'li.json'} (Li)\n" in out
        assert not data.exists()
        assert not (tmp_path / "env-data").exists()

    def test_into_a_file_is_refused(
        self, capsys: pytest.CaptureFixture[str], card: Path, tmp_path: Path
    ) -> None:
        """--into naming a file: one line saying so, nothing written."""
        blocked = tmp_path / "blocked"
        blocked.write_text("a file")
        assert _run(capsys, "import", str(card), "--into", str(blocked)) == (
            1,
            REPORT.format(file=card),
            f"trackerkit: --into: {blocked} is not a folder\n",
        )

    def test_dry_run_names_the_workspace_not_the_repository(
        self, capsys: pytest.CaptureFixture[str], card: Path
    ) -> None:
        """With no folder given and no workspace yet, a dry run names the per-user workspace a
        real run writes to (not the bundled data/ it reads), and the real run writes just there."""
        home = user_workspace()
        code, out, err = _run(capsys, "import", str(card), "--dry-run")
        why = "your workspace, made from the bundled data on the first save"
        assert (code, err) == (0, f"trackerkit: data folder {home} ({why})\n")
        assert f"would write {home / 'trackers' / 'li.json'} (Li)\n" in out
        assert str(BUNDLED) not in out
        assert not home.exists(), "a dry run makes no folder"
        code, real, err = _run(capsys, "import", str(card))
        assert (code, err) == (0, f"trackerkit: data folder {home} (your workspace)\n")
        wanted = [
            line.replace("would write", "wrote") for line in out.splitlines() if "write" in line
        ]
        assert [line for line in real.splitlines() if line.startswith("wrote")] == wanted
        assert "li" in Library(home / "trackers").ids()
        assert (BUNDLED / "trackers" / "health.json").is_file()
        assert not (BUNDLED / "trackers" / "li.json").exists()


class TestScene:
    """The scene file an import writes: linking the trackers, loadable, never overwriting."""

    def test_scene_links_every_tracker(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A preset of several trackers gives one scene linking them all, in the source's order."""
        preset = tmp_path / "preset.json"
        preset.write_bytes(orjson.dumps(ST_PRESET))
        data = tmp_path / "data"
        code, out, err = _run(capsys, "import", str(preset), "--into", str(data))
        assert (code, err) == (0, "")
        assert (
            out.splitlines()[-1]
            == f"wrote {data / 'scenes' / 'harbour-watch.json'} (scene Harbour Watch)"
        )
        scene = load_scene(data / "scenes" / "harbour-watch.json")
        assert (scene.id, scene.title, scene.trackers) == (
            "harbour-watch",
            "Harbour Watch",
            ["harbour-watch", "characters"],
        )
        assert sorted(Library(data / "trackers").ids()) == sorted(scene.trackers)

    def test_taken_scene_id(
        self, capsys: pytest.CaptureFixture[str], card: Path, tmp_path: Path
    ) -> None:
        """A scene file already there under the id is kept byte for byte; the new one is li-2."""
        data = tmp_path / "data"
        (data / "scenes").mkdir(parents=True)
        mine = b'{"id": "li", "title": "Mine"}\n'
        (data / "scenes" / "li.json").write_bytes(mine)
        code, out, _ = _run(capsys, "import", str(card), "--into", str(data))
        assert (code, out.splitlines()[-1]) == (
            0,
            f"wrote {data / 'scenes' / 'li-2.json'} (scene li)",
        )
        assert (data / "scenes" / "li.json").read_bytes() == mine
        assert load_scene(data / "scenes" / "li-2.json").trackers == ["li"]
        assert sorted(p.name for p in (data / "scenes").iterdir()) == ["li-2.json", "li.json"]

    def test_alternative_presets_make_no_scene(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """WTracker presets are alternatives (one is chosen), so no scene links them together."""
        settings = tmp_path / "wtracker.json"
        schema = {"type": "object", "properties": {"hp": {"type": "integer"}}}
        settings.write_bytes(
            orjson.dumps(
                {
                    "schemaPresets": {
                        "a": {"name": "A", "value": schema},
                        "b": {"name": "B", "value": schema},
                    }
                }
            )
        )
        data = tmp_path / "data"
        code, out, _ = _run(capsys, "import", str(settings), "--into", str(data))
        assert code == 0
        assert not [line for line in out.splitlines() if "(scene " in line]
        assert not (data / "scenes").exists()
        # Said, not left to guess (found when tried: the links printed, no scene, no word why).
        assert (
            "no scene written: the WTracker file does not say which of these trackers one scene "
            "uses; link them in a scene (the simulator's tracker checks, or prompting.trackers)"
        ) in out.splitlines()


#: A SillyTavern-Tracker preset: root text fields and a keyed list of characters.
ST_PRESET = {
    "presetName": "Harbour Watch",
    "trackerDef": {
        "field-0": {"name": "Time", "type": "STRING", "presence": "DYNAMIC", "prompt": "When."},
        "field-1": {
            "name": "Characters",
            "type": "FOR_EACH_OBJECT",
            "presence": "DYNAMIC",
            "prompt": "Who is here.",
            "nestedFields": {
                "field-2": {"name": "Outfit", "type": "STRING", "prompt": "What they wear."}
            },
        },
    },
}


@pytest.mark.parametrize(
    ("piece", "kind", "folder"),
    [
        (BUNDLED / "trackers" / "health.json", "tracker", "trackers"),
        (BUNDLED / "scenes" / "fight.json", "scene", "scenes"),
    ],
)
def test_trackerkits_own_files_are_not_imported_as_another_tools(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, piece: Path, kind: str, folder: str
) -> None:
    """Found when tried: a trackerkit tracker was read as MagVarUpdate (its `choices` look like
    a [value, meaning] pair) and would have become junk trackers. It is refused, saying what it is."""
    code, out, err = _run(capsys, "import", str(piece), "--into", str(tmp_path / "lib"))
    assert (code, out) == (1, "")
    assert err == (
        f"trackerkit: {piece}: is already a trackerkit {kind}: it needs no import; copy it into "
        f"the {folder} folder of your data folder (trackerkit check reads trackers)\n"
    )
    assert not (tmp_path / "lib").exists() or not any((tmp_path / "lib").iterdir())


def test_the_readme_example_of_a_file_of_no_format_prints_as_shown(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's `trackerkit import` of a file in no format shows the real line (found when
    tried: it quoted a message the README's own changes had moved)."""
    readme = (BUNDLED.parent / "README.md").read_text(encoding="utf-8")
    shown = readme.split("$ trackerkit import data/trace/2026-11-26.jsonl\n", 1)[1].split("\n", 1)[
        0
    ]
    monkeypatch.chdir(BUNDLED.parent)
    code, out, err = _run(capsys, "import", "data/trace/2026-11-26.jsonl")
    assert (code, out) == (1, "")
    assert err == shown + "\n"
