"""The simulator's sub-package: where a simulated session writes its trace, and on which day.

It holds the simulator's places (`data_dir`, `time_zone`), the simulator page's playback of
its steps (`play_page`: every refusal an outcome, clamps, takes and their fork points) and the
linking of library trackers into a scene (`link_trackers`); the session, its trace events,
scenarios and model clients move here as DESIGN.md lays out.
"""

from trackerkit.simulate.links import LinkChoice, Linked, link_choices, link_trackers, linked_ids
from trackerkit.simulate.page import (
    calls_example,
    edit_prefill,
    failure_html,
    outcome_html,
    played_marker,
    reply_notes_html,
)
from trackerkit.simulate.places import (
    BUNDLED_DATA,
    DATA_DIR_ENV,
    TIMEZONE_ENV,
    check_data_dir,
    data_dir,
    time_zone,
)
from trackerkit.simulate.playback import (
    Clamp,
    ForkPoint,
    Outcome,
    Playback,
    ProtocolComparison,
    StepValues,
    clamps_of,
    compare_protocols,
    play_page,
    read_json,
)

__all__ = [
    "BUNDLED_DATA",
    "DATA_DIR_ENV",
    "TIMEZONE_ENV",
    "Clamp",
    "ForkPoint",
    "LinkChoice",
    "Linked",
    "Outcome",
    "Playback",
    "ProtocolComparison",
    "StepValues",
    "calls_example",
    "check_data_dir",
    "clamps_of",
    "compare_protocols",
    "data_dir",
    "edit_prefill",
    "failure_html",
    "link_choices",
    "link_trackers",
    "linked_ids",
    "outcome_html",
    "play_page",
    "played_marker",
    "read_json",
    "reply_notes_html",
    "time_zone",
]
