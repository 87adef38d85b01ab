"""Scenes: linking, the trackerChanges switch, and what a turn loads (TR-24, TR-25)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import orjson
import pydantic
import pytest
from conftest import BAG, HEALTH
from unopened import never_opened

from trackerkit import (
    NotFoundError,
    Scene,
    SceneDecodeError,
    TrackerkitError,
    decode_tracker,
    load_scene,
)
from trackerkit._pieces import MAX_PIECE_BYTES
from trackerkit.scene import (
    FolderSource,
    LeftOut,
    MappingSource,
    Prompting,
    load_linked,
    read_scene,
    source_for,
)


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


def _scene_file(folder: Path, **keys: object) -> Path:
    path = folder / "s.json"
    path.write_bytes(orjson.dumps({"id": "s", "title": "S", **keys}))
    return path


class TestReadScene:
    """One scene reader: every problem of a file, each with its location, never only the first."""

    def test_settings_and_steps_problems_together(self, tmp_path: Path) -> None:
        """A bad setting does not hide a bad step, nor one bad step the next; load_scene names them all."""
        turns = [{"user": "go", "calls": [5]}, {"action": "fork"}, 3]
        path = _scene_file(tmp_path, window=0, turns=turns)
        read = read_scene(path)
        assert read.scene is None
        assert [p.path for p in read.problems] == [
            "window",
            "turns[0].calls[0]",
            "turns[1].message",
            "turns[2]",
        ]
        with pytest.raises(SceneDecodeError) as caught:
            load_scene(path)
        assert str(caught.value) == f"{path}: " + "; ".join(map(str, read.problems))
        # Its own kind of the one family, carrying what a caller acts on (integrator trial).
        assert isinstance(caught.value, TrackerkitError)
        assert (caught.value.problems, caught.value.path) == (list(read.problems), read.path)

    def test_an_empty_id_is_refused(self, tmp_path: Path) -> None:
        """Found in a trial: `"id": ""` was taken, and eval's results named the scenario ""."""
        read = read_scene(_scene_file(tmp_path, id=""))
        assert [str(p) for p in read.problems] == ["id: must not be empty"]
        assert read.scene is None

    def test_bad_steps_keep_the_settings(self, tmp_path: Path) -> None:
        """A scene whose settings read is kept without its steps, which are listed as problems."""
        path = _scene_file(tmp_path, prompting={"trackers": ["health"]}, turns=[{"action": "cut"}])
        read = read_scene(path)
        assert read.scene is not None
        assert (read.scene.trackers, read.scene.turns) == (["health"], [])
        assert [str(p) for p in read.problems] == ["turns[0].message: is required"]

    @pytest.mark.parametrize(
        ("content", "code", "message"),
        [
            (None, "missing", "is not there"),
            (b"{nope", "not_json", "not valid JSON"),
            (b"[1]", "not_object", "must be an object; found a list"),
            (b'{"id": "s", "title": "S", "turns": 5}', "invalid", "must be a list"),
        ],
        ids=["missing", "bad-json", "not-object", "turns-not-a-list"],
    )
    def test_one_problem_files(
        self, tmp_path: Path, content: bytes | None, code: str, message: str
    ) -> None:
        """A file that cannot be read as a scene at all gives one problem, with its code; never an exception."""
        path = tmp_path / "s.json"
        if content is not None:
            path.write_bytes(content)
        read = read_scene(path)
        assert read.scene is None
        assert len(read.problems) == 1
        assert message in read.problems[0].message
        assert read.problems[0].code == code
        assert read.missing is (content is None)

    def test_a_folder_is_unreadable(self, tmp_path: Path) -> None:
        """A path that is no regular file is refused unread."""
        (tmp_path / "s.json").mkdir()
        read = read_scene(tmp_path / "s.json")
        assert [p.code for p in read.problems] == ["unreadable"]

    def test_deleted_is_kept_only_when_true(self) -> None:
        """TR-46: `deleted: true` marks a scene; false reads as not marked; anything else is refused."""
        assert Scene.model_validate({"id": "s", "title": "S", "deleted": True}).deleted is True
        assert Scene.model_validate({"id": "s", "title": "S", "deleted": False}).deleted is None
        with pytest.raises(pydantic.ValidationError):
            Scene.model_validate({"id": "s", "title": "S", "deleted": "yes"})


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


