"""The trace explorer under a person's hands (issue 13): every control it has, and what each shows.

`trackerkit simulate` writes to the per-user data directory (TC-1); the explorer lists that
folder beside the bundled sample days, so the session just simulated is one pick away.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trackerkit.cli import main
from trackerkit.trace import assemble_turns, read_trace

ROOT = Path(__file__).resolve().parents[2]


def test_trace_explorer_shows_turns_and_a_timeline(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], screenshot: Any, count_above: Any
) -> None:
    """The trace explorer lists the bundled turns and draws the picked turn's timeline."""
    page = open_page(serve("trace_explorer.py"), "Trace explorer")
    events, _ = read_trace(ROOT / "data" / "trace")
    page.get_by_text(f"{len(events):,} events").first.wait_for(timeout=60_000)
    page.get_by_text(f"{len(assemble_turns(events))} turns").first.wait_for(timeout=60_000)
    count_above(page.locator(".js-plotly-plot"), more_than=0)
    screenshot(page, "trace_explorer")


def test_the_simulated_sessions_are_listed(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Any,
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
    bundled, _ = read_trace(ROOT / "data" / "trace")

    page = open_page(serve("trace_explorer.py"), "Trace explorer")
    page.get_by_text(f"{len(bundled):,} events").first.wait_for(timeout=60_000)
    page.locator("select").first.select_option(label=f"Your simulated sessions ({simulated})")
    page.get_by_text(f"{len(events):,} events").first.wait_for(timeout=60_000)
    page.get_by_text(f"{len(assemble_turns(events))} turns").first.wait_for(timeout=60_000)
    page.get_by_text("2027-01-05").first.wait_for(timeout=60_000)
    screenshot(page, "trace_explorer_simulated")
