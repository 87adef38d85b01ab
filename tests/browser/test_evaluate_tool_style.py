"""The evaluate page offers the tool styles `trackerkit eval --variants` takes (trial des6, finding 3).

"strict" picked beside "lines": each variant runs under both, one column each, named so the table
says which.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .widgets import fill_number, toggle

#: The app's controls this journey touches; tests/browser/test_controls.py checks it.
TOUCHES = {"evaluate": {"picked_tool_styles"}}


def test_strict_beside_lines_is_a_column_of_its_own(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    data_copy: Path,
) -> None:
    page = open_page(
        serve("evaluate.py", "--data", str(data_copy)), "Will my trackers hold on my model?"
    )
    page.get_by_text("Press Run the evaluation to play the scenarios.").wait_for()
    toggle(page, "Variants", "scripted")  # the noisy loopback alone
    toggle(page, "Tool styles (under tools)", "strict")  # beside "lines", picked already
    fill_number(page, "Runs (k)", "1")
    page.get_by_role("button", name="Run the evaluation").click()
    done = page.get_by_text("every run's turns went to the trace", exact=False)
    done.first.wait_for(timeout=240_000)
    metrics = (
        page.locator("marimo-ui-element")
        .filter(has=page.get_by_text("Metrics per variant (95% intervals)", exact=True))
        .last
    )
    for column in ("noisy loopback · lines (free)", "noisy loopback · strict (free)"):
        expect(metrics.get_by_text(column, exact=True).first).to_be_visible()
    expect(metrics.get_by_text("noisy loopback (free)", exact=True)).to_have_count(0)
    joint = metrics.locator("tbody tr").filter(has=page.get_by_text("joint_accuracy", exact=True))
    assert "n/a" not in joint.inner_text()  # both were scored
    expect(page.get_by_text("Traceback", exact=False)).to_have_count(0)
    expect(page.get_by_text("could not run", exact=False)).to_have_count(0)
