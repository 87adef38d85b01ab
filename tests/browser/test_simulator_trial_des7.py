"""The simulator beside the designer, found in a designer's trial (des7).

An edit or a turn's batch the page refused for a field the tracker did not have was written on
the open page once a designer save added a field of that name; and a scene written after the page
opened (the designer's Import… takes one into the library) never joined the Scene picker, while a
reload, the only way to see it, dropped every chat.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trackerkit import Draft, design
from trackerkit.library import Library

from .test_simulator_journey import HEADING, _calls, _pick, _send, _settled, _status

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {
    "simulator": {
        "calls_json",
        "edit_button",
        "edit_set",
        "reply_text",
        "reread_scenes",
        "scene_picker",
        "send",
        "user_text",
    }
}


def test_a_refused_edit_and_batch_stay_refused_after_the_field_is_added(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Health has no field foo or bar: an edit of foo and a turn setting bar are refused. The
    designer adds both fields and saves; back on fight (a switch reads the save) both are still
    refused in the same words, and the panel holds mood calm, hp 40, foo 0 and bar 0."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _settled(page, 6)
    page.get_by_label("Set (JSON)", exact=True).fill('{"foo": 3, "mood": "tense"}')
    page.get_by_role("button", name="Edit value").click()
    edit_refused = "Item 1 (Health, foo): Health has no field 'foo' (fields: hp, hp_max, mood)"
    page.locator(".tk-outcome.tk-refused").filter(has_text=edit_refused).first.wait_for()
    _send(
        page,
        "I swing.",
        _calls('{"tracker": "Health", "set": {"bar": 7, "hp": 5}}'),
        "Steel rings.",
    )
    _status(page, "14 live messages")
    batch = page.locator(".tk-refused").filter(has_text="Refused batch (round 1")
    batch_refused = "Health has no field 'bar' (fields: hp, hp_max, mood)"
    batch.filter(has_text=batch_refused).first.wait_for()

    library = Library(data_copy / "trackers")
    draft = Draft.open(library.get("health")).add_field("foo", "number").add_field("bar", "number")
    saved = design.save(draft, library)
    assert saved.kind == "saved", saved.message

    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    _pick(page, "Scene", "fight")
    _status(page, "Ambush on the causeway")
    _status(page, "14 live messages")
    health = page.locator(".tk-panel [data-tracker='health']")
    health.get_by_text("foo 0").first.wait_for()
    for shown in ("mood calm", "hp 40", "bar 0"):
        health.get_by_text(shown).first.wait_for()
    expect(health.get_by_text("mood tense")).to_have_count(0)
    # The edit (no longer the last step, and refused when it was added: its control said so
    # then) is kept in the list of the person's steps, not said above the chat (trial des8).
    page.get_by_text("Your steps: 2 (1 refused)").first.click()
    page.locator(".tk-steps:visible .tk-step-refused").filter(
        has_text="Step 7 (edit) was refused"
    ).filter(has_text=edit_refused).first.wait_for()
    batch.filter(has_text=batch_refused).first.wait_for()
    expect(page.get_by_text("bar 0 → 7")).to_have_count(0)
    batch.first.scroll_into_view_if_needed()
    screenshot(page, "simulator-refused-stays-refused")


def _scene_named(data: Path, name: str, title: str) -> None:
    """A scene written into the folder while the page is open, as the designer's Import… does."""
    scene = json.loads((data / "scenes" / "shop.json").read_text(encoding="utf-8"))
    scene.update(id=name, title=title)
    (data / "scenes" / f"{name}.json").write_text(json.dumps(scene), encoding="utf-8")


def test_a_scene_written_later_joins_the_picker_and_the_chat_stays(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """A scene written after the page opened is listed after Re-read scenes, and one written
    later still after a switch of scene; fight's turn is there all along."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _send(page, "I check my wounds.", _calls('{"tracker": "Health", "set": {"hp": 20}}'), "Bound.")
    _status(page, "14 live messages")
    picker = page.get_by_label("Scene", exact=True)

    _scene_named(data_copy, "mvu", "An imported book")
    expect(picker.locator("option", has_text="mvu")).to_have_count(0)
    page.get_by_role("button", name="Re-read scenes").click()
    expect(picker.locator("option", has_text="mvu")).to_have_count(1)
    expect(picker).to_have_value("fight")
    _status(page, "14 live messages")
    page.get_by_text("14 · assistant: Bound.").first.wait_for()

    _scene_named(data_copy, "later", "Written later")
    _pick(page, "Scene", "mvu")
    _status(page, "An imported book")
    expect(picker.locator("option", has_text="later")).to_have_count(1)
    _pick(page, "Scene", "fight")
    _status(page, "Ambush on the causeway")
    _status(page, "14 live messages")
    page.get_by_text("14 · assistant: Bound.").first.wait_for()
    page.locator(".tk-panel [data-tracker='health']").get_by_text("hp 20").first.wait_for()
    picker.scroll_into_view_if_needed()
    screenshot(page, "simulator-scenes-reread")
