"""The trace explorer under a person's hands (issue 13): every control it has, and what each shows.

`trackerkit simulate` writes to the per-user data directory (TC-1); the explorer lists that
folder beside the bundled sample days, so the session just simulated is one pick away. Every
step asserts what the page shows; the harness fails the test on any traceback in the server's
log or marimo error on the page.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from trackerkit.cli import main
from trackerkit.trace import assemble_turns, assign_turns, read_trace, turn_events

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "data" / "trace"

#: The app's controls (its `mo.ui` elements by the name each is assigned to) these journeys touch;
#: tests/browser/test_controls.py checks it against the notebook.
TOUCHES = {
    "trace_explorer": {
        "place",
        "folder",
        "day_pick",
        "day_table",
        "source_pick",
        "kind_pick",
        "name_filter",
        "event_table",
        "turns_view",
        "turn_table",
    }
}


def _element(page: Any, label: str) -> Any:
    """The `mo.ui` element shown under (or beside) `label`."""
    return page.locator("marimo-ui-element").filter(has=page.get_by_text(label, exact=True)).last


def _toggle(page: Any, label: str, *options: str) -> None:
    """Open the multiselect under `label`, click each option (selecting or unselecting it), close."""
    _element(page, label).locator("button[aria-haspopup=dialog]").click()
    menu = page.get_by_role("dialog")
    for option in options:
        menu.get_by_role("option", name=option, exact=True).click()
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)


def _events_label(count: int) -> str:
    return f"Events ({count:,})"


def test_every_control_of_the_trace_explorer(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    tmp_path: Path,
) -> None:
    """Folder, days, day files, filters, events, turns and a turn's events, each asserted."""
    events, errors = read_trace(BUNDLED)
    names = assign_turns(events)
    turns = assemble_turns(events, names)
    page = open_page(serve("trace_explorer.py"), "Trace explorer")
    page.get_by_text(f"{len(events):,} events").first.wait_for()
    page.get_by_text(f"{len(errors)} broken lines").first.wait_for()
    page.get_by_text(f"{len(turns)} turns", exact=True).wait_for()
    page.get_by_text(_events_label(len(events)), exact=True).wait_for()
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    screenshot(page, "trace_explorer")

    # Days: leaving out the last day loads the others only; leaving out every day says so.
    days = sorted(p.stem for p in BUNDLED.glob("*.jsonl"))
    fewer, _ = read_trace(BUNDLED, days=days[:-1])
    _toggle(page, "Days", days[-1])
    page.get_by_text(f"{len(fewer):,} events").first.wait_for()
    _toggle(page, "Days", *days[:-1])
    page.get_by_text("Pick at least one day.").wait_for()
    _toggle(page, "Days", *days)
    page.get_by_text(f"{len(events):,} events").first.wait_for()

    # The day files table, behind its accordion: one row a day, searchable.
    page.get_by_text("Day files", exact=True).click()
    day_table = _element(page, "Day files")
    for day in days:
        expect(day_table.get_by_text(day, exact=True)).to_have_count(1)
    day_table.get_by_placeholder("Search...").fill(days[0])
    expect(day_table.get_by_text(days[-1], exact=True)).to_have_count(0)
    expect(day_table.get_by_text(days[0], exact=True)).to_have_count(1)

    # Filters: a source, then a kind, then a part of the name; the events table follows.
    source = "telegram"
    by_source = events[events["source"].astype(str) == source]
    _toggle(page, "Source", source)
    page.get_by_text(_events_label(len(by_source)), exact=True).wait_for()
    kind = "inbound"
    by_kind = by_source[by_source["kind"].astype(str) == kind]
    _toggle(page, "Kind", kind)
    page.get_by_text(_events_label(len(by_kind)), exact=True).wait_for()
    part = "received"
    by_name = by_kind[by_kind["name"].astype(str).str.contains(part, regex=False)]
    assert 0 < len(by_name) < len(by_kind)
    _element(page, "Name contains").get_by_role("textbox").fill(part)
    _element(page, "Name contains").get_by_role("textbox").press("Enter")
    page.get_by_text(_events_label(len(by_name)), exact=True).wait_for()
    # The events table itself: searching it for one event's timestamp leaves that row.
    event_table = _element(page, _events_label(len(by_name)))
    first_ts = str(by_name["ts"].astype(str).iloc[0])  # as the app shows it
    event_table.get_by_placeholder("Search...").fill(first_ts)
    expect(event_table.get_by_text(first_ts, exact=True)).to_have_count(1)
    expect(event_table.locator("tbody tr")).to_have_count(1)
    # Clearing the filters brings every event back.
    _toggle(page, "Source", source)
    _toggle(page, "Kind", kind)
    _element(page, "Name contains").get_by_role("textbox").fill("")
    _element(page, "Name contains").get_by_role("textbox").press("Enter")
    page.get_by_text(_events_label(len(events)), exact=True).wait_for()

    # Turns: the first is open; picking the third opens it, with its own events.
    page.get_by_role("heading", name=str(turns["name"].iloc[0])).wait_for()
    third = str(turns["name"].iloc[2])
    turns_view = _element(page, f"{len(turns)} turns")
    turns_view.get_by_role("checkbox", name="Select row").nth(2).click()
    page.get_by_role("heading", name=third).wait_for()
    picked = turn_events(events, third, names)
    turn_table = _element(page, "Its events in ts order")
    expect(turn_table.get_by_text(f"{len(picked)} rows", exact=False)).to_have_count(1)
    # The turn's events table: searching a kind keeps that kind's rows.
    picked_kind = str(picked["kind"].iloc[0])
    turn_table.get_by_placeholder("Search...").fill(picked_kind)
    expect(turn_table.locator("tbody tr")).to_have_count(int((picked["kind"].astype(str) == picked_kind).sum()))
    screenshot(page, "trace_explorer_turn")

    # The folder: one without trace days says so; a path the system refuses is said in words.
    empty = tmp_path / "no-days"
    empty.mkdir()
    folder = _element(page, "Trace folder").get_by_role("textbox")
    folder.fill(str(tmp_path / "absent"))
    folder.press("Enter")
    page.get_by_text("No trace days in").first.wait_for()
    folder.fill(str(empty))
    folder.press("Enter")
    page.get_by_text("holds no day file").first.wait_for()
    folder.fill("/" + "x" * 300)
    folder.press("Enter")
    page.get_by_text("Could not read the trace folder").wait_for()
    page.get_by_text("File name too long").first.wait_for()
    screenshot(page, "trace_explorer_bad_folder")
    folder.fill(str(BUNDLED))
    folder.press("Enter")
    page.get_by_text(f"{len(events):,} events").first.wait_for()


def test_the_simulated_sessions_are_listed(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Picking "Your simulated sessions" loads the day `trackerkit simulate` just wrote (TC-1)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ASSISTANT_DATA_DIR", raising=False)
    fight = str(ROOT / "data" / "scenes" / "fight.json")
    assert main(["simulate", fight, "--json", "--now", "2027-01-05T12:00:00Z"]) == 0
    simulated = tmp_path / "xdg" / "trackerkit" / "trace"
    events, _ = read_trace(simulated)
    bundled, _ = read_trace(BUNDLED)

    page = open_page(serve("trace_explorer.py", env={"XDG_DATA_HOME": str(tmp_path / "xdg")}), "Trace explorer")
    page.get_by_text(f"{len(bundled):,} events").first.wait_for()
    page.get_by_role("combobox").first.select_option(label=f"Your simulated sessions ({simulated})")
    page.get_by_text(f"{len(events):,} events").first.wait_for()
    page.get_by_text(f"{len(assemble_turns(events))} turns").first.wait_for()
    page.get_by_text("2027-01-05").first.wait_for()
    screenshot(page, "trace_explorer_simulated")
