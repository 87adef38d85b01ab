"""The simulator on a scene without scripted steps, found in a designer's trial (des8).

The "Scripted steps played" slider went to 1 on such a scene and the status line then read
"1 of 0 scripted steps".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .test_simulator_journey import HEADING, _pick, _slide, _status

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {"simulator": {"scene_picker"}}


def test_a_scene_without_scripted_steps_says_so_and_keeps_the_slider_at_0(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """On typical (no scripted steps) the status says "no scripted steps", the slider is held at
    0, and pressing → on it changes neither."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _pick(page, "Scene", "typical")
    _status(page, "no scripted steps")
    slider = page.get_by_role("slider").first
    expect(slider).to_have_attribute("aria-valuenow", "0")
    _slide(page, "ArrowRight")
    page.wait_for_timeout(500)
    expect(slider).to_have_attribute("aria-valuenow", "0")
    _status(page, "no scripted steps")
    expect(page.get_by_text("of 0 scripted steps")).to_have_count(0)
    screenshot(page, "simulator_no_scripted_steps")
