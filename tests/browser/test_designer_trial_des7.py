"""Trial des7 under a person's hands: the designer's Import… on a library holding its names.

Finding 4: a WTracker preset keyed `quest`, opened in the draft beside the bundled `quest`
(which the scene `shop` links), showed "linked in 1 scene: … (shop)", the old tracker's link,
while the page said Save writes it as `quest-2.json`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from trackerkit import Library

expect.set_options(timeout=60_000)

#: The designer's controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {"designer": {"import_path", "import_choice", "open_button", "save_button"}}

#: A WTracker preset keyed `quest` (the bundled "Quest", linked by `shop`, has that id).
WT = {
    "schemaPresets": {
        "quest": {
            "name": "Quest log",
            "value": {
                "type": "object",
                "properties": {
                    "gold": {"type": "integer", "minimum": 0, "maximum": 999, "default": 12},
                    "mood": {"type": "string", "enum": ["calm", "angry"], "default": "calm"},
                },
            },
        }
    }
}


def _open(serve: Callable[..., str], open_page: Callable[[str, str], Any], data: Path) -> Any:
    page = open_page(serve("designer.py", "--data", str(data)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    return page


def _read(page: Any, path: Path) -> None:
    box = page.get_by_label("…or its path on this machine", exact=True)
    box.fill(str(path))
    box.press("Enter")


def _verdict(page: Any) -> Any:
    """The verdict's callout: the draft's title, revision and where it is linked."""
    return page.locator("marimo-callout-output").filter(has_text=re.compile(r" · revision \d+ · "))


def test_an_import_opened_in_the_draft_shows_its_own_links_not_the_old_trackers(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
    tmp_path: Path,
) -> None:
    """Opened as `quest-2`, the draft is linked to no scene; `shop` (the old quest's) is not named."""
    preset = tmp_path / "wt.json"
    preset.write_text(json.dumps(WT), encoding="utf-8")
    page = _open(serve, open_page, data_copy)
    _read(page, preset)
    page.get_by_text("read as WTracker (wtracker), the format its content shows").wait_for()
    page.get_by_label("Which", exact=True).select_option(label="Quest log (2 fields)")
    page.get_by_role("button", name="Open in the draft").click()
    page.get_by_text("Save writes it as quest-2.json").wait_for()
    expect(page.get_by_label("Id (its file name; suggested from the name)")).to_have_value(
        "quest-2"
    )
    verdict = _verdict(page)
    expect(verdict).to_contain_text("Quest log · revision 0 · not linked to a scene")
    expect(verdict).not_to_contain_text("Haggling")
    verdict.scroll_into_view_if_needed()
    screenshot(page, "designer-import-opened-links")

    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text('Saved as a new tracker "quest-2" at revision 0.').wait_for()
    expect(_verdict(page)).to_contain_text("Quest log · revision 0 · not linked to a scene")
    assert Library(data_copy / "trackers").get("quest").name == "Quest"
