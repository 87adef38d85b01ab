"""What the apps show: a take's history as a tidy frame, HTML (chips, card, toast, panel), figures
and the command line's plain-text tables.

The core modules never import this package; it reads the core's results and draws them.
"""

from trackerkit.line import md_text
from trackerkit.views.figures import bars_over_history
from trackerkit.views.frames import history_frame
from trackerkit.views.html import ICON_SYMBOLS, changes_html, icon_html, panel_html, trouble_html
from trackerkit.views.markdown import safe_fence, safe_md

__all__ = [
    "ICON_SYMBOLS",
    "bars_over_history",
    "changes_html",
    "history_frame",
    "icon_html",
    "md_text",
    "panel_html",
    "safe_fence",
    "safe_md",
    "trouble_html",
]
