"""The first look at the designer and the simulator, from before their journeys.

These two checks move into `test_designer_journey.py` and `test_simulator_journey.py` (issue 13)
once those journeys cover them; until then they keep the first-render and one-turn proofs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _heading(page: Any, heading: str) -> Any:
    """The heading `heading`, for the docs picture to start at."""
    return page.get_by_role("heading", name=heading, exact=True)


def test_simulator_turn_updates_values_changes_and_bars(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    count_above: Any,
) -> None:
    """Sending a turn in the simulator updates the panel values, the changes under the reply and the bars."""
    page = open_page(serve("simulator.py"), "Session simulator")
    page.get_by_text("12 live messages").first.wait_for(timeout=60_000)
    bars = page.locator(".js-plotly-plot .bars path")
    count_above(bars, more_than=0)
    bars_before = bars.count()
    assert page.locator(".tk-panel").get_by_text("hp 40").count() >= 1
    page.get_by_role("button", name="Send turn").click()
    page.get_by_text("14 live messages").first.wait_for(timeout=60_000)
    # The default script sets Health hp to 20: the chip under the new reply and the panel follow.
    page.get_by_text("You bind the cut on your arm.").first.wait_for(timeout=60_000)
    page.locator(".tk-chip").filter(has_text="40").filter(has_text="20").last.wait_for(
        timeout=60_000
    )
    assert page.locator(".tk-panel").get_by_text("hp 20").count() >= 1
    count_above(page.locator(".js-plotly-plot .bars path"), more_than=bars_before)
    # The README's picture starts at the chat and its Trackers panel; the data folder's machine
    # path, said above it, stays out of view.
    screenshot(
        page,
        "simulator",
        top=_heading(page, "The chat and the Trackers panel"),
        card="simulator",
    )


def test_designer_rename_follows_the_field(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], screenshot: Any
) -> None:
    """Renaming hp_max keystroke by keystroke in the designer moves hp's top in the rail's tool line."""
    page = open_page(serve("designer.py"), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for(timeout=60_000)
    page.get_by_text("Import…", exact=True).first.wait_for(timeout=60_000)
    # The README's picture: the verdict, the rail, each export's cost and Import…, from the
    # verdict's heading down; the data folder's machine path, said at the top, stays out of view.
    screenshot(
        page,
        "designer",
        top=_heading(page, "Verdict, the rail and where it is linked"),
        card="designer",
    )
    page.get_by_role("heading", name="Tracker designer").first.scroll_into_view_if_needed()
    page.get_by_text("hp_max (number)").first.click()
    name = page.get_by_label("Name", exact=True).nth(1)
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    # The field editor shows the picked field before anything is typed (a fixed pause was not
    # enough on a busy machine: the keystrokes went to the editor being redrawn).
    expect(name).to_have_value("hp_max", timeout=60_000)
    name.fill("")
    name.press_sequentially("hp_top", delay=60)
    name.press("Tab")
    page.get_by_text("hp (number 0 to hp_top").first.wait_for(timeout=60_000)
