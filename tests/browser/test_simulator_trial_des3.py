"""The simulator keeps a person's chat, found in a chat designer's trial (des3).

The first Save links on the bundled data (`make run`'s mode) started the chat over; a switch of
scene (even away and straight back) dropped every step written, without a word, while the page
said its data were "read and saved in place"; and the Version box's accessible name was HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .test_simulator_journey import HEADING, _calls, _fill, _pick, _send, _settled, _slide, _status

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {
    "simulator": {
        "message_pick",
        "played",
        "save_links",
        "scene_picker",
        "send",
        "show",
        "swipe",
        "version_pick",
    }
}


def test_the_first_save_links_on_the_bundled_data_keeps_the_chat(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], tmp_path: Path
) -> None:
    """Found in a trial: with no --data, the first Save links moved the data to the workspace and
    started the chat over (the person's turn gone, the slider back at 6) while saying "Saved".
    The steps and the slider stay, played again on the saved links."""
    home = tmp_path / "xdg"
    page = open_page(serve("simulator.py", env={"XDG_DATA_HOME": str(home)}), HEADING)
    _status(page, "12 live messages")
    page.get_by_text("read in place; the first save copies it to your workspace").first.wait_for()
    _slide(page, "ArrowLeft", 3)
    _status(page, "3 of 6 scripted steps")
    _send(
        page,
        "I check my wounds.",
        _calls('{"tracker": "Health", "set": {"hp": 20}}'),
        "You bind the cut.",
    )
    _status(page, "8 live messages")
    page.get_by_text("8 · assistant: You bind the cut.").first.wait_for()

    page.get_by_role("checkbox", name="Weather (weather)").check()
    page.get_by_role("button", name="Save links").click()
    workspace = home / "trackerkit" / "workspace"
    page.locator(".tk-link-note").filter(
        has_text=f"({workspace / 'scenes' / 'fight.json'})."
    ).wait_for()
    page.get_by_text(f"Your workspace {workspace}: read and saved in place.").first.wait_for()
    page.locator(".tk-panel [data-tracker='weather']").first.wait_for()
    _status(page, "3 of 6 scripted steps")
    _status(page, "8 live messages")
    page.get_by_text("8 · assistant: You bind the cut.").first.wait_for()
    page.locator(".tk-panel [data-tracker='health']").get_by_text("hp 20").first.wait_for()


def test_switching_scenes_keeps_each_scenes_steps_and_says_a_reload_drops_them(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Found in a trial: picking shop and then fight again started fight's chat from nothing, with
    no warning, under a header saying the data were "read and saved in place". Each scene keeps
    its steps for the page, a warning beside the picker says a reload drops them, and the header
    says the chat is not saved (a reload does start over, as the warning said)."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    page.get_by_text(
        "the chat you write is kept while the page is open, and is not saved"
    ).first.wait_for()
    expect(page.locator(".tk-unsaved-chat")).to_have_count(0)
    _send(
        page,
        "I check my wounds.",
        _calls('{"tracker": "Health", "set": {"hp": 20}}'),
        "You bind the cut.",
    )
    _status(page, "14 live messages")
    warning = page.locator(".tk-unsaved-chat")
    expect(warning).to_contain_text("fight 1 step")
    expect(warning).to_contain_text("a reload drops them")

    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    _send(page, "I haggle.", "[]", "Old Marrow shrugs.")
    expect(warning).to_contain_text("shop 1 step, fight 1 step")
    _pick(page, "Scene", "fight")
    _status(page, "Ambush on the causeway")
    _status(page, "14 live messages")
    page.get_by_text("14 · assistant: You bind the cut.").first.wait_for()
    page.locator(".tk-panel [data-tracker='health']").get_by_text("hp 20").first.wait_for()
    expect(warning).to_contain_text("fight 1 step, shop 1 step")
    page.get_by_label("Scene", exact=True).scroll_into_view_if_needed()
    screenshot(page, "simulator-kept-steps")

    page.reload()
    _status(page, "12 live messages")
    expect(page.locator(".tk-unsaved-chat")).to_have_count(0)


def test_the_version_box_is_named_by_its_text(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], data_copy: Path
) -> None:
    """Found in a trial: the "Version (from 1)" box's accessible name was its label's HTML (marimo's
    number box), so a screen reader read markup and no label found it. It is named by its text."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    version = page.get_by_label("Version (from 1)", exact=True)
    expect(version).to_have_count(1)
    assert "<" not in (version.get_attribute("aria-label") or "")
    _settled(page, 6)
    _pick(page, "Message", "message 12 ·")
    for typed in ("2", "two"):
        said = f"message 12 has 1 version (1 to 1); there is no version {typed}"
        _show_version(page, typed, said)


def _show_version(page: Any, typed: str, said: str) -> None:
    """Type `typed` in the version box, press Show version, and wait for the refusal `said`.

    The box is drawn anew when the page answers the message picked just before; what was typed
    into the box it replaced is gone (CI once pressed Show version on the new box's 1). Typed
    again then, as a person would, up to three times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    for attempt in range(3):
        _fill(page, "Version (from 1)", typed)
        expect(page.get_by_label("Version (from 1)", exact=True)).to_have_value(typed)
        page.get_by_role("button", name="Show version").click()
        refusal = page.locator(".tk-outcome.tk-refused").filter(has_text=said).first
        try:
            refusal.wait_for(timeout=20_000)
            return
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise


def test_a_swipe_stays_on_its_reply_when_the_slider_moves(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Found in a trial: a swipe of the last reply (message 12) became version 2 of message 6 when
    "Scripted steps played" moved from 6 to 3, and the page said done. The swipe is refused, in
    words, while its reply is not played, and is back on message 12 when the slider is."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _fill(page, "Reply", "You rest, but a rat bites you.")
    _fill(
        page,
        "The model's tool calls (JSON list)",
        _calls('{"tracker": "Health", "set": {"hp": 33}}'),
    )
    page.get_by_role("button", name="Swipe").click()
    page.get_by_text(
        "12 · assistant · version 2 of 2: You rest, but a rat bites you."
    ).first.wait_for()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 7 (swipe) done.").first.wait_for()

    _slide(page, "ArrowLeft", 3)
    _status(page, "3 of 6 scripted steps")
    _status(page, "6 live messages")
    page.locator(".tk-outcome.tk-refused").filter(has_text="Step 4 (swipe) was refused").filter(
        has_text="The swipe was made on the reply m12"
    ).first.wait_for()
    expect(page.get_by_text("You rest, but a rat bites you.")).to_have_count(0)
    expect(page.get_by_text("version 2 of 2")).to_have_count(0)
    screenshot(page, "simulator-swipe-after-slider")

    _slide(page, "End")
    _status(page, "6 of 6 scripted steps")
    page.get_by_text(
        "12 · assistant · version 2 of 2: You rest, but a rat bites you."
    ).first.wait_for()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 7 (swipe) done.").first.wait_for()
