"""Driving marimo widgets the way a person does: find the one under a label, toggle a multiselect."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect


def element(page: Any, label: str) -> Any:
    """The `mo.ui` element shown under (or beside) `label`."""
    return page.locator("marimo-ui-element").filter(has=page.get_by_text(label, exact=True)).last


def toggle(page: Any, label: str, *options: str) -> None:
    """Open the multiselect under `label`, click each option (selecting or unselecting it), close."""
    element(page, label).locator("button[aria-haspopup=dialog]").click()
    menu = page.get_by_role("dialog")
    for option in options:
        menu.get_by_role("option", name=option, exact=True).click()
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)


def fill_number(page: Any, label: str, value: str) -> None:
    """Type `value` into the number's text box named `label` (found by its accessible name, as a
    screen reader finds it), then leave it (Tab sends the value)."""
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Tab")


def field_box(page: Any, label: str) -> Any:
    """A box of the designer's field editor (the tracker's own Name box comes first on the page)."""
    boxes = page.get_by_label(label, exact=True)
    return boxes.nth(1) if label == "Name" else boxes.first


def pick_field(page: Any, entry: str) -> None:
    """Select a field in the designer's list (`3. mood (choice)`) and wait until the field
    editor shows it: the editor's boxes belong to the field chosen before until it does."""
    radio = page.get_by_label(entry, exact=True)
    for _attempt in range(4):
        try:
            radio.check()
            break
        except PlaywrightError:  # the list was drawn anew under the click: click the new one
            page.wait_for_timeout(250)
    else:
        radio.check()
    name = entry.split(". ", 1)[1].rsplit(" (", 1)[0]
    expect(field_box(page, "Name")).to_have_value(name)
