"""The simulator's status line on a scene without scripted steps (trial des8, finding 3).

The slider went to 1 on such a scene and the line read "1 of 0 scripted steps".
"""

from __future__ import annotations

import pytest

from trackerkit.simulate.page import scripted_steps_text


class TestScriptedStepsText:
    def test_a_scene_without_steps_says_so(self) -> None:
        """No scripted steps reads as such at any slider value, never "N of 0"."""
        for played in (0, 1, 3):
            assert scripted_steps_text(played, 0) == "no scripted steps"

    @pytest.mark.parametrize(
        ("played", "total", "text"),
        [
            (0, 6, "0 of 6 scripted steps"),
            (3, 6, "3 of 6 scripted steps"),
            (9, 6, "6 of 6 scripted steps"),
            (1, 1, "1 of 1 scripted step"),
        ],
        ids=["none-played", "some-played", "held-to-the-end", "one-step"],
    )
    def test_steps_played_of_the_scene(self, played: int, total: int, text: str) -> None:
        """The count played is held to the scene's steps; one step is said in the singular."""
        assert scripted_steps_text(played, total) == text
