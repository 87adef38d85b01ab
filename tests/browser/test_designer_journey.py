"""The designer under a person's hands (issue 13): each step clicks or types, then reads the page.

The app works on a temporary copy of `data/` (`-- --data DIR`), so saving leaves the repository
alone. Every step asserts what the page then shows; the harness fails the test on any traceback
in the server's log or marimo error on the page.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from trackerkit import Library, rail
from trackerkit.design import suggest_id

from .widgets import field_box, pick_field

# `expect(...)` waits as long as every other step (two shared cores; the harness may set it too).
expect.set_options(timeout=60_000)

#: The designer's controls these journeys drive (tests/browser/test_controls.py reads this); the
#: label check at the end of this file proves a step quotes each one.
TOUCHES = {
    "designer": {
        "changes_box",
        "description_box",
        "field_pick",
        "icon_box",
        "id_box",
        "layout_box",
        "mo.ui.button",
        "mo.ui.dropdown",
        "mo.ui.text",
        "name_box",
        "note_box",
        "picker",
        "raw_box",
        "raw_pick",
        "raw_save",
        "reload_button",
        "save_as_box",
        "save_as_button",
        "save_button",
        "template_box",
        "type_box",
    }
}

#: The field list's entries (radio labels such as `2. hp_max (number)`), nothing else on the page.
ENTRY = re.compile(r"^\d+\. .+ \((number|text|choice|boolean)\)$")


def _open(serve: Callable[..., str], open_page: Callable[[str, str], Any], data: Path) -> Any:
    page = open_page(serve("designer.py", "--data", str(data)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    return page


def _entries(page: Any) -> Any:
    return page.locator("label").filter(has_text=ENTRY)


def _type_into(page: Any, label: str, text: str) -> None:
    box = field_box(page, label)
    box.fill(text)
    box.press("Enter")


def _verdict(page: Any) -> Any:
    return (
        page.locator("marimo-callout-output").filter(has_text=re.compile(r"· revision \d+ ·")).first
    )


def test_fields_follow_the_selection_types_starts_and_tops(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """Delete and Move act on the field selected at click time; starts, types and tops do what they say."""
    page = _open(serve, open_page, data_copy)
    entries = _entries(page)
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)", "3. mood (choice)"])
    # Every bundled scene that links health, counted from the files (more are added over time).
    linking = [
        p
        for p in (data_copy / "scenes").glob("*.json")
        if "health" in json.loads(p.read_text()).get("prompting", {}).get("trackers", [])
    ]
    expect(_verdict(page)).to_contain_text(f"linked in {len(linking)} scenes: The bell tower")

    # Item 2: Delete removes the field selected now (mood), not hp; the list follows.
    pick_field(page, "3. mood (choice)")
    page.get_by_role("button", name="Delete").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)"])
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")

    # Item 2: Move up / Move down move the field selected now.
    pick_field(page, "2. hp_max (number)")
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
    top = field_box(page, "To (another field)")
    expect(top.locator("option")).to_have_text(["none"])
    pick_field(page, "1. hp (number)")
    expect(field_box(page, "To (another field)").locator("option")).to_have_text(["none", "hp_max"])

    # Item 5: two fields of the same name are two entries.
    page.get_by_role("button", name="Add field").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)", "3. field (number)"])
    name = field_box(page, "Name")
    expect(name).to_have_value("field")
    name.fill("hp_max")
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)", "3. hp_max (number)"])
    expect(_verdict(page)).to_contain_text("hp_max")
    page.get_by_role("button", name="Delete").click()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)"])

    # Item 4: the editor follows a type change: choice shows Choices and no From/To, and back.
    pick_field(page, "1. hp (number)")
    field_box(page, "Type").select_option("choice")
    expect(field_box(page, "Choices (comma-separated)")).to_be_visible()
    expect(page.get_by_label("From", exact=True)).to_have_count(0)
    expect(_verdict(page)).to_contain_text('field "hp": Choices needs at least one choice')
    page.get_by_text("This field: Choices needs at least one choice").wait_for()
    _type_into(page, "Choices (comma-separated)", "fine, hurt")
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    expect(page.get_by_text("This field:")).to_have_count(0)
    field_box(page, "Type").select_option("number")
    expect(field_box(page, "From")).to_be_visible()
    expect(page.get_by_label("Choices (comma-separated)", exact=True)).to_have_count(0)

    # Item 7: retyping or deleting the field that is another's top says the top was dropped.
    field_box(page, "To (another field)").select_option("hp_max")
    page.get_by_text("hp (number up to hp_max").first.wait_for()
    pick_field(page, "2. hp_max (number)")
    field_box(page, "Type").select_option("text")
    page.get_by_text('"hp" no longer has a top: "hp_max" is now a text field.').wait_for()
    field_box(page, "Type").select_option("number")
    expect(field_box(page, "From")).to_be_visible()
    page.get_by_text("hp_max (number: Most hit points.)").first.wait_for()
    pick_field(page, "1. hp (number)")
    field_box(page, "To (another field)").select_option("hp_max")
    page.get_by_text("hp (number up to hp_max").first.wait_for()
    pick_field(page, "2. hp_max (number)")
    page.get_by_role("button", name="Delete").click()
    page.get_by_text('"hp" no longer has a top: "hp_max" was deleted.').wait_for()
    expect(entries).to_have_text(["1. hp (number)"])
    page.get_by_text('"hp" no longer has a top').scroll_into_view_if_needed()
    screenshot(page, "designer-fields")

    # Renames follow the field keystroke by keystroke (TR-47).
    page.get_by_role("button", name="Add field").click()
    pick_field(page, "2. field (number)")
    name = field_box(page, "Name")
    name.fill("")
    name.press_sequentially("hp_top", delay=60)
    expect(entries).to_have_text(["1. hp (number)", "2. hp_top (number)"])
    pick_field(page, "1. hp (number)")
    field_box(page, "To (another field)").select_option("hp_top")
    pick_field(page, "2. hp_top (number)")
    name = field_box(page, "Name")
    name.fill("")
    name.press_sequentially("hp_max", delay=60)
    page.locator("code, pre").filter(has_text="hp (number up to hp_max").first.wait_for()
    expect(entries).to_have_text(["1. hp (number)", "2. hp_max (number)"])
    assert json.loads((data_copy / "trackers" / "health.json").read_text())["revision"] == 0


def _outcome(page: Any) -> Any:
    return page.locator("marimo-callout-output").filter(
        has_text=re.compile(r"^\s*(Saved|Not saved|Nothing)")
    )


def test_new_tracker_saved_under_its_id_stale_saves_and_refused_files(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """A new tracker saves under the id typed; a stale save keeps the draft; a refused file is fixed as JSON."""
    trackers = data_copy / "trackers"
    broken = json.loads((trackers / "health.json").read_text())
    broken["id"] = "broken"
    broken["body"]["fields"][0]["maxField"] = "hp_top"
    (trackers / "broken.json").write_text(json.dumps(broken, indent=2))
    page = _open(serve, open_page, data_copy)
    page.get_by_text("(the --data option): read and saved in place.").first.wait_for()

    # Item 13: a failure is a message in its section, not a traceback in the server log.
    (trackers / "weather.json").unlink()
    page.get_by_label("Open", exact=True).select_option("Weather (weather)")
    page.get_by_text("Could not open the tracker: no tracker 'weather'").first.wait_for()
    expect(_entries(page)).to_have_text(
        ["1. hp (number)", "2. hp_max (number)", "3. mood (choice)"]
    )

    # Item 6: a new tracker's id is suggested from its name, checked, and used for the file.
    page.get_by_label("Open", exact=True).select_option(label="New blank tracker")
    expect(_entries(page)).to_have_text(["1. value (number)"])
    id_box = page.get_by_label("Id (its file name; suggested from the name)")
    expect(id_box).to_have_value("new-tracker")
    tracker_name = page.get_by_label("Name", exact=True).first
    tracker_name.fill("Mana")
    tracker_name.press("Enter")
    expect(id_box).to_have_value("mana")
    field_box(page, "Name").fill("mp")
    expect(_entries(page)).to_have_text(["1. mp (number)"])
    page.get_by_role("button", name="Add field").click()
    pick_field(page, "2. field (number)")
    field_box(page, "Name").fill("mp_max")
    expect(_entries(page)).to_have_text(["1. mp (number)", "2. mp_max (number)"])
    _type_into(page, "Starts at", "50")
    page.get_by_text("Mana: mp=0, mp_max=50").first.wait_for()
    pick_field(page, "1. mp (number)")
    field_box(page, "To (another field)").select_option("mp_max")
    page.get_by_text("mp (number up to mp_max").first.wait_for()
    # A save the verdict holds back is refused beside the button; nothing typed is lost.
    page.get_by_role("button", name="Add field").click()
    pick_field(page, "3. field (number)")
    field_box(page, "Name").fill("state")
    expect(_entries(page)).to_have_text(
        ["1. mp (number)", "2. mp_max (number)", "3. state (number)"]
    )
    field_box(page, "Type").select_option("choice")
    expect(_verdict(page)).to_contain_text('field "state": Choices needs at least one choice')
    page.get_by_role("button", name="Save", exact=True).click()
    expect(_outcome(page)).to_contain_text(
        'Not saved: the draft is held back: field "state": Choices needs at least one choice'
    )
    assert not (trackers / "mana.json").exists()
    _type_into(page, "Choices (comma-separated)", "calm, surging")
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    id_box.fill("health")
    id_box.press("Enter")
    page.get_by_text('the library already holds a tracker "health"').first.wait_for()
    id_box.fill("mana-pool")
    id_box.press("Enter")
    page.get_by_text("saved as mana-pool.json").first.wait_for()

    # Item 8: the outcome shows beside the Save button, whose label fits inside it.
    save_button = page.get_by_role("button", name="Save", exact=True)
    save_button.click()
    expect(_outcome(page)).to_contain_text('Saved as a new tracker "mana-pool" at revision 0.')
    button, said = save_button.bounding_box(), _outcome(page).bounding_box()
    assert said["x"] > button["x"] + button["width"] - 1
    assert said["y"] < button["y"] + button["height"]
    assert button["y"] < said["y"] + said["height"]
    assert save_button.evaluate(
        "b => b.scrollWidth <= b.clientWidth && b.scrollHeight <= b.clientHeight + 1"
    )
    stored = json.loads((trackers / "mana-pool.json").read_text())
    assert [f["name"] for f in stored["body"]["fields"]] == ["mp", "mp_max", "state"]
    assert stored["body"]["fields"][2]["choices"] == ["calm", "surging"]
    assert stored["body"]["fields"][0]["maxField"] == "mp_max"
    expect(page.get_by_label("Open", exact=True).locator("option:checked")).to_have_text(
        "Mana (mana-pool)"
    )
    page.get_by_text("Id mana-pool · revision 0").first.wait_for()
    screenshot(page, "designer-saved")
    # Reopened from the library, it is what was saved.
    page.get_by_label("Open", exact=True).select_option("Health (health)")
    expect(_entries(page)).to_have_text(
        ["1. hp (number)", "2. hp_max (number)", "3. mood (choice)"]
    )
    page.get_by_label("Open", exact=True).select_option("Mana (mana-pool)")
    expect(_entries(page)).to_have_text(
        ["1. mp (number)", "2. mp_max (number)", "3. state (choice)"]
    )
    page.get_by_text("Id mana-pool · revision 0").first.wait_for()

    # Item 8: a save on a revision that moved keeps the draft and shows what the newer one holds.
    Library(trackers).patch("mana-pool", 0, {"name": "Mana (edited elsewhere)"})
    description = page.get_by_label("What it tracks", exact=True)
    description.fill("Magic left.")
    description.press("Enter")
    page.get_by_text(re.compile(r'What it tracks: .* → "Magic left\."')).first.wait_for()
    save_button.click()
    expect(_outcome(page)).to_contain_text(
        "was opened at revision 0 but the library now holds revision 1"
    )
    page.get_by_text("Mana (edited elsewhere) at revision 1").first.wait_for()
    expect(description).to_have_value("Magic left.")
    holds = page.locator(".paragraph", has_text="The newer revision holds:")
    holds.scroll_into_view_if_needed()
    # Its list follows it closely, as What Save sends' does (trial nu4).
    above = holds.bounding_box()
    below = holds.locator("xpath=following-sibling::ul[1]").bounding_box()
    assert above is not None
    assert below is not None
    assert 0 <= below["y"] - (above["y"] + above["height"]) <= 24
    screenshot(page, "designer-stale")
    page.get_by_label("New id", exact=True).fill("mana-mine")
    page.get_by_role("button", name="Save the draft as a new tracker").click()
    expect(_outcome(page)).to_contain_text('Saved as a new tracker "mana-mine" at revision 0.')
    assert json.loads((trackers / "mana-mine.json").read_text())["description"] == "Magic left."
    theirs = json.loads((trackers / "mana-pool.json").read_text())
    assert (theirs["name"], theirs["revision"], theirs["description"]) == (
        "Mana (edited elsewhere)",
        1,
        "",
    )

    # ... or reloads the newer revision, dropping the edits.
    page.get_by_text("Id mana-mine · revision 0").first.wait_for()
    Library(trackers).patch("mana-mine", 0, {"name": "Mana (theirs)"})
    description.fill("Mine again.")
    description.press("Enter")
    page.get_by_text(re.compile(r'What it tracks: .* → "Mine again\."')).first.wait_for()
    save_button.click()
    page.get_by_text("Mana (theirs) at revision 1").first.wait_for()
    page.get_by_role("button", name="Reload the newer revision (drops your edits)").click()
    page.get_by_text("Id mana-mine · revision 1").first.wait_for()
    expect(page.get_by_label("Name", exact=True).first).to_have_value("Mana (theirs)")
    expect(description).to_have_value("Magic left.")
    expect(_outcome(page)).to_have_count(0)

    # Item 6: a refused file is listed with its problem and fixed as raw JSON.
    page.get_by_text("broken.json: body.fields[0].maxField").first.wait_for()
    page.get_by_label("Open as raw JSON to fix", exact=True).select_option("broken")
    raw = page.get_by_label("broken.json", exact=True)
    expect(raw).to_have_value(re.compile('"maxField": "hp_top"'))
    raw.fill("{")
    raw.press("Tab")
    page.get_by_text("The text is not valid JSON").first.wait_for()
    broken["body"]["fields"][0]["maxField"] = "hp_max"
    raw.fill(json.dumps(broken, indent=2))
    raw.press("Tab")
    page.get_by_text("The text decodes.").first.wait_for()
    screenshot(page, "designer-raw-json")
    page.get_by_role("button", name="Save the fixed file").click()
    page.get_by_text("Every file in the library decodes.").first.wait_for()
    assert Library(trackers).get("broken").revision == 1
    expect(
        page.get_by_label("Open", exact=True).locator("option", has_text="Health (broken)")
    ).to_have_count(1)


def test_settings_prompt_line_and_field_settings(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """The tracker's settings, its prompt line with the macro buttons, and each field setting show in the rail."""
    page = _open(serve, open_page, data_copy)

    def tool_line(text: str) -> None:
        page.locator("code, pre").filter(has_text=text).first.wait_for()

    # The prompt line: macro buttons insert into it, the rail renders it, Clear empties it.
    template = page.get_by_label("Prompt line (macros; empty = the plain line)", exact=True)
    page.get_by_role("button", name="{{tracker::Health::hp}}", exact=True).click()
    expect(template).to_have_value("{{tracker::Health::hp}}")
    page.get_by_role("button", name="{{char}}", exact=True).click()
    expect(template).to_have_value("{{tracker::Health::hp}}{{char}}")
    page.get_by_role("button", name="{{user}}", exact=True).click()
    expect(template).to_have_value("{{tracker::Health::hp}}{{char}}{{user}}")
    page.get_by_role("button", name="Clear prompt line").click()
    expect(template).to_have_value("")
    page.get_by_role("button", name="{{tracker::Health}}", exact=True).click()
    expect(template).to_have_value("{{tracker::Health}}")
    template.fill("HP {{tracker::Health::hp}}/{{tracker::Health::hp_max}}")
    template.press("Tab")
    tool_line("HP 0/30")
    # A renamed tracker carries its macros along (TR-47).
    name = page.get_by_label("Name", exact=True).first
    name.fill("Vitals")
    name.press("Enter")
    expect(template).to_have_value("HP {{tracker::Vitals::hp}}/{{tracker::Vitals::hp_max}}")
    page.get_by_role("button", name="{{tracker::Vitals::mood}}", exact=True).wait_for()

    # The tracker's settings.
    note = page.get_by_label(
        "How the AI should update it (its line in the update tool)", exact=True
    )
    note.fill("Lower hp when she is hurt.")
    note.press("Tab")
    tool_line("Lower hp when she is hurt.")
    icon = page.get_by_label("Icon (lucide:… or mdi:…)", exact=True)
    icon.fill("heart")
    icon.press("Enter")
    expect(_verdict(page)).to_contain_text("tracker icon")
    icon.fill("lucide:heart-pulse")
    icon.press("Enter")
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    page.get_by_label("Show changes on replies as", exact=True).select_option("card")
    page.get_by_text(re.compile(r"Show changes on replies as: \w+ → card")).first.wait_for()
    page.get_by_label("Shape", exact=True).select_option("list")
    tool_line("Vitals (list)")
    # A list starts with no rows: the rail says its row is a sample and shows the empty start,
    # and no button names the sample row (a trial: its macro left the tracker out of a chat).
    page.get_by_text("Prompt, with one sample row").first.wait_for()
    page.get_by_text("A chat starts with no rows").first.wait_for()
    page.get_by_role("button", name="{{tracker::Vitals}}", exact=True).wait_for()
    expect(page.get_by_role("button", name=re.compile("::hp}}"))).to_have_count(0)
    # A row typed in a macro may be saved, with a warning that a chat may not hold it.
    template.fill("{{tracker::Vitals::Rope::hp}}")
    template.press("Tab")
    page.get_by_text(
        'reads the row "Rope" of Vitals, and a list starts with no rows'
    ).first.wait_for()
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    page.get_by_label("Shape", exact=True).select_option("record")
    tool_line("Vitals (record)")
    template.fill("HP {{tracker::Vitals::hp}}/{{tracker::Vitals::hp_max}}")
    template.press("Tab")
    expect(page.get_by_text("reads the row")).to_have_count(0)

    # Each field setting.
    _type_into(page, "What it means", "Life left.")
    tool_line("Life left.")
    _type_into(page, "Icon", "bad icon")
    expect(_verdict(page)).to_contain_text('field "hp"')
    _type_into(page, "Icon", "lucide:heart")
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    _type_into(page, "From", "5")
    tool_line("hp (number 5 to hp_max: Life left.)")
    # A fixed top and a top field exclude each other: each box shows what the draft then holds
    # (a trial: "To (another field)" still read hp_max once "To (a number)" had dropped it).
    _type_into(page, "To (a number)", "25")
    tool_line("hp (number 5-25: Life left.)")
    expect(field_box(page, "To (another field)").locator("option:checked")).to_have_text("none")
    field_box(page, "To (another field)").select_option("hp_max")
    tool_line("hp (number 5 to hp_max: Life left.)")
    expect(field_box(page, "To (a number)")).to_have_value("")
    # A start above the top field's start is held to it when read: the verdict says so.
    _type_into(page, "Starts at", "999")
    page.get_by_text("999 is above the start of hp_max (30)").first.wait_for()
    _type_into(page, "Starts at", "")
    expect(page.get_by_text("is above the start of")).to_have_count(0)
    # A renamed field that the update instruction still names is warned of; the words stay.
    name = field_box(page, "Name")
    name.fill("life")
    page.get_by_text(
        'update instruction: still names "hp", the field now called "life"'
    ).first.wait_for()
    expect(note).to_have_value("Lower hp when she is hurt.")
    name.fill("hp")
    expect(page.get_by_text("still names")).to_have_count(0)
    pick_field(page, "2. hp_max (number)")
    _type_into(page, "To (a number)", "99")
    tool_line("hp_max (number 1-99")
    _type_into(page, "To (a number)", "x9")
    page.get_by_text('"x9" is not a number').first.wait_for()
    template.scroll_into_view_if_needed()
    screenshot(page, "designer-settings")


