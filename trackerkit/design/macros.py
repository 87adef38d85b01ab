"""The macro buttons under the designer's prompt line: which macros to offer for a draft (TR-28..33)."""

from __future__ import annotations

from trackerkit.design.draft import Draft

__all__ = ["macro_suggestions"]


def macro_suggestions(draft: Draft) -> list[str]:
    """`{{user}}`, `{{char}}`, the tracker's macro, then for a record one per field in list order.

    A record's field reads `{{tracker::Name::field}}`. A list's field macro must name a row
    (`{{tracker::Name::row::field}}`, TR-32), and a list starts with none: a button naming the
    rail's sample row would write a macro that reads nothing in a chat, so a list is offered its
    whole text, `{{tracker::Name}}`, alone. Fields are offered by identity, so two fields of one
    name give two buttons (the template binds the first of that name).
    """
    name = draft.name
    fields = draft.fields if draft.layout == "record" else ()
    return [
        "{{user}}",
        "{{char}}",
        f"{{{{tracker::{name}}}}}",
        *(f"{{{{tracker::{name}::{f.name}}}}}" for f in fields),
    ]
