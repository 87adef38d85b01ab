"""The browser harness: marimo apps served on loopback and driven in Debian's headless Chromium.

Fixtures every journey in `tests/browser/` uses:

- `browser`: one headless Chromium for the session (Debian's `chromium` through Playwright's
  Python API with its executable path; a browser build is never downloaded). `expect(...)`
  waits up to 60 s, like every other step.
- `serve(notebook, *args, env=None, mode="run")`: starts `marimo run notebooks/NOTEBOOK
  --headless` on a free loopback port and returns its URL. `args` reach the app after `--`
  (`serve("designer.py", "--data", str(data_copy))` gives the app `mo.cli_args()` of
  `{"data": ...}`); `env` adds variables to the server's environment; `mode="edit"` serves
  `marimo edit` instead. The server's stdout and stderr go to
  `tests/artifacts/<test>-<notebook>.log`.
- `launch(command, port, name, env=None)`: the same for any server command (`make run`'s).
  Every server gets an empty per-user data directory (`XDG_DATA_HOME`) and no
  `TRACKERKIT_DATA` / `ASSISTANT_DATA_DIR`, unless `env` sets them.
- `open_page(url, heading)`: a new 1400×1000 page, waited on until an `h1` holding `heading` shows.
- `screenshot(page, name, top=None, card=None)`: a full-page PNG in `tests/artifacts/` (and,
  when `TRACKERKIT_DOCS_SCREENSHOTS=1`, in `docs/` for the README, and for `card="designer"` the
  gallery card's image `notebooks/__marimo__/assets/designer/opengraph.png`, one screen from `top`).
- `data_copy`: a temporary copy of the bundled `data/` (trackers, scenes, trace) for an app to
  write into, so a journey leaves the repository's files alone.
- `free_port()`, `count_above(locator, more_than)`: small helpers.

Every test that serves an app is checked once its body has run: it FAILS when a server's log
holds a traceback or a marimo error line (`[E ...]`), when the repository's `data/trackers` or
`data/scenes` changed while it ran (journeys work on `data_copy`), or when a page it opened showed a marimo
error: the "An internal error occurred" toast (how `marimo run` reports a cell's exception; the
cell itself is hidden) or a cell's error output (`marimo edit`'s red heading in the output area).
`test_harness.py` proves both are caught.

Each journey module declares the app controls it touches in `TOUCHES`; `test_controls.py` holds
every app's controls against those declarations.

CI installs Chromium and sets `TRACKERKIT_REQUIRE_BROWSER=1`, which turns a missing browser into
a failure; on a machine without Chromium the browser tests are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
MARIMO = Path(sys.executable).parent / "marimo"
CHROMIUM = (
    os.environ.get("TRACKERKIT_CHROMIUM")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
)
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
#: How long a server may take to answer, and a page to show its heading (two shared cores).
START_TIMEOUT = 90.0
HEADING_TIMEOUT_MS = 90_000

#: A log line that means something went wrong in the app: a traceback, or marimo's error level.
LOG_PROBLEM = re.compile(r"^(Traceback \(most recent call last\)|\[E \d{6} )", re.MULTILINE)

#: Reports each marimo error the page shows to Python the moment it appears (a toast disappears
#: after a while, and a test may close its page before the check runs).
WATCH_ERRORS = """
(() => {
  const seen = new Set();
  const report = (what) => {
    if (seen.has(what)) return;
    seen.add(what);
    window.__trackerkitError(what);
  };
  const look = () => {
    if (!document.body) return;
    for (const toast of document.querySelectorAll("li[role=status], [data-radix-collection-item]")) {
      const text = toast.innerText || "";
      if (text.includes("An internal error occurred")) report("toast: " + text.trim().slice(0, 400));
    }
    for (const heading of document.querySelectorAll('.output-area [role="alert"] h5.text-error')) {
      const area = heading.closest(".output-area");
      report("cell error output: " + ((area && area.innerText) || heading.innerText).trim().slice(0, 400));
    }
  };
  new MutationObserver(look).observe(document, {childList: true, subtree: true, characterData: true});
  document.addEventListener("DOMContentLoaded", look);
})();
"""


#: A browser step that timed out (Playwright's TimeoutError: the page did not answer in 60 s) runs
#: the journey once more from a fresh server and page, reported as a rerun (`R`) in the summary;
#: twice is a failure. Assertions, server tracebacks and page errors are never rerun. On a shared
#: two-core CI machine a page has once stalled a whole minute on a click (no retry in Playwright's
#: log: the renderer did not paint), which a person would answer by reloading.
RERUN = pytest.mark.flaky(reruns=1, only_rerun=[r"\bTimeoutError: "])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/browser/ that drives the browser as a browser test (see RERUN)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents and "browser" in getattr(
            item, "fixturenames", ()
        ):
            item.add_marker(pytest.mark.browser)
            item.add_marker(RERUN)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or, with TRACKERKIT_REQUIRE_BROWSER=1, fail) the browser tests without Chromium."""
    if CHROMIUM is not None or "browser" not in item.fixturenames:
        return
    if REQUIRED:
        pytest.fail(
            "TRACKERKIT_REQUIRE_BROWSER=1 but no chromium is installed (apt-get install chromium)",
            pytrace=False,
        )
    pytest.skip("no Chromium on this machine: apt-get install chromium to run the browser tests")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Served:
    """One marimo server a test started: its process, its log, and how much of it was checked."""

    notebook: str
    process: subprocess.Popen[bytes]
    log: Path
    handle: TextIO
    checked: int = 0

    def problems(self) -> list[str]:
        """The log's new troubles since the last look: each traceback or error line with context."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        starts = [m.start() for m in LOG_PROBLEM.finditer(text, self.checked)]
        ends = [*starts[1:], len(text)] if starts else []
        found = [text[a:b][:1500] for a, b in zip(starts, ends, strict=True)]
        self.checked = len(text)
        return [f"{self.notebook} server log ({self.log.relative_to(ROOT)}):\n{f}" for f in found]


def _bundled_files() -> dict[str, bytes]:
    """The repository's data/trackers and data/scenes files, by path, with their bytes."""
    return {
        str(path.relative_to(ROOT)): path.read_bytes()
        for folder in ("trackers", "scenes")
        for path in sorted((ROOT / "data" / folder).rglob("*"))
        if path.is_file()
    }


