"""The simulator's sub-package: where a simulated session writes its trace, and on which day.

It holds the simulator's places (`data_dir`, `time_zone`), the simulator page's playback of
its steps (`play_page`: every refusal an outcome, clamps, takes and their fork points) and the
linking of library trackers into a scene (`link_trackers`); the session, its trace events,
scenarios and model clients move here as DESIGN.md lays out.
"""

from trackerkit.simulate.links import LinkChoice, Linked, link_choices, link_trackers, linked_ids
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
    clamps_of,
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
    "check_data_dir",
    "clamps_of",
    "data_dir",
    "link_choices",
    "link_trackers",
    "linked_ids",
    "play_page",
    "read_json",
    "time_zone",
]
