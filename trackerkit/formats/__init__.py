"""Other tools' tracker formats: importers (and, from the exports' side, provider tool exports).

The public names are re-exported by `trackerkit`; this `__all__` is the sub-package's contract.
"""

from trackerkit.formats.card import card_from_data, export_card
from trackerkit.formats.checkers import (
    check_anthropic,
    check_gemini,
    check_openai,
    check_provider_tool,
)
from trackerkit.formats.detect import FORMATS, detect_format
from trackerkit.formats.imported import Imported, ImportReport, ReportLine
from trackerkit.formats.importers import import_file
from trackerkit.formats.marinara import import_marinara
from trackerkit.formats.mvu import import_mvu
from trackerkit.formats.providers import (
    PROVIDERS,
    ExportCost,
    Provider,
    anthropic_tool,
    export_costs,
    gemini_tool,
    openai_tool,
    provider_tool,
    strict_arguments,
)
from trackerkit.formats.rpg_companion import import_rpg_companion
from trackerkit.formats.sillytavern_tracker import import_sillytavern_tracker
from trackerkit.formats.text_protocol import (
    TextUpdates,
    parse_text_updates,
    render_text_updates,
    text_answer,
    text_instructions,
)
from trackerkit.formats.wtracker_export import WTrackerExport, export_wtracker
from trackerkit.formats.wtracker_import import import_wtracker

__all__ = [
    "FORMATS",
    "PROVIDERS",
    "ExportCost",
    "ImportReport",
    "Imported",
    "Provider",
    "ReportLine",
    "TextUpdates",
    "WTrackerExport",
    "anthropic_tool",
    "card_from_data",
    "check_anthropic",
    "check_gemini",
    "check_openai",
    "check_provider_tool",
    "detect_format",
    "export_card",
    "export_costs",
    "export_wtracker",
    "gemini_tool",
    "import_file",
    "import_marinara",
    "import_mvu",
    "import_rpg_companion",
    "import_sillytavern_tracker",
    "import_wtracker",
    "openai_tool",
    "parse_text_updates",
    "provider_tool",
    "render_text_updates",
    "strict_arguments",
    "text_answer",
    "text_instructions",
]