def _breaks(page: Any) -> Any:
    return page.locator("marimo-callout-output").filter(has_text="Saving breaks linked scenes")


def test_a_type_change_is_played_on_the_linked_scenes_before_saving(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """A change no name shows (hp made text) is found by playing the linked scenes' scripts:
    each scene says how many calls are now refused and expectations missed, with the first."""
    page = _open(serve, open_page, data_copy)
    expect(_breaks(page)).to_have_count(0)
    pick_field(page, "1. hp (number)")
    field_box(page, "Type").select_option("text")
    expect(_breaks(page)).to_contain_text(
        "The change breaks the play of fight: 5 calls now refused (the first: item 1 (Health, hp): "
        "must be text; found 30); 15 expectations now missed"
    )
    expect(_breaks(page)).to_contain_text(
        "The change stops the play of branching at a scripted step: item 1 (Health, hp): must be "
        "text; found 999."
    )
    _breaks(page).scroll_into_view_if_needed()
    screenshot(page, "designer-played-breaks")
    field_box(page, "Type").select_option("number")
    expect(_breaks(page)).not_to_contain_text("must be text")

    # A new-user trial: a refused draft's warning said "it still saves", and a refused save's
    # message beside Save broke its label into "Sa / ve".
    pick_field(page, "2. hp_max (number)")
    _type_into(page, "Name", "hp")
    pick_field(page, "3. mood (choice)")
    _type_into(page, "Name", "hp")  # a long refusal beside Save: two repeated names
    expect(_verdict(page)).not_to_contain_text("The draft decodes and may be saved.")
    expect(_breaks(page)).to_contain_text("the draft is held back for the reasons above")
    expect(_breaks(page)).not_to_contain_text("it still saves")
    save = page.get_by_role("button", name="Save", exact=True)
    save.click()
    expect(_outcome(page)).to_contain_text("Not saved")
    # The label's lines: one box per line its text is laid out on.
    tops = save.evaluate(
        "b => { const r = document.createRange(); r.selectNodeContents(b);"
        " return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size; }"
    )
    assert tops == 1, f"the Save label runs over {tops} lines"
    _type_into(page, "Name", "mood")
    pick_field(page, "2. hp (number)")
    _type_into(page, "Name", "hp_max")

    # A new-user trial: Health renamed "Stamina" saved with no word that fight also links Stamina.
    name = page.get_by_label("Name", exact=True).first
    name.fill("Stamina")
    name.press("Enter")
    expect(_breaks(page)).to_contain_text(
        'Renaming Health to "Stamina" clashes with the tracker Stamina (stamina), which 3 linked '
        "scenes also link: eval-long, eval-numbers, fight"
    )
    _breaks(page).scroll_into_view_if_needed()
    screenshot(page, "designer-name-clash")


def test_save_warns_what_it_breaks_open_warns_of_drops_and_save_as_retries(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """A trial's rename and deletes are named per linked scene before saving; Open says it drops
    unsaved edits; a refused "save as new" keeps its box and Reload; long macro buttons wrap."""
    trackers = data_copy / "trackers"
    page = _open(serve, open_page, data_copy)
    dropped = page.get_by_text("dropped when you open another tracker")
    expect(dropped).to_have_count(0)
    expect(_breaks(page)).to_have_count(0)

    # Renaming the tracker: the Open control and the Save section both say what it costs.
    name = page.get_by_label("Name", exact=True).first
    name.fill("Здоровье 😀")
    name.press("Enter")
    page.get_by_text(
        "⚠ unsaved edits to Здоровье 😀 are dropped when you open another tracker"
    ).wait_for()
    expect(_breaks(page)).to_contain_text(
        'Renaming Health to "Здоровье 😀" breaks 5 linked scenes that call or expect it by name: '
        "branching (4 calls, 13 expectations)"
    )
    expect(_breaks(page)).to_contain_text("fight (7 calls, 6 expectations)")
    # Deleting the fields the scenes set and expect (a new one stays, a tracker needs one).
    page.get_by_role("button", name="Add field").click()
    pick_field(page, "4. field (number)")
    pick_field(page, "1. hp (number)")
    for left in (
        ["1. hp_max (number)", "2. mood (choice)", "3. field (number)"],
        ["1. mood (choice)", "2. field (number)"],
        ["1. field (number)"],
    ):
        page.get_by_role("button", name="Delete", exact=True).click()
        expect(_entries(page)).to_have_text(left)
    for field in ("hp", "hp_max", "mood"):
        expect(_breaks(page)).to_contain_text(
            f"Deleting {field} breaks 5 linked scenes that set or expect it: "
        )
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    _breaks(page).scroll_into_view_if_needed()
    screenshot(page, "designer-scene-breaks")
    # A warning, not a refusal: it saves, and the saved tracker breaks nothing further.
    page.get_by_role("button", name="Save", exact=True).click()
    expect(_outcome(page)).to_contain_text('Saved "health" at revision 1.')
    expect(_breaks(page)).to_have_count(0)
    expect(dropped).to_have_count(0)
    assert Library(trackers).get("health").name == "Здоровье 😀"

    # A stale save, then "save as new" refused twice: the box and Reload stay for the retry.
    Library(trackers).patch("health", 1, {"description": "Edited elsewhere."})
    description = page.get_by_label("What it tracks", exact=True)
    description.fill("Mine.")
    description.press("Enter")
    page.get_by_text(re.compile(r'What it tracks: .* → "Mine\."')).first.wait_for()
    # Trial ui9: "Saved …" stayed beside Save over the edits made after it, as if saved too.
    expect(_outcome(page)).to_have_count(0)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(_outcome(page)).to_contain_text(
        "was opened at revision 1 but the library now holds revision 2"
    )
    new_id = page.get_by_label("New id", exact=True)
    save_as = page.get_by_role("button", name="Save the draft as a new tracker")
    reload = page.get_by_role("button", name="Reload the newer revision (drops your edits)")
    for typed in ("", "../evil"):
        new_id.fill(typed)
        save_as.click()
        # This attempt's own refusal (the last one's still reads "Not saved: "); the box keeps
        # what was typed, for the retry.
        expect(_outcome(page)).to_contain_text(f"Not saved: '{typed}' is not a tracker id")
        expect(_outcome(page)).not_to_contain_text("was opened at revision")
        expect(new_id).to_have_value(typed)
        expect(reload).to_be_visible()
    screenshot(page, "designer-save-as-refused")
    new_id.fill("health-mine")
    save_as.click()
    # Under the free name proposed beside the id (trial nu3): no namesake to warn of.
    expect(_outcome(page)).to_have_text('Saved as a new tracker "health-mine" at revision 0.')
    assert Library(trackers).get("health-mine").name == "Здоровье 😀 2"
    # The stale choices go; "Save as new…" stays (it is offered for any tracker opened).
    expect(reload).to_have_count(0)
    expect(page.get_by_text("The newer revision holds:")).to_have_count(0)
    # A free id is offered again (CI has shown the suggestion from before the save, also free,
    # as well as the one for the new name: which one marimo redraws last is a race).
    taken = Library(trackers).ids()
    expect(new_id).not_to_have_value("health-mine")
    expect(new_id).to_have_value(
        re.compile(f"^({re.escape(suggest_id('Здоровье 😀 3', taken))}|zdorov-e-grinning-2)$")
    )
    assert new_id.input_value() not in taken
    assert not (trackers.parent / "evil.json").exists()

    # Opening another tracker drops the edits it warned of; the note goes with them.
    description.fill("Edited, unsaved.")
    description.press("Enter")
    page.get_by_text(
        "⚠ unsaved edits to Здоровье 😀 2 are dropped when you open another tracker"
    ).wait_for()
    page.get_by_label("Open", exact=True).select_option("Stamina (stamina)")
    page.get_by_text("Id stamina · revision 0").first.wait_for()
    expect(dropped).to_have_count(0)

    # A very long name: each macro button holds its whole label, one under the other.
    name.fill("Здоровье 😀 " * 20)
    name.press("Enter")
    page.get_by_text("are dropped when you open another tracker").wait_for()
    macros = page.get_by_role("button").filter(has_text="{{tracker::Здоровье")
    expect(macros).to_have_count(4)
    boxes = [macros.nth(i).bounding_box() for i in range(4)]
    for above, below in itertools.pairwise(boxes):
        assert below["y"] >= above["y"] + above["height"] - 1, (above, below)
    for i in range(4):
        assert macros.nth(i).evaluate(
            "b => b.scrollHeight <= b.clientHeight + 1 && b.scrollWidth <= b.clientWidth + 1"
        )
    macros.first.scroll_into_view_if_needed()
    screenshot(page, "designer-long-name-macros")


def _clash(page: Any) -> Any:
    """The warning under the verdict that another tracker bears the draft's name."""
    return page.locator("marimo-callout-output").filter(
        has_text=re.compile(r"^\s*⚠ The library already holds a tracker of this name")
    )


def _shown(page: Any, first_line: str) -> Any:
    """The rail's code block whose text starts with `first_line`."""
    return page.locator("pre").filter(has_text=re.compile(f"^{re.escape(first_line)}"))


def test_save_as_new_name_clashes_a_blank_name_and_the_rail_counts(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """A designer's trial: Health copied by "Save as new…" under the free name proposed (trial
    nu3); a name another tracker bears is said before saving; a blank name heads as "(no name)";
    the suggested id keeps non-ASCII letters; the plain line's count says what it counts; a list's
    block has no blank line."""
    trackers = data_copy / "trackers"
    health = (trackers / "health.json").read_bytes()
    page = _open(serve, open_page, data_copy)
    expect(_clash(page)).to_have_count(0)

    # The rail: the plain line counted alone, and its block with the heading.
    shown = rail(Library(trackers).get("health"))
    page.get_by_text(
        f"The plain line it falls back to · {shown.line_tokens} tokens for the line alone "
        f"({shown.plain_tokens} for the block with this line)"
    ).wait_for()
    expect(
        page.get_by_text(f"falls back to · {shown.plain_tokens} tokens", exact=True)
    ).to_have_count(0)

    # Save as new, offered for the tracker opened: a free id and name suggested, the copy saved
    # under them (trial nu3: never a second tracker of the same name unasked).
    page.get_by_text("Save as new…").wait_for()
    new_id = page.get_by_label("New id", exact=True)
    expect(new_id).to_have_value("health-2")
    expect(page.get_by_label("New name", exact=True)).to_have_value("Health 2")
    page.get_by_role("button", name="Save the draft as a new tracker").click()
    expect(_outcome(page)).to_have_text('Saved as a new tracker "health-2" at revision 0.')
    assert (trackers / "health.json").read_bytes() == health
    copy, opened = Library(trackers).get("health-2"), Library(trackers).get("health")
    assert (copy.name, copy.revision, copy.body) == ("Health 2", 0, opened.body)
    page.get_by_text("Id health-2 · revision 0").first.wait_for()
    expect(page.get_by_label("Open", exact=True).locator("option:checked")).to_have_text(
        "Health 2 (health-2)"
    )
    expect(new_id).to_have_value("health-3")
    new_id.scroll_into_view_if_needed()
    screenshot(page, "designer-save-as-new")
    # The draft now edits the copy, which no other tracker is named as.
    expect(_clash(page)).to_have_count(0)
    # A taken or unusable id is refused in words; nothing is written over.
    new_id.fill("health")
    page.get_by_role("button", name="Save the draft as a new tracker").click()
    expect(_outcome(page)).to_contain_text(
        'Not saved: the library already holds a tracker "health"'
    )
    assert (trackers / "health.json").read_bytes() == health

    # A new blank tracker named as a library tracker (any case) is told so before it is saved.
    page.get_by_label("Open", exact=True).select_option(label="New blank tracker")
    expect(_entries(page)).to_have_text(["1. value (number)"])
    expect(page.get_by_text("Save as new…")).to_have_count(0)
    expect(_clash(page)).to_have_count(0)
    name = page.get_by_label("Name", exact=True).first
    name.fill("HEALTH")
    name.press("Enter")
    expect(_clash(page)).to_contain_text('of this name: "Health" (health). A scene that links')
    expect(_clash(page)).to_contain_text("A warning: it still saves.")
    expect(_verdict(page)).to_contain_text("The draft decodes and may be saved.")
    _clash(page).scroll_into_view_if_needed()
    screenshot(page, "designer-name-clash-before-saving")

    # A blank name heads the verdict as "(no name)", never as bare asterisks; the verdict says why.
    for blank in ("", "   "):
        name.fill(blank)
        name.press("Enter")
        verdict = page.locator("marimo-callout-output").filter(
            has_text=re.compile(r"· revision \d+")
        )
        expect(verdict).to_contain_text("(no name) · revision 0")
        expect(verdict).to_contain_text("tracker name: must not be blank")
        expect(verdict).not_to_contain_text("**")
        expect(verdict.locator("strong").first).to_have_text("(no name)")
        expect(_clash(page)).to_have_count(0)

    # The id suggested from the name keeps its letters, as the WTracker export's key does.
    name.fill("Vitals ❤️ Ærin")
    name.press("Enter")
    expect(page.get_by_label("Id (its file name; suggested from the name)")).to_have_value(
        "vitals-heart-aerin"
    )

    # A list tracker's `### Trackers` block shows line for line: no blank line before its rows.
    page.get_by_label("Open", exact=True).select_option("Inventory (inventory)")
    inventory = rail(Library(trackers).get("inventory"))
    shown_blocks = _shown(page, "### Trackers")
    # The block with one sample row, then the block a chat starts with (no rows).
    expect(shown_blocks).to_have_count(2)
    block = shown_blocks.first
    expect(block).to_have_text(inventory.block or "")
    assert block.inner_text().strip().split("\n") == (inventory.block or "").split("\n")
    expect(shown_blocks.last).to_have_text(inventory.empty_block or "")
    plain = _shown(page, "Inventory:")
    assert plain.first.inner_text().strip().split("\n") == inventory.plain.split("\n")
    block.scroll_into_view_if_needed()
    screenshot(page, "designer-list-rail")


def test_a_data_folder_that_is_not_one_is_a_message(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], tmp_path: Path
) -> None:
    """Item 13: `--data` naming a file stops the app with a readable message, not a blank page."""
    not_a_folder = tmp_path / "data.txt"
    not_a_folder.write_text("")
    page = open_page(serve("designer.py", "--data", str(not_a_folder)), "Tracker designer")
    page.get_by_text(
        f"Could not read the data folder: --data: {not_a_folder} is not a folder"
    ).first.wait_for()
    expect(page.get_by_role("button", name="Save", exact=True)).to_have_count(0)


#: Markup an attacker puts in a tracker's name and a field's description: each would render as a
#: live element (and two would run a script) if the page put it into markdown as it is.
NAME_PAYLOAD = "<h1>INJ</h1><img src=x onerror=window.__pwned=1><marquee>m</marquee>"
FIELD_PAYLOAD = (
    '<iframe srcdoc="<script>top.__pwned=2</script>"></iframe> [go](javascript:top.__pwned=3)'
)


def _no_injection(page: Any) -> None:
    """No payload ran a script or made an element: the page holds none of their tags."""
    assert page.evaluate("() => window.__pwned === undefined")
    for selector in (
        "marquee",
        "h1:has-text('INJ')",
        "img[src='x']",
        "iframe[srcdoc]",
        "a[href^='javascript']",
    ):
        expect(page.locator(selector)).to_have_count(0)


def test_markup_in_a_name_or_a_description_shows_as_text(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
    data_copy: Path,
) -> None:
    """A tracker file named with HTML (it passes `trackerkit check`), and HTML typed into a name or
    a field's description, read as the characters written: no element is made, no script runs."""
    path = data_copy / "trackers" / "health.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["name"] = NAME_PAYLOAD
    path.write_text(json.dumps(stored), encoding="utf-8")
    page = _open(serve, open_page, data_copy)
    expect(page.get_by_label("Name", exact=True).first).to_have_value(NAME_PAYLOAD)
    # The verdict heads with the name as written, and the macro buttons carry it as text.
    expect(_verdict(page)).to_contain_text(f"{NAME_PAYLOAD} · revision 0")
    expect(
        page.get_by_role("button").filter(has_text=f"{{{{tracker::{NAME_PAYLOAD}::hp}}}}")
    ).to_have_count(1)
    _no_injection(page)

    # An edit says the unsaved edits to the name (cut at 40 characters) are dropped on opening another.
    description = page.get_by_label("What it tracks", exact=True)
    description.fill("Edited.")
    description.press("Enter")
    page.get_by_text(f"⚠ unsaved edits to {NAME_PAYLOAD[:39]}… are dropped", exact=False).wait_for()
    _no_injection(page)

    # Typed into the Name box: the same, with a name that breaks a linked scene's lines too.
    name = page.get_by_label("Name", exact=True).first
    name.fill(f"Vera {NAME_PAYLOAD}")
    name.press("Enter")
    expect(_verdict(page)).to_contain_text(f"Vera {NAME_PAYLOAD} · revision 0")
    _no_injection(page)

    # A field's description holds an iframe whose page would run a script, and a javascript link.
    pick_field(page, "1. hp (number)")
    _type_into(page, "What it means", FIELD_PAYLOAD)
    page.get_by_text(FIELD_PAYLOAD, exact=False).first.wait_for()
    _no_injection(page)
    screenshot(page, "designer-markup-as-text")


#: Controls known by kind (their label is computed, or their options are what is clicked), and
#: what a step above uses for one of them.
DYNAMIC = {
    "radio:Fields": "3. mood (choice)",
    "button:safe_md(m)": "{{tracker::Health::hp}}",
    "text_area:safe_md(f'{raw_pick.value}.json')": "broken.json",
    "checkbox:design.TAKE_ANYWAY": "Take them anyway, beside the ones of the same names",
}


def _controls(notebook: Path) -> list[str]:
    """Every `mo.ui.KIND(label=...)` the notebook makes, as `kind:label` (`kind:expr` when computed)."""
    found = []
    for node in ast.walk(ast.parse(notebook.read_text(encoding="utf-8"))):
        func = node.func if isinstance(node, ast.Call) else None
        if not (isinstance(func, ast.Attribute) and ast.unparse(func.value) == "mo.ui"):
            continue
        assert isinstance(node, ast.Call)
        label = next((k.value for k in node.keywords if k.arg == "label"), None)
        if isinstance(label, ast.Constant):
            found.append(f"{func.attr}:{label.value}")
        else:
            found.append(f"{func.attr}:{ast.unparse(label) if label else '(no label)'}")
    return found


def test_every_designer_control_is_touched_by_a_journey() -> None:
    """Each control the designer makes is named by a step above (or in another designer journey,
    test_designer_*.py); a new control fails this until one is."""
    here = Path(__file__)
    source = here.read_text(encoding="utf-8").split("#: Controls known by kind")[0]
    source += "".join(
        p.read_text(encoding="utf-8")
        for p in sorted(here.parent.glob("test_designer_*.py"))
        if p != here
    )
    controls = _controls(here.parents[2] / "notebooks" / "designer.py")
    assert len(controls) >= 30
    untouched = [c for c in controls if f'"{DYNAMIC.get(c, c.split(":", 1)[1])}"' not in source]
    assert untouched == []
