"""Files of other tools' formats that tests in several folders import (written as dicts)."""

from __future__ import annotations

#: A WTracker preset keyed `quest`, the id of the bundled "Quest" that the scene `shop` links.
WT_QUEST = {
    "schemaPresets": {
        "quest": {
            "name": "Quest log",
            "value": {
                "type": "object",
                "properties": {
                    "gold": {"type": "integer", "minimum": 0, "maximum": 999, "default": 12},
                    "mood": {"type": "string", "enum": ["calm", "angry"], "default": "calm"},
                },
            },
        }
    }
}
