"""The designer's "Import…" and the exports in its rail (issue 16, item 6), under a person's hands.

The files imported are written here, as messy as real ones: an MVU `[InitVar]` entry with Chinese
keys, `[value, meaning]` pairs, a range written in a meaning, places nested four deep and an
extensible list; a SillyTavern-Tracker preset with `StateOfDress`, an ARRAY and a
FOR_EACH_OBJECT; and a broken file. The app works on a temporary copy of `data/`, so taking
trackers in leaves the repository alone; the harness fails the test on any traceback in the
server's log or marimo error on the page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from trackerkit import Library

from .widgets import pick_field

expect.set_options(timeout=60_000)

#: The designer's controls these journeys drive (tests/browser/test_controls.py reads this);
#: test_designer_journey.py checks that a step here quotes each one's label.
TOUCHES = {
    "designer": {
        "import_upload", "import_path", "import_format", "import_choice", "take_button",
        "open_button", "take_anyway",
    }
}  # fmt: skip

MVU = """\
# [InitVar] 初始变量
strictSet: true
世界:
  当前位置: ["雾港镇码头", "主角现在所在的地点，写清楚城镇和具体地点"]
  是否夜晚: [false, "现在是否是夜晚"]
  地点:
    雾港镇:
      码头:
        人数: [12, "码头上的人数，0到40之间"]
李:
  好感度: [20, "李对主角的好感度，范围[-30,100]，每次变化不超过5"]
  心情: ["平静", "李此刻的心情"]
任务列表:
  $meta:
    extensible: true
    template:
      进度: [0, "任务进度 [0,100]"]
  寻找灯塔钥匙:
    进度: 10
"""

ST = {
    "name": "My preset (edited)",
    "trackerDef": {
        "field-0": {
            "name": "Time", "type": "STRING", "presence": "DYNAMIC",
            "prompt": "Current time in 24h HH:MM:SS; MM/DD/YYYY (Day Name)",
            "defaultValue": "<Updated time if changed>",
            "exampleValues": ["09:15:30; 10/16/2024 (Wednesday)", "18:45:50; 10/16/2024 (Wednesday)"],
            "nestedFields": {},
        },
        "field-1": {
            "name": "CharactersPresent", "type": "ARRAY", "presence": "DYNAMIC",
            "prompt": "List of all characters present in the scene.",
            "defaultValue": "", "exampleValues": ['["Emma Thompson", "James Miller"]'], "nestedFields": {},
        },
        "field-2": {
            "name": "Characters", "type": "FOR_EACH_OBJECT", "presence": "DYNAMIC", "prompt": "",
            "defaultValue": "", "exampleValues": [],
            "nestedFields": {
                "field-3": {
                    "name": "StateOfDress", "type": "STRING", "presence": "DYNAMIC",
                    "prompt": "Describe how put-together or disheveled the character appears.",
                    "defaultValue": "", "exampleValues": ["Professionally dressed", "Hair tousled"],
                    "nestedFields": {},
                },
                "field-4": {
                    "name": "Hair", "type": "STRING", "presence": "STATIC",
                    "prompt": "Hairstyle and condition.", "defaultValue": "", "exampleValues": [],
                    "nestedFields": {},
                },
            },
        },
    },
}  # fmt: skip


def _open(serve: Callable[..., str], open_page: Callable[[str, str], Any], data: Path) -> Any:
    page = open_page(serve("designer.py", "--data", str(data)), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for()
    return page


def _row(page: Any, source: str) -> Any:
    """The report's row for one original key."""
    return page.locator("table.import-report tr").filter(
        has=page.locator("td code", has_text=re.compile(f"^{re.escape(source)}$"))
    )


def _said(page: Any) -> Any:
    """The import section's last message (what taking or opening did)."""
    return page.locator("marimo-callout-output").filter(
        has_text=re.compile(r"Took|Nothing was taken|Opened")
    )


def _upload(page: Any, name: str, contents: bytes) -> None:
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name=re.compile("Upload a tracker file")).click()
    chooser.value.set_files({"name": name, "mimeType": "application/json", "buffer": contents})