@dataclass
class Watch:
    """What the harness checks after a test: the servers it started, the pages' errors, data/."""

    servers: list[Served] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    bundled: dict[str, bytes] | None = None

    def problems(self) -> list[str]:
        """Everything gone wrong since the last look (each reported once)."""
        found = [e for s in self.servers for e in s.problems()]
        found += [f"the page showed a marimo error: {e}" for e in self.page_errors]
        self.page_errors.clear()
        if self.bundled is not None:
            now = _bundled_files()
            changed = sorted(
                k for k in now.keys() | self.bundled.keys() if now.get(k) != self.bundled.get(k)
            )
            if changed:
                found.append(f"an app changed the repository's bundled data: {', '.join(changed)}")
            self.bundled = now
        return found


@pytest.fixture
def watch() -> Watch:
    """The test's servers and page errors, checked once its body has run."""
    return Watch()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail the test when a server it started logged a traceback or a page showed a marimo error."""
    result = yield
    watched = getattr(item, "funcargs", {}).get("watch")
    if isinstance(watched, Watch):
        problems = watched.problems()
        if problems:
            raise AssertionError("\n\n".join(problems))
    return result


def _slug(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.split("::")[-1])[:80]


#: Variables that would point an app at the person's own data; a served app never sees them.
PERSONAL = ("TRACKERKIT_DATA", "ASSISTANT_DATA_DIR")


@pytest.fixture
def launch(
    watch: Watch, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., str]]:
    """Run a server command (its port given) from the repository root, logged; stop it after.

    `launch(command, port, name, env=None)` returns `http://127.0.0.1:PORT` once it answers.
    The server gets an empty per-user data directory of its own (`XDG_DATA_HOME`) and none of
    the person's data variables, so a journey neither reads nor writes the person's workspace
    or simulated sessions; `env` sets any of them on purpose.
    """
    isolated = {k: v for k, v in os.environ.items() if k not in PERSONAL}
    isolated["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("user-data"))

    def start(command: list[str], port: int, name: str, env: dict[str, str] | None = None) -> str:
        if watch.bundled is None:
            watch.bundled = _bundled_files()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        log = ARTIFACTS / f"{_slug(request.node.nodeid)}-{name}.log"
        handle = log.open("w", encoding="utf-8")
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env={**isolated, **(env or {})},
        )
        watch.servers.append(Served(name, process, log, handle))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"{name} stopped before serving:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return url
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"{name} did not start serving within {START_TIMEOUT:.0f} s")

    yield start
    for served in watch.servers:
        served.process.terminate()
        try:
            served.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait(timeout=20)
        served.handle.close()


@pytest.fixture
def free_port() -> Callable[[], int]:
    """`free_port()`: a loopback port nobody listens on now (for a server a test starts itself)."""
    return _free_port


@pytest.fixture
def serve(launch: Callable[..., str]) -> Callable[..., str]:
    """Start `marimo run notebooks/NOTEBOOK --headless [-- ARGS]` on a free port; stop it after."""

    def start(
        notebook: str, *args: str, env: dict[str, str] | None = None, mode: str = "run"
    ) -> str:
        port = _free_port()
        command = [str(MARIMO), mode, str(ROOT / "notebooks" / notebook)]
        command += ["--host", "127.0.0.1", "--port", str(port), "--headless"]
        if mode == "edit":
            command.append("--no-token")
        if args:
            command += ["--", *args]
        return launch(command, port, Path(notebook).stem or "notebooks", env=env)

    return start


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium for the whole run."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # `expect(...)` waits as long as every other step
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def open_page(
    browser: Any, watch: Watch, request: pytest.FixtureRequest
) -> Iterator[Callable[[str, str], Any]]:
    """Open `url` in a new page watched for marimo errors; wait for an `h1` holding `heading`."""
    pages: list[Any] = []

    def open_(url: str, heading: str) -> Any:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.expose_function("__trackerkitError", lambda text: watch.page_errors.append(str(text)))
        page.add_init_script(WATCH_ERRORS)
        pages.append(page)
        page.goto(url)
        page.locator("h1", has_text=heading).first.wait_for(timeout=HEADING_TIMEOUT_MS)
        return page

    yield open_
    failed = getattr(request.node, "failed_call", False)
    for number, page in enumerate(pages):
        if page.is_closed():
            continue
        if (
            failed
        ):  # what the page showed when the test failed, for the person who reads the failure
            with contextlib.suppress(Exception):
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(
                    path=str(ARTIFACTS / f"FAILED-{_slug(request.node.nodeid)}-{number}.png"),
                    timeout=10_000,
                )
        page.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    """Note on the item whether its body failed (the page fixture saves a screenshot then)."""
    report = yield
    if call.when == "call" and report.failed:
        item.failed_call = True  # type: ignore[attr-defined]
    return report


#: The gallery cards' images: marimo's gallery shows `<notebook folder>/__marimo__/assets/<notebook
#: stem>/opengraph.png` on a notebook's card when the file exists (a drawn placeholder otherwise).
CARDS = ROOT / "notebooks" / "__marimo__" / "assets"
#: The card image's size: marimo's (its placeholder's, and `marimo export thumbnail`'s viewport).
CARD_SIZE = {"width": 1200, "height": 630}


def card_image(notebook: str) -> Path:
    """The gallery card's image of `notebook` (its stem): what `screenshot(..., card=)` writes."""
    return CARDS / notebook / "opengraph.png"


