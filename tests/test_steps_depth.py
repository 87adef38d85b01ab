"""A scene's step past pydantic's validation depth: a short path and the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit import TrackerkitError, load_scene


def test_arguments_nested_past_the_validators_depth_say_so_in_a_short_path(tmp_path: Path) -> None:
    """An attack trial: 600 levels of `arguments` gave a path of pydantic's validator names
    (`arguments.dict[str,json-or-python[…` for hundreds of levels), cut before the reason."""
    scene = json.loads((Path(__file__).parents[1] / "data" / "scenes" / "fight.json").read_text())
    deep: dict[str, object] = {}
    cur = deep
    for _ in range(600):
        cur["a"] = {}
        cur = cur["a"]  # type: ignore[assignment]
    scene["turns"][1]["calls"][0]["arguments"]["x"] = deep
    (tmp_path / "deep.json").write_text(json.dumps(scene))
    with pytest.raises(TrackerkitError) as caught:
        load_scene(tmp_path / "deep.json")
    assert str(caught.value) == (
        f"{tmp_path / 'deep.json'}: turns[1].calls[0].arguments: is nested too deep to read "
        "(past about 500 levels)"
    )
