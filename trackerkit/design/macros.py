"""The macro buttons under the designer's prompt line: which macros to offer for a draft (TR-28..33)."""

from __future__ import annotations

from trackerkit.design.draft import Draft
from trackerkit.design.sample import SAMPLE_ROW

__all__ = ["macro_suggestions"]


def macro_suggestions(draft: Draft) -> list[str]:
    """`{{user}}`, `{{char}}`, the tracker's macro, then one per field in list order.

    A record's field reads `{{tracker::Name::field}}`; a list's reads the sample row the rail
    shows, `{{tracker::Name::Sample::field}}`. Fields are offered by identity, so two fields of
    one name give two buttons (the template binds the first of that name).
    """
    name = draft.name
    row = "" if draft.layout == "record" else f"{SAMPLE_ROW}::"
    return [
        "{{user}}",
        "{{char}}",
        f"{{{{tracker::{name}}}}}",
        *(f"{{{{tracker::{name}::{row}{f.name}}}}}" for f in draft.fields),
    ]
