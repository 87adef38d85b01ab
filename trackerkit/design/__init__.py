"""The tracker designer's logic: the field list by identity, tops without loops, saving, repair.

The designer notebook (`notebooks/designer.py`) holds only widgets and calls into this package;
the draft itself is `trackerkit.design.draft.Draft` (TR-47..TR-51).
"""

from trackerkit.design.fields import (
    dropped_tops,
    field_labels,
    move_field,
    parse_number,
    parse_start,
    selected_key,
    start_text,
    top_candidates,
    top_labels,
)
from trackerkit.design.macros import macro_suggestions
from trackerkit.design.repair import Repair, check_raw, raw_text, refused_files, save_raw
from trackerkit.design.report import attempt, readable
from trackerkit.design.saving import SaveOutcome, holds, id_problem, save, suggest_id

__all__ = [
    "Repair",
    "SaveOutcome",
    "attempt",
    "check_raw",
    "dropped_tops",
    "field_labels",
    "holds",
    "id_problem",
    "macro_suggestions",
    "move_field",
    "parse_number",
    "parse_start",
    "raw_text",
    "readable",
    "refused_files",
    "save",
    "save_raw",
    "selected_key",
    "start_text",
    "suggest_id",
    "top_candidates",
    "top_labels",
]
