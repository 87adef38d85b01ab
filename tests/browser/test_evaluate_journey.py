"""The evaluation notebook under a person's hands (issue 17): pick, run, read the table and figures.

The app reads a temporary copy of `data/`; the noisy loopback model runs inside the app, and the
endpoint variant points at a port where nothing listens, so its turns fail and say so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from .widgets import fill_number, toggle

#: The app's controls this journey touches; tests/browser/test_controls.py checks it.
TOUCHES = {
    "evaluate": {
        "picked_scenes",
        "picked_variants",
        "picked_protocols",
        "noise_rate",
        "base_url",
        "model_name",
        "timeout",
        "retries",
        "runs",
        "mode",
        "concurrency",
        "tolerance",
        "run_button",
        "drift_scene",
        "mo.ui.table",
    }
}


def _text(page: Any, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Tab")


def test_pick_run_and_read_the_evaluation(
    serve: Callable[..., str],
    open_page: Callable[[str, str], Any],
    screenshot: Callable[..., Path],
    data_copy: Path,
) -> None:
    """Scenarios and variants picked, every option set, one run: the table, the figures, drift."""
    # A broken scene file is listed with why; the good scenarios stay offered (a trial: one such
    # file left the page with "Could not read the scenarios" and no controls).
    (data_copy / "scenes" / "zz-broken.json").write_text('{"id":"oops","turns":[')
    # A scenario no step of which carries `expect` (a trial: "0 turns scored", and no reason).
    bare = json.loads((data_copy / "scenes" / "eval-flags.json").read_text())
    bare["id"] = "zz-bare"
    for step in bare["turns"]:
        step.pop("expect", None)
    (data_copy / "scenes" / "zz-bare.json").write_text(json.dumps(bare))
    page = open_page(
        serve("evaluate.py", "--data", str(data_copy)), "Will my trackers hold on my model?"
    )
    page.get_by_text("Press Run the evaluation to play the scenarios.").wait_for()
    page.get_by_text("1 scene file was refused:", exact=False).first.wait_for()
    page.get_by_text("zz-broken.json", exact=True).first.wait_for()
    # The trace goes to the data folder given with --data, said before the run (trackerkit.workspace).
    trace = data_copy / "trace"
    page.get_by_text(f"Trace folder {trace} (the --data option).").first.wait_for()
    lines_before = sum(len(p.read_bytes().splitlines()) for p in trace.glob("*.jsonl"))
    # The endpoint's default is Ollama's OpenAI-compatible root, as the text gives it, shown whole.
    url_box = page.get_by_label("endpoint: base URL (OpenAI-compatible, ending in /v1)", exact=True)
    expect(url_box).to_have_value("http://127.0.0.1:11434/v1")
    assert url_box.evaluate("e => e.scrollWidth <= e.clientWidth"), "the URL is cut off in its box"

    toggle(page, "Scenarios", "eval-choices", "fight")  # eval-flags stays; fight joins
    toggle(page, "Variants", "endpoint")
    toggle(page, "Protocols (tools / text)", "text")  # each variant under both protocols
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("ArrowRight")
    page.get_by_text("0.25", exact=True).first.wait_for()
    _text(page, "endpoint: base URL (OpenAI-compatible, ending in /v1)", "http://127.0.0.1:9/v1")
    # Markdown in a model name is shown as written (a trial: `**m**` came out bold).
    _text(page, "endpoint: model name", "*absent*-model")
    fill_number(page, "endpoint: timeout (s)", "5")
    fill_number(page, "endpoint: retries after a 429 or 5xx", "0")
    fill_number(page, "Runs (k)", "2")
    page.get_by_label("Mode", exact=True).select_option("forced")
    fill_number(page, "Concurrency", "3")
    fill_number(page, "Tolerance (±)", "0.5")
    page.get_by_role("button", name="Run the evaluation").click()
    # The run's progress, over the turns (a trial: a spinner only).
    page.get_by_text("Playing the scenarios…", exact=False).first.wait_for()

    # 2 scenarios (fight 6 turns, eval-flags 7) x 3 variants x 2 protocols x 2 runs = 156, of
    # which the absent endpoint's 13 turns x 2 runs x 2 protocols = 52 failed: not scored.
    page.get_by_text("104 turns", exact=False).first.wait_for(timeout=300_000)
    page.get_by_text(
        f"every run's turns went to the trace in {trace}.", exact=False
    ).first.wait_for()
    assert sum(len(p.read_bytes().splitlines()) for p in trace.glob("*.jsonl")) > lines_before
    page.get_by_text("Failed turns are not scored", exact=False).first.wait_for()
    for variant in ("*absent*-model (forced)", "*absent*-model · text (forced)"):
        page.get_by_text(
            f"{variant}: 26 of 26 turns failed and are not scored (so it has no scores)",
            exact=False,
        ).first.wait_for()
    page.get_by_text("http://127.0.0.1:9/v1", exact=False).first.wait_for()  # the reason, said
    for column in ("scripted (forced)", "noisy loopback (forced)", "*absent*-model (forced)"):
        expect(page.get_by_text(column, exact=True).first).to_be_visible()
        text_column = column.replace(" (forced)", " · text (forced)")
        expect(page.get_by_text(text_column, exact=True).first).to_be_visible()
    # Every metric on the first page: pass^k and the per-turn costs after it are not paged away.
    metrics = (
        page.locator("marimo-ui-element")
        .filter(has=page.get_by_text("Metrics per variant (95% intervals)", exact=True))
        .last
    )
    expect(metrics.locator("tbody tr")).to_have_count(19)
    for metric in (
        "joint_accuracy",
        "numbers_missing (row or value left out)",
        "pass^2",
        "clamps_per_turn",
        "failed_turn_rate",
    ):
        expect(metrics.get_by_text(metric, exact=True)).to_be_visible()
    joint = metrics.locator("tbody tr").filter(has=page.get_by_text("joint_accuracy", exact=True))
    assert "n/a" in joint.inner_text()  # the absent endpoint has no score, not a model's zero
    # The tolerance the numbers were scored with is said, in the table and above it (a trial: a
    # tolerance of 1 nowhere shown scored a wholly wrong 0-1 field as within it).
    expect(
        metrics.get_by_text("within_tolerance (±0.5, range/10 if less)", exact=True)
    ).to_be_visible()
    page.get_by_text(
        "within tolerance within ±0.5 of the expected value", exact=False
    ).first.wait_for()
    expect(page.locator(".js-plotly-plot")).to_have_count(3, timeout=60_000)
    expect(page.get_by_text("joint accuracy per variant (95% intervals)").first).to_be_visible()
    expect(page.get_by_text("Slot accuracy per field").first).to_be_visible()
    page.get_by_text("Joint accuracy over the turns of fight").first.wait_for()
    screenshot(
        page,
        "evaluate",
        top=page.get_by_text("Metrics per variant (95% intervals)", exact=True),
        card="evaluate",
    )

    # Drift over another scenario's turns.
    page.get_by_label("Drift over the turns of", exact=True).select_option("eval-flags")
    page.get_by_text("Joint accuracy over the turns of eval-flags").first.wait_for()

    # A URL without its scheme is refused before any turn is played (a wire trial: the page had
    # played every other variant first, then failed all of the endpoint's turns).
    _text(page, "endpoint: base URL (OpenAI-compatible, ending in /v1)", "127.0.0.1:9/v1")
    page.get_by_role("button", name="Run the evaluation").click()
    page.get_by_text("'127.0.0.1:9/v1' is not an http(s) address", exact=False).first.wait_for()
    expect(page.get_by_text("validation error", exact=False)).to_have_count(0)
    expect(page.get_by_text("104 turns", exact=False)).to_have_count(0)

    # The endpoint variant is named by the model-name box: naming it `scripted` says so.
    _text(page, "endpoint: model name", "scripted")
    page.get_by_role("button", name="Run the evaluation").click()
    page.get_by_text("takes its name from the model-name box", exact=False).first.wait_for()

    # A scenario with nothing to score is refused with why, before any turn is played.
    toggle(page, "Variants", "endpoint")
    toggle(page, "Scenarios", "eval-flags", "fight", "zz-bare")
    page.get_by_role("button", name="Run the evaluation").click()
    page.get_by_text(
        f"no step of {data_copy / 'scenes' / 'zz-bare.json'} carries expect: nothing to score",
        exact=False,
    ).first.wait_for()
    expect(page.get_by_text("0 turns", exact=False)).to_have_count(0)
