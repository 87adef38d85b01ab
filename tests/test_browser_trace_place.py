"""The trace explorer under a person's hands: the session just simulated is one pick away.

`trackerkit simulate` writes to the per-user data directory (TC-1); the explorer lists that
folder beside the bundled sample days. Driven in the same headless Chromium as test_browser.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_browser import _open, _screenshot, browser, serve

from trackerkit.cli import main
from trackerkit.trace import assemble_turns, read_trace

__all__ = ["browser", "serve"]  # the fixtures, shared with test_browser.py

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.browser


def test_the_simulated_sessions_are_listed(
    browser: Any, serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Picking "Your simulated sessions" loads the day `trackerkit simulate` just wrote (TC-1)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ASSISTANT_DATA_DIR", raising=False)
    fight = str(ROOT / "data" / "scenes" / "fight.json")
    assert main(["simulate", fight, "--json", "--now", "2027-01-05T12:00:00Z"]) == 0
    simulated = tmp_path / "xdg" / "trackerkit" / "trace"
    events, _ = read_trace(simulated)
    bundled, _ = read_trace(ROOT / "data" / "trace")

    page = _open(browser, serve("trace_explorer.py"), "Trace explorer")
    page.get_by_text(f"{len(bundled):,} events").first.wait_for(timeout=60_000)
    page.locator("select").first.select_option(label=f"Your simulated sessions ({simulated})")
    page.get_by_text(f"{len(events):,} events").first.wait_for(timeout=60_000)
    page.get_by_text(f"{len(assemble_turns(events))} turns").first.wait_for(timeout=60_000)
    page.get_by_text("2027-01-05").first.wait_for(timeout=30_000)
    _screenshot(page, "trace_explorer_simulated")
    page.close()
