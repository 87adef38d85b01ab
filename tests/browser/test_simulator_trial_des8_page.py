"""The simulator's refusals, a person's edit beside the reply's writes, and a reply to a message a
cut left unanswered, found in a designer's trial (des8, findings 1, 2 and 7).

A refused typo stayed as a red banner above the chat for good (one per typo, even after its
message was cut away); an edit that brought hp back hid the reply's own hp change under its
message; and after a cut at a reply the person's message left at the end could never be answered.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .test_simulator_journey import HEADING, _calls, _fill, _pick, _send, _settled, _status

#: The controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {
    "simulator": {
        "calls_json",
        "cut",
        "edit_button",
        "edit_set",
        "message_pick",
        "regenerate",
        "reply_text",
        "reply_to",
        "send",
        "show",
        "user_text",
        "version_pick",
    }
}

BITE = _calls('{"tracker": "Health", "set": {"hp": 14, "mood": "tense"}}')


def _bitten(page: Any) -> None:
    """Fight's 12 scripted messages, then a turn whose reply writes hp 40 → 14 and mood (m14)."""
    _status(page, "12 live messages")
    _send(page, "A rat bites me.", BITE, "Ouch.")
    _status(page, "14 live messages")
    _settled(page, 7)


def test_a_refused_typo_is_said_at_its_control_then_kept_in_the_list_of_steps(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Two version typos: only the last is said (at its control), none above the chat; after a
    cut of their message no refusal is shown as current, and both stay in "Your steps"."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _bitten(page)
    refused = page.locator(".tk-outcome.tk-refused")
    for number, version in ((8, "7"), (9, "8")):
        _pick(page, "Message", "message 14 ·")
        _fill(page, "Version (from 1)", version)
        page.get_by_role("button", name="Show version").click()
        refused.filter(has_text=f"Step {number} (show_version) was refused").filter(
            has_text=f"message 14 has 1 version (1 to 1); there is no version {version}"
        ).first.wait_for()
        _settled(page, number)
    expect(refused).to_have_count(1)
    expect(refused.filter(has_text="Step 8 (show_version)")).to_have_count(0)

    _pick(page, "Message", "message 13 ·")
    page.get_by_role("button", name="Cut from here").click()
    _status(page, "12 live messages")
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 10 (cut) done.").first.wait_for()
    expect(refused).to_have_count(0)

    page.get_by_text("Your steps: 4 (2 refused)").first.click()
    listed = page.locator(".tk-steps:visible .tk-step")
    expect(listed).to_have_count(4)
    kept = page.locator(".tk-steps:visible .tk-step-refused")
    expect(kept).to_have_count(2)
    expect(kept.nth(0)).to_contain_text("Step 8 (show_version) was refused")
    expect(kept.nth(1)).to_contain_text("there is no version 8")
    expect(listed.nth(3)).to_have_text("Step 10 (cut) done.")
    page.get_by_text("Your steps: 4 (2 refused)").first.scroll_into_view_if_needed()
    screenshot(page, "simulator-des8-steps-list")


def test_the_replys_writes_and_the_persons_edit_are_shown_apart(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """The reply wrote hp 40 → 14 and mood; an edit of hp 50 (clamped to 40) keeps the reply's
    chips under message 14 and shows "Edited by you: hp 14 → 40" apart. A reply writing only mood
    then an edit of hp: the hp change is the person's, never a chip of the reply's. The panel
    says each time whether the value shown was the person's edit or the reply's write."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _bitten(page)
    _fill(page, "Set (JSON)", '{"hp": 50}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 8 (edit) done").first.wait_for()
    reply = page.locator(".tk-message-changes[data-message-id='m14']")
    expect(reply).to_contain_text("hp 40 → 14")
    expect(reply).to_contain_text("mood calm → tense")
    edited = page.locator(".tk-edited[data-message-id='m14']")
    expect(edited).to_contain_text("Edited by you:")
    expect(edited).to_contain_text("hp 14 → 40")
    expect(edited).not_to_contain_text("mood")
    health = page.locator(".tk-panel [data-tracker='health']")
    health.get_by_text("hp 40").first.wait_for()
    # The panel says the value shown is the person's edit, not the reply's (trial nu4).
    expect(health.locator(".tk-changed-by")).to_have_text("edited by you at message 14")
    edited.scroll_into_view_if_needed()
    screenshot(page, "simulator-des8-edit-apart")

    _send(page, "I calm down.", _calls('{"tracker": "Health", "set": {"mood": "calm"}}'), "Ah.")
    _status(page, "16 live messages")
    _settled(page, 9)
    expect(health.locator(".tk-changed-by")).to_have_text("changed by message 16")
    _fill(page, "Set (JSON)", '{"hp": 5}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 10 (edit) done").first.wait_for()
    reply = page.locator(".tk-message-changes[data-message-id='m16']")
    expect(reply).to_contain_text("mood tense → calm")
    expect(reply).not_to_contain_text("hp")
    expect(page.locator(".tk-edited[data-message-id='m16']")).to_contain_text("hp 40 → 5")
    expect(health.locator(".tk-changed-by")).to_have_text("edited by you at message 16")


def test_a_message_a_cut_left_unanswered_gets_its_reply(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Cut at the reply: the page says message 13 has no reply yet, Regenerate is refused naming
    Reply to last message, and that button writes message 14 after it, with its calls."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _bitten(page)
    _pick(page, "Message", "message 14 ·")
    page.get_by_role("button", name="Cut from here").click()
    _status(page, "13 live messages")
    unanswered = page.locator(".tk-unanswered")
    expect(unanswered).to_contain_text("Message 13, yours, has no reply yet")

    page.get_by_role("button", name="Regenerate").click()
    page.locator(".tk-outcome.tk-refused").filter(
        has_text="Nothing to regenerate: the last message (message 13) is yours, not a reply. "
        "Press Reply to last message to answer it."
    ).first.wait_for()
    _status(page, "13 live messages")

    _fill(page, "Reply", "The rat flees.")
    _fill(
        page,
        "The model's tool calls (JSON list)",
        _calls('{"tracker": "Health", "set": {"hp": 12}}'),
    )
    page.get_by_role("button", name="Reply to last message").click()
    _status(page, "14 live messages")
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 10 (reply) done.").first.wait_for()
    page.get_by_text("13 · user: A rat bites me.").first.wait_for()
    page.get_by_text("14 · assistant: The rat flees.").first.wait_for()
    expect(page.get_by_text("15 · ")).to_have_count(0)
    page.locator(".tk-panel [data-tracker='health']").get_by_text("hp 12").first.wait_for()
    expect(unanswered).to_have_count(0)
    page.get_by_text("14 · assistant: The rat flees.").first.scroll_into_view_if_needed()
    screenshot(page, "simulator-des8-reply-to-last")
