"""The evaluate page: a press of Run made while a run plays does not play everything again."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .widgets import fill_number

#: The app's controls this journey touches; tests/browser/test_controls.py checks it.
TOUCHES = {"evaluate": {"run_button"}}


def _sessions(trace: Path) -> int:
    """The evaluation runs played so far: each run's turns carry its own session id."""
    found = set()
    for day in trace.glob("*.jsonl"):
        for line in day.read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and str(event.get("session", "")).startswith(
                ("sim_eval-", "eval_")
            ):
                found.add(event["session"])
    return len(found)


def test_a_press_during_a_run_is_not_played_again(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    data_copy: Path,
) -> None:
    """A trial: a second press during a run queued a second full run, with no word."""
    page = open_page(
        serve("evaluate.py", "--data", str(data_copy)), "Will my trackers hold on my model?"
    )
    page.get_by_text("Press Run the evaluation to play the scenarios.").wait_for()
    trace = data_copy / "trace"
    before = _sessions(trace)
    # A run long enough to press Run again during it: 10 runs, one at a time.
    fill_number(page, "Runs (k)", "10")
    fill_number(page, "Concurrency", "1")
    button = page.get_by_role("button", name="Run the evaluation")
    button.click()
    page.get_by_text("Playing the scenarios…", exact=False).first.wait_for()
    page.get_by_text("A press of Run now is not played again", exact=False).first.wait_for()
    button.click()  # during the run: marimo delivers it when the run ends
    # eval-choices and eval-flags, 7 scored turns each, x scripted and noisy x 10 runs.
    page.get_by_text("280 turns", exact=False).first.wait_for(timeout=300_000)
    # Then other settings, pressed: played (one run each now). Had the press during the first
    # run been played, its 40 runs would come between.
    fill_number(page, "Runs (k)", "1")
    button.click()
    page.get_by_text("28 turns", exact=False).first.wait_for(timeout=300_000)
    # The page says the run is done as its last turn is scored; that session's last trace lines
    # may land a moment later, so the count is read until it stops moving (at most 30 s).
    expected = before + 40 + 4
    deadline = time.monotonic() + 30
    while _sessions(trace) < expected and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _sessions(trace) - before == 40 + 4
