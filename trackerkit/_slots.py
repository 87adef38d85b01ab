"""Tracker slots: where a tracker keeps its state in a scene's state, and back (TR-21).

A record keeps one key per field under `tracker-record:<id>`; a list keeps one key per row under
`tracker-list:<id>`. Every module that names a slot or reads one back goes through here, so the
spelling lives in one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from trackerkit.tracker import Layout

__all__ = [
    "LIST_PREFIX",
    "RECORD_PREFIX",
    "is_tracker_slot",
    "slot_of",
    "slot_parts",
]

RECORD_PREFIX = "tracker-record:"
LIST_PREFIX = "tracker-list:"


class _Slotted(Protocol):
    """What naming a slot needs of a tracker (a `Tracker`, without importing the decoder)."""

    @property
    def id(self) -> str: ...

    @property
    def layout(self) -> str: ...


def slot_of(tracker: _Slotted) -> str:
    """The scene-state slot a tracker keeps its state in (TR-21)."""
    prefix = RECORD_PREFIX if tracker.layout == "record" else LIST_PREFIX
    return prefix + tracker.id


def slot_parts(slot: str) -> tuple[Layout, str] | None:
    """`(layout, tracker id)` of a tracker slot; None for any other slot."""
    if slot.startswith(RECORD_PREFIX):
        return "record", slot[len(RECORD_PREFIX) :]
    if slot.startswith(LIST_PREFIX):
        return "list", slot[len(LIST_PREFIX) :]
    return None


def is_tracker_slot(slot: str) -> bool:
    """True for a tracker slot (the only slots the changes read counts)."""
    return slot.startswith((RECORD_PREFIX, LIST_PREFIX))
