"""trackerkit: design, simulate and inspect LLM chat trackers, and read an assistant's trace journal.

The core is the flat modules of this package, one noun each; none imports an app's sub-package:

    errors     the one error family; `Problem` (a location tuple and a code)
    line       the one display rule: any value on one line (`line_of`)
    tokens     exact token counts, offline
    fields     the four field types, their keys, the name and icon rules
    values     what a field accepts and starts at; the one equality (`same_value`)
    macros     the template macros, evaluated read-only
    tracker    the tracker piece and its strict decoder
    library    a folder of tracker pieces: revisions, patch saves, where each is linked
    renames    the field renames and deletions a save records, so history follows them
    scene      a scene file and what a turn loads of it (`read_scene` reports every problem)
    steps      a scene's scripted steps (the scenario format) and `TurnPlan`
    state      where values live: deltas on versions, messages, takes (`Take` owns each write)
    update     applying `update_trackers` items: clamps, tops, all or nothing, the answer
    tool       the `update_trackers` tool definition
    prompt     what the model sees: the `### Trackers` block and the request
    chat       a chat on a scene: takes, turns, swipes, cuts, forks and a person's edits
    turn       one reply being written: the state it sees, its pending deltas, commit or fail
    changes    what each reply changed, typed, in one forward pass
    workspace  the folder an app reads and saves
    cli        the `trackerkit` command (its commands in `trackerkit.commands`)

`_arguments`, `_checks`, `_items`, `_json`, `_names`, `_pieces`, `_problems`, `_readings`, `_request`,
`_results`, `_rules`, `_saves`, `_slots`, `_stored`, `_tracker_texts` and `_writes` are the core's
private helpers. The sub-packages hold the rest:

    trackerkit.trace     the trace journal: the reader, turns, derived tables, writer, plots
    trackerkit.design    the designer's logic: the draft, its parts, the rail, saving, importing
    trackerkit.simulate  the session, its trace events, the scenario player, model clients, the
                         turn report, the simulator page's playback
    trackerkit.views     history frames, HTML, figures, the command line's tables
    trackerkit.formats   other tools' formats: importers, provider exports, cards, text protocol
    trackerkit.evaluation  the evaluation harness: runs, scoring, metrics, a noisy model

Only this module, `cli` and its `trackerkit.commands` put the apps together; nothing imports a notebook, and no module
imports itself back through others (`tests/test_layout.py` reads all of it from the code).

The public surface is declared once per package: this module's `__all__` holds what a library
user needs, and each sub-package's `__all__` its own contract (`tests/test_exported_members.py`).
The apps under `notebooks/` import from `trackerkit`, `trackerkit.trace` and the sub-packages'
roots (`from trackerkit.simulate import play_page`), never from a module inside one. An app's
helpers (the designer's field list, the simulator page's HTML) are its sub-package's business, so
they stay there rather than swell this `__all__` into a list of every page's parts; a module
inside a sub-package is private to it, whatever its name.
"""

from trackerkit.changes import (
    Bar,
    Changes,
    FieldChange,
    MessageChanges,
    RowChange,
    TrackerChanges,
    tracker_changes_between,
)
from trackerkit.chat import Chat, PanelEntry
from trackerkit.design.draft import Draft, DraftField, DraftVerdict, save_draft
from trackerkit.design.rail import Rail, rail
from trackerkit.errors import (
    BadRequestError,
    EditRefusedError,
    ImportRefusedError,
    ImportWriteError,
    ModelError,
    NotFoundError,
    Problem,
    PromptTooLargeError,
    SceneDecodeError,
    StaleRevisionError,
    TraceLineError,
    TrackerDecodeError,
    TrackerkitError,
    TurnError,
)
from trackerkit.evaluation import EvaluationResults, Variant, evaluate, read_results, read_variants
from trackerkit.fields import BooleanField, ChoiceField, Field, NumberField, TextField
from trackerkit.formats import (
    ExportCost,
    Imported,
    ImportReport,
    Provider,
    ReportLine,
    TextUpdates,
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
    parse_text_updates,
    provider_tool,
    text_instructions,
)
from trackerkit.library import (
    Library,
    Links,
    Verdict,
    check_paths,
    linked_in,
    load_scenes,
    piece_verdict,
    read_piece,
)
from trackerkit.line import line_of
from trackerkit.macros import MacroReport, render_macros
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
from trackerkit.scene import LeftOut, Linked, Scene, SceneFile, load_scene, read_scene
from trackerkit.simulate.completion import ModelReply, ModelRequest, ToolCall
from trackerkit.simulate.model import Model, OpenAIModel, ScriptedModel
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.session import ReadTool, Session
from trackerkit.state import Delta, Message, Take, Version, fold
from trackerkit.steps import TurnPlan
from trackerkit.tokens import count_tokens, count_tool_tokens
from trackerkit.tool import ToolDefinition, accepted_text, update_trackers_tool
from trackerkit.tracker import Tracker, TrackerBody, blank_tracker, decode_tracker, encode_tracker
from trackerkit.turn import Turn, TurnKind
from trackerkit.update import ItemRefusal, UpdateResult, apply_tracker_updates, tracker_value
from trackerkit.values import Value, accepts, initial_value
from trackerkit.views import bars_over_history, changes_html, history_frame, panel_html
from trackerkit.workspace import Workspace, workspace

__version__ = "0.1.0"

__all__ = [
    "BadRequestError",
    "Bar",
    "Block",
    "BooleanField",
    "Card",
    "Changes",
    "Chat",
    "ChoiceField",
    "Delta",
    "Draft",
    "DraftField",
    "DraftVerdict",
    "EditRefusedError",
    "EvaluationResults",
    "ExportCost",
    "Field",
    "FieldChange",
    "ImportRefusedError",
    "ImportReport",
    "ImportWriteError",
    "Imported",
    "ItemRefusal",
    "LeftOut",
    "Library",
    "Linked",
    "Links",
    "MacroReport",
    "Message",
    "MessageChanges",
    "Model",
    "ModelError",
    "ModelReply",
    "ModelRequest",
    "NotFoundError",
    "NumberField",
    "OpenAIModel",
    "PanelEntry",
    "Problem",
    "PromptContext",
    "PromptTooLargeError",
    "Provider",
    "Rail",
    "ReadTool",
    "ReportLine",
    "Request",
    "RowChange",
    "Scene",
    "SceneDecodeError",
    "SceneFile",
    "ScriptedModel",
    "Session",
    "StaleRevisionError",
    "Take",
    "TextField",
    "TextUpdates",
    "ToolCall",
    "ToolDefinition",
    "TraceLineError",
    "Tracker",
    "TrackerBody",
    "TrackerChanges",
    "TrackerDecodeError",
    "TrackerkitError",
    "Turn",
    "TurnError",
    "TurnKind",
    "TurnPlan",
    "TurnReport",
    "UpdateResult",
    "Value",
    "Variant",
    "Verdict",
    "Version",
    "WTrackerExport",
    "Workspace",
    "accepted_text",
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
    "evaluate",
    "export_card",
    "export_costs",
    "export_wtracker",
    "fold",
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
    "parse_text_updates",
    "piece_verdict",
    "provider_tool",
    "rail",
    "read_piece",
    "read_results",
    "read_scene",
    "read_variants",
    "render_card",
    "render_macros",
    "render_text",
    "render_trackers_block",
    "save_draft",
    "text_instructions",
    "tool_token_costs",
    "tracker_changes_between",
    "tracker_value",
    "update_trackers_tool",
    "workspace",
]
