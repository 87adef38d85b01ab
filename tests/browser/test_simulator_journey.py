"""The simulator under a person's hands (issue 13 items 9 to 12): each step asserts what the page shows.

The app plays a temporary copy of the bundled data (`-- --data DIR`), so a run leaves the
repository's scenes and trackers alone. The harness fails a test on any traceback in the server's
log and on any marimo error the page shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from trackerkit.simulate.page import calls_example, edit_prefill
from trackerkit.simulate.playback import play_page

HEADING = "Session simulator"
#: The simulator's controls these journeys drive (tests/browser/test_controls.py reads this).
TOUCHES = {
    "simulator": {
        "calls_json",
        "continue_",
        "continue_text",
        "cut",
        "edit_button",
        "edit_row",
        "edit_set",
        "edit_tracker",
        "fork",
        "link_checks",
        "message_pick",
        "mo.ui.checkbox",
        "mo.ui.plotly",
        "mo.ui.table",
        "played",
        "protocol_pick",
        "regenerate",
        "reply_text",
        "save_links",
        "scene_picker",
        "send",
        "series_pick",
        "show",
        "swipe",
        "take_pick",
        "undo",
        "use_take",
        "user_text",
        "version_pick",
    }
}
ROOT = Path(__file__).resolve().parents[2]


def _settled(page: Any, played: int) -> None:
    """Wait until the controls are drawn after `played` steps (scripted and added), so a pick sticks."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    expect(page.locator(f'.tk-played[data-played="{played}"]')).to_have_count(2, timeout=60_000)


def _pick(page: Any, label: str, option_text: str) -> None:
    """Choose, in the select labelled `label`, the option whose text holds `option_text`."""
    select = page.get_by_label(label, exact=True)
    option = select.locator("option", has_text=option_text).first
    select.select_option(label=option.inner_text().strip())


def _fill(page: Any, label: str, text: str) -> None:
    """Type `text` into the field labelled `label` and leave it, so marimo takes the value."""
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Tab")


def _calls(updates: str) -> str:
    return '[{"name": "update_trackers", "arguments": {"updates": [' + updates + "]}}]"


def _slide(page: Any, key: str, times: int = 1) -> None:
    """Press `key` on the "Scripted steps played" slider `times` times."""
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(times):
        slider.press(key)


def _status(page: Any, text: str) -> None:
    page.get_by_text(text).first.wait_for()


def _send(page: Any, user: str, calls: str, reply: str) -> None:
    _fill(page, "User message", user)
    _fill(page, "Reply", reply)
    _fill(page, "The model's tool calls (JSON list)", calls)
    page.get_by_role("button", name="Send turn").click()


