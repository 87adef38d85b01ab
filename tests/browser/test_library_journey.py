"""The library app under a person's hands (issue 13): every control it has, and what each shows.

The app reads a temporary copy of `data/` (`-- --data DIR`) holding one more tracker file, which
the decoder refuses. Every step asserts what the page shows; the harness fails the test on any
traceback in the server's log or marimo error on the page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]

#: The app's controls (its `mo.ui` elements by the name each is assigned to) this journey touches;
#: tests/browser/test_controls.py checks it against the notebook.
TOUCHES = {"library": {"verdict_table", "picked", "field_table"}}


def _table(page: Any, label: str) -> Any:
    """The `mo.ui.table` shown under `label`."""
    return page.locator("marimo-ui-element").filter(has=page.get_by_text(label, exact=True)).last


def test_library_lists_verdicts_and_opens_each_tracker(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
) -> None:
    """Verdicts, a refused file with its problems, searching the tables, and opening a tracker."""
    (data_copy / "trackers" / "broken.json").write_text(
        json.dumps({"kind": "tracker", "id": "broken", "name": 7})
    )
    trackers = len(list((data_copy / "trackers").glob("*.json")))

    page = open_page(serve("library.py", "--data", str(data_copy)), "The tracker library")
    # The folder read, and why: the --data option, read in place.
    page.get_by_text("(the --data option): read and saved in place").first.wait_for()
    page.get_by_text(f"{trackers} trackers").first.wait_for()
    page.get_by_text("1 refused").first.wait_for()
    # The refused file is listed by path with its problems, and the others still decode.
    page.locator("li").filter(has_text="broken.json").first.wait_for()
    verdicts = _table(page, "Decoder verdicts")
    expect(verdicts.get_by_text("refused:", exact=False)).to_have_count(1)
    expect(verdicts.get_by_text("decodes", exact=True)).to_have_count(trackers - 1)
    screenshot(page, "library")

    # Searching the verdicts narrows the rows to the match.
    verdicts.get_by_placeholder("Search...").fill("broken")
    expect(verdicts.get_by_text("decodes", exact=True)).to_have_count(0)
    expect(verdicts.get_by_text("refused:", exact=False)).to_have_count(1)
    verdicts.get_by_placeholder("Search...").fill("")
    expect(verdicts.get_by_text("decodes", exact=True)).to_have_count(trackers - 1)

    # The first tracker by name is open; its fields and starting values show.
    page.get_by_role("heading", name="Health").wait_for()
    fields = _table(page, "Fields")
    expect(fields.get_by_text("hp_max", exact=True)).to_have_count(1)
    # The layout and the note are sentences of their own (no "chips.Note" run together).
    page.locator(".paragraph").filter(
        has_text="Laid out as a record; changes shown as chips."
    ).first.wait_for()
    note = page.locator(".paragraph").filter(has_text="Note for the model:").first
    expect(note).to_have_text("Note for the model: Lower hp when Vera is hurt.")
    # What each field accepts, in words, never raw JSON.
    expect(fields.get_by_text("a number from 0 to hp_max", exact=True)).to_have_count(1)
    expect(fields.get_by_text("a number, at least 1", exact=True)).to_have_count(1)
    expect(fields.get_by_text("one of: calm, tense", exact=True)).to_have_count(1)
    expect(fields.get_by_text('{"', exact=False)).to_have_count(0)

    # Picking another tracker opens it: its description and its own fields. Each is offered as
    # "Name (id)", as in the designer's picker.
    page.get_by_role("combobox").select_option(label="Stamina (stamina)")
    page.get_by_role("heading", name="Stamina").wait_for()
    fields = _table(page, "Fields")
    expect(fields.get_by_text("hp_max", exact=True)).to_have_count(0)
    stamina = json.loads((data_copy / "trackers" / "stamina.json").read_text())
    names = [f["name"] for f in stamina["body"]["fields"]]
    for name in names:
        expect(fields.get_by_text(name, exact=True)).to_have_count(1)

    # Searching the fields keeps the one asked for.
    fields.get_by_placeholder("Search...").fill(names[-1])
    for name in names[:-1]:
        expect(fields.get_by_text(name, exact=True)).to_have_count(0)
    expect(fields.get_by_text(names[-1], exact=True)).to_have_count(1)
    screenshot(page, "library_stamina")


def test_two_trackers_of_one_name_each_open(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], data_copy: Path
) -> None:
    """Found by testers: health.json and a copy of it, both named "Health", were one picker
    entry (keyed by name), so the copy could never be opened. Each is its own "Name (id)".
    With more trackers than ten, every verdict is on the one page (a trial: the table paged at
    ten rows and four trackers sat unseen on page 2)."""
    piece = json.loads((data_copy / "trackers" / "health.json").read_text())
    piece["id"] = "health-copy"
    piece["description"] = "The copy, changed."
    (data_copy / "trackers" / "health-copy.json").write_text(json.dumps(piece))
    for n in range(2, 7):
        copy = dict(piece, id=f"health-copy-{n}", name=f"Health {n}")
        (data_copy / "trackers" / f"health-copy-{n}.json").write_text(json.dumps(copy))
    trackers = len(list((data_copy / "trackers").glob("*.json")))
    assert trackers > 10

    page = open_page(serve("library.py", "--data", str(data_copy)), "The tracker library")
    verdicts = _table(page, "Decoder verdicts")
    expect(verdicts.get_by_text("decodes", exact=True)).to_have_count(trackers)
    picker = page.get_by_role("combobox")
    expect(picker.locator("option", has_text="Health (health)")).to_have_count(1)
    expect(picker.locator("option", has_text="Health (health-copy)")).to_have_count(1)
    page.get_by_text("Id health, read from", exact=False).first.wait_for()
    picker.select_option(label="Health (health-copy)")
    page.get_by_text("The copy, changed.", exact=True).first.wait_for()
    page.get_by_text("Id health-copy, read from", exact=False).first.wait_for()
    expect(page.get_by_text("Id health, read from", exact=False)).to_have_count(0)


def test_a_data_folder_that_is_not_there_is_said(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], tmp_path: Path
) -> None:
    """Found by testers: a mistyped --data folder read as "0 trackers ... all decode". The page
    says the folder is not there and which folder it looked in."""
    typo = tmp_path / "dta"
    page = open_page(serve("library.py", "--data", str(typo)), "The tracker library")
    page.get_by_text("The data folder is not there:", exact=False).first.wait_for()
    page.get_by_text(str(typo), exact=True).first.wait_for()
    expect(page.get_by_text("all decode", exact=False)).to_have_count(0)
    assert not typo.exists(), "reading the library made the folder"


def test_a_data_folder_that_is_a_file_is_a_message_on_the_page(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    tmp_path: Path,
) -> None:
    """`--data` naming a file: the section says why in words, and nothing else breaks."""
    afile = tmp_path / "notes.txt"
    afile.write_text("not a folder")
    page = open_page(serve("library.py", "--data", str(afile)), "The tracker library")
    page.get_by_text("Could not choose the data folder").first.wait_for()
    page.get_by_text(f"--data: {afile} is not a folder").first.wait_for()
    expect(page.get_by_text("Decoder verdicts")).to_have_count(0)
    screenshot(page, "library_bad_folder")


def test_a_folder_name_too_long_is_a_message_on_the_page(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], tmp_path: Path
) -> None:
    """A pasted path the system cannot even look up (too long a name) is said in words."""
    page = open_page(
        serve("library.py", "--data", str(tmp_path / ("x" * 300))), "The tracker library"
    )
    page.get_by_text("File name too long").first.wait_for()


def test_the_library_reads_the_bundled_data_then_the_workspace(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[..., Path],
    tmp_path: Path,
    data_copy: Path,
) -> None:
    """With no --data: the bundled data read in place, and once a workspace exists, the workspace."""
    bundled = len(list((ROOT / "data" / "trackers").glob("*.json")))
    page = open_page(serve("library.py"), "The tracker library")
    page.get_by_text("read in place; the first save copies it to your workspace").first.wait_for()
    page.get_by_text(f"{bundled} trackers").first.wait_for()
    expect(page.get_by_text(str(ROOT / "data" / "trackers"), exact=True)).to_have_count(1)
    # The gallery card: the bundled library's verdicts (the machine path above them out of view).
    screenshot(
        page,
        "library_bundled",
        top=page.get_by_text("Decoder verdicts", exact=True),
        card="library",
    )

    # A workspace made by an earlier save (here: the bundled library less one tracker) is read.
    home = tmp_path / "user-data"
    (home / "trackerkit").mkdir(parents=True)
    data_copy.rename(home / "trackerkit" / "workspace")
    (home / "trackerkit" / "workspace" / "trackers" / "weather.json").unlink()
    page = open_page(serve("library.py", env={"XDG_DATA_HOME": str(home)}), "The tracker library")
    page.get_by_text("Your workspace").first.wait_for()
    page.get_by_text(f"{bundled - 1} trackers").first.wait_for()
    expect(
        page.get_by_text(str(home / "trackerkit" / "workspace" / "trackers"), exact=True)
    ).to_have_count(1)


#: What a hostile tracker file holds where the page shows text: each must read as written.
HOSTILE_NAME = '<h1>INJ</h1><img src=x onerror="top.__pwned=2"><marquee>m</marquee>'
HOSTILE_NOTE = (
    'The causeway is slick.<iframe srcdoc="<script>top.__pwned=11</script>" hidden></iframe>'
)
HOSTILE_DESCRIPTION = "<style>body{display:none}</style>Drawn from a file."
HOSTILE_FILE = "<img src=x onerror=top.__pwned=3>"


def test_html_in_tracker_files_is_shown_as_text(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], data_copy: Path
) -> None:
    """Found when attacked: a tracker's name, description and note (and a refused file's name) rendered as HTML.

    A name holding `<h1>`, `<img onerror>` and `<marquee>`, a description holding `<style>`, a
    note holding an `<iframe srcdoc>` script and a file named like an `<img onerror>` are shown
    literally: no script runs and no element of theirs is in the page.
    """
    tracker = json.loads((data_copy / "trackers" / "stamina.json").read_text())
    tracker["id"] = "hostile"
    tracker["name"] = HOSTILE_NAME
    tracker["description"] = HOSTILE_DESCRIPTION
    tracker["body"]["note"] = HOSTILE_NOTE
    tracker["body"]["template"] = "`<b>bold</b>` {{char}}"
    (data_copy / "trackers" / "hostile.json").write_text(json.dumps(tracker))
    (data_copy / "trackers" / f"{HOSTILE_FILE}.json").write_text(
        json.dumps({"kind": "tracker", "id": "x"})
    )

    page = open_page(serve("library.py", "--data", str(data_copy)), "The tracker library")
    # The hostile tracker sorts first ('<' before letters), so it is the one open.
    page.get_by_role("heading", name=HOSTILE_NAME).wait_for()
    note = page.locator(".paragraph").filter(has_text="Note for the model:").first
    expect(note).to_have_text(f"Note for the model: {HOSTILE_NOTE}")
    page.get_by_text(HOSTILE_DESCRIPTION, exact=True).first.wait_for()
    page.get_by_text("`<b>bold</b>` {{char}}", exact=False).first.wait_for()
    page.locator("li").filter(has_text=f"{HOSTILE_FILE}.json").first.wait_for()
    _table(page, "Decoder verdicts").get_by_text(HOSTILE_NAME, exact=True).first.wait_for()

    assert page.evaluate("() => window.__pwned") is None, "a script from the tracker file ran"
    for injected in ("marquee", "iframe[srcdoc]", "img[src='x']", "b:text('bold')"):
        expect(page.locator(injected)).to_have_count(0)
    expect(page.locator("h1", has_text="INJ")).to_have_count(0)
    expect(page.locator("style", has_text="display:none")).to_have_count(0)
    expect(page.locator("body")).to_be_visible()
