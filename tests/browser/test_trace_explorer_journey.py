"""The trace explorer under a person's hands (issue 13): every control it has, and what each shows.

`trackerkit simulate` writes to the data folder's trace (TC-1; `--data`, else TRACKERKIT_DATA,
else ASSISTANT_DATA_DIR, else the per-user workspace: `trackerkit.workspace`); the explorer lists
that folder, by the same rule and the app's own `--data`, beside the bundled sample days, so the
session just simulated is one pick away. Every
step asserts what the page shows; the harness fails the test on any traceback in the server's
log or marimo error on the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from playwright.sync_api import expect

from trackerkit.cli import main
from trackerkit.trace import (
    assemble_turns,
    assign_turns,
    cost_summary,
    costs_by_day,
    filter_turns,
    read_day_turns,
    read_trace,
    steps,
    turn_events,
    turn_failures,
)

from .widgets import element, toggle

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
        "turn_show",
        "failure_table",
        "day_costs_table",
    }
}


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
    days = sorted(p.stem for p in BUNDLED.glob("*.jsonl"))
    expect(page.locator(".tk-reading")).to_have_text(
        f"Found {len(days)} day files in {BUNDLED} (Bundled sample days); Days picks the ones read."
    )
    # The cumulative chart starts again each day, and is titled by the days it covers.
    span = f"Tokens and cost, cumulative within each day, over {len(days)} days ({days[0]} to {days[-1]})"
    expect(page.locator(".js-plotly-plot .gtitle", has_text=span)).to_have_count(1)
    for day in days:  # one legend group a day file
        expect(page.locator(".js-plotly-plot .legendtext", has_text=day)).to_have_count(1)
    screenshot(page, "trace_explorer_start")

    # Days: leaving out the last day loads the others only; leaving out every day says so.
    fewer, _ = read_trace(BUNDLED, days=days[:-1])
    toggle(page, "Days", days[-1])
    page.get_by_text(f"{len(fewer):,} events").first.wait_for()
    toggle(page, "Days", *days[:-1])
    page.get_by_text("Pick at least one day.").wait_for()
    # One day: the turns begun in its file (found when tried: the second day also listed the
    # tail of a turn begun before midnight in the first day's file, as a turn of its own).
    second = read_day_turns(BUNDLED, days[1])
    alone = assemble_turns(read_trace(BUNDLED, days=[days[1]])[0])
    assert len(second.turns) == len(alone) - 1
    toggle(page, "Days", days[1])
    page.get_by_text(f"{len(second.events):,} events").first.wait_for()
    page.get_by_text(f"{len(second.turns)} turns", exact=True).wait_for()
    # Its turn past midnight takes rows from the next day's file (trial ana3: the count of
    # events loaded did not say so, and the figures added up to more).
    beyond = int((second.turn_events["day"].astype(str) != days[1]).sum())
    assert beyond
    page.get_by_text(
        f"(and {beyond:,} from a day not picked, of turns that run on past midnight", exact=False
    ).first.wait_for()
    toggle(page, "Days", days[0], *days[2:])
    page.get_by_text(f"{len(events):,} events").first.wait_for()

    # The day files table, behind its accordion: one row a day, searchable.
    page.get_by_text("Day files", exact=True).click()
    day_table = element(page, "Day files")
    for day in days:
        expect(day_table.get_by_text(day, exact=True)).to_have_count(1)
    day_table.get_by_placeholder("Search...").fill(days[0])
    expect(day_table.get_by_text(days[-1], exact=True)).to_have_count(0)
    expect(day_table.get_by_text(days[0], exact=True)).to_have_count(1)

    # Filters: a source, then a kind, then a part of the name; the events table follows.
    source = "telegram"
    by_source = events[events["source"].astype(str) == source]
    toggle(page, "Source", source)
    page.get_by_text(_events_label(len(by_source)), exact=True).wait_for()
    kind = "inbound"
    by_kind = by_source[by_source["kind"].astype(str) == kind]
    toggle(page, "Kind", kind)
    page.get_by_text(_events_label(len(by_kind)), exact=True).wait_for()
    part = "received"
    by_name = by_kind[by_kind["name"].astype(str).str.contains(part, regex=False)]
    assert 0 < len(by_name) < len(by_kind)
    element(page, "Name contains").get_by_role("textbox").fill(part)
    element(page, "Name contains").get_by_role("textbox").press("Enter")
    page.get_by_text(_events_label(len(by_name)), exact=True).wait_for()
    # The events table itself: searching it for one event's timestamp leaves that row.
    event_table = element(page, _events_label(len(by_name)))
    first_ts = str(by_name["ts"].astype(str).iloc[0])  # as the app shows it
    # Found when tried: a filtered table showed its row labels as an extra Index0 column.
    headers = [h.split("\n", 1)[0].strip() for h in event_table.locator("th").all_inner_texts()]
    assert [h for h in headers if h] == [
        "ts", "turn", "session", "source", "kind", "name", "file", "line"
    ], headers  # fmt: skip
    # The table's search reads its text as a pattern (a "+" matches nothing): search the time.
    clock = first_ts.split(" ", 1)[1].split("+", 1)[0]
    assert (by_name["ts"].astype(str).str.contains(clock, regex=False)).sum() == 1
    event_table.get_by_placeholder("Search...").fill(clock)
    expect(event_table.locator("tbody tr")).to_have_count(1)
    expect(event_table.locator("tbody tr").first).to_contain_text(first_ts)
    # Clearing the filters brings every event back.
    toggle(page, "Source", source)
    toggle(page, "Kind", kind)
    element(page, "Name contains").get_by_role("textbox").fill("")
    element(page, "Name contains").get_by_role("textbox").press("Enter")
    page.get_by_text(_events_label(len(events)), exact=True).wait_for()

    # Turns: the first is open; picking the third opens it, with its own events.
    page.get_by_role("heading", name=str(turns["name"].iloc[0])).wait_for()
    third = str(turns["name"].iloc[2])
    turns_view = element(page, f"{len(turns)} turns")
    turns_view.get_by_role("checkbox", name="Select row").nth(2).click()
    page.get_by_role("heading", name=third).wait_for()
    picked = turn_events(events, third, names)
    turn_table = element(page, "Its events in ts order")
    expect(turn_table.get_by_text(f"{len(picked)} rows", exact=False)).to_have_count(1)
    # The turn's events table: searching a kind keeps that kind's rows.
    picked_kind = str(picked["kind"].iloc[0])
    turn_table.get_by_placeholder("Search...").fill(picked_kind)
    expect(turn_table.locator("tbody tr")).to_have_count(
        int((picked["kind"].astype(str) == picked_kind).sum())
    )
    screenshot(page, "trace_explorer_turn")

    # The folder: a missing one, an empty one, one with only other files, each said on the page.
    folder = element(page, "Trace folder").get_by_role("textbox")
    _bad_folders(page, folder, tmp_path, screenshot)
    folder.fill("/" + "x" * 300)
    folder.press("Enter")
    page.get_by_text("Could not read the trace folder").wait_for()
    page.get_by_text("File name too long").first.wait_for()
    screenshot(page, "trace_explorer_bad_folder")
    folder.fill(str(BUNDLED))
    folder.press("Enter")
    page.get_by_text(f"{len(events):,} events").first.wait_for()


def _bad_folders(
    page: Any, folder: Any, tmp_path: Path, screenshot: Callable[[Any, str], Path]
) -> None:
    """No folder, missing, empty, only non-day files, days beside other files: each said."""
    # Found when tried: an emptied box read the server's working folder (.git, .venv, ... listed
    # as skipped) under a message whose markup broke.
    folder.fill("")
    folder.press("Enter")
    page.get_by_text("No folder given", exact=True).wait_for()
    expect(page.get_by_text(".venv", exact=True)).to_have_count(0)
    folder.fill(str(tmp_path / "absent"))
    folder.press("Enter")
    page.get_by_text("Missing folder", exact=True).wait_for()
    said = page.locator(".paragraph").filter(has_text=f"{tmp_path / 'absent'} does not exist").first
    said.wait_for()
    # The folder is named once, not twice ("No trace folder at X. X does not exist").
    assert said.inner_text().count(str(tmp_path / "absent")) == 1, said.inner_text()

    empty = tmp_path / "empty"
    empty.mkdir()
    folder.fill(str(empty))
    folder.press("Enter")
    page.get_by_text("Empty folder", exact=True).wait_for()
    page.get_by_text("is empty: no day file").first.wait_for()

    others = tmp_path / "others"
    others.mkdir()
    (others / "notes.txt").write_text("not a day\n")
    folder.fill(str(others))
    folder.press("Enter")
    page.get_by_text("holds no day file").first.wait_for()
    page.get_by_text("Skipped 1 entry").first.wait_for()
    page.get_by_text("notes.txt", exact=True).wait_for()

    # A data folder typed for its trace/ folder (trial ana3): the page names the folder to read.
    data_folder = tmp_path / "data"
    (data_folder / "trace").mkdir(parents=True)
    day = sorted(BUNDLED.glob("*.jsonl"))[0]
    (data_folder / "trace" / day.name).write_bytes(day.read_bytes())
    folder.fill(str(data_folder))
    folder.press("Enter")
    page.get_by_text(
        f"its trace/ folder holds 1 day file: read {data_folder / 'trace'}, the folder of the days."
    ).first.wait_for()

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    day = sorted(BUNDLED.glob("*.jsonl"))[0]
    (mixed / day.name).write_bytes(day.read_bytes())
    (mixed / "notes.txt").write_text("not a day\n")
    (mixed / "2026-02-30.jsonl").write_text("")
    folder.fill(str(mixed))
    folder.press("Enter")
    events, _ = read_trace(mixed)
    page.get_by_text(f"{len(events):,} events").first.wait_for()
    # The page says which folder it reads: the typed one, not the Trace days choice still shown.
    expect(page.locator(".tk-reading")).to_have_text(
        f"Found 1 day file in {mixed} (typed in Trace folder, not one of the Trace days choices); "
        "Days picks the ones read."
    )
    page.get_by_text("Skipped 2 entries").first.wait_for()
    expect(page.get_by_text("2026-02-30 is not a real date")).to_have_count(1)
    expect(page.get_by_text("not named YYYY-MM-DD.jsonl", exact=False)).not_to_have_count(0)
    screenshot(page, "trace_explorer_skipped")


def test_why_a_turn_failed_and_the_days(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[..., Path],
) -> None:
    """Failed turns filtered, a failed turn's reason and data shown, failures drawn, cost per day."""
    events, _ = read_trace(BUNDLED)
    names = assign_turns(events)
    turns = assemble_turns(events, names)
    page = open_page(serve("trace_explorer.py"), "Trace explorer")
    page.get_by_text(f"{len(turns)} turns", exact=True).wait_for()

    # Per day: the known cost with the unknown share, and one row a day file.
    page.get_by_text(cost_summary(turns)).first.wait_for()
    # The step count beside it says both numbers (found when tried: 93 steps above, 86 in the
    # cost line): the cost is of completed steps, which the turns' `steps` count.
    outcomes = steps(events, names)["outcome"]
    completed, failed_steps = (
        int((outcomes == "completed").sum()),
        int((outcomes == "failed").sum()),
    )
    assert completed == int(turns["steps"].sum())
    page.get_by_text(
        f"{len(outcomes)} steps ({completed} completed, {failed_steps} failed)", exact=False
    ).first.wait_for()
    per_day = costs_by_day(turns)
    day_costs = element(page, "Cost and usage per day, each turn on the day it began")
    for day in per_day["day"]:
        expect(day_costs.get_by_text(day, exact=True)).to_have_count(1)
    # Its steps are the completed ones, and its header says so (found when tried).
    expect(day_costs.get_by_text("completed_steps", exact=True).first).to_be_visible()
    expect(page.get_by_text("steps carry no cost and are not in these totals")).not_to_have_count(0)
    expect(page.get_by_text("Tokens per day", exact=True)).to_have_count(1)

    # The filter: failed turns only, then turns with failures (recovered ones too), each counted.
    failed = filter_turns(turns, "failed turns")
    page.get_by_role("radio", name="failed turns").click()
    label = f"{len(failed)} failed turns (of {len(turns)})"
    page.get_by_text(label, exact=True).wait_for()
    turns_view = element(page, label)
    expect(turns_view.locator("tbody tr")).to_have_count(len(failed))

    # A failed turn whose tools failed first: its reason is the model's failure, with its data.
    position = next(i for i, n in enumerate(failed["failures"]) if n > 0)
    turn = failed.iloc[position]
    turns_view.get_by_role("checkbox", name="Select row").nth(position).click()
    page.get_by_role("heading", name=str(turn["name"])).wait_for()
    page.get_by_text("Why this turn failed", exact=True).wait_for()
    pane = page.locator(".paragraph", has_text=f"{turn['error_class']}: {turn['error']}")
    expect(pane).to_have_count(1)
    expect(
        page.get_by_text(f"status failed, failures {turn['failures']}", exact=False)
    ).to_have_count(1)
    failures = turn_failures(events, str(turn["name"]), names)
    failure_table = element(page, f"Every failure in this turn ({len(failures)})")
    expect(failure_table.locator("tbody tr")).to_have_count(len(failures))
    # A tool that failed without a message says so; no cell reads NaN.
    unsaid = int((failures["error_class"].notna() & failures["error"].isna()).sum())
    assert unsaid, "the sample's failed turn has a tool failure without a message"
    expect(failure_table.get_by_text("(no message)", exact=True)).to_have_count(unsaid)
    expect(failure_table.get_by_text("NaN", exact=True)).to_have_count(0)
    page.get_by_text("The failing event's data", exact=True).wait_for()
    reason = failures[failures["is_reason"].astype(bool)].iloc[0]
    for key in reason["data"]:
        expect(page.get_by_text(f'"{key}"', exact=False).first).to_be_visible()
    expect(page.get_by_text("Status and failures", exact=True)).to_be_visible()
    expect(page.locator(".paragraph", has_text="completed turn may have failures")).to_be_visible()
    legend = page.locator(".js-plotly-plot .legendtext")
    for name in ("step failed", "tool failed", "failure"):
        expect(legend.filter(has_text=name).first).to_be_visible()
    page.get_by_text("Why this turn failed", exact=True).scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_failed_turn")
    # The README's picture (docs/trace_explorer.png): from the Turns heading, the failed-turn
    # filter, the turns table and the why pane; the folder's machine path is above, out of view.
    screenshot(
        page,
        "trace_explorer",
        top=page.get_by_role("heading", name="Turns", exact=True),
        card="trace_explorer",
    )
    legend.filter(has_text="failure").first.scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_failed_timeline")
    failure_table.scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_failures")

    # Turns with failures: also the completed turns whose tools failed; then every turn again.
    shown = filter_turns(turns, "turns with failures")
    page.get_by_role("radio", name="turns with failures").click()
    page.get_by_text(f"{len(shown)} turns with failures (of {len(turns)})", exact=True).wait_for()
    page.get_by_role("radio", name="every turn").click()
    page.get_by_text(f"{len(turns)} turns", exact=True).wait_for()
    # A turn without a failure has empty error cells, not NaN.
    clean = str(turns.loc[turns["error_class"].isna(), "name"].iloc[0])
    every = element(page, f"{len(turns)} turns")
    every.get_by_placeholder("Search...").fill(clean)
    expect(every.locator("tbody tr")).to_have_count(1)
    expect(every.get_by_text("NaN", exact=True)).to_have_count(0)
    every.get_by_placeholder("Search...").fill("")
    day_costs.scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_days")
    page.get_by_text(
        "Tokens and cost, cumulative within each day", exact=False
    ).scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_tokens")
    page.get_by_text("Turn durations", exact=True).scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_durations")


