"""The designer's Import… after a take, found in a new user's trial (nu3, finding 1).

Right after "Take into the library" succeeded, the page listed the trackers and scene it had just
written as "named like ones already there", said taking them was refused, and kept the Take
button and "Take them anyway": a second press wrote li-2, shi-jian-2 and lorebook-2.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trackerkit import Library

ROOT = Path(__file__).resolve().parents[2]

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {"designer": {"import_path", "take_button"}}


def test_a_take_says_what_it_wrote_and_is_not_offered_again(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """The lorebook example by path, taken: "Took 2", no clash warning, no Take button and no
    box; the page says it was taken, and only li, shi-jian and the lorebook scene are written."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("designer.py", "--data", str(data_copy)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    path_box = page.get_by_label("…or its path on this machine", exact=True)
    path_box.fill(str(ROOT / "examples" / "lorebook.json"))
    path_box.press("Enter")
    take = page.get_by_role("button", name="Take into the library")
    take.wait_for()
    take.click()
    said = page.locator("marimo-callout-output").filter(has_text=re.compile("Took"))
    expect(said).to_contain_text("Took 2 into the library.")
    expect(said).to_contain_text('saved "Li" as li.json')
    page.get_by_text("Already taken into the library from this file:").first.wait_for()
    expect(page.get_by_text("Named like ones already there")).to_have_count(0)
    expect(take).to_have_count(0)
    expect(page.get_by_label("Take them anyway, beside the ones of the same names")).to_have_count(
        0
    )
    said.scroll_into_view_if_needed()
    screenshot(page, "designer-import-taken")
    ids = set(Library(data_copy / "trackers").ids())
    assert {"li", "shi-jian"} <= ids
    assert not {"li-2", "shi-jian-2"} & ids
    assert not (data_copy / "scenes" / "lorebook-2.json").exists()
