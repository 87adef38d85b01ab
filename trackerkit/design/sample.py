"""A tracker at its starting values: the state the rail renders and a draft's template check reads.

It sits apart from the rail and the draft so that the draft (which checks its template against
it) and the rail (which renders a draft) do not import each other.
"""

from __future__ import annotations

from collections.abc import Iterable

from trackerkit.tracker import Tracker
from trackerkit.update import slot_of

__all__ = ["SAMPLE_ROW", "starting_state"]

#: The one row a list shows at its starting values (the rail, a draft's template check).
SAMPLE_ROW = "Sample"


def starting_state(tracker: Tracker, rows: Iterable[str] = ()) -> dict[str, dict[str, object]]:
    """The state a tracker shows at its starting values: a list holds `rows`, else one sample row."""
    if tracker.layout == "record":
        return {}
    names = list(dict.fromkeys(rows)) or [SAMPLE_ROW]
    return {slot_of(tracker): {row: {} for row in names}}
