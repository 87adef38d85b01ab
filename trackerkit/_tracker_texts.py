"""Each tracker's text (TR-29, TR-31): its default rendering, or its template run read-only.

Every tracker's value and default text are computed before any template runs, so a template
reading another tracker (`{{tracker::Name}}`, `::field`, `::row::field`) sees it whatever the link
order. Every value and row name reaches the text through `line_of`, so it cannot start a line,
forge a heading or pose as another tracker. `_text_handlers` gives the same macros to any other
text (a card, a message: `trackerkit.prompt.render_text`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trackerkit.errors import MacroLookupError
from trackerkit.line import line_of
from trackerkit.macros import (
    MacroHandler,
    MacroLimits,
    MacroReport,
    context_handlers,
    render_macros,
)
from trackerkit.tracker import Tracker
from trackerkit.update import name_key, tracker_values

__all__ = ["PromptContext", "default_text", "tracker_texts"]

_LIMITS = MacroLimits()


@dataclass(frozen=True, slots=True)
class PromptContext:
    """The turn's macro context: the names a template commonly needs."""

    user: str = "User"
    char: str = "Assistant"


_CONTEXT = PromptContext()


def default_text(tracker: Tracker, value: Mapping[str, Any]) -> str:
    """The default rendering (TR-29): `Name: f=v, f=v`; a list `Name:` and one line per row; `Name: (none)`."""
    name = line_of(tracker.name)
    if tracker.layout == "record":
        pairs = ", ".join(f"{k}={line_of(v)}" for k, v in value.items())
        return f"{name}: {pairs}"
    if not value:
        return f"{name}: (none)"
    lines = [f"{name}:"]
    for row, fields in value.items():
        pairs = ", ".join(f"{k}={line_of(v)}" for k, v in fields.items())
        lines.append(f"- {line_of(row)}: {pairs}")
    return "\n".join(lines)


def _find_row(rows: Mapping[str, Any], name: str) -> str | None:
    if name in rows:
        return name
    folded = name_key(name)
    return next((r for r in rows if name_key(r) == folded), None)


def _no_field(tracker: str, field_name: str) -> MacroLookupError:
    return MacroLookupError(
        f'{tracker} has no field "{line_of(field_name)}"', code="no_field", name=field_name
    )


def _tracker_handler(
    trackers: Sequence[Tracker],
    values: Mapping[str, Mapping[str, Any]],
    whole: Mapping[str, str],
) -> MacroHandler:
    """`{{tracker::Name}}` -> `whole[Name]`; `::field` a record's field; `::row::field` a list row's field."""
    by_name = {t.name: t for t in trackers}

    def handler(args: tuple[str, ...]) -> str:
        if not args or not args[0].strip():
            raise MacroLookupError("tracker needs a tracker name: {{tracker::Name}}", code="usage")
        name = args[0].strip()
        tracker = by_name.get(name)
        if tracker is None:
            raise MacroLookupError(
                f'no linked tracker is called "{line_of(name)}"', code="no_tracker", name=name
            )
        value = values[tracker.name]
        if len(args) == 1:
            return whole[tracker.name]
        if tracker.layout == "record":
            if len(args) != 2:
                raise MacroLookupError(
                    f"{tracker.name} is a record: use {{{{tracker::{tracker.name}::field}}}}",
                    code="usage",
                    name=tracker.name,
                )
            field_name = args[1].strip()
            if field_name not in value:
                raise _no_field(tracker.name, field_name)
            return line_of(value[field_name])
        if len(args) != 3:
            raise MacroLookupError(
                f"{tracker.name} is a list: use {{{{tracker::{tracker.name}::row::field}}}}",
                code="usage",
                name=tracker.name,
            )
        row = _find_row(value, args[1])
        if row is None:
            raise MacroLookupError(
                f'{tracker.name} has no row "{line_of(args[1])}"', code="no_row", name=args[1]
            )
        field_name = args[2].strip()
        if field_name not in value[row]:
            raise _no_field(tracker.name, field_name)
        return line_of(value[row][field_name])

    return handler


@dataclass(frozen=True, slots=True)
class _Computed:
    values: dict[str, Any]
    defaults: dict[str, str]


def _compute(trackers: Sequence[Tracker], state: Mapping[str, Mapping[str, object]]) -> _Computed:
    values = tracker_values(trackers, state)
    defaults = {t.name: default_text(t, values[t.name]) for t in trackers}
    return _Computed(values, defaults)


def _handlers(
    trackers: Sequence[Tracker],
    values: Mapping[str, Mapping[str, Any]],
    whole: Mapping[str, str],
    context: PromptContext,
) -> dict[str, MacroHandler]:
    return {
        **context_handlers(line_of(context.user), line_of(context.char)),
        "tracker": _tracker_handler(trackers, values, whole),
    }


def _texts(
    trackers: Sequence[Tracker],
    computed: _Computed,
    context: PromptContext,
    limits: MacroLimits,
) -> tuple[dict[str, str], MacroReport]:
    handlers = _handlers(trackers, computed.values, computed.defaults, context)
    texts: dict[str, str] = {}
    report = MacroReport()
    for tracker in trackers:
        template = tracker.body.template
        if template is None:
            texts[tracker.name] = computed.defaults[tracker.name]
            continue
        rendered = render_macros(template, handlers, limits=limits, source=tracker.name)
        texts[tracker.name] = rendered.text
        report = report.merge(rendered.report)
    return texts, report


def tracker_texts(
    trackers: Sequence[Tracker],
    state: Mapping[str, Mapping[str, object]],
    context: PromptContext = _CONTEXT,
    limits: MacroLimits = _LIMITS,
) -> tuple[dict[str, str], MacroReport]:
    """Each tracker's text: its template run read-only, else its default rendering (TR-31).

    Every tracker's value and default text are computed first, then each template runs against
    them, so a template reading another tracker sees it whatever the link order; inside a
    template `{{tracker::Other}}` is the other's default rendering.
    """
    return _texts(trackers, _compute(trackers, state), context, limits)


def _text_handlers(
    trackers: Sequence[Tracker],
    state: Mapping[str, Mapping[str, object]],
    context: PromptContext,
    limits: MacroLimits,
) -> tuple[dict[str, MacroHandler], MacroReport]:
    """The tracker macros' handlers for a text, and the report of the trackers' own texts."""
    computed = _compute(trackers, state)
    texts, report = _texts(trackers, computed, context, limits)
    return _handlers(trackers, computed.values, texts, context), report
