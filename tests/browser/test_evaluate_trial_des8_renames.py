"""Trial des8, finding 4, on the evaluate page: a designer rename said as the simulator says it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from designer_saves import designer_save
from playwright.sync_api import expect

from .widgets import fill_number

#: The app's controls this journey touches; tests/browser/test_controls.py checks it.
TOUCHES = {"evaluate": {"runs", "run_button"}}

HEADING = "Will my trackers hold on my model?"


def test_a_renamed_field_is_said_as_the_simulator_says_it(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[[Any, str], Path],
    data_copy: Path,
) -> None:
    """Found in trial des8: only `Stamina has no field winded` for each step, no word of the
    rename; and a scenario whose calls alone name the old name played with nothing said."""
    flags = data_copy / "scenes" / "eval-flags.json"
    designer_save(flags, "stamina", lambda d: d.rename_field(d.key("winded"), "out_of_breath"))
    page = open_page(serve("evaluate.py", "--data", str(data_copy)), HEADING)
    page.get_by_text("Press Run the evaluation to play the scenarios.").wait_for()
    fill_number(page, "Runs (k)", "1")
    page.get_by_role("button", name="Run the evaluation").click()
    refusal = page.get_by_text(
        "Scene eval-flags: its own scripted steps 1 and 2 set Stamina.winded, which a designer "
        "save renamed to out_of_breath (the save that made revision 1)",
        exact=False,
    )
    refusal.first.wait_for()
    page.get_by_text(
        f"Edit the scene: in {flags}, write out_of_breath for winded in those steps' calls and "
        "expectations. The 7 expectations: turns[0].expect.Stamina.winded: Stamina has no field "
        "winded",
        exact=False,
    ).first.wait_for()
    screenshot(page, "evaluate-des8-renamed-refused")

    # The expectations put right, the calls not: the run plays, and the note says why steps 1
    # and 2 were refused.
    scene = json.loads(flags.read_text())
    for step in scene["turns"]:
        step["expect"]["Stamina"].pop("winded")
    flags.write_text(json.dumps(scene))
    page.get_by_role("button", name="Run the evaluation").click()
    page.get_by_text("every run's turns went to the trace", exact=False).first.wait_for(
        timeout=240_000
    )
    note = page.get_by_text(
        "Scene eval-flags: its own scripted steps 1 and 2 set Stamina.winded, which a designer "
        "save renamed to out_of_breath (the save that made revision 1): their calls are "
        "refused, so nothing of those batches is written.",
        exact=False,
    )
    expect(note.first).to_be_visible()
    expect(page.get_by_text("could not run", exact=False)).to_have_count(0)
    screenshot(page, "evaluate-des8-renamed-note")