def take_screenshot(page: Any, name: str, top: Any = None, card: str | None = None) -> Path:
    """Save a full-page PNG as tests/artifacts/NAME.png (and docs/NAME.png when asked); return it.

    `top`, a locator, is scrolled to the top of the docs picture (after the window is made tall),
    so a README picture can start at a section and leave what is above it (a machine path) out.
    `card`, a notebook's stem, makes the shot (when asked) that notebook's gallery card too
    (`card_image`): 1200×630 of the page from `top` (given with it), one screen of the app at
    work, which reads on a card where a whole page shrunk to it does not.
    """
    assert card is None or top is not None, "a card starts at a section: give `top` with `card`"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("TRACKERKIT_DOCS_SCREENSHOTS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        size = page.viewport_size
        page.set_viewport_size({"width": 1400, "height": 2200})
        page.wait_for_timeout(1500)  # let plotly redraw at the new size; not a check
        if top is not None:
            top.first.evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)  # let the scroll settle; not a check
        page.screenshot(path=str(ROOT / "docs" / f"{name}.png"))
        if card is not None:
            page.set_viewport_size(CARD_SIZE)
            page.wait_for_timeout(1500)  # let plotly redraw at the new size; not a check
            top.first.evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)  # let the scroll settle; not a check
            card_image(card).parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(card_image(card)))
        page.set_viewport_size(size)
    return path


@pytest.fixture
def screenshot() -> Callable[..., Path]:
    """`screenshot(page, name, top=None, card=None)`: see `take_screenshot`."""
    return take_screenshot


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A temporary copy of the bundled data/ (trackers/, scenes/, trace/) for an app to write into."""
    target = tmp_path / "data"
    shutil.copytree(ROOT / "data", target)
    return target


def wait_for_count(locator: Any, more_than: int, timeout: float = 60.0) -> None:
    """Wait until the locator (which pierces shadow roots, unlike querySelectorAll) finds more."""
    deadline = time.monotonic() + timeout
    while locator.count() <= more_than:
        if time.monotonic() > deadline:
            raise AssertionError(
                f"expected more than {more_than} elements, found {locator.count()}"
            )
        time.sleep(0.25)


@pytest.fixture
def count_above() -> Callable[..., None]:
    """`count_above(locator, more_than, timeout=60)`: see `wait_for_count`."""
    return wait_for_count
