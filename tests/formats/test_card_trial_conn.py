"""Trial "conn", finding 6: a scene and a card carry each other's identity.

A scene exported as a card gives the card its char as `data.name` and its card text as
`data.description` (the spec's character description), and its id, title, char and user under
`data.extensions.trackerkit.scene`; a card read back gives the scene its char and card text from
there, each said in the report, so scene -> card -> scene keeps id, title, char, user and card.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from trackerkit import Library
from trackerkit.cli import main
from trackerkit.design.importing import take_imported
from trackerkit.formats.card import card_from_data, export_card, new_card
from trackerkit.formats.importers import write_import
from trackerkit.scene import Scene, load_scene

ROOT = Path(__file__).resolve().parents[2]
TRACKERS = ROOT / "data" / "trackers"
SCENE = {
    "id": "eval-seg",
    "title": "Ségolène eval",
    "card": "Narrate. {{user}} plays Ségolène.",
    "user": "U",
    "char": "N",
    "prompting": {"trackers": ["health", "pack"]},
}
WHERE = "data.extensions.trackerkit"


@pytest.fixture
def scene_file(tmp_path: Path) -> Path:
    """A scene of two bundled trackers with a title, char, user and card text of its own."""
    (tmp_path / "trackers").mkdir()
    for tracker in ("health", "pack"):
        shutil.copy(TRACKERS / f"{tracker}.json", tmp_path / "trackers")
    (tmp_path / "scenes").mkdir()
    path = tmp_path / "scenes" / "eval-seg.json"
    path.write_text(json.dumps(SCENE, ensure_ascii=False), encoding="utf-8")
    return path


def _export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[dict[str, Any], str]:
    assert main(["export", "--to", "card", *argv]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


class TestSceneToCard:
    def test_the_card_is_the_scenes_character(
        self, scene_file: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The char is the card's name, the card text its description; the system prompt stays
        empty; the id, title and user go where a re-import reads them; stderr says where."""
        card, err = _export(capsys, str(scene_file))
        data = card["data"]
        assert data["name"] == "N"
        assert data["description"] == "Narrate. {{user}} plays Ségolène."
        assert data["system_prompt"] == ""
        assert data["extensions"]["trackerkit"]["scene"] == {
            "id": "eval-seg",
            "title": "Ségolène eval",
            "char": "N",
            "user": "U",
        }
        assert err == (
            f'trackerkit: 2 trackers under {WHERE}; name "N" (the scene\'s char), description '
            "the scene's card text (33 characters); the scene's id, title, char and user under "
            f"{WHERE}.scene\n"
        )

    def test_bare_trackers_say_what_the_card_leaves_empty(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """No scene: today's card (named Trackers, no description), and the note says so."""
        card, err = _export(capsys, str(TRACKERS / "health.json"))
        assert card == export_card([Library(TRACKERS).get("health")])
        assert card["data"]["name"] == "Trackers"
        assert err == (
            f"trackerkit: 1 tracker under {WHERE}; no scene exported, so the card is named "
            '"Trackers", its description is empty and it has no scene title or user (export one '
            "scene file to fill them)\n"
        )

    def test_a_card_given_keeps_its_own_name_and_says_what_is_not_written(
        self, scene_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        given = new_card("Vera")
        given["data"]["description"] = "A sellsword."
        path = tmp_path / "vera.json"
        path.write_text(json.dumps(given))
        card, err = _export(capsys, "--card", str(path), str(scene_file))
        assert (card["data"]["name"], card["data"]["description"]) == ("Vera", "A sellsword.")
        assert card["data"]["extensions"]["trackerkit"]["scene"]["title"] == "Ségolène eval"
        assert err == (
            f'trackerkit: 2 trackers under {WHERE}; the card keeps its own name "Vera" and '
            "description (the scene's card text is not written); the scene's id, title, char and "
            f"user under {WHERE}.scene\n"
        )


class TestCardToScene:
    def test_any_card_gives_the_scene_its_char_and_card_text(self) -> None:
        """The trial's card (name Zoë): char and card text come from it, each with a line."""
        card = export_card([Library(TRACKERS).get("health")], name="Zoë")
        card["data"]["description"] = "Zoë runs the café."
        imported = card_from_data(card, "zoe.json")
        assert imported.scene == "Zoë"
        assert dict(imported.scene_details) == {"char": "Zoë", "card": "Zoë runs the café."}
        assert [str(line) for line in imported.report.lines[:2]] == [
            'exact: data.name -> scene.char: "Zoë"',
            "exact: data.description -> scene.card: 18 characters",
        ]

    def test_other_prompt_texts_are_reported_not_kept(self) -> None:
        card = export_card([Library(TRACKERS).get("health")], name="Zoë")
        card["data"]["personality"] = "Warm."
        card["data"]["first_mes"] = "Bonjour !"
        lines = [str(x) for x in card_from_data(card, "zoe.json").report.of("unmapped")]
        assert lines == [
            f"unmapped: data.{key}: {size}, not kept: a scene's card text is the card's "
            "description alone (copy this into it to keep it)"
            for key, size in (("personality", "5 characters"), ("first_mes", "9 characters"))
        ]

    def test_an_unreadable_scene_id_is_reported_and_the_title_gives_one(self) -> None:
        card = export_card([Library(TRACKERS).get("health")], name="Zoë")
        card["data"]["extensions"]["trackerkit"]["scene"] = {"id": "../x", "title": "Café"}
        imported = card_from_data(card, "zoe.json")
        assert imported.scene == "Café"
        assert "id" not in imported.scene_details
        [bad] = imported.report.of("unmapped")
        assert bad.source == f"{WHERE}.scene.id"
        assert bad.detail.startswith("not read: ")


class TestRoundTrip:
    def test_scene_to_card_to_scene_keeps_its_identity(
        self, scene_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The trial's round trip, through the command line both ways."""
        card, _ = _export(capsys, str(scene_file))
        path = tmp_path / "card.json"
        path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
        back = tmp_path / "back"
        assert main(["import", str(path), "--into", str(back)]) == 0
        out = capsys.readouterr().out
        assert 'exact: data.name -> scene.char: "N"' in out
        assert "exact: data.description -> scene.card: 33 characters" in out
        assert load_scene(back / "scenes" / "eval-seg.json") == Scene.model_validate(SCENE)

    def test_a_taken_scene_id_gets_the_next_free_one(
        self, scene_file: Path, tmp_path: Path
    ) -> None:
        card = export_card(
            list(Library(scene_file.parent.parent / "trackers").trackers()),
            scene=load_scene(scene_file),
        )
        for _ in range(2):
            _, saved = write_import(card_from_data(card, "c.json"), tmp_path / "t", tmp_path / "s")
        assert saved is not None
        assert saved.path.name == "eval-seg-2.json"
        assert (saved.scene.char, saved.scene.user) == ("N", "U")

    def test_the_designers_import_keeps_it_too(self, scene_file: Path, tmp_path: Path) -> None:
        card = export_card(
            list(Library(scene_file.parent.parent / "trackers").trackers()),
            scene=load_scene(scene_file),
        )
        taken = take_imported(
            card_from_data(card, "c.json"), Library(tmp_path / "t"), scenes=tmp_path / "s"
        )
        assert taken.scene is not None
        scene = load_scene(taken.scene)
        assert (scene.id, scene.title, scene.char, scene.user, scene.card) == (
            "eval-seg",
            "Ségolène eval",
            "N",
            "U",
            SCENE["card"],
        )