def test_import_a_file_read_its_report_take_it_in_or_open_it(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
    tmp_path: Path,
) -> None:
    """An MVU file by path and a SillyTavern-Tracker preset by upload: report, take, open, save; bad files."""
    mvu = tmp_path / "雾港镇 [InitVar].yaml"
    mvu.write_text(MVU, encoding="utf-8")
    trackers = data_copy / "trackers"
    page = _open(serve, open_page, data_copy)
    page.get_by_text("Upload a file or type its path").wait_for()

    # The MVU file by its path: told by its content, every key with its line.
    path_box = page.get_by_label("…or its path on this machine", exact=True)
    path_box.fill(str(mvu))
    path_box.press("Enter")
    page.get_by_text("read as MagVarUpdate (mvu), the format its content shows").wait_for()
    page.get_by_text("3 trackers used together").wait_for()
    where = _row(page, "世界.当前位置")
    expect(where).to_contain_text("✓ exact")
    expect(where.locator("td").nth(2)).to_have_text("世界.dang_qian_wei_zhi")
    liking = _row(page, "李.好感度")
    expect(liking).to_contain_text("≈ guessed")
    expect(liking.locator("td").nth(2)).to_have_text("李.hao_gan_du")
    expect(liking).to_contain_text('min -30, max 100 guessed from "[-30,100]"')
    expect(_row(page, "世界.地点.雾港镇.码头.人数")).to_contain_text(
        'min 0, max 40 guessed from "0到40'
    )
    expect(_row(page, "世界.地点.雾港镇.码头.人数")).to_contain_text("flattened from 4 levels")
    unmapped = _row(page, "strictSet")
    expect(unmapped).to_contain_text("✗ unmapped")
    expect(unmapped.locator("td").nth(2)).to_have_text("—")
    expect(unmapped).to_contain_text("trackerkit applies each batch all or nothing")
    expect(page.locator("table.import-report tr.report-guessed")).to_have_count(3)
    liking.scroll_into_view_if_needed()
    screenshot(page, "designer-import-report")

    # Take one tracker into the library: it is saved under its id and listed under Open.
    which = page.get_by_label("Which", exact=True)
    which.select_option(label="李 (2 fields)")
    page.get_by_role("button", name="Take into the library").click()
    expect(_said(page)).to_contain_text('saved "李" as li.json')
    opener = page.get_by_label("Open", exact=True)
    expect(opener.locator("option", has_text="李 (li)")).to_have_count(1)
    assert Library(trackers).get("li").revision == 0
    # Taken already, it is not offered again (a trial: a second press wrote li-2 beside it);
    # the page says why instead, and Open in the draft stays.
    page.get_by_text(
        'Already taken into the library from this file: "李" as li.json'
    ).first.wait_for()
    expect(page.get_by_role("button", name="Take into the library")).to_have_count(0)
    expect(page.get_by_label("Take them anyway, beside the ones of the same names")).to_have_count(
        0
    )
    expect(page.get_by_text("Named like ones already there")).to_have_count(0)
    expect(page.get_by_role("button", name="Open in the draft")).to_have_count(1)
    assert "li-2" not in Library(trackers).ids()
    opener.select_option(label="李 (li)")
    expect(page.locator("label").filter(has_text=re.compile(r"^\d+\. "))).to_have_text(
        ["1. hao_gan_du (number)", "2. xin_qing (text)"]
    )
    page.locator("code, pre").filter(
        has_text="hao_gan_du (number -30 to 100: 好感度:"
    ).first.wait_for()

    # The preset by upload: read as SillyTavern-Tracker; StateOfDress keeps its key beside its name.
    _upload(page, "preset.json", json.dumps(ST).encode())
    page.get_by_text(
        "read as SillyTavern-Tracker (sillytavern-tracker), the format its content shows"
    ).wait_for()
    dress = _row(page, "Characters.StateOfDress")
    expect(dress).to_contain_text("✓ exact")
    expect(dress.locator("td").nth(2)).to_have_text("Characters.state_of_dress")
    present = _row(page, "CharactersPresent")
    expect(present).to_contain_text("≈ guessed")
    expect(present).to_contain_text("an ARRAY kept as one text")
    expect(_row(page, "Characters.Hair")).to_contain_text("presence STATIC")

    # Read as another format by choice, the page says what was chosen and what it failed on.
    page.get_by_label("Read as", exact=True).select_option(label="WTracker (wtracker)")
    page.get_by_text("Could not read it as WTracker (wtracker): preset.json").wait_for()
    page.get_by_text("as chosen (its content shows SillyTavern-Tracker").wait_for()
    page.get_by_label("Read as", exact=True).select_option(label="the format its content shows")
    page.get_by_text(
        "read as SillyTavern-Tracker (sillytavern-tracker), the format its content shows"
    ).wait_for()

    # Open one in the draft: it becomes a new tracker on the page, saved under the id offered.
    page.get_by_label("Which", exact=True).select_option(label="Characters (2 fields)")
    page.get_by_role("button", name="Open in the draft").click()
    expect(_said(page)).to_contain_text('Opened "Characters" in the draft above')
    expect(page.locator("label").filter(has_text=re.compile(r"^\d+\. "))).to_have_text(
        ["1. state_of_dress (text)", "2. hair (text)"]
    )
    expect(page.get_by_label("Id (its file name; suggested from the name)")).to_have_value(
        "characters"
    )
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text('Saved as a new tracker "characters" at revision 0.').wait_for()
    expect(opener.locator("option:checked")).to_have_text("Characters (characters)")
    assert [f.name for f in Library(trackers).get("characters").fields] == [
        "state_of_dress",
        "hair",
    ]

    # Take them all (anyway: Characters is the library's name now): the ones whose ids are
    # taken get a suffix, and a scene links them.
    page.get_by_label("Which", exact=True).select_option(label="All 2 trackers")
    page.get_by_label("Take them anyway, beside the ones of the same names").check()
    page.get_by_role("button", name="Take into the library").click()
    expect(_said(page)).to_contain_text("Took 2 into the library.")
    expect(_said(page)).to_contain_text("characters was taken, so it is characters-2")
    expect(_said(page)).to_contain_text(
        'saved "Characters" as characters-2.json; the library already holds a tracker of this '
        'name: "Characters" (characters)'
    )
    expect(_said(page)).to_contain_text("a scene linking them: my-preset-edited.json")
    scene = json.loads((data_copy / "scenes" / "my-preset-edited.json").read_text())
    assert scene["prompting"]["trackers"] == ["my-preset-edited", "characters-2"]

    # Broken files are messages on the page, never tracebacks.
    _upload(page, "broken.json", b'{"trackerDef": {"field-0": ')
    page.get_by_text("Could not read the file: broken.json: is not JSON, YAML or JSON5").wait_for()
    expect(page.locator("table.import-report")).to_have_count(0)
    expect(page.get_by_role("button", name="Take into the library")).to_have_count(0)
    page.get_by_text("broken.json").first.scroll_into_view_if_needed()
    screenshot(page, "designer-import-broken")
    _upload(page, "notes.json", json.dumps({"hello": "world"}).encode())
    page.get_by_text("notes.json: trackerkit cannot tell its format by its content").wait_for()
    page.get_by_text('choose it under "Read as"').wait_for()
    path_box.fill(str(tmp_path / "missing.yaml"))
    path_box.press("Enter")
    page.get_by_text(
        f"Could not read the file: {tmp_path / 'missing.yaml'}: is not there"
    ).wait_for()


