"""Scenes: linking, the trackerChanges switch, and what a turn loads (TR-24, TR-25)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pydantic
import pytest
from conftest import BAG, HEALTH

from trackerkit import NotFoundError, Scene, TrackerkitError, decode_tracker, load_scene
from trackerkit.scene import FolderSource, MappingSource, Prompting, load_linked, source_for


def _scene(*ids: str, **keys: Any) -> Scene:
    return Scene(id="s", title="S", prompting=Prompting(trackers=list(ids)), **keys)


class TestSwitch:
    """TR-24: trackerChanges is on unless the scene says false; only false is kept."""

    @pytest.mark.parametrize(
        ("given", "kept", "on"),
        [(False, False, False), (True, None, True), (None, None, True)],
        ids=["false-is-kept", "true-clears", "null-clears"],
    )
    def test_only_false_is_kept(self, given: bool | None, kept: bool | None, on: bool) -> None:
        """Reading true or null clears the switch; false is kept and written back."""
        scene = Scene.model_validate(
            {"id": "s", "title": "S", "prompting": {"trackers": [], "trackerChanges": given}}
        )
        assert scene.prompting.tracker_changes is kept
        assert scene.changes_on is on
        assert ("trackerChanges" in scene.to_json()["prompting"]) is (kept is False)

    @pytest.mark.parametrize(("on", "kept"), [(False, False), (True, None), (None, None)])
    def test_with_changes(self, on: bool | None, kept: bool | None) -> None:
        """with_changes keeps only False."""
        assert _scene().with_changes(on).prompting.tracker_changes is kept

    def test_absent_means_on(self) -> None:
        """A scene that says nothing draws the change visuals."""
        assert _scene().changes_on


class TestLinking:
    """TR-24: a scene links tracker ids in order, with no duplicates."""

    def test_duplicate_refused(self) -> None:
        """Linking the same id twice is refused with a sentence."""
        with pytest.raises(pydantic.ValidationError, match="links tracker 'health' twice"):
            Prompting(trackers=["health", "health"])

    def test_link_and_unlink(self) -> None:
        """link appends once, in order; unlink removes; the scene itself is not changed."""
        scene = _scene("health")
        linked = scene.link("bag").link("health")
        assert linked.trackers == ["health", "bag"]
        assert linked.unlink("health").trackers == ["bag"]
        assert scene.trackers == ["health"]

    def test_scene_file_shape(self, tmp_path: Path) -> None:
        """A scene is saved and read back as data/scenes/<id>.json with the issue's keys."""
        data = {
            "id": "inn",
            "title": "The inn",
            "card": "A quiet inn.",
            "user": "Ann",
            "char": "Vera",
            "prompting": {"trackers": ["health", "bag"], "trackerChanges": False},
            "window": 8192,
            "toolAccess": True,
        }
        path = tmp_path / "inn.json"
        path.write_bytes(orjson.dumps(data))
        scene = load_scene(path)
        assert scene.trackers == ["health", "bag"]
        assert not scene.changes_on
        assert {k: v for k, v in scene.to_json().items() if k in data} == data

    @pytest.mark.parametrize(
        ("content", "error", "match"),
        [
            (None, NotFoundError, "no scene file"),
            (b"{nope", TrackerkitError, "not valid JSON"),
            (b'{"id": "s", "title": "S", "colour": 1}', TrackerkitError, "colour"),
        ],
        ids=["missing", "bad-json", "unknown-key"],
    )
    def test_load_scene_errors(
        self, tmp_path: Path, content: bytes | None, error: type[Exception], match: str
    ) -> None:
        """A missing, unreadable or unknown-keyed scene file is refused in plain words."""
        path = tmp_path / "s.json"
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(error, match=match):
            load_scene(path)


class TestLoadLinked:
    """TR-25: each linked tracker is read through the strict decoder when a turn loads."""

    def test_left_out_with_reasons(self) -> None:
        """Gone, refused and duplicate-name trackers are left out, each with its reason; the rest keep link order."""
        broken = copy.deepcopy(BAG)
        broken["id"] = "broken"
        broken["body"]["fields"][0]["type"] = "money"
        twin = {**copy.deepcopy(BAG), "id": "twin", "name": "Health"}
        pieces = {"health": HEALTH, "bag": BAG, "broken": broken, "twin": twin}
        linked = load_linked(
            _scene("bag", "gone", "health", "broken", "twin"), MappingSource(pieces)
        )
        assert [t.id for t in linked.trackers] == ["bag", "health"]
        reasons = {lo.tracker_id: lo.reason for lo in linked.left_out}
        assert reasons["gone"] == "the piece is gone from the library"
        assert reasons["broken"].startswith("the decoder refused it: body.fields[0].type")
        assert reasons["twin"] == "its name 'Health' is already taken by 'health'"

    def test_wrong_id_is_left_out(self) -> None:
        """A piece whose own id differs from the id linked is left out."""
        linked = load_linked(_scene("other"), MappingSource({"other": HEALTH}))
        assert linked.trackers == ()
        assert linked.left_out[0].reason == "the piece says its id is 'health'"

    def test_folder_source(self, tmp_path: Path) -> None:
        """A library folder serves <id>.json; a missing file is gone and bad JSON is refused."""
        (tmp_path / "health.json").write_bytes(orjson.dumps(HEALTH))
        (tmp_path / "bad.json").write_bytes(b"{not json")
        linked = load_linked(_scene("health", "bad", "none"), source_for(tmp_path))
        assert [t.name for t in linked.trackers] == ["Health"]
        assert [lo.tracker_id for lo in linked.left_out] == ["bad", "none"]
        assert linked.left_out[0].reason.startswith("the decoder refused it")
        assert isinstance(source_for(str(tmp_path)), FolderSource)

    def test_sources_from_trackers(self) -> None:
        """A list of decoded trackers serves as a source, read back through the decoder."""
        health = decode_tracker(HEALTH)
        linked = load_linked(_scene("health"), source_for([health]))
        assert linked.trackers == (health,)
        assert linked.by_name("Health") == health
        assert linked.by_id("health") == health
        assert linked.by_name("health") is None