class TestUnsafeLinks:
    """TR-25: a linked id or file that cannot be read safely is left out with a reason, unread."""

    @pytest.fixture
    def folder(self, tmp_path: Path) -> Path:
        """`lib/trackers/` holding `health`, with a secret JSON file two folders up."""
        trackers = tmp_path / "lib" / "trackers"
        trackers.mkdir(parents=True)
        (trackers / "health.json").write_bytes(orjson.dumps(HEALTH))
        (tmp_path / "secret.json").write_bytes(orjson.dumps({"secretKey": "hunter2"}))
        return trackers

    @pytest.mark.parametrize(
        "bad_id",
        ["../../secret", "a\x00b", "sub/health", "/etc/passwd", "", ".health", "x" * 129],
        ids=["dot-dot", "nul", "slash", "absolute", "empty", "dot-file", "too-long"],
    )
    def test_an_id_that_breaks_the_rule(
        self, folder: Path, bad_id: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An id the library's id rule refuses is left out before any file is named (TR-25)."""
        secret = folder.parent.parent / "secret.json"
        with never_opened(monkeypatch, secret):
            linked = load_linked(_scene("health", bad_id), source_for(folder))
        assert [t.id for t in linked.trackers] == ["health"]
        (left,) = linked.left_out
        assert left.tracker_id == bad_id
        assert left.reason.startswith("it was not read: ")
        assert "is not a tracker id" in left.reason
        assert "secretKey" not in left.reason

    def test_an_id_is_checked_for_every_source(self) -> None:
        """A mapping source is held to the same id rule as a folder."""
        linked = load_linked(_scene("../x"), MappingSource({"../x": HEALTH}))
        assert linked.trackers == ()
        assert "is not a tracker id" in linked.left_out[0].reason

    def test_a_fifo_is_never_opened(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A FIFO named `x.json` is refused from its metadata; opening it would block forever."""
        fifo = folder / "x.json"
        os.mkfifo(fifo)
        with never_opened(monkeypatch, fifo):
            linked = load_linked(_scene("x", "health"), source_for(folder))
        assert [t.id for t in linked.trackers] == ["health"]
        assert linked.left_out == (
            LeftOut("x", "its file x.json is a FIFO, not a regular file; it was not read"),
        )

    def test_a_link_to_dev_zero(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A link to /dev/zero is refused unopened (reading it would never end)."""
        (folder / "zero.json").symlink_to("/dev/zero")
        with never_opened(monkeypatch, folder / "zero.json", Path("/dev/zero")):
            linked = load_linked(_scene("zero"), source_for(folder))
        (left,) = linked.left_out
        assert left.reason == (
            f"its file zero.json is a link to a character device outside {folder}; it was not read"
        )

    def test_a_link_out_of_the_folder(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A link to a JSON file outside the folder is refused; its content never shows."""
        secret = folder.parent.parent / "secret.json"
        (folder / "secret.json").symlink_to(secret)
        with never_opened(monkeypatch, secret):
            linked = load_linked(_scene("secret"), source_for(folder))
        (left,) = linked.left_out
        assert left.reason == (
            f"its file secret.json is a link to a file outside {folder}; it was not read"
        )

    def test_a_directory(self, folder: Path) -> None:
        """A directory named `x.json` is left out, not an IsADirectoryError."""
        (folder / "x.json").mkdir()
        linked = load_linked(_scene("x"), source_for(folder))
        assert linked.left_out[0].reason == (
            "its file x.json is a directory, not a regular file; it was not read"
        )

    def test_a_file_past_the_size_limit(self, folder: Path) -> None:
        """A regular file larger than MAX_PIECE_BYTES is not read (a sparse file: no disk used)."""
        with (folder / "big.json").open("wb") as big:
            big.truncate(MAX_PIECE_BYTES + 1)
        linked = load_linked(_scene("big"), source_for(folder))
        assert linked.left_out[0].reason == (
            f"its file big.json is {MAX_PIECE_BYTES + 1:,} bytes, past the "
            f"{MAX_PIECE_BYTES:,}-byte limit of a piece file; it was not read"
        )

    def test_a_link_inside_the_folder_is_read(self, folder: Path) -> None:
        """A link to a regular file in the same folder is read like the file."""
        (folder / "vitals").mkdir()
        (folder / "vitals" / "health.json").write_bytes(orjson.dumps(HEALTH))
        (folder / "health.json").unlink()
        (folder / "health.json").symlink_to(folder / "vitals" / "health.json")
        linked = load_linked(_scene("health"), source_for(folder))
        assert [t.id for t in linked.trackers] == ["health"]


def test_scene_trackers_is_beside_the_scenes_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scene's tracker folder is `trackers/` in its data folder, found from a resolved path
    (relative, through `..` or a link alike); a folder given wins as given."""
    from trackerkit.scene import scene_trackers

    scenes = tmp_path / "data" / "scenes"
    scenes.mkdir(parents=True)
    scene = scenes / "fight.json"
    scene.write_text("{}")
    expected = (tmp_path / "data" / "trackers").resolve()
    link = tmp_path / "elsewhere.json"
    link.symlink_to(scene)
    monkeypatch.chdir(scenes)
    assert scene_trackers("fight.json") == expected
    assert scene_trackers("../scenes/./fight.json") == expected
    assert scene_trackers(link) == expected
    assert scene_trackers(scene, "mine") == Path("mine")


def test_load_scene_says_a_bound_in_words(tmp_path: Path) -> None:
    """A docs trial: the docstring's example error read `Input should be greater than 0`."""
    scene = json.loads(
        (Path(__file__).parent.parent / "data" / "scenes" / "fight.json").read_text()
    )
    scene["window"] = 0
    scene["turns"][3]["set"] = 5
    (tmp_path / "fight.json").write_text(json.dumps(scene))
    with pytest.raises(TrackerkitError) as caught:
        load_scene(tmp_path / "fight.json")
    assert str(caught.value).endswith(
        "fight.json: window: must be a whole number, 1 or more; found 0; "
        "turns[3].set: is not a known key"
    )