def test_simulator_marks_refusals_clamps_ids_and_takes(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Refused batches and clamps under replies, malformed JSON refused, stable ids, a fork and a switch back."""
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")

    # Item 10: the scripted fight already holds a refused batch (round 1 of message 6) and a clamp
    # (hp 55 asked under a top of 40 at message 10); each shows under its reply.
    refused = page.locator(".tk-refused").filter(has_text="Health has no field 'morale'")
    refused.first.wait_for()
    assert "Refused batch (round 1, update_trackers)" in refused.first.inner_text()
    page.locator(".tk-clamped").filter(
        has_text="Health · hp: asked 55, written 40"
    ).first.wait_for()

    # Item 12: one numbering and ids that do not move when the page plays its steps again.
    _send(
        page,
        "I check my wounds.",
        _calls('{"tracker": "Health", "set": {"hp": 20}}'),
        "You bind the cut.",
    )
    _status(page, "14 live messages")
    panel = page.locator(".tk-panel")
    changed = panel.locator('.tk-changed-by[data-message="m14"]', has_text="changed by message 14")
    changed.first.wait_for()
    message_select = page.get_by_label("Message", exact=True)
    assert (
        message_select.locator(
            "option", has_text="message 14 · assistant · You bind the cut."
        ).count()
        == 1
    )
    _send(page, "I look around.", "[]", "Nothing stirs.")
    _status(page, "16 live messages")
    changed.first.wait_for()
    assert panel.get_by_text("hp 20").count() >= 1

    # Item 10: a clamp on a new reply shows what was asked and what was written.
    _send(
        page,
        "I drink a potion.",
        _calls('{"tracker": "Health", "set": {"hp": 80}}'),
        "You feel whole.",
    )
    _status(page, "18 live messages")
    page.locator(".tk-clamped").filter(
        has_text="Health · hp: asked 80, written 40"
    ).first.wait_for()
    page.locator(".tk-outcome").filter(
        has_text="clamped: Health · hp: asked 80, written 40"
    ).first.wait_for()

    # Item 10: a batch the rules refuse shows under its reply with its error.
    _send(
        page,
        "I count my coins.",
        _calls('{"tracker": "Health", "set": {"gold": 5}}'),
        "You have none.",
    )
    _status(page, "20 live messages")
    page.locator(".tk-refused").filter(has_text="Health has no field 'gold'").first.wait_for()

    # Item 10: tool calls that are not JSON are refused with the parser's message and position.
    _send(page, "I shout.", '[{"name": "update_trackers"', "Echoes.")
    outcome = page.locator(".tk-outcome.tk-refused").filter(
        has_text="The tool calls are not valid JSON"
    )
    outcome.first.wait_for()
    assert "line 1, column 28 (character 27)" in outcome.first.inner_text()
    _status(page, "20 live messages")
    calls_box = page.get_by_label("The model's tool calls (JSON list)", exact=True)
    assert calls_box.input_value() == '[{"name": "update_trackers"', (
        "what was typed stays, to be fixed"
    )
    screenshot(page, "simulator-refusals")

    # Item 11: fork at message 12, play a turn there, then switch back to the first take.
    _settled(page, 11)  # the fight's 6 scripted steps and the 5 turns sent here
    _pick(page, "Message", "message 12 ·")
    page.get_by_role("button", name="Fork here").click()
    _status(page, "take t2")
    _status(page, "12 live messages")
    page.get_by_text("Step 6 (turn) · wrote message 12").first.wait_for()
    _send(
        page, "I run.", _calls('{"tracker": "Health", "set": {"hp": 5}}'), "You flee the causeway."
    )
    _status(page, "14 live messages")
    # One numbering: the last turn is headed with its step's number, as its outcome line says it
    # (the refused JSON step and the fork count as steps too: this is step 13, not turn 11).
    page.get_by_text("Step 13 (turn) · wrote message 14").first.wait_for()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 13 (turn) done.").first.wait_for()
    expect(page.get_by_text("Turn 11", exact=False)).to_have_count(0)
    panel.get_by_text("hp 5").first.wait_for()
    take_select = page.get_by_label("Take", exact=True)
    assert (
        take_select.locator(
            "option", has_text="t2 · forked from t1 at message 12 · 14 messages"
        ).count()
        == 1
    )
    _settled(page, 13)
    _pick(page, "Take", "t1 · the first take")
    page.get_by_role("button", name="Show take").click()
    _status(page, "take t1")
    _status(page, "20 live messages")
    page.get_by_text("Step 10 (turn) · wrote message 20").first.wait_for()
    panel.get_by_text("hp 40").first.wait_for()
    screenshot(page, "simulator-takes")

    # Versions count from 1, as "version 2 of 2" does; a version out of range is a message.
    _fill(page, "Reply", "The coins were never there.")
    page.get_by_role("button", name="Swipe").click()
    page.get_by_text("version 2 of 2").first.wait_for()
    _settled(page, 15)
    _pick(page, "Message", "message 20 ·")
    _fill(page, "Version (from 1)", "1")
    page.get_by_role("button", name="Show version").click()
    page.get_by_text("version 1 of 2").first.wait_for()
    _settled(page, 16)
    _pick(page, "Message", "message 20 ·")
    _fill(page, "Version (from 1)", "5")
    page.get_by_role("button", name="Show version").click()
    page.locator(".tk-outcome.tk-refused").filter(
        has_text="message 20 has 2 versions (1 to 2); there is no version 5"
    ).first.wait_for()


def test_simulator_edits_the_scenes_own_trackers(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """On a scene without Health the edit form starts from the scene's own tracker; refusals are messages."""
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    expected_row, expected_set = edit_prefill(
        play_page(data_copy / "scenes" / "shop.json", []).session.chat, "Inventory"
    )
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    set_box = page.get_by_label("Set (JSON)", exact=True)
    expect(set_box).to_have_value(expected_set, timeout=60_000)
    assert "hp" not in expected_set
    expect(page.get_by_label("Row (lists)", exact=True)).to_have_value(expected_row, timeout=60_000)
    # The example tool call is the scene's own too, not Health's.
    example = calls_example(play_page(data_copy / "scenes" / "shop.json", []).session.chat)
    assert '"tracker": "Inventory"' in example
    calls_box = page.get_by_label("The model's tool calls (JSON list)", exact=True)
    expect(calls_box).to_have_value(example, timeout=60_000)

    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 6 (edit) done.").first.wait_for()

    _fill(page, "Set (JSON)", '{"hp": 25}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-refused").filter(
        has_text="Inventory has no field 'hp'"
    ).first.wait_for()

    _fill(page, "Set (JSON)", '{"qty": ')
    page.get_by_role("button", name="Edit value").click()
    refused = page.locator(".tk-outcome.tk-refused").filter(
        has_text="The values to set are not valid JSON"
    )
    refused.first.wait_for()
    assert "line 1, column 9 (character 8)" in refused.first.inner_text()
    assert set_box.input_value() == '{"qty": ', "a refused edit keeps what was typed"
    screenshot(page, "simulator-edit")

    # A row of a list, then a value the rules clamp: the outcome says what was asked and written.
    _fill(page, "Row (lists)", "Lantern")
    _fill(page, "Set (JSON)", '{"qty": 3}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 9 (edit) done.").first.wait_for()
    inventory = page.locator(".tk-panel [data-tracker='inventory']")
    inventory.get_by_text("qty 3").first.wait_for()
    _fill(page, "Row (lists)", "Lantern")
    _fill(page, "Set (JSON)", '{"qty": -5}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(
        has_text="Step 10 (edit) done; clamped: Inventory · Lantern · qty: asked -5, written 0."
    ).first.wait_for()

    # Another tracker of the scene: the form starts from its own first field.
    _, quest_set = edit_prefill(
        play_page(data_copy / "scenes" / "shop.json", []).session.chat, "Quest"
    )
    _settled(page, 10)
    page.get_by_label("Edit tracker", exact=True).select_option(label="Quest")
    expect(set_box).to_have_value(quest_set, timeout=60_000)
    expect(page.get_by_label("Row (lists)", exact=True)).to_have_value("", timeout=60_000)

    # What was typed and not sent stays while another step redraws the form, then is sent as typed.
    _fill(page, "Set (JSON)", '{"gold": 7}')
    _send(page, "I wait.", "[]", "Time passes.")
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 11 (turn) done.").first.wait_for()
    _settled(page, 11)
    expect(set_box).to_have_value('{"gold": 7}', timeout=60_000)
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 12 (edit) done.").first.wait_for()
    page.locator(".tk-panel [data-tracker='quest']").get_by_text("gold 7").first.wait_for()

    # Found when tried: an emptied Set (JSON) box reported the edit "done".
    _settled(page, 12)
    _fill(page, "Set (JSON)", "")
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-refused").filter(
        has_text="Step 13 (edit) was refused, nothing was written: Nothing to set"
    ).first.wait_for()


def test_simulator_links_trackers_into_the_scene(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Item 6: a check per library tracker links it into the scene, written in the workspace only."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    bundled = (ROOT / "data" / "scenes" / "shop.json").read_bytes()
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    page.get_by_text(f"Data folder {data_copy}").first.wait_for()
    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    weather = page.get_by_role("checkbox", name="Weather (weather)")
    expect(weather).not_to_be_checked()
    expect(page.get_by_role("checkbox", name="Inventory (inventory)")).to_be_checked()
    weather.check()
    page.get_by_role("button", name="Save links").click()
    scene_file = data_copy / "scenes" / "shop.json"
    page.locator(".tk-link-note").filter(
        has_text=f"Saved: shop links inventory, quest, weather ({scene_file})."
    ).wait_for()
    page.locator(".tk-panel [data-tracker='weather']").first.wait_for()
    expect(page.get_by_role("checkbox", name="Weather (weather)")).to_be_checked()
    assert json.loads(scene_file.read_text())["prompting"]["trackers"] == [
        "inventory",
        "quest",
        "weather",
    ]
    page.get_by_label("Edit tracker", exact=True).locator(
        "option", has_text="Weather"
    ).first.wait_for(state="attached")
    screenshot(page, "simulator-links")

    page.get_by_role("checkbox", name="Inventory (inventory)").uncheck()
    page.get_by_role("button", name="Save links").click()
    page.locator(".tk-link-note").filter(has_text="Saved: shop links quest, weather").wait_for()
    expect(page.locator(".tk-panel [data-tracker='inventory']")).to_have_count(0)
    # The scene's scripted expectations about Inventory now fail, and the page lists them.
    _status(page, "expectations not met")
    page.locator(".tk-unmet li").filter(
        has_text="Inventory is not a loaded tracker"
    ).first.wait_for()
    assert (ROOT / "data" / "scenes" / "shop.json").read_bytes() == bundled, (
        "the repository's scene is untouched"
    )

    # Found in a trial: the note stayed under another scene's checks, as if it had been saved.
    _pick(page, "Scene", "fight")
    _status(page, "12 live messages")
    expect(page.locator(".tk-link-note").filter(has_text="Saved:")).to_have_count(0)
    _pick(page, "Scene", "shop")
    page.locator(".tk-link-note").filter(has_text="Saved: shop links quest, weather").wait_for()


def test_simulator_shows_failures_in_their_section(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Item 13: a scene that cannot be read and a scripted step the chat refuses are messages in their sections."""
    (data_copy / "scenes" / "broken.json").write_text('{"id": "broken",')
    scene = json.loads((data_copy / "scenes" / "fight.json").read_text())
    scene["turns"].append({"action": "cut", "message": "m99"})
    (data_copy / "scenes" / "cutgone.json").write_text(json.dumps(scene))
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    # A --data that is a file, not a folder, is a message where the data folder is named.
    not_a_folder = data_copy / "scenes" / "fight.json"
    other = open_page(serve("simulator.py", "--data", str(not_a_folder)), HEADING)
    other.locator(".tk-failure").filter(
        has_text=f"The data folder could not be shown: --data: {not_a_folder} is not a folder"
    ).first.wait_for()
    other.get_by_text("No scene is playing; the message above says why.").first.wait_for()
    other.close()

    _pick(page, "Scene", "broken")
    failure = page.locator(".tk-failure").filter(has_text="The scene could not be shown")
    failure.first.wait_for()
    assert "broken.json: not valid JSON" in failure.first.inner_text()
    page.locator(".tk-failure").filter(has_text="The links could not be shown").first.wait_for()
    page.get_by_text("No scene is playing; the message above says why.").first.wait_for()
    page.get_by_text("No scene is playing, so there is no value to edit.").first.wait_for()
    screenshot(page, "simulator-broken-scene")

    _pick(page, "Scene", "cutgone")
    _status(page, "7 of 7 scripted steps")
    page.locator(".tk-outcome.tk-refused").filter(
        has_text="Step 7 (cut) was refused, nothing was written: Take 't1' has no live message 'm99'."
    ).first.wait_for()
    _status(page, "12 live messages")


def test_simulator_every_other_control(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """The slider, Regenerate, Continue, Cut, Undo and the number picker each do what they say."""
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")

    # The last turn's tables: the request by part in tokens, and the tool call with its answer.
    page.get_by_text("Step 6 (turn) · wrote message 12").first.wait_for()
    parts = page.locator("table").filter(has_text="history").filter(has_text="tokens").first
    for part in ("card", "trackers", "tool", "history"):
        parts.get_by_role("cell", name=part, exact=True).first.wait_for()
    calls = page.locator("table").filter(has_text="update_trackers").first
    calls.get_by_text("Stamina: stamina 9 -> 20").first.wait_for()

    _slide(page, "ArrowLeft", 3)
    _status(page, "3 of 6 scripted steps")
    _status(page, "6 live messages")
    _slide(page, "End")
    _status(page, "6 of 6 scripted steps")
    _status(page, "12 live messages")

    _fill(page, "Reply", "The tide rises.")
    page.get_by_role("button", name="Regenerate").click()
    page.get_by_text("12 · assistant · version 2 of 2: The tide rises.").first.wait_for()
    # Continue extends the reply with its own text (TR-33); the Reply box is not pasted again.
    _fill(page, "Continue with (added to the last reply)", "Gulls cry.")
    page.get_by_role("button", name="Continue").click()
    page.get_by_text("version 2 of 2: The tide rises. Gulls cry.").first.wait_for()
    expect(page.get_by_text("The tide rises. The tide rises.", exact=False)).to_have_count(0)
    # Its outcome and the last turn's heading use one numbering (step 8: 6 scripted, then 2).
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 8 (continue) done.").first.wait_for()
    page.get_by_text("Step 8 (continue) · wrote message 12").first.wait_for()

    _settled(page, 8)
    # The message controls keep each label on one line at the default width.
    for name in ("Show version", "Cut from here", "Fork here", "Show take"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box is not None
        assert box.get("height", 0) < 40, f"{name!r} wraps: {box}"
    version_label = page.locator("label", has_text="Version (from 1)").first.bounding_box()
    assert version_label is not None
    assert version_label.get("height", 0) < 30, f"'Version (from 1)' wraps: {version_label}"
    _pick(page, "Message", "message 11 ·")
    page.get_by_role("button", name="Cut from here").click()
    _status(page, "10 live messages")
    page.get_by_role("button", name="Undo last").click()
    _status(page, "12 live messages")

    plot = page.locator(".js-plotly-plot")
    plot.locator(".xtitle", has_text="message (from 1)").first.wait_for()
    _pick(page, "Number", "Stamina · stamina")
    plot.locator(".gtitle", has_text="Stamina · stamina").first.wait_for()
    plot.first.scroll_into_view_if_needed()
    screenshot(page, "simulator-bars")


def test_simulator_keeps_an_edit_when_the_slider_moves(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Found in a trial: moving "Scripted steps played" dropped a person's edit without a word.

    The edit stays on the reply it was made on at another slider value, and so does a cut of
    the person's own reply (trial ui9: it cut a scripted reply instead).
    """
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    _slide(page, "ArrowLeft", 4)
    _status(page, "2 of 6 scripted steps")
    _status(page, "4 live messages")
    _send(
        page,
        "I check my wounds.",
        _calls('{"tracker": "Health", "set": {"hp": 20}}'),
        "You bind the cut.",
    )
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 3 (turn) done.").first.wait_for()
    _settled(page, 3)
    page.get_by_label("Edit tracker", exact=True).select_option(label="Health")
    _fill(page, "Set (JSON)", '{"hp": 18}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 4 (edit) done.").first.wait_for()
    health = page.locator(".tk-panel [data-tracker='health']")
    health.get_by_text("hp 18").first.wait_for()
    # The edit is said to stay over every version, and a row to be written whole (TR-21).
    page.get_by_text("On a list it writes the whole row as it stands").first.wait_for()

    _slide(page, "ArrowRight")
    _status(page, "3 of 6 scripted steps")
    _status(page, "8 live messages")
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 5 (edit) done.").first.wait_for()
    health.get_by_text("hp 18").first.wait_for()
    expect(page.locator(".tk-outcome.tk-refused")).to_have_count(0)
    screenshot(page, "simulator-edit-after-slider")

    # Cut from here drops the message picked and the ones after it (a fork keeps it).
    _settled(page, 5)
    cut = page.get_by_role("button", name="Cut from here")
    _pick(page, "Message", "message 8 ·")
    cut.click()
    _status(page, "7 live messages")
    _send(page, "I wait.", "[]", "Time passes.")
    _status(page, "9 live messages")
    # Found in trial ui9: at another slider the cut named the id its message had before, so it
    # cut another message (a scripted reply) and the person's turn went without a word. It
    # stays on the reply it was made on: at 2 scripted steps that reply is message 6.
    _slide(page, "ArrowLeft")
    _status(page, "2 of 6 scripted steps")
    _status(page, "7 live messages")
    page.get_by_text("5 · user: I check my wounds.").first.wait_for()
    page.get_by_text("6 · user: I wait.").first.wait_for()
    page.get_by_text("7 · assistant: Time passes.").first.wait_for()
    expect(page.get_by_text("You bind the cut.", exact=False)).to_have_count(0)
    expect(page.locator(".tk-outcome.tk-refused")).to_have_count(0)
    screenshot(page, "simulator-cut-after-slider")


def test_simulator_links_on_the_bundled_data_go_to_the_workspace(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], tmp_path: Path
) -> None:
    """With no --data the bundled scenes are read in place; the first link copies them to the workspace."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    bundled = (ROOT / "data" / "scenes" / "shop.json").read_bytes()
    home = tmp_path / "xdg"
    env = {"XDG_DATA_HOME": str(home), "TRACKERKIT_DATA": ""}
    page = open_page(serve("simulator.py", env=env), HEADING)
    _status(page, "12 live messages")
    page.get_by_text("read in place; the first save copies it to your workspace").first.wait_for()
    _pick(page, "Scene", "shop")
    _status(page, "Haggling at Old Marrow's")
    page.get_by_role("checkbox", name="Weather (weather)").check()
    page.get_by_role("button", name="Save links").click()
    workspace_scene = home / "trackerkit" / "workspace" / "scenes" / "shop.json"
    page.locator(".tk-link-note").filter(
        has_text=f"Saved: shop links inventory, quest, weather ({workspace_scene})."
    ).wait_for()
    page.get_by_text(
        f"Your workspace {home / 'trackerkit' / 'workspace'}: read and saved in place."
    ).first.wait_for()
    _status(page, "Haggling at Old Marrow's")  # the scene picked stays picked
    page.locator(".tk-panel [data-tracker='weather']").first.wait_for()
    expect(page.get_by_role("checkbox", name="Weather (weather)")).to_be_checked()
    assert json.loads(workspace_scene.read_text())["prompting"]["trackers"] == [
        "inventory",
        "quest",
        "weather",
    ]
    assert (ROOT / "data" / "scenes" / "shop.json").read_bytes() == bundled, (
        "the repository's scene is untouched"
    )


def test_simulator_plays_the_text_protocol_and_compares_it(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Issue 16 item 3: the protocol choice, a turn whose update travels as a hidden block, and the comparison."""
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "protocol tools")
    # The fight retries a refused batch in a second round: the comparison names where they part.
    differ = page.locator(".tk-protocols-differ")
    differ.first.wait_for()
    assert (
        "Step 3 (turn) (a retried batch: the text protocol answers it next turn): Health.hp: tools 12, text 22"
        in (differ.first.inner_text())
    )
    page.locator("table").filter(has_text="Stamina.stamina").first.wait_for()

    page.get_by_role("radio", name="text (a fenced block)").check()
    _status(page, "protocol text")
    _status(page, "4 expectations not met")
    page.get_by_text("Text protocol: no tool offered").first.wait_for()
    # A turn of one's own under the text protocol: the block is applied and never shown.
    _settled(page, 6)
    _send(
        page,
        "I bind the wound.",
        _calls('{"tracker": "Health", "set": {"hp": 33}}'),
        "You bind it tight.",
    )
    page.get_by_text("13 · user: I bind the wound.").first.wait_for()
    page.get_by_text("14 · assistant: You bind it tight.").first.wait_for()
    assert page.get_by_text("update_trackers\n{").count() == 0
    page.get_by_text("The update block and its answer").first.wait_for()
    page.locator("table").filter(has_text="[update_trackers] ").first.wait_for()
    page.get_by_text("Step 7 (turn) · wrote message 14").first.wait_for()
    screenshot(page, "simulator-text-protocol")

    # Single-round steps only (the shop): both protocols reach the same values.
    _pick(page, "Scene", "shop")
    page.locator(".tk-protocols-same").filter(
        has_text="Both protocols reach the same values at every step"
    ).first.wait_for()
    page.get_by_role("radio", name="tools (update_trackers)").check()
    _status(page, "protocol tools")


#: Text a scene file, a tracker file or a person holds where the page shows it: each must read as written.
HOSTILE_REPLY = (
    'The causeway is slick.<iframe srcdoc="<script>top.__pwned=11</script>" hidden></iframe>'
)
HOSTILE_NAME = '<h1>INJ</h1><img src=x onerror="top.__pwned=2"><marquee>m</marquee>'
HOSTILE_USER = '<style>body{display:none}</style><img src=x onerror="top.__pwned=3">I wade in.'
HOSTILE_FENCE = '```\n<img src=x onerror="top.__pwned=5"><marquee>fence</marquee>'


def test_html_in_scenes_trackers_and_typed_text_is_shown_as_text(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    data_copy: Path,
) -> None:
    """Found when attacked: a scene's reply with an `<iframe srcdoc>` script ran on opening, and the same typed and sent.

    A scripted reply and the scene's title, a library tracker's name (a link check's label), a
    linked tracker's note that closes the tool description's code block, a user message and reply
    typed on the page, and a tool call naming that tracker (its refusal and the calls table): all
    are shown literally, no script runs and no element of theirs is
    in the page.
    """
    scene_file = data_copy / "scenes" / "fight.json"
    scene = json.loads(scene_file.read_text())
    scene["turns"][0]["reply"] = HOSTILE_REPLY
    scene["title"] = "Ambush <marquee>title</marquee>"
    scene_file.write_text(json.dumps(scene))
    stamina_file = data_copy / "trackers" / "stamina.json"
    stamina = json.loads(stamina_file.read_text())
    stamina["body"]["note"] += "\n" + HOSTILE_FENCE
    stamina_file.write_text(json.dumps(stamina))
    hostile = dict(stamina, id="hostile", name=HOSTILE_NAME)
    (data_copy / "trackers" / "hostile.json").write_text(json.dumps(hostile))

    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "12 live messages")
    page.get_by_text(f"2 · assistant: {HOSTILE_REPLY}", exact=True).first.wait_for()
    _status(page, "Ambush <marquee>title</marquee>")
    page.get_by_role("checkbox", name=f"{HOSTILE_NAME} (hostile)").wait_for()
    page.locator("pre, code").filter(
        has_text='<img src=x onerror="top.__pwned=5">'
    ).first.wait_for()

    _settled(page, 6)
    # The model's call names a tracker by the hostile name: its refusal quotes it back.
    calls = json.dumps(
        [{"name": "update_trackers", "arguments": {"updates": [{"tracker": HOSTILE_NAME}]}}]
    )
    _send(page, HOSTILE_USER, calls, HOSTILE_REPLY)
    page.get_by_text(f"13 · user: {HOSTILE_USER}", exact=True).first.wait_for()
    page.get_by_text(f"14 · assistant: {HOSTILE_REPLY}", exact=True).first.wait_for()
    page.locator(".tk-refused").filter(has_text=HOSTILE_NAME).first.wait_for()
    page.locator("table").get_by_text(HOSTILE_NAME, exact=False).first.wait_for()

    assert page.evaluate("() => window.__pwned") is None, "a script from a file or a text box ran"
    for injected in ("marquee", "iframe[srcdoc]", "img[src='x']"):
        expect(page.locator(injected)).to_have_count(0)
    expect(page.locator("h1", has_text="INJ")).to_have_count(0)
    expect(page.locator("style", has_text="display:none")).to_have_count(0)
    expect(page.locator("body")).to_be_visible()


def test_simulator_keeps_values_when_a_linked_tracker_is_renamed(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    data_copy: Path,
) -> None:
    """Found when tried: renaming a linked tracker (its id unchanged) between two steps made the
    next replay refuse every earlier batch naming it ("no linked tracker is called ..."), taking
    the other trackers' writes of those batches with it and the person's edits too. Each step now
    keeps the trackers its names meant, and the values stay."""
    from playwright.sync_api import expect  # here: the harness skips browser tests without it

    scene_file = data_copy / "scenes" / "fight.json"
    scene = json.loads(scene_file.read_text())
    scene["prompting"]["trackers"] = ["health", "inventory"]
    scene["turns"] = []
    scene_file.write_text(json.dumps(scene))
    piece = data_copy / "trackers" / "health.json"

    def rename(name: str) -> None:
        raw = json.loads(piece.read_text())
        raw["name"] = name
        piece.write_text(json.dumps(raw))

    rename("Vitæ")
    page = open_page(serve("simulator.py", "--data", str(data_copy)), HEADING)
    _status(page, "0 live messages")
    _send(
        page,
        "I rest.",
        _calls(
            '{"tracker": "Vitæ", "set": {"hp": 25}}, {"tracker": "Inventory", "row": "Rope", "set": {"qty": 2}}'
        ),
        "You coil a rope.",
    )
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 1 (turn) done.").first.wait_for()
    health = page.locator(".tk-panel [data-tracker='health']")
    inventory = page.locator(".tk-panel [data-tracker='inventory']")
    health.get_by_text("hp 25").first.wait_for()
    inventory.get_by_text("Rope").first.wait_for()
    _settled(page, 1)
    _fill(page, "Set (JSON)", '{"mood": "tense"}')
    page.get_by_role("button", name="Edit value").click()
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 2 (edit) done.").first.wait_for()
    health.get_by_text("tense").first.wait_for()

    rename("Vita")  # as the designer saves it: the name changes, the id stays
    _send(page, "I wait.", "[]", "Time passes.")
    page.locator(".tk-outcome.tk-done").filter(has_text="Step 3 (turn) done.").first.wait_for()
    _status(page, "4 live messages")
    health.get_by_text("Vita").first.wait_for()
    health.get_by_text("hp 25").first.wait_for()
    health.get_by_text("tense").first.wait_for()
    inventory.get_by_text("Rope").first.wait_for()
    expect(page.locator(".tk-refused")).to_have_count(0)
    expect(page.get_by_text("no linked tracker is called")).to_have_count(0)
    # The prompt the model saw on the last turn holds the values under the name now.
    block = page.locator("pre").filter(has_text="### Trackers").first
    block.wait_for()
    assert "Vita" in block.inner_text()
    assert "25" in block.inner_text()
