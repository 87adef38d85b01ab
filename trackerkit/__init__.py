"""trackerkit: design, simulate and inspect LLM chat trackers, and read an assistant's trace journal.

The public API is this module's `__all__`; everything else is private.
"""

from trackerkit.errors import (
    BadRequestError,
    EditRefusedError,
    ModelError,
    NotFoundError,
    Problem,
    PromptTooLargeError,
    StaleRevisionError,
    TraceLineError,
    TrackerDecodeError,
    TrackerkitError,
    TurnError,
)
from trackerkit.fields import BooleanField, ChoiceField, Field, NumberField, TextField
from trackerkit.library import Library, Links, Verdict, check_paths, linked_in, load_scenes
from trackerkit.tracker import Tracker, TrackerBody, blank_tracker, decode_tracker, encode_tracker
from trackerkit.values import Value, accepts, initial_value

__version__ = "0.1.0"

__all__ = [
    "BadRequestError",
    "BooleanField",
    "ChoiceField",
    "EditRefusedError",
    "Field",
    "Library",
    "Links",
    "ModelError",
    "NotFoundError",
    "NumberField",
    "Problem",
    "PromptTooLargeError",
    "StaleRevisionError",
    "TextField",
    "TraceLineError",
    "Tracker",
    "TrackerBody",
    "TrackerDecodeError",
    "TrackerkitError",
    "TurnError",
    "Value",
    "Verdict",
    "accepts",
    "blank_tracker",
    "check_paths",
    "decode_tracker",
    "encode_tracker",
    "initial_value",
    "linked_in",
    "load_scenes",
]
