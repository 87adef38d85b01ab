"""The designer's "Save as new…", found in a new user's trial (nu3, finding 2).

The trial opened Inventory, added a field and saved it as new under the id proposed: the page
wrote `inventory-2.json` named "Inventory" beside Inventory, and only then said a scene linking
both leaves one out. The form now asks for the copy's name beside its id, proposes a free one,
and refuses a name the library holds before writing, in Import's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trackerkit import Library

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {"designer": {"picker", "save_as_box", "save_as_button", "save_as_name"}}


def test_save_as_new_asks_a_free_name_and_refuses_a_held_one(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Inventory with a field added: the form proposes `inventory-2` and "Inventory 2"; typing
    "inventory" is refused with nothing written; the proposal saves a tracker of its own name."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    trackers = data_copy / "trackers"
    files = sorted(p.name for p in trackers.iterdir())
    page = open_page(serve("designer.py", "--data", str(data_copy)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    page.get_by_label("Open", exact=True).select_option("Inventory (inventory)")
    page.get_by_text("Id inventory · revision 0").first.wait_for()
    page.get_by_role("button", name="Add field").click()
    page.get_by_text("5. field (number)").first.wait_for()

    new_id = page.get_by_label("New id", exact=True)
    new_name = page.get_by_label("New name", exact=True)
    save_as = page.get_by_role("button", name="Save the draft as a new tracker")
    expect(new_id).to_have_value("inventory-2")
    expect(new_name).to_have_value("Inventory 2")
    outcome = page.locator("marimo-callout-output").filter(
        has_text=re.compile(r"^\s*(Saved|Not saved)")
    )

    # A name the library holds (in any case) is refused before writing, in Import's words.
    new_name.fill("inventory")
    save_as.click()
    expect(outcome).to_contain_text(
        'Not saved: "inventory" (would be inventory-2.json): the library already holds a '
        'tracker of this name: "Inventory" (inventory); nothing was written. Give the new '
        "tracker another name, or rename the one there."
    )
    assert sorted(p.name for p in trackers.iterdir()) == files
    expect(new_name).to_have_value("inventory")
    page.get_by_text("5. field (number)").first.wait_for()  # the draft is kept
    save_as.scroll_into_view_if_needed()
    screenshot(page, "designer-save-as-held-name")

    # The name proposed saves: a tracker of its own name, nothing said of a namesake.
    new_name.fill("Inventory 2")
    save_as.click()
    expect(outcome).to_have_text('Saved as a new tracker "inventory-2" at revision 0.')
    stored = json.loads((trackers / "inventory-2.json").read_text())
    assert (stored["name"], len(stored["body"]["fields"])) == ("Inventory 2", 5)
    assert Library(trackers).get("inventory").name == "Inventory"
    page.get_by_text("Id inventory-2 · revision 0").first.wait_for()
    expect(page.get_by_label("Name", exact=True).first).to_have_value("Inventory 2")
    expect(page.get_by_text("The library already holds a tracker of this name")).to_have_count(0)
    # The form now proposes the next free id and name for a further copy.
    expect(new_id).to_have_value("inventory-3")
    expect(new_name).to_have_value("Inventory 3")
    save_as.scroll_into_view_if_needed()
    screenshot(page, "designer-save-as-named")