def test_the_rail_prices_each_export_and_names_the_provider_that_would_refuse(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
) -> None:
    """Each export's tokens in both encodings; 1,001 choices make OpenAI strict refuse (too many enum
    values; a description over 1,024 characters is a warning beside it), the others not."""
    page = _open(serve, open_page, data_copy)
    page.get_by_text("Exports of the update tool").wait_for()
    rows = page.locator("table.export-costs tbody tr")
    expect(rows).to_have_count(5)
    for key in ("tool", "anyof", "openai", "anthropic", "gemini"):
        counts = page.locator(f'table.export-costs tr[data-export="{key}"] td.tokens')
        expect(counts).to_have_count(2)
        expect(counts.nth(0)).to_have_text(re.compile(r"^\d[\d,]*$"))
        expect(counts.nth(1)).to_have_text(re.compile(r"^\d[\d,]*$"))
    expect(page.locator('tr[data-export="openai"]')).to_contain_text("OpenAI (strict) takes it")
    expect(page.locator('tr[data-export="gemini"]')).to_contain_text("Gemini takes it")
    expect(page.locator("table.export-costs th")).to_have_text(
        ["Export", "cl100k_base", "o200k_base", "Provider rules"]
    )
    before = int(
        page.locator('tr[data-export="openai"] td.tokens').nth(1).inner_text().replace(",", "")
    )

    # 1,001 choices: OpenAI strict allows 1,000 enum values, so it would refuse; the others take it.
    pick_field(page, "3. mood (choice)")
    choices = page.get_by_label("Choices (comma-separated)", exact=True)
    # The box is drawn anew when the field editor settles on mood: type only into the settled
    # one (typing into the one about to be replaced lost part of the text on a busy machine).
    expect(choices).to_have_value(re.compile(r"^calm,\s*tense$"))
    typed = ", ".join(f"c{i}" for i in range(1001))
    choices.fill(typed)
    choices.press("Enter")
    expect(choices).to_have_value(typed)
    openai = page.locator('tr[data-export="openai"]')
    # A rule, the enum values, and a warning: the description that lists them is over 1,024
    # characters, which OpenAI has refused and newer models may take.
    expect(openai).to_contain_text("OpenAI (strict) would refuse it (1 problem, 1 warning)")
    expect(openai).to_contain_text("has 1,003 enum values; strict mode allows 1,000")
    expect(openai).to_contain_text("OpenAI has refused tool descriptions over 1,024 characters")
    expect(page.locator('tr[data-export="anthropic"]')).to_contain_text("Anthropic takes it")
    expect(page.locator("table.export-costs tr.refused")).to_have_count(1)
    after = int(openai.locator("td.tokens").nth(1).inner_text().replace(",", ""))
    assert after > before
    openai.scroll_into_view_if_needed()
    screenshot(page, "designer-export-costs")
