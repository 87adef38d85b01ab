"""The tracker designer's logic: the field list by identity, tops without loops, saving, repair.

The designer notebook (`notebooks/designer.py`) holds only widgets and calls into this package
(also for "Import…" and the exports' costs in the rail, `export_rows`); the draft itself, its
verdict and the rail are exported by `trackerkit` (`Draft`, `DraftVerdict`, `rail`; TR-47..TR-51).
The package's modules are private to it: an app imports from `trackerkit.design`.
"""

from trackerkit.design.breaks import scene_breaks
from trackerkit.design.edits import edit_lines, patch_text
from trackerkit.design.fields import (
    dropped_tops,
    field_labels,
    move_field,
    parse_number,
    parse_start,
    redraws,
    selected_key,
    start_placeholder,
    start_text,
    top_candidates,
    top_labels,
)
from trackerkit.design.hints import name_problems, tracker_hints
from trackerkit.design.importing import (
    ALL_IMPORTED,
    TAKE_ANYWAY,
    ImportView,
    Taken,
    duplicates,
    format_label,
    format_options,
    free_id,
    open_imported,
    read_path,
    read_upload,
    report_html,
    take_imported,
    taken_before,
)
from trackerkit.design.macros import macro_suggestions
from trackerkit.design.rail import ExportRow, export_rows, exports_html
from trackerkit.design.repair import Repair, check_raw, raw_text, refused_files, save_raw
from trackerkit.design.report import attempt, readable
from trackerkit.design.saving import (
    SaveOutcome,
    holds,
    id_problem,
    save,
    suggest_id,
    suggest_name,
)

__all__ = [
    "ALL_IMPORTED",
    "TAKE_ANYWAY",
    "ExportRow",
    "ImportView",
    "Repair",
    "SaveOutcome",
    "Taken",
    "attempt",
    "check_raw",
    "dropped_tops",
    "duplicates",
    "edit_lines",
    "export_rows",
    "exports_html",
    "field_labels",
    "format_label",
    "format_options",
    "free_id",
    "holds",
    "id_problem",
    "macro_suggestions",
    "move_field",
    "name_problems",
    "open_imported",
    "parse_number",
    "parse_start",
    "patch_text",
    "raw_text",
    "read_path",
    "read_upload",
    "readable",
    "redraws",
    "refused_files",
    "report_html",
    "save",
    "save_raw",
    "scene_breaks",
    "selected_key",
    "start_placeholder",
    "start_text",
    "suggest_id",
    "suggest_name",
    "take_imported",
    "taken_before",
    "top_candidates",
    "top_labels",
    "tracker_hints",
]
