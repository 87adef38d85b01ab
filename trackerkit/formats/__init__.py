"""Other tools' tracker formats: importers (and, from the exports' side, provider tool exports).

The public names are re-exported by `trackerkit`; this `__all__` is the sub-package's contract.
"""

from trackerkit.formats.detect import FORMATS, detect_format
from trackerkit.formats.imported import Imported, ImportReport, ReportLine
from trackerkit.formats.importers import import_file
from trackerkit.formats.marinara import import_marinara
from trackerkit.formats.mvu import import_mvu
from trackerkit.formats.rpg_companion import import_rpg_companion
from trackerkit.formats.sillytavern_tracker import import_sillytavern_tracker
from trackerkit.formats.wtracker_import import import_wtracker

__all__ = [
    "FORMATS",
    "ImportReport",
    "Imported",
    "ReportLine",
    "detect_format",
    "import_file",
    "import_marinara",
    "import_mvu",
    "import_rpg_companion",
    "import_sillytavern_tracker",
    "import_wtracker",
]
