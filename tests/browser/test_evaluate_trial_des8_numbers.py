"""Trial des8, finding 6, on the evaluate page: the number boxes are named by their labels' text,
not their HTML, and keep the bounds, steps and defaults they had."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .widgets import fill_number

#: The app's controls this journey touches; tests/browser/test_controls.py checks it.
TOUCHES = {"evaluate": {"runs", "concurrency", "tolerance", "timeout", "retries", "run_button"}}

HEADING = "Will my trackers hold on my model?"
#: The number boxes and their defaults (the CLI's, as before).
BOXES = {
    "Runs (k)": "2",
    "Concurrency": "4",
    "Tolerance (±)": "1",
    "endpoint: timeout (s)": "60",
    "endpoint: retries after a 429 or 5xx": "4",
}


def test_the_number_boxes_are_named_by_their_labels(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
) -> None:
    """Found in trial des8: each number box's aria-label was its label's HTML (`<span class=…>`),
    and `get_by_label("Runs (k)")` found three elements."""
    page = open_page(serve("evaluate.py", "--data", str(data_copy)), HEADING)
    page.get_by_text("Press Run the evaluation to play the scenarios.").wait_for()
    for label, default in BOXES.items():
        expect(page.get_by_label(label)).to_have_count(1)
        expect(page.get_by_label(label)).to_have_value(default)
    expect(page.locator("[aria-label*='<']")).to_have_count(0)  # no markup in any name
    screenshot(page, "evaluate-des8-number-boxes")

    run = page.get_by_role("button", name="Run the evaluation")
    fill_number(page, "Runs (k)", "11")  # past the bound the number box had
    run.click()
    page.get_by_text(
        "Runs (k) takes a whole number from 1 to 10; it reads '11'. Type such a number in the box.",
        exact=False,
    ).first.wait_for()
    fill_number(page, "Runs (k)", "1")
    fill_number(page, "Tolerance (±)", "0.005")  # finer than its step
    run.click()
    page.get_by_text(
        "Tolerance (±) takes a number from 0 to 1000, in steps of 0.01; it reads '0.005'.",
        exact=False,
    ).first.wait_for()
    screenshot(page, "evaluate-des8-number-refused")

    fill_number(page, "Tolerance (±)", "0.5")
    fill_number(page, "Concurrency", "2")
    fill_number(page, "endpoint: timeout (s)", "5")
    fill_number(page, "endpoint: retries after a 429 or 5xx", "0")
    run.click()
    # eval-choices and eval-flags, 7 scored turns each, x scripted and noisy x 1 run.
    page.get_by_text("28 turns", exact=False).first.wait_for(timeout=240_000)
    page.get_by_text(
        "within tolerance within ±0.5 of the expected value", exact=False
    ).first.wait_for()
    expect(page.get_by_text("could not run", exact=False)).to_have_count(0)
    screenshot(page, "evaluate-des8-number-run")