def test_the_simulated_sessions_are_listed(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Picking "Your data folder's trace" loads the day `trackerkit simulate` just wrote (TC-1)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ASSISTANT_DATA_DIR", raising=False)
    fight = str(ROOT / "data" / "scenes" / "fight.json")
    assert main(["simulate", fight, "--json", "--now", "2027-01-05T12:00:00Z"]) == 0
    simulated = tmp_path / "xdg" / "trackerkit" / "workspace" / "trace"
    events, _ = read_trace(simulated)
    bundled, _ = read_trace(BUNDLED)

    page = open_page(
        serve("trace_explorer.py", env={"XDG_DATA_HOME": str(tmp_path / "xdg")}), "Trace explorer"
    )
    page.get_by_text(f"{len(bundled):,} events").first.wait_for()
    page.get_by_role("combobox").first.select_option(
        label=f"Your data folder's trace ({simulated})"
    )
    page.get_by_text(f"{len(events):,} events").first.wait_for()
    page.get_by_text(f"{len(assemble_turns(events))} turns").first.wait_for()
    page.get_by_text("2027-01-05").first.wait_for()
    screenshot(page, "trace_explorer_simulated")


def test_the_data_option_names_the_trace_listed(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`marimo run notebooks/trace_explorer.py -- --data DIR` lists DIR/trace, where
    `trackerkit simulate --data DIR` wrote, beside the bundled sample days (the per-user folder
    is not offered); picking it loads that day."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    data = tmp_path / "trial-data"
    fight = str(ROOT / "data" / "scenes" / "fight.json")
    assert (
        main(["simulate", fight, "--json", "--data", str(data), "--now", "2027-01-05T12:00:00Z"])
        == 0
    )
    events, _ = read_trace(data / "trace")
    bundled, _ = read_trace(BUNDLED)

    url = serve(
        "trace_explorer.py", "--data", str(data), env={"XDG_DATA_HOME": str(tmp_path / "xdg")}
    )
    page = open_page(url, "Trace explorer")
    # The folder named by --data is the one opened (found when tried: it opened on the samples).
    page.get_by_text(f"{len(events):,} events").first.wait_for()
    page.get_by_text("2027-01-05").first.wait_for()
    choices = page.get_by_role("combobox").first.locator("option").all_inner_texts()
    assert choices == ["Bundled sample days", f"Your data folder's trace ({data / 'trace'})"]
    page.get_by_role("combobox").first.select_option(label="Bundled sample days")
    page.get_by_text(f"{len(bundled):,} events").first.wait_for()
    assert not (tmp_path / "xdg" / "trackerkit").exists(), "nothing went to the per-user folder"


#: A model server's error, recorded into the trace as a failed step's message: markup that would
#: make elements and run scripts if the page put it into markdown as it is.
FAILURE_PAYLOAD = (
    '400 {"error":{"message":"<h1>INJ</h1><img src=x onerror=window.__pwned=1>'
    '<iframe srcdoc=\\"<script>top.__pwned=2</script>\\"></iframe><marquee>m</marquee>"}}'
)


def _day_line(ts: str, name: str, data: dict[str, Any]) -> str:
    line = {
        "ts": ts,
        "turn": "turn_<b>1</b>",
        "session": "wrun_INJ",
        "source": "eval",
        "kind": "eve",
    }
    return orjson.dumps(line | {"name": name, "data": data}).decode()


def test_markup_in_a_failure_message_shows_as_text(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[..., Path],
    tmp_path: Path,
) -> None:
    """A failed step whose message a model server wrote with HTML: "Why this turn failed", the
    failures table and the heading show it as written; no element is made, no script runs."""
    data = tmp_path / "data"
    (data / "trace").mkdir(parents=True)
    (data / "trace" / "2027-01-05.jsonl").write_text(
        "\n".join(
            [
                _day_line("2027-01-05T12:00:00.000Z", "turn.started", {"sequence": 0}),
                _day_line(
                    "2027-01-05T12:00:00.100Z", "step.started", {"sequence": 1, "stepIndex": 0}
                ),
                _day_line(
                    "2027-01-05T12:00:01.000Z",
                    "step.failed",
                    {
                        "sequence": 2,
                        "stepIndex": 0,
                        "code": "E_MODEL",
                        "message": FAILURE_PAYLOAD,
                        "retryable": False,
                    },
                ),
                _day_line("2027-01-05T12:00:01.100Z", "turn.failed", {"sequence": 3}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    url = serve(
        "trace_explorer.py", "--data", str(data), env={"XDG_DATA_HOME": str(tmp_path / "xdg")}
    )
    page = open_page(url, "Trace explorer")
    page.get_by_role("combobox").first.select_option(
        label=f"Your data folder's trace ({data / 'trace'})"
    )
    page.get_by_text("4 events", exact=False).first.wait_for()
    page.get_by_text("Why this turn failed", exact=True).wait_for()
    expect(page.locator(".paragraph", has_text=f"E_MODEL: {FAILURE_PAYLOAD}")).to_have_count(1)
    expect(page.get_by_role("heading", name="wrun_INJ/turn_<b>1</b>")).to_have_count(1)
    assert page.evaluate("() => window.__pwned === undefined")
    # The failing event's data is shown as JSON (found when tried: a false read False).
    page.get_by_text("The failing event's data", exact=True).wait_for()
    pane = page.locator("marimo-json-output")
    expect(pane.get_by_text(re.compile(r"\bFalse\b"))).to_have_count(0)
    expect(pane.get_by_text(re.compile(r"\bfalse\b")).first).to_be_visible()
    for selector in (
        "marquee",
        "h1:has-text('INJ')",
        "img[src='x']",
        "iframe[srcdoc]",
        "b:text-is('1')",
    ):
        expect(page.locator(selector)).to_have_count(0)
    page.get_by_text("Why this turn failed", exact=True).scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_markup_as_text")


def _subagent_and_busy_day(path: Path, steps_count: int) -> None:
    """A completed turn whose subagent planner failed (`s1/turn_2`), then a turn of many steps."""

    def line(ms: int, turn: str, name: str, data: dict[str, Any]) -> bytes:
        stamp = f"2027-01-05T10:{ms // 60_000:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"
        row = {"ts": stamp, "turn": turn, "session": "s1", "source": "telegram", "kind": "eve"}
        return orjson.dumps(row | {"name": name, "data": data})

    planner = {"subagent": "planner", "stepIndex": 0}
    failed = {"code": "subagent_budget", "message": "planner ran out of budget"}
    usage = {"in": 10, "out": 2, "costUsd": 0.001}
    rows = [
        line(0, "turn_2", "turn.started", {"sequence": 0}),
        line(10, "turn_2#planner", "step.started", {"sequence": 0} | planner),
        line(20, "turn_2#planner", "turn.failed", {"sequence": 1} | planner | failed),
        line(30, "turn_2", "turn.completed", {"sequence": 1}),
        line(1000, "turn_3", "turn.started", {"sequence": 0}),
        *(
            line(
                1000 + i * 500,
                "turn_3",
                "step.completed",
                {"sequence": i + 1, "stepIndex": i, "usage": usage},
            )
            for i in range(steps_count)
        ),
        line(1000 + steps_count * 500, "turn_3", "turn.completed", {"sequence": steps_count + 1}),
    ]
    path.write_bytes(b"\n".join(rows) + b"\n")


def test_a_subagents_failure_on_a_busy_day(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[..., Path],
    tmp_path: Path,
) -> None:
    """A completed turn whose subagent failed says the subagent failed, and the failures table
    shows each row's turn key; a day of more steps than its curves' points shows its per-day
    table, its cost and its cumulative curves, thinned and said to be (trial ana2, findings 5, 1)."""
    data = tmp_path / "data"
    (data / "trace").mkdir(parents=True)
    _subagent_and_busy_day(data / "trace" / "2027-01-05.jsonl", 3500)
    events, _ = read_trace(data / "trace")
    turns = assemble_turns(events)
    url = serve(
        "trace_explorer.py", "--data", str(data), env={"XDG_DATA_HOME": str(tmp_path / "xdg")}
    )
    page = open_page(url, "Trace explorer")
    page.get_by_text(f"{len(events):,} events").first.wait_for()
    page.get_by_role("heading", name="s1/turn_2").wait_for()
    page.get_by_text("Why this turn had failures", exact=True).wait_for()
    expect(
        page.locator(
            ".paragraph",
            has_text="In this turn the subagent planner failed (turn_2#planner): "
            "subagent_budget: planner ran out of budget",
        )
    ).to_have_count(1)
    expect(page.get_by_text("a subagent's end ends the subagent", exact=False)).to_have_count(1)
    failure_table = element(page, "Every failure in this turn (1)")
    headers = [h.split("\n", 1)[0].strip() for h in failure_table.locator("th").all_inner_texts()]
    assert "turn" in headers, headers
    expect(failure_table.get_by_text("turn_2#planner", exact=True)).to_have_count(1)
    failure_table.scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_subagent_failure")

    # The busy day: the table and the cost show, and the curves say they are thinned.
    page.get_by_text(cost_summary(turns)).first.wait_for()
    day_costs = element(page, "Cost and usage per day, each turn on the day it began")
    expect(day_costs.get_by_text("2027-01-05", exact=True)).to_have_count(1)
    thinned = page.get_by_text("thinned to at most 3,000 points a day", exact=False)
    expect(thinned).to_have_count(1)
    thinned.scroll_into_view_if_needed()
    screenshot(page, "trace_explorer_thinned")
