"""The library app under a person's hands (issue 13): every control it has, and what each shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def test_library_shows_the_verdicts(
    serve: Callable[..., str], open_page: Callable[[str, str], Any], screenshot: Any
) -> None:
    """The library notebook shows every tracker's decoder verdict."""
    page = open_page(serve("library.py"), "The tracker library")
    page.get_by_text("all decode").first.wait_for(timeout=60_000)
    screenshot(page, "library")
