"""An exception as a sentence for the page: the designer shows it in the section it broke.

marimo sends an exception raised in a widget's callback to the server's log only, so the page
would show nothing; the designer's callbacks run through `attempt`, which hands the words to the
section's message instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from trackerkit.errors import TrackerkitError

__all__ = ["attempt", "readable"]

T = TypeVar("T")


def readable(error: BaseException, doing: str = "") -> str:
    """`error` in words for the page, saying what was being done.

    A trackerkit error is its own message; anything else is named by its type, as a fault of
    the app rather than of what the person typed. Plain text, not escaped: the page shows it
    in a callout as text, or escapes it (`safe_md`) before `mo.md`.
    """
    head = f"Could not {doing}: " if doing else ""
    if isinstance(error, TrackerkitError):
        return f"{head}{error}"
    text = str(error) or "no message"
    return f"{head}{type(error).__name__}: {text} (a fault of the app, not of what you typed)"


def attempt(
    action: Callable[[], T], on_error: Callable[[str], object], doing: str = ""
) -> T | None:
    """Run `action`; on any exception hand its words to `on_error` and return None."""
    try:
        return action()
    except Exception as error:  # every failure is shown on the page, none escapes
        on_error(readable(error, doing))
        return None
