"""A chat given a tracker folder path that does not exist refuses to start; a folder lacking a piece leaves it out (TR-25)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DATA_TRACKERS

from trackerkit import Chat, NotFoundError, Scene, TrackerkitError
from trackerkit.scene import Prompting

SCENE = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "pack"]))


class TestFolder:
    """Only a folder path is checked: it must be a folder that exists."""

    @pytest.mark.parametrize("as_path", [False, True], ids=["str", "path"])
    def test_missing_folder_is_named(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_path: bool
    ) -> None:
        """A mistyped relative folder raises NotFoundError naming it and where it was looked for."""
        monkeypatch.chdir(tmp_path)
        folder = "data/trakcers"
        with pytest.raises(NotFoundError) as caught:
            Chat(SCENE, Path(folder) if as_path else folder)
        assert str(caught.value) == (
            f"the tracker folder 'data/trakcers' does not exist (looked for {tmp_path / folder}); "
            "check the path: it should name the folder that holds the tracker pieces, one "
            "<id>.json each, such as data/trackers"
        )
        assert isinstance(caught.value, TrackerkitError)

    def test_a_file_is_no_folder(self, tmp_path: Path) -> None:
        """A path to a file is refused as no folder."""
        piece = tmp_path / "health.json"
        shutil.copy(DATA_TRACKERS / "health.json", piece)
        with pytest.raises(NotFoundError, match=r"'.*health\.json' is not a folder; check"):
            Chat(SCENE, piece)

    def test_a_folder_lacking_a_piece_leaves_it_out(self, tmp_path: Path) -> None:
        """An existing folder without a linked tracker's piece runs without it (TR-25)."""
        shutil.copy(DATA_TRACKERS / "health.json", tmp_path / "health.json")
        chat = Chat(SCENE, tmp_path)
        linked = chat.linked()
        assert [t.id for t in linked.trackers] == ["health"]
        assert [lo.tracker_id for lo in linked.left_out] == ["pack"]
        chat.add_user("go")
        assert chat.begin_turn().tool is not None

    def test_an_empty_mapping_is_no_folder(self) -> None:
        """Pieces given in memory are not checked as a folder: no pieces, no tool."""
        chat = Chat(SCENE, {})
        chat.add_user("go")
        assert chat.begin_turn().tool is None
