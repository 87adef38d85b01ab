"""The simulator: a session on a scene, its trace events, the scenario player, the model clients.

The session (`Session`, composing a `Chat` and a scenario player), its models and the turn report
are exported by `trackerkit`. This package's `__all__` is what the simulator's apps and command
need besides: where a session writes its trace and on which day (`data_dir`, `time_zone`), the
simulator page's playback of its steps (`play_page`: every refusal an outcome, clamps, takes and
their fork points) and its HTML (`outcome_html`, `failure_html`, ...), and the linking of library
trackers into a scene (`link_trackers`). Its modules are private to it.
"""

from trackerkit.simulate.edits import ChangesApart, changes_apart
from trackerkit.simulate.links import (
    LinkChoice,
    SavedLinks,
    link_choices,
    link_trackers,
    linked_ids,
)
from trackerkit.simulate.page import (
    Unsent,
    calls_example,
    edit_prefill,
    edited_html,
    failure_html,
    outcome_html,
    outdated_html,
    played_marker,
    reply_notes_html,
    scripted_steps_text,
    steps_html,
    unanswered_html,
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
    pinned,
    play_page,
    read_json,
)

__all__ = [
    "BUNDLED_DATA",
    "DATA_DIR_ENV",
    "TIMEZONE_ENV",
    "ChangesApart",
    "Clamp",
    "ForkPoint",
    "LinkChoice",
    "Outcome",
    "Playback",
    "ProtocolComparison",
    "SavedLinks",
    "StepValues",
    "Unsent",
    "calls_example",
    "changes_apart",
    "check_data_dir",
    "clamps_of",
    "compare_protocols",
    "data_dir",
    "edit_prefill",
    "edited_html",
    "failure_html",
    "link_choices",
    "link_trackers",
    "linked_ids",
    "outcome_html",
    "outdated_html",
    "pinned",
    "play_page",
    "played_marker",
    "read_json",
    "reply_notes_html",
    "scripted_steps_text",
    "steps_html",
    "time_zone",
    "unanswered_html",
]
