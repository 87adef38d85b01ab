"""The designer under a person's hands (issue 13): each step clicks or types, then reads the page.

The app works on a temporary copy of `data/` (`-- --data DIR`), so saving leaves the repository
alone. Every step asserts what the page then shows; the harness fails the test on any traceback
in the server's log or marimo error on the page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

#: The field list's entries (radio labels such as `2. hp_max (number)`), nothing else on the page.
ENTRY = re.compile(r"^\d+\. .+ \((number|text|choice|boolean)\)$")


def _open(serve: Callable[..., str], open_page: Callable[[str, str], Any], data: Path) -> Any:
    page = open_page(serve("designer.py", "--data", str(data)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    return page


def _entries(page: Any) -> Any:
    return page.locator("label").filter(has_text=ENTRY)


def _pick(page: Any, entry: str) -> None:
    """Select a field in the list and wait until the field editor shows it."""
    page.get_by_label(entry, exact=True).check()
    name = entry.split(". ", 1)[1].rsplit(" (", 1)[0]
    expect(_field_box(page, "Name")).to_have_value(name)


def _field_box(page: Any, label: str) -> Any:
    """A box of the field editor (the tracker's own Name box comes first on the page)."""
    boxes = page.get_by_label(label, exact=True)
    return boxes.nth(1) if label == "Name" else boxes.first


def _type_into(page: Any, label: str, text: str) -> None:
    box = _field_box(page, label)
    box.fill(text)
    box.press("Enter")


def _verdict(page: Any) -> Any:
    return page.locator("marimo-callout-output").filter(has_text=re.compile(r"· revision \d+ ·")).first


def test_fields_follow_the_selection_types_starts_and_tops(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], screenshot: Any, data_copy: Path
) -> None:
    """Delete and Move act on the field selected at click time; starts, types and tops do what they say."""
    page = _open(serve, open_page, data_copy)
    entries = _entries(page)
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)", "3. mood (choice)"])
    expect(_verdict(page)).to_contain_text("linked in 3 scenes: The bell tower")

    # Item 2: Delete removes the field selected now (mood), not hp; the list follows.
    _pick(page, "3. mood (choice)")
    page.get_by_role("button", name="Delete").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)"])
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")

    # Item 2: Move up / Move down move the field selected now.
    _pick(page, "2. hp_max (number)")
    page.get_by_role("button", name="Move up").click()
    expect(entries).to_have_text(["1. hp_max (number)", "2. hp (number)"])
    page.get_by_role("button", name="Move down").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)"])

    # Item 3: "Starts at" sets the start; the rail's block shows it.
    _type_into(page, "Starts at", "45")
    page.get_by_text("Health: hp=0, hp_max=45").first.wait_for()
    # A start that is not a number is refused with words beside the field, the start kept.
    _type_into(page, "Starts at", "lots")
    page.get_by_text('"lots" is not a number').first.wait_for()
    page.get_by_text("Health: hp=0, hp_max=45").first.wait_for()

    # Item 6b: hp_max may not take hp as its top (hp is out of hp_max: a loop, TR-5).
    top = _field_box(page, "To (another field)")
    expect(top.locator("option")).to_have_text(["none"])
    _pick(page, "1. hp (number)")
    expect(_field_box(page, "To (another field)").locator("option")).to_have_text(["none", "hp_max"])

    # Item 5: two fields of the same name are two entries.
    page.get_by_role("button", name="Add field").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)", "3. field (number)"])
    name = _field_box(page, "Name")
    expect(name).to_have_value("field")
    name.fill("hp_max")
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)", "3. hp_max (number)"])
    expect(_verdict(page)).to_contain_text("hp_max")
    page.get_by_role("button", name="Delete").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)"])

    # Item 4: the editor follows a type change: choice shows Choices and no From/To, and back.
    _pick(page, "1. hp (number)")
    _field_box(page, "Type").select_option("choice")
    expect(_field_box(page, "Choices (comma-separated)")).to_be_visible()
    expect(page.get_by_label("From", exact=True)).to_have_count(0)
    expect(_verdict(page)).to_contain_text('field "hp": choices needs at least one choice')
    _type_into(page, "Choices (comma-separated)", "fine, hurt")
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    _field_box(page, "Type").select_option("number")
    expect(_field_box(page, "From")).to_be_visible()
    expect(page.get_by_label("Choices (comma-separated)", exact=True)).to_have_count(0)

    # Item 7: retyping or deleting the field that is another's top says the top was dropped.
    _field_box(page, "To (another field)").select_option("hp_max")
    page.get_by_text("hp (number up to hp_max").first.wait_for()
    _pick(page, "2. hp_max (number)")
    _field_box(page, "Type").select_option("text")
    page.get_by_text('"hp" no longer has a top: "hp_max" is now a text field.').wait_for()
    _field_box(page, "Type").select_option("number")
    expect(_field_box(page, "From")).to_be_visible()
    page.get_by_text("hp_max (number: Most hit points.)").first.wait_for()
    _pick(page, "1. hp (number)")
    _field_box(page, "To (another field)").select_option("hp_max")
    page.get_by_text("hp (number up to hp_max").first.wait_for()
    _pick(page, "2. hp_max (number)")
    page.get_by_role("button", name="Delete").click()
    page.get_by_text('"hp" no longer has a top: "hp_max" was deleted.').wait_for()
    expect(entries).to_have_text(["1. hp (number)"])
    page.get_by_text('"hp" no longer has a top').scroll_into_view_if_needed()
    screenshot(page, "designer-fields")

    # Renames follow the field keystroke by keystroke (TR-47).
    page.get_by_role("button", name="Add field").click()
    _pick(page, "2. field (number)")
    name = _field_box(page, "Name")
    name.fill("")
    name.press_sequentially("hp_top", delay=60)
    expect(entries).to_have_text(["1. hp (number)", "2. hp_top (number)"])
    assert json.loads((data_copy / "trackers" / "health.json").read_text())["revision"] == 0
