"""Linking trackers into a scene from the simulator (TR-24): written in the workspace, never the bundle."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.simulate.links import link_choices, link_trackers, linked_ids
from trackerkit.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "scenes", target / "scenes")
    shutil.copytree(ROOT / "data" / "trackers", target / "trackers")
    return target


class TestLinkTrackers:
    def test_links_keep_their_order_and_new_ones_follow(self, data: Path) -> None:
        """TR-24: ids linked before keep their order, unchecked ones go, checked new ones follow once."""
        place = Workspace(data, "option")
        linked = link_trackers(place, "fight", ["weather", "stamina", "weather"])
        assert linked.ids == ("stamina", "weather")
        assert linked_ids(data / "scenes" / "fight.json") == ["stamina", "weather"]
        assert (
            linked.sentence()
            == f"Saved: fight links stamina, weather ({data / 'scenes' / 'fight.json'})."
        )

    def test_every_other_key_of_the_scene_stays(self, data: Path) -> None:
        """Only prompting.trackers changes; the turns, card and window are kept as they were."""
        before = json.loads((data / "scenes" / "fight.json").read_text())
        link_trackers(Workspace(data, "option"), "fight", ["health"])
        after = json.loads((data / "scenes" / "fight.json").read_text())
        assert after == {**before, "prompting": {**before["prompting"], "trackers": ["health"]}}

    def test_the_bundled_data_is_copied_to_the_workspace_first(
        self, data: Path, tmp_path: Path
    ) -> None:
        """A link made on the bundled data is written in the per-user workspace; the bundle stays."""
        bundled_scene = (data / "scenes" / "fight.json").read_bytes()
        home = tmp_path / "workspace"
        linked = link_trackers(
            Workspace(data, "bundled", copy_to=home), "fight", ["health", "weather"]
        )
        assert linked.place == Workspace(home, "workspace")
        assert linked.path == home / "scenes" / "fight.json"
        assert linked_ids(linked.path) == ["health", "weather"]
        assert (data / "scenes" / "fight.json").read_bytes() == bundled_scene

    def test_unlinking_everything_is_allowed(self, data: Path) -> None:
        """A scene may link no tracker."""
        assert link_trackers(Workspace(data, "option"), "shop", []).ids == ()
        assert linked_ids(data / "scenes" / "shop.json") == []

    @pytest.mark.parametrize(
        ("content", "found"),
        [
            (None, "there is no such scene file"),
            ("[1]", "a scene file holds a JSON object"),
            ("{", "cannot be read as a scene"),
        ],
        ids=["missing", "not-an-object", "not-json"],
    )
    def test_a_scene_that_cannot_take_links_is_refused(
        self, data: Path, content: str | None, found: str
    ) -> None:
        """A missing or unreadable scene file is a BadRequestError naming it; nothing is written."""
        path = data / "scenes" / "odd.json"
        if content is not None:
            path.write_text(content)
        with pytest.raises(BadRequestError, match=found):
            link_trackers(Workspace(data, "option"), "odd", ["health"])

    def test_a_scene_nested_too_deep_is_refused(self, data: Path) -> None:
        """A scene file nested past the decoder is a BadRequestError, never a RecursionError."""
        path = data / "scenes" / "deep.json"
        path.write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
        before = path.read_bytes()
        with pytest.raises(BadRequestError, match="nested too deep"):
            link_trackers(Workspace(data, "option"), "deep", ["health"])
        assert path.read_bytes() == before

    @pytest.mark.parametrize(
        ("checked", "found"),
        [
            ("health", r"checked must be a list of tracker ids.*found str 'health'"),
            (b"health", "found bytes"),
            (None, "found NoneType None"),
            ({"health"}, "found set"),
            (["health", 5], "found 5"),
        ],
        ids=["text", "bytes", "none", "set", "a-number"],
    )
    def test_checked_must_be_a_list_of_ids(self, data: Path, checked: object, found: str) -> None:
        """`checked="health"` was saved as the links h, e, a, l, t; now it is refused."""
        path = data / "scenes" / "fight.json"
        before = path.read_bytes()
        with pytest.raises(BadRequestError, match=found):
            link_trackers(Workspace(data, "option"), "fight", checked)  # type: ignore[arg-type]
        assert path.read_bytes() == before

    @pytest.mark.parametrize("scene", ["", ".", "..", "../scenes/fight", "a/b", 5])
    def test_the_scene_must_be_a_stem(self, data: Path, scene: object) -> None:
        with pytest.raises(BadRequestError, match="file's stem"):
            link_trackers(Workspace(data, "option"), scene, ["health"])  # type: ignore[arg-type]


class TestLinkChoices:
    def test_a_check_per_library_tracker_marked_when_linked(self, data: Path) -> None:
        """Every library file is a choice, by id, labelled with its name; the scene's links are checked."""
        choices = link_choices(data / "trackers", data / "scenes" / "fight.json")
        assert [c.id for c in choices] == sorted(p.stem for p in (data / "trackers").glob("*.json"))
        assert {c.id for c in choices if c.linked} == {"health", "stamina"}
        assert next(c.label for c in choices if c.id == "scene-mood") == "Scene (scene-mood)"

    def test_a_refused_file_is_a_choice_labelled_so(self, data: Path) -> None:
        """A file the decoder refuses can be linked (a turn leaves it out) and says so."""
        (data / "trackers" / "broken.json").write_text('{"id": "broken"}')
        choice = next(
            c
            for c in link_choices(data / "trackers", data / "scenes" / "fight.json")
            if c.id == "broken"
        )
        assert choice.label == "broken (refused by the decoder: a turn leaves it out)"
        assert not choice.linked
