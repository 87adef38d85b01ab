"""A real browser: each marimo notebook served with `marimo run` and driven in headless Chromium.

Uses Debian's `chromium` (never a downloaded browser build) through Playwright's Python API with
its executable path. CI installs it and sets `TRACKERKIT_REQUIRE_BROWSER=1`, which turns a missing
browser into a failure; on a machine without Chromium the tests are skipped with the reason.
Screenshots go to `tests/artifacts/` (not committed); with `TRACKERKIT_DOCS_SCREENSHOTS=1` they
are also written to `docs/` for the README.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
MARIMO = Path(sys.executable).parent / "marimo"
CHROMIUM = os.environ.get("TRACKERKIT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = os.environ.get("TRACKERKIT_REQUIRE_BROWSER") == "1"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.browser

if CHROMIUM is None:
    if REQUIRED:
        pytest.fail("TRACKERKIT_REQUIRE_BROWSER=1 but no chromium is installed (apt-get install chromium)", pytrace=False)
    pytest.skip("no Chromium on this machine: apt-get install chromium to run the browser tests", allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start `marimo run NOTEBOOK` on a free loopback port; stop it afterwards."""
    started: list[subprocess.Popen[bytes]] = []

    def start(notebook: str) -> str:
        port = _free_port()
        process = subprocess.Popen(
            [str(MARIMO), "run", str(ROOT / "notebooks" / notebook), "--host", "127.0.0.1", "--port", str(port), "--headless"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return url
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"marimo did not start serving {notebook} within 60 s")

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


def _screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if os.environ.get("TRACKERKIT_DOCS_SCREENSHOTS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        page.set_viewport_size({"width": 1400, "height": 2200})
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ROOT / "docs" / f"{name}.png"))
        page.set_viewport_size({"width": 1400, "height": 1000})


def _wait_for_count(locator: Any, more_than: int, timeout: float = 60.0) -> None:
    """Wait until the locator (which pierces shadow roots, unlike querySelectorAll) finds more."""
    deadline = time.monotonic() + timeout
    while locator.count() <= more_than:
        if time.monotonic() > deadline:
            raise AssertionError(f"expected more than {more_than} elements, found {locator.count()}")
        time.sleep(0.25)


def _open(browser: Any, url: str, ready: str) -> Any:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    page.locator("h1", has_text=ready).first.wait_for(timeout=90_000)
    return page


def test_simulator_turn_updates_values_changes_and_bars(browser: Any, serve: Any) -> None:
    """Sending a turn in the simulator updates the panel values, the changes under the reply and the bars."""
    page = _open(browser, serve("simulator.py"), "Session simulator")
    page.get_by_text("12 live messages").first.wait_for(timeout=60_000)
    bars = page.locator(".js-plotly-plot .bars path")
    _wait_for_count(bars, more_than=0)
    bars_before = bars.count()
    assert page.locator(".tk-panel").get_by_text("hp 40").count() >= 1
    page.get_by_role("button", name="Send turn").click()
    page.get_by_text("14 live messages").first.wait_for(timeout=60_000)
    # The default script sets Health hp to 20: the chip under the new reply and the panel follow.
    page.get_by_text("You bind the cut on your arm.").first.wait_for(timeout=30_000)
    page.locator(".tk-chip").filter(has_text="40").filter(has_text="20").last.wait_for(timeout=30_000)
    assert page.locator(".tk-panel").get_by_text("hp 20").count() >= 1
    _wait_for_count(page.locator(".js-plotly-plot .bars path"), more_than=bars_before)
    _screenshot(page, "simulator")
    page.close()


def test_trace_explorer_shows_turns_and_a_timeline(browser: Any, serve: Any) -> None:
    """The trace explorer lists the bundled turns and draws the picked turn's timeline."""
    page = _open(browser, serve("trace_explorer.py"), "Trace explorer")
    from trackerkit.trace import assemble_turns, read_trace

    events, _ = read_trace(ROOT / "data" / "trace")
    page.get_by_text(f"{len(events):,} events").first.wait_for(timeout=60_000)
    page.get_by_text(f"{len(assemble_turns(events))} turns").first.wait_for(timeout=60_000)
    _wait_for_count(page.locator(".js-plotly-plot"), more_than=0)
    _screenshot(page, "trace_explorer")
    page.close()


def test_library_shows_the_verdicts(browser: Any, serve: Any) -> None:
    """The library notebook shows every tracker's decoder verdict."""
    page = _open(browser, serve("library.py"), "The tracker library")
    page.get_by_text("all decode").first.wait_for(timeout=60_000)
    _screenshot(page, "library")
    page.close()


def test_designer_rename_follows_the_field(browser: Any, serve: Any) -> None:
    """Renaming hp_max keystroke by keystroke in the designer moves hp's top in the rail's tool line."""
    page = _open(browser, serve("designer.py"), "Tracker designer")
    page.get_by_text("The draft decodes and may be saved.").first.wait_for(timeout=60_000)
    _screenshot(page, "designer")
    page.get_by_text("hp_max (number)").first.click()
    name = page.get_by_label("Name", exact=True).nth(1)
    name.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    name.fill("")
    name.press_sequentially("hp_top", delay=60)
    name.press("Tab")
    page.get_by_text("hp (number 0 to hp_top").first.wait_for(timeout=30_000)
    page.close()
