"""The simulator after a designer's save, and the text a person has typed but not sent.

Found by a designer trying the simulator: after Health.hp_max was renamed and saved, the fight
scene's own scripted steps naming hp_max were refused on the open page and nothing said why; and
text typed in the turn boxes or the edit form was gone after switching scenes and back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from trackerkit import Draft, design
from trackerkit.library import Library

from .test_simulator_journey import HEADING, _calls, _fill, _pick, _send, _settled, _status

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {
    "simulator": {
        "calls_json",
        "continue_text",
        "edit_button",
        "edit_row",
        "edit_set",
        "edit_tracker",
        "reply_text",
        "scene_picker",
        "send",
        "user_text",
    }
}


def test_a_rename_saved_in_the_designer_is_said_for_the_scenes_own_steps(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """With the page open, Health.hp_max is renamed to hp_top and saved: the person's turn keeps
    its value under the new name, and a note names the scene, its steps 1, 4 and 5, the rename,
    and the file to edit."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    expect(page.locator(".tk-outdated")).to_have_count(0)
    _send(
        page,
        "I drink a draught.",
        _calls('{"tracker": "Health", "set": {"hp_max": 44, "hp": 41}}'),
        "You feel hardier.",
    )
    _status(page, "14 live messages")
    health = page.locator(".tk-panel [data-tracker='health']")
    health.get_by_text("hp_max 44").first.wait_for()

    library = Library(data_copy / "trackers")
    draft = Draft.open(library.get("health"))
    saved = design.save(draft.rename_field(draft.key("hp_max"), "hp_top"), library)
    assert saved.kind == "saved", saved.message

    _send(page, "I rest.", "[]", "You sit down.")
    _status(page, "16 live messages")
    note = page.locator(".tk-outdated")
    expect(note).to_have_count(1)
    expect(note).to_contain_text(
        "Scene fight: its own scripted steps 1, 4 and 5 set Health.hp_max, which a designer save "
        "renamed to hp_top (the save that made revision 1): their calls are refused"
    )
    expect(note).to_contain_text(
        f"Edit the scene: in {data_copy / 'scenes' / 'fight.json'}, write hp_top for hp_max"
    )
    # The person's own turn was pinned to revision 0: it still writes 44, now as hp_top.
    health.get_by_text("hp_top 44").first.wait_for()
    note.scroll_into_view_if_needed()
    screenshot(page, "simulator-scene-outdated")


#: The turn boxes and the edit form, by label.
USER, REPLY, CALLS = "User message", "Reply", "The model's tool calls (JSON list)"
CONTINUE, EDIT_SET = "Continue with (added to the last reply)", "Set (JSON)"


def test_text_typed_and_not_sent_is_kept_per_scene(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Text typed in fight's turn boxes and edit form, not sent, is there again after switching
    to shop and back; shop's boxes start as its own and keep what was typed in them; the edit
    kept is then sent as typed."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _settled(page, 6)
    typed = {
        USER: "I duck behind the cart.",
        REPLY: "Bolts thud into the wood.",
        CALLS: _calls('{"tracker": "Stamina", "set": {"stamina": 4}}'),
        CONTINUE: "You stay low.",
    }
    for label, text in typed.items():
        _fill(page, label, text)
    _pick(page, "Edit tracker", "Stamina")
    expect(page.get_by_label(EDIT_SET, exact=True)).to_have_value('{"stamina": 20}')
    # Typed, and straight to the scene picker: a person does not press Tab first.
    page.get_by_label(EDIT_SET, exact=True).fill('{"stamina": 3}')
    page.get_by_label("Scene", exact=True).click()
    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    expect(page.get_by_label(USER, exact=True)).to_have_value("I check my wounds.")
    expect(page.get_by_label(CALLS, exact=True)).to_contain_text('"tracker": "Inventory"')
    _fill(page, USER, "I haggle hard.")

    _pick(page, "Scene", "fight")
    _status(page, "Ambush on the causeway")
    for label, text in typed.items():
        expect(page.get_by_label(label, exact=True)).to_have_value(text)
    expect(page.get_by_label("Edit tracker", exact=True)).to_have_value("Stamina")
    expect(page.get_by_label(EDIT_SET, exact=True)).to_have_value('{"stamina": 3}')
    page.get_by_label(USER, exact=True).scroll_into_view_if_needed()
    screenshot(page, "simulator-unsent-kept")

    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    expect(page.get_by_label(USER, exact=True)).to_have_value("I haggle hard.")
    _pick(page, "Scene", "fight")
    _status(page, "Ambush on the causeway")
    _settled(page, 6)
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 7 (edit) done.").first.wait_for()
    page.locator(".tk-panel [data-tracker='stamina']").get_by_text("stamina 3").first.wait_for()
    # Sent: the form starts again from the values as they now stand.
    expect(page.get_by_label(EDIT_SET, exact=True)).to_have_value('{"stamina": 3}')
    _send(page, "I stand.", "[]", "You rise.")
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 8 (turn) done.").first.wait_for()
