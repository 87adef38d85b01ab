"""The small scene most session tests play: Vera and a narrator, linking `health` and `bag`."""

from __future__ import annotations

import copy
from typing import Any

from conftest import BAG, HEALTH

from trackerkit import Session
from trackerkit.scene import Prompting, Scene


def narrated_scene(
    *links: str, tool_access: bool = True, window: int = 8192, reserve: int = 1024
) -> Scene:
    """The scene, linking `links` (default: health and bag)."""
    return Scene(
        id="s",
        title="S",
        card="You narrate for {{user}}.",
        user="Vera",
        char="Narrator",
        prompting=Prompting(trackers=list(links or ("health", "bag"))),
        tool_access=tool_access,
        window=window,
        reserve=reserve,
    )


def narrated_session(scene: Scene, **options: Any) -> Session:
    """A session on `scene` with fresh copies of the `health` and `bag` pieces."""
    pieces = {"health": copy.deepcopy(HEALTH), "bag": copy.deepcopy(BAG)}
    return Session(scene, pieces, **options)
