"""trackerkit: design, simulate and inspect LLM chat trackers, and read an assistant's trace journal.

The public API is this module's `__all__`; everything else is private.
"""

from trackerkit.changes import tracker_changes_between
from trackerkit.chat import Chat, PanelEntry, Turn
from trackerkit.editor import Draft, DraftField, DraftVerdict, save_draft
from trackerkit.errors import (
    BadRequestError,
    EditRefusedError,
    ImportRefusedError,
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
from trackerkit.formats import (
    ExportCost,
    Imported,
    ImportReport,
    ReportLine,
    WTrackerExport,
    anthropic_tool,
    card_from_data,
    check_provider_tool,
    detect_format,
    export_card,
    export_costs,
    export_wtracker,
    gemini_tool,
    import_file,
    import_marinara,
    import_mvu,
    import_rpg_companion,
    import_sillytavern_tracker,
    import_wtracker,
    openai_tool,
    provider_tool,
)
from trackerkit.frames import history_frame
from trackerkit.library import (
    Library,
    Links,
    Verdict,
    check_paths,
    linked_in,
    load_scenes,
    read_piece,
)
from trackerkit.line import line_of
from trackerkit.macros import MacroReport, render_macros
from trackerkit.model import Model, OpenAIModel, ScriptedModel, TurnPlan
from trackerkit.prompt import (
    Block,
    Card,
    PromptContext,
    Request,
    assemble_request,
    render_card,
    render_text,
    render_trackers_block,
    tool_token_costs,
)
from trackerkit.rail import Rail, rail
from trackerkit.report import TurnReport
from trackerkit.scene import LeftOut, Linked, Scene, load_scene
from trackerkit.session import ReadTool, Session
from trackerkit.state import Delta, Message, Take, Version
from trackerkit.tokens import count_tokens, count_tool_tokens
from trackerkit.tool import ToolDefinition, update_trackers_tool
from trackerkit.tracker import Tracker, TrackerBody, blank_tracker, decode_tracker, encode_tracker
from trackerkit.update import UpdateError, UpdateResult, apply_tracker_updates, tracker_value
from trackerkit.values import Value, accepts, initial_value
from trackerkit.views import bars_over_history, changes_html, panel_html
from trackerkit.workspace import Workspace, workspace

__version__ = "0.1.0"

__all__ = [
    "BadRequestError",
    "Block",
    "BooleanField",
    "Card",
    "Chat",
    "ChoiceField",
    "Delta",
    "Draft",
    "DraftField",
    "DraftVerdict",
    "EditRefusedError",
    "ExportCost",
    "Field",
    "ImportRefusedError",
    "ImportReport",
    "Imported",
    "LeftOut",
    "Library",
    "Linked",
    "Links",
    "MacroReport",
    "Message",
    "Model",
    "ModelError",
    "NotFoundError",
    "NumberField",
    "OpenAIModel",
    "PanelEntry",
    "Problem",
    "PromptContext",
    "PromptTooLargeError",
    "Rail",
    "ReadTool",
    "ReportLine",
    "Request",
    "Scene",
    "ScriptedModel",
    "Session",
    "StaleRevisionError",
    "Take",
    "TextField",
    "ToolDefinition",
    "TraceLineError",
    "Tracker",
    "TrackerBody",
    "TrackerDecodeError",
    "TrackerkitError",
    "Turn",
    "TurnError",
    "TurnPlan",
    "TurnReport",
    "UpdateError",
    "UpdateResult",
    "Value",
    "Verdict",
    "Version",
    "WTrackerExport",
    "Workspace",
    "accepts",
    "anthropic_tool",
    "apply_tracker_updates",
    "assemble_request",
    "bars_over_history",
    "blank_tracker",
    "card_from_data",
    "changes_html",
    "check_paths",
    "check_provider_tool",
    "count_tokens",
    "count_tool_tokens",
    "decode_tracker",
    "detect_format",
    "encode_tracker",
    "export_card",
    "export_costs",
    "export_wtracker",
    "gemini_tool",
    "history_frame",
    "import_file",
    "import_marinara",
    "import_mvu",
    "import_rpg_companion",
    "import_sillytavern_tracker",
    "import_wtracker",
    "initial_value",
    "line_of",
    "linked_in",
    "load_scene",
    "load_scenes",
    "openai_tool",
    "panel_html",
    "provider_tool",
    "rail",
    "read_piece",
    "render_card",
    "render_macros",
    "render_text",
    "render_trackers_block",
    "save_draft",
    "tool_token_costs",
    "tracker_changes_between",
    "tracker_value",
    "update_trackers_tool",
    "workspace",
]
