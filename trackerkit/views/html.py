"""A reply's changes and the Trackers panel as HTML.

These are HTML strings with one small `<style>` block of `tk-` classes, so they read well in a notebook and
a browser. Every text in the HTML (names, rows, values) is user data and is escaped; a value is
shown by `line_of`, as the prompt block and the command line show it.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

import pydantic

from trackerkit._slots import slot_of
from trackerkit.changes import (
    Bar,
    Change,
    FieldChange,
    MessageChanges,
    TrackerChanges,
    number_bar,
)
from trackerkit.chat import Chat
from trackerkit.errors import BadRequestError, TrackerkitError
from trackerkit.line import fields_line, line_of
from trackerkit.steps import plain_problems, problem_sentence
from trackerkit.tracker import CHANGES_STYLES, Tracker

__all__ = ["ICON_SYMBOLS", "changes_html", "icon_html", "panel_html", "trouble_html"]

# --- icons ---------------------------------------------------------------------------------

#: A small map of common icon names (lucide or mdi, without the prefix) to a unicode symbol.
#: The build ships no glyph table; an icon not named here is drawn as a neutral dot.
ICON_SYMBOLS: Mapping[str, str] = {
    "activity": "∿",
    "alert-triangle": "⚠",
    "backpack": "🎒",
    "book": "📖",
    "book-open": "📖",
    "book-open-page-variant": "📖",
    "book-open-variant": "📖",
    "check": "✓",
    "clock": "⏱",
    "cloud": "☁",
    "cloud-rain": "🌧",
    "cloud-sun": "⛅",
    "coins": "¤",
    "compass": "🧭",
    "droplet": "💧",
    "eye": "👁",
    "flag": "⚑",
    "flame": "🔥",
    "gem": "💎",
    "hand": "✋",
    "handshake": "🤝",
    "hash": "#",
    "heart": "♥",
    "home": "⌂",
    "key": "🔑",
    "map": "🗺",
    "map-pin": "📍",
    "moon": "☾",
    "music": "♪",
    "scroll": "📜",
    "shield": "🛡",
    "skull": "☠",
    "smile": "☺",
    "snowflake": "❄",
    "star": "★",
    "sun": "☀",
    "sword": "⚔",
    "sword-cross": "⚔",
    "target": "◎",
    "thermometer": "🌡",
    "user": "👤",
    "users": "👥",
    "weight": "⚖",
    "weight-pound": "⚖",
    "zap": "⚡",
}
_NEUTRAL = "•"

_STYLE = """<style>
.tk-changes,.tk-panel{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328}
.tk-changes{margin:4px 0}
.tk-chips{display:flex;flex-wrap:wrap;gap:4px}
.tk-chip{display:inline-flex;align-items:center;gap:4px;padding:1px 8px;border-radius:999px;background:#eef2f7;border:1px solid #d0d7e2;white-space:nowrap}
.tk-card{border:1px solid #d0d7e2;border-radius:8px;padding:6px 10px;max-width:420px;background:#fafbfc}
.tk-card-title,.tk-panel-title{font-weight:600;margin-bottom:4px}
.tk-card ul,.tk-panel ul{list-style:none;margin:0;padding:0}
.tk-card li,.tk-panel li{margin:2px 0}
.tk-toast{display:inline-block;max-width:480px;padding:3px 10px;border-radius:6px;background:#1f2328;color:#fff;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tk-chip-tracker{font-weight:600}
.tk-icon{display:inline-block;min-width:1em;text-align:center}
.tk-arrow{color:#6e7781}
.tk-bar{display:inline-block;vertical-align:middle;width:80px;height:6px;margin-left:6px;border-radius:3px;background:#d8dee4;overflow:hidden}
.tk-bar-fill{display:block;height:100%;background:#2da44e}
.tk-panel{border:1px solid #d0d7e2;border-radius:8px;padding:8px 12px;max-width:480px}
.tk-tracker{margin:6px 0;padding-top:6px;border-top:1px solid #eaeef2}
.tk-row-name,.tk-field{font-weight:500}
.tk-panel li ul{padding-left:1.4em}
.tk-changed-by,.tk-empty,.tk-left-out{color:#6e7781;font-size:12px}
</style>"""


def icon_html(icon: str | None) -> str:
    """An icon id as a small labelled span (`lucide:heart` -> ♥); "" when there is no icon."""
    if not icon:
        return ""
    name = icon.partition(":")[2] or icon
    symbol = ICON_SYMBOLS.get(name, _NEUTRAL)
    label = escape(icon)
    return f'<span class="tk-icon" data-icon="{label}" title="{label}">{escape(symbol)}</span>'


def _show(value: object) -> str:
    """A value as escaped HTML text."""
    return escape(line_of(value))


def _bar_html(value: object, bar: Bar | None) -> str:
    """A small horizontal bar for a number with a top; "" when it has none."""
    if bar is None or isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    low, top = float(bar.min), float(bar.top)
    share = 1.0 if top <= low else min(1.0, max(0.0, (float(value) - low) / (top - low)))
    title = escape(f"{line_of(value)} of {line_of(bar.top)}")
    return (
        f'<span class="tk-bar" title="{title}">'
        f'<span class="tk-bar-fill" style="width:{share * 100:.0f}%"></span></span>'
    )


# --- a reply's changes ---------------------------------------------------------------------


def changes_html(
    entry: TrackerChanges | MessageChanges, style: str | None = None, changes_on: bool = True
) -> str:
    """One reply's tracker changes drawn in the tracker's style (chips, card, toast or hidden).

    Args:
        entry: one tracker's changes of the changes read, or a whole message's, whose trackers
            are each drawn in their own style.
        style: draw in this style instead of the entry's own.
        changes_on: the scene's `trackerChanges` switch; False draws nothing.
    Returns:
        An HTML string with its `<style>` block; "" when nothing is drawn.
    Raises:
        BadRequestError: `style` is not one of chips, card, toast, hidden.
    """
    if style is not None and style not in CHANGES_STYLES:
        raise BadRequestError(f"style must be one of {', '.join(CHANGES_STYLES)}; found {style!r}")
    if not changes_on:
        return ""
    if isinstance(entry, MessageChanges):
        body = "".join(_tracker_changes(t, style) for t in entry.trackers)
        if not body:
            return ""
        message = escape(entry.message_id)
        return f'{_STYLE}<div class="tk-message-changes" data-message-id="{message}">{body}</div>'
    body = _tracker_changes(entry, style)
    return f"{_STYLE}{body}" if body else ""


def _tracker_changes(entry: TrackerChanges, style: str | None) -> str:
    drawn = style or entry.style
    if drawn == "hidden" or not entry.changes:
        return ""
    data = f'data-tracker="{escape(entry.tracker_id)}"'
    if drawn == "card":
        return _card(entry, data)
    if drawn == "toast":
        return _toast(entry, data)
    return _chips(entry, data)


def _arrow() -> str:
    return ' <span class="tk-arrow">→</span> '


def _change_text(change: Change) -> str:
    """One change as escaped HTML: `field before → after`, or a list row's added/removed/edited line."""
    if isinstance(change, FieldChange):
        return (
            f'<span class="tk-field">{escape(change.field)}</span> '
            f"{_show(change.before)}{_arrow()}{_show(change.after)}"
        )
    row = f'<span class="tk-row-name">{escape(change.row)}</span>'
    before, after = change.before, change.after
    if change.added:
        shown = fields_line(after) if isinstance(after, Mapping) else line_of(after)
        return f"+ {row} ({escape(shown)})"
    if change.removed:
        return f"− {row}"
    if not (isinstance(before, Mapping) and isinstance(after, Mapping)):
        # A piece that cannot be read any more reports rows as stored, whatever they hold.
        return f"{row}: {_show(before)}{_arrow()}{_show(after)}"
    moved = [
        f"{escape(k)} {_show(before.get(k))}{_arrow()}{_show(after[k])}"
        for k in change.changed_fields()
    ]
    return f"{row}: " + ", ".join(moved)


def _chips(entry: TrackerChanges, data: str) -> str:
    # A tracker with no icon of its own is named on each chip: a field's icon, or none, does not
    # tell two trackers' `hp` apart (the card and the toast name it already).
    name = "" if entry.icon else f'<span class="tk-chip-tracker">{escape(entry.name)}</span>'
    chips = "".join(
        f'<span class="tk-chip">{name}{icon_html(entry.icon_of(c))}{_change_text(c)}</span>'
        for c in entry.changes
    )
    return f'<div class="tk-changes tk-chips" {data} title="{escape(entry.name)}">{chips}</div>'


def _card(entry: TrackerChanges, data: str) -> str:
    bars = entry.bars
    items = []
    for change in entry.changes:
        bar = ""
        if isinstance(change, FieldChange):
            bar = _bar_html(change.after, bars.get(change.field))
        elif isinstance(change.after, Mapping):
            after = change.after
            bar = "".join(
                f' <span class="tk-field">{escape(k)}</span>{_bar_html(after.get(k), b)}'
                for k, b in bars.items()
                if k in after
            )
        items.append(f"<li>{icon_html(entry.icon_of(change))}{_change_text(change)}{bar}</li>")
    title = f"{icon_html(entry.icon)}{escape(entry.name)}"
    return (
        f'<div class="tk-changes tk-card" {data}><div class="tk-card-title">{title}</div>'
        f"<ul>{''.join(items)}</ul></div>"
    )


def _toast(entry: TrackerChanges, data: str) -> str:
    line = "; ".join(_change_text(c) for c in entry.changes)
    return (
        f'<div class="tk-changes tk-toast" role="status" {data}>'
        f"{icon_html(entry.icon)}<strong>{escape(entry.name)}</strong>: {line}</div>"
    )


# --- the Trackers panel --------------------------------------------------------------------


def panel_html(chat: Chat) -> str:
    """The Trackers panel: each linked tracker's value at the tip, its icons, bars for topped
    numbers, and the message that last changed it (said as the person's when their edit on it
    did); the trackers a turn leaves out, with why."""
    take = chat.take
    positions = {m.id: i for i, m in enumerate(take.messages)}
    parts = []
    for entry in chat.panel():
        tracker = entry.tracker
        if tracker.layout == "record":
            body = _record_items(tracker, entry.value)
        elif entry.value:
            rows = []
            for row, values in entry.value.items():
                assert isinstance(values, Mapping)
                rows.append(
                    f'<li>{icon_html(tracker.body.icon)}<span class="tk-row-name">{escape(row)}</span>'
                    f"{_record_items(tracker, values)}</li>"
                )
            body = f"<ul>{''.join(rows)}</ul>"
        else:
            body = '<div class="tk-empty">(none)</div>'
        # Said by the message's number, as the chat numbers it; its id (which the chat does not
        # show) is kept on the element for a program to read.
        changed, message = "not changed yet", ""
        if entry.changed_by is not None:
            index = positions[entry.changed_by]
            # A person's edits are written after the message's reply: when one wrote this tracker,
            # it made the value shown, and saying the message changed it reads as the model's write.
            edited = any(d.slot == slot_of(tracker) for d in take.messages[index].edits)
            who = "edited by you at" if edited else "changed by"
            changed = f"{who} message {index + 1}"
            message = f' data-message="{escape(entry.changed_by)}"'
        parts.append(
            f'<div class="tk-tracker" data-tracker="{escape(tracker.id)}">'
            f'<div class="tk-card-title">{icon_html(tracker.body.icon)}{escape(tracker.name)}</div>'
            f'{body}<div class="tk-changed-by"{message}>{escape(changed)}</div></div>'
        )
    for left in chat.linked().left_out:
        parts.append(
            f'<div class="tk-tracker tk-left-out" data-tracker="{escape(left.tracker_id)}">'
            f"{escape(left.tracker_id)}: left out ({escape(left.reason)})</div>"
        )
    if not parts:
        parts.append('<div class="tk-empty">No tracker is linked to this scene.</div>')
    return (
        f'{_STYLE}<section class="tk-panel"><div class="tk-panel-title">Trackers</div>'
        f"{''.join(parts)}</section>"
    )


def _record_items(tracker: Tracker, values: Mapping[str, Any]) -> str:
    items = []
    for field in tracker.fields:
        value = values[field.name]
        bar = _bar_html(value, number_bar(field, values))
        items.append(
            f'<li>{icon_html(field.icon)}<span class="tk-field">{escape(field.name)}</span> '
            f"{_show(value)}{bar}</li>"
        )
    return f"<ul>{''.join(items)}</ul>"


# --- a failure on a page -------------------------------------------------------------------


def trouble_html(title: str, error: BaseException) -> str:
    """A failure as an app's page shows it: what could not be done, then the error in words.

    The title in bold, then the error's message (after its class when it is no trackerkit
    error, a fault of the app rather than of what was given), escaped, wrapping anywhere so a long
    path never runs off the page. A notebook puts it in a `mo.callout(..., kind="danger")`.
    """
    if isinstance(error, pydantic.ValidationError):  # settings typed on the page: in words
        words = escape(problem_sentence(plain_problems(error)))
    elif isinstance(error, TrackerkitError):  # a trackerkit error is its own sentence
        words = escape(str(error))
    else:
        words = escape(f"{type(error).__name__}: {error}")
    return f'<p><strong>{escape(title)}</strong></p><p style="overflow-wrap: anywhere">{words}</p>'
