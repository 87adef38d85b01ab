"""Trial des7 under a person's hands: the designer's Import… on a library holding its names.

Finding 4: a WTracker preset keyed `quest`, opened in the draft beside the bundled `quest`
(which the scene `shop` links), showed "linked in 1 scene: … (shop)", the old tracker's link,
while the page said Save writes it as `quest-2.json`.

Finding 5: "Take into the library" on an RPG Companion config wrote "Scene" and "Inventory"
beside the library's own and said so only after, where `trackerkit import` refuses the file
unless --allow-duplicates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from import_files import WT_QUEST
from playwright.sync_api import expect

from trackerkit import Library

expect.set_options(timeout=60_000)

#: The designer's controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {
    "designer": {
        "import_path", "import_choice", "open_button", "save_button", "take_button", "take_anyway",
    }
}  # fmt: skip

TAKE_ANYWAY = "Take them anyway, beside the ones of the same names"


#: The trial's RPG Companion config: it makes "Scene" and "Inventory", the bundled library's names.
RPG = {
    "trackerConfig": {
        "userStats": {
            "customStats": [
                {"id": "health", "name": "Health", "enabled": True, "maxValue": 30},
                {"id": "mana", "name": "Mana", "enabled": True, "maxValue": 50, "value": 80},
                {"id": "luck", "name": "Luck", "enabled": True},
            ],
            "statsDisplayMode": "number",
        },
        "statusSection": {"showMoodEmoji": True, "customFields": ["Conditions"]},
        "infoBox": {"widgets": {"date": {"enabled": True}, "location": {"enabled": True}}},
        "presentCharacters": {"relationships": ["Lover", "Friend"], "thoughts": {"enabled": True}},
        "inventory": {"onPerson": [{"name": "Rope", "quantity": 2}]},
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
    preset.write_text(json.dumps(WT_QUEST), encoding="utf-8")
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


def _said(page: Any) -> Any:
    """The import section's last message (what taking did)."""
    return (
        page.locator("marimo-callout-output")
        .filter(has_text=re.compile(r"Took|Nothing was taken"))
        .last
    )


def _clash(page: Any) -> Any:
    """The callout naming, before the button, the pieces named like ones already there."""
    return page.locator("marimo-callout-output").filter(has_text="Named like ones already there")


def _files(data: Path) -> list[str]:
    return sorted(str(p.relative_to(data)) for p in data.rglob("*.json"))


def _choose(page: Any, starts: str) -> None:
    """Pick the "Which" option whose label starts with `starts` (its field count may vary)."""
    which = page.get_by_label("Which", exact=True)
    label = which.locator("option", has_text=starts).first.inner_text().strip()
    which.select_option(label=label)


def test_taking_trackers_named_like_the_librarys_is_refused_unless_chosen(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
    tmp_path: Path,
) -> None:
    """The clash is named before the button; Take writes nothing and says why in the CLI's words;
    ticking "take anyway" takes them, once."""
    config = tmp_path / "rpg.json"
    config.write_text(json.dumps(RPG), encoding="utf-8")
    before = _files(data_copy)
    page = _open(serve, open_page, data_copy)
    _read(page, config)
    page.get_by_text(
        "read as RPG Companion (rpg-companion), the format its content shows"
    ).wait_for()

    # Before any click: both clashes named, with the file each would be, and the box unticked.
    clash = _clash(page)
    expect(clash).to_contain_text(
        '"Scene" (would be scene.json): the library already holds a tracker of this name: '
        '"Scene" (scene-mood)'
    )
    expect(clash).to_contain_text(
        '"Inventory" (would be inventory-2.json): the library already holds a tracker of this '
        'name: "Inventory" (inventory)'
    )
    expect(clash).to_contain_text("refused, as trackerkit import refuses them, unless you tick")
    anyway = page.get_by_label(TAKE_ANYWAY)
    expect(anyway).not_to_be_checked()
    clash.scroll_into_view_if_needed()
    screenshot(page, "designer-import-named-like-the-library")

    # Take: refused, nothing written, in the command's words.
    page.get_by_role("button", name="Take into the library").click()
    expect(_said(page)).to_contain_text("Nothing was taken.")
    expect(_said(page)).to_contain_text(
        "not taken: 2 pieces it would write bear the names of ones already in the library "
        "(listed above; was this file taken in before?); nothing was written. Rename or remove "
        f'the ones there, or tick "{TAKE_ANYWAY}" to write them anyway'
    )
    assert _files(data_copy) == before

    # One tracker whose name is new: no clash, no box, taken at once.
    _choose(page, "Present characters (")
    expect(_clash(page)).to_have_count(0)
    expect(page.get_by_label(TAKE_ANYWAY)).to_have_count(0)
    page.get_by_role("button", name="Take into the library").click()
    expect(_said(page)).to_contain_text('Took 1 into the library. saved "Present characters"')

    # A tick is for one choice: another "Which" clears it.
    _choose(page, "Inventory (")
    expect(_clash(page)).not_to_contain_text('"Scene"')
    page.get_by_label(TAKE_ANYWAY).check()
    _choose(page, "All ")
    expect(page.get_by_label(TAKE_ANYWAY)).not_to_be_checked()

    # Ticked, every tracker is taken (the clash said again after), and the tick is spent.
    page.get_by_label(TAKE_ANYWAY).check()
    page.get_by_role("button", name="Take into the library").click()
    expect(_said(page)).to_contain_text("Took 5 into the library.")
    expect(_said(page)).to_contain_text(
        'saved "Inventory" as inventory-2.json; the library already holds a tracker of this '
        'name: "Inventory" (inventory)'
    )
    # All taken now: neither the box nor the button is offered again (trial nu3, finding 1).
    page.get_by_text("Already taken into the library from this file:").first.wait_for()
    expect(page.get_by_label(TAKE_ANYWAY)).to_have_count(0)
    expect(page.get_by_role("button", name="Take into the library")).to_have_count(0)
    library = Library(data_copy / "trackers")
    assert {"scene", "inventory-2", "present-characters-2"} <= set(library.ids())
    assert (data_copy / "scenes" / "rpg.json").is_file()
