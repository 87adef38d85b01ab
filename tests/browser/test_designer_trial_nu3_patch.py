"""What the designer's Save section says it sends, found in a new user's trial (nu3, finding 7).

After renaming a field the Save section showed `Patch on the revision opened: {'body': {'fields':
[{'name': 'vigor', …}]}}`, a Python repr, the only text on the page written like that. It now says
the edits in words, each on a line, with the patch as indented JSON folded under them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .widgets import field_box

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {"designer": {"mo.ui.text", "save_button"}}


def test_save_says_the_edits_in_words_and_folds_the_json(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Health with hp renamed vigor and hp_max's top set: one line per edit, no Python repr on
    the page; the JSON unfolds as the patch; after Save, nothing is left to send."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("designer.py", "--data", str(data_copy)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    nothing = page.get_by_text("What Save sends: nothing, no edit since revision 0.")
    nothing.wait_for()

    field_box(page, "Name").fill("vigor")
    page.get_by_label("1. vigor (number)", exact=True).wait_for()
    field_box(page, "To (a number)").fill("40")
    field_box(page, "To (a number)").press("Enter")
    # A number top replaces the top field (TR-5): both said, the rename once.
    sends = page.locator("li").filter(has_text="→")
    expect(sends).to_have_text(
        [
            "renames field hp → vigor",
            "vigor's To (a number): (none) → 40",
            "vigor's To (another field): hp_max → (none)",
        ]
    )
    heading = page.get_by_text("What Save sends, the edits on revision 0:")
    heading.wait_for()
    expect(nothing).to_have_count(0)
    # Its list follows it as a paragraph's list does (trial nu4: a gap of 44 px, the margins of
    # the line and the list each kept, and the stack's gap added, as if something were missing).
    above, below = heading.bounding_box(), sends.first.bounding_box()
    assert above is not None
    assert below is not None
    gap = below["y"] - (above["y"] + above["height"])
    assert 0 <= gap <= 24, f"{gap} px between 'What Save sends' and its first line"
    expect(page.get_by_text("Patch on the revision opened")).to_have_count(0)
    expect(page.get_by_text("{'body'")).to_have_count(0)

    # The patch itself, folded: indented JSON with double quotes.
    page.get_by_text("The patch as JSON").click()
    shown = page.get_by_role("region", name="The patch as JSON").locator("pre")
    expect(shown).to_be_visible()
    patch = json.loads(shown.inner_text())
    assert [f["name"] for f in patch["body"]["fields"]] == ["vigor", "hp_max", "mood"]
    assert (patch["body"]["fields"][0]["max"], "maxField" in patch["body"]["fields"][0]) == (
        40,
        False,
    )
    assert '\n    "fields": [' in shown.inner_text()
    shown.scroll_into_view_if_needed()
    screenshot(page, "designer-save-sends-words")

    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text("What Save sends: nothing, no edit since revision 1.").wait_for()
    expect(sends).to_have_count(0)
