"""What the simulator page draws beside the chat: notes under a reply, a step's outcome, a failure.

Each function returns an HTML string (user text escaped) or plain data for a widget, so the
notebook only places them. The `tk-` classes carry the data a browser journey reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

from trackerkit.chat import Chat
from trackerkit.errors import TrackerkitError
from trackerkit.fields import NumberField, is_number
from trackerkit.simulate.outdated import OutdatedName
from trackerkit.simulate.playback import Outcome
from trackerkit.values import initial_value

__all__ = [
    "Unsent",
    "calls_example",
    "edit_prefill",
    "edited_html",
    "failure_html",
    "outcome_html",
    "outdated_html",
    "played_marker",
    "reply_notes_html",
    "scripted_steps_text",
    "steps_html",
    "unanswered_html",
]

_STYLE = """<style>
.tk-note{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:4px 0;padding:4px 10px;border-radius:6px;white-space:pre-wrap}
.tk-refused{background:#fff1f0;border:1px solid #f5c2c0;color:#82071e}
.tk-clamped{background:#fff8c5;border:1px solid #e5d47a;color:#4d2d00}
.tk-done{background:#eef6ee;border:1px solid #b7dcb9;color:#1a4d1f}
.tk-failure{background:#fff1f0;border:1px solid #f5c2c0;color:#82071e}
.tk-edited{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:2px 0}
.tk-edited-label{font:italic 12px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#57606a}
.tk-unanswered{background:#ddf4ff;border:1px solid #9cd1f5;color:#0a3069}
.tk-steps{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:4px 0;padding-left:1.6em}
.tk-step-refused{color:#82071e}
.tk-outdated{background:#fff8c5;border:1px solid #e5d47a;color:#4d2d00}
</style>"""


@dataclass(slots=True)
class Unsent:
    """What a person typed in the page's boxes and has not sent, by scene, while the page is open.

    A scene's steps and its slider are kept per scene; so is this, so switching scenes and back
    shows each box as it was left. The page keeps a box's text as the box gives it (on leaving
    it), and reads it back, or the box's own start, when it draws the box again. An edit form's
    boxes are kept per tracker (`edit_boxes`), so picking another tracker and back keeps them
    too. Never on disk: a reload starts over, as it does for the steps.
    """

    by_scene: dict[str, dict[str, str]] = field(default_factory=dict)

    def text(self, scene: str | None, box: str, start: str) -> str:
        """What `box` holds for `scene`: as the person left it, else `start`."""
        return self.by_scene.get(scene or "", {}).get(box, start)

    def keep(self, scene: str | None, box: str, text: str) -> None:
        """Keep `text` as what `box` holds for `scene`; the other scenes' boxes are untouched."""
        self.by_scene.setdefault(scene or "", {})[box] = text

    def drop(self, scene: str | None, *boxes: str) -> None:
        """Forget what `boxes` hold for `scene` (what was sent): they start afresh when drawn."""
        kept = self.by_scene.get(scene or "", {})
        for box in boxes:
            kept.pop(box, None)

    @staticmethod
    def edit_boxes(tracker: str | None) -> tuple[str, str]:
        """The edit form's row and values boxes for `tracker`, as this keeps them."""
        return f"edit row · {tracker}", f"edit set · {tracker}"


def reply_notes_html(outcome: Outcome | None) -> str:
    """Under a reply: each tool call the rules refused, with its errors, and each clamped value."""
    if outcome is None or outcome.report is None:
        return ""
    notes = []
    for call in outcome.report.calls:
        if not call.ok:
            notes.append(
                f'<div class="tk-note tk-refused" role="alert">Refused batch (round {call.round + 1},'
                f" {escape(call.name)}): {escape(call.answer)}</div>"
            )
    for clamp in outcome.clamps:
        notes.append(
            f'<div class="tk-note tk-clamped" data-field="{escape(clamp.field)}">Clamped: '
            f"{escape(str(clamp))}</div>"
        )
    return _STYLE + "".join(notes) if notes else ""


def outcome_html(outcome: Outcome | None) -> str:
    """A step's outcome in one line: done (with clamps), failed, or refused with the reason."""
    if outcome is None:
        return ""
    bad = outcome.refused is not None or (outcome.report is not None and not outcome.report.ok)
    kind = "tk-refused" if bad else "tk-done"
    role = "alert" if bad else "status"
    return f'{_STYLE}<div class="tk-note tk-outcome {kind}" role="{role}">{escape(outcome.sentence)}</div>'


def edited_html(drawn: str, message_id: str) -> str:
    """A person's edits on a message, drawn as its changes are (`views.changes_html`), under a
    label that tells them from the reply's own writes drawn above it; "" when nothing is drawn."""
    if not drawn:
        return ""
    return (
        f'{_STYLE}<div class="tk-edited" data-message-id="{escape(message_id)}">'
        f'<span class="tk-edited-label">Edited by you:</span>{drawn}</div>'
    )


def unanswered_html(chat: Chat) -> str:
    """A note under a take that ends on the person's message (a cut left it unanswered): which
    control answers it; "" when the take ends otherwise."""
    messages = chat.take.messages
    if not messages or messages[-1].role != "user":
        return ""
    return (
        f'{_STYLE}<div class="tk-note tk-unanswered" role="status">Message {len(messages)}, '
        "yours, has no reply yet: Reply to last message answers it with the Reply and the tool "
        "calls below (Send turn adds another message).</div>"
    )


def steps_html(outcomes: Sequence[Outcome]) -> str:
    """The person's steps, oldest first, each with its outcome: the list where a refusal stays
    once the chat has moved on (the page says above the chat only the ones news to the person,
    `Playback.refusals`). Empty when there is no step."""
    if not outcomes:
        return ""
    items = []
    for outcome in outcomes:
        bad = outcome.refused is not None or (outcome.report is not None and not outcome.report.ok)
        kind = "tk-step-refused" if bad else "tk-step-done"
        items.append(f'<li class="tk-step {kind}">{escape(outcome.sentence)}</li>')
    return f'{_STYLE}<ol class="tk-steps">{"".join(items)}</ol>'


def outdated_html(outdated: Sequence[OutdatedName]) -> str:
    """Each field the scene's own scripted steps name by a name a designer save took from it:
    which steps, the rename (or delete), and what to edit in the scene (`Playback.outdated`)."""
    notes = [
        f'<div class="tk-note tk-outdated" role="alert" data-field="{escape(o.field)}">'
        f"{escape(o.sentence)}</div>"
        for o in outdated
    ]
    return _STYLE + "".join(notes) if notes else ""


def played_marker(steps: int) -> str:
    """An invisible mark of how many steps a section was drawn after, for a browser to wait on.

    Controls are drawn anew after every step; a journey waits for this mark before it picks an
    option, so it never picks in a control that is about to be replaced.
    """
    return f'<span class="tk-played" data-played="{steps}" hidden></span>'


def scripted_steps_text(played: int, total: int) -> str:
    """How many of the scene's scripted steps are played, for the status line.

    A scene without scripted steps says so rather than "0 of 0"; `played` is held to `total`,
    so the line never counts past the scene's end.

    >>> scripted_steps_text(1, 0), scripted_steps_text(2, 5), scripted_steps_text(1, 1)
    ('no scripted steps', '2 of 5 scripted steps', '1 of 1 scripted step')
    """
    if total <= 0:
        return "no scripted steps"
    return f"{min(max(played, 0), total)} of {total} scripted step{'' if total == 1 else 's'}"


def failure_html(where: str, exc: BaseException) -> str:
    """An exception as a readable message in its section, instead of a blank app."""
    text = str(exc).strip() or "(no message)"
    if not isinstance(exc, TrackerkitError):  # a fault of the app: named by its class
        text = f"{type(exc).__name__}: {text}"
    return (
        f'{_STYLE}<div class="tk-note tk-failure" role="alert">{escape(where)} could not be '
        f"shown: {escape(text)}</div>"
    )


def edit_prefill(chat: Chat, tracker: str | None) -> tuple[str, str]:
    """The row and the values (JSON) an edit form starts with: the tracker's first field as it stands.

    A record gives `("", '{"hp": 40}')`; a list gives its first row and that row's first field, or
    a new row when it has none. A tracker the scene does not link (or None) gives `("", "{}")`.
    """
    entry = next((e for e in chat.panel() if e.tracker.name == tracker), None)
    if entry is None or not entry.tracker.fields:
        return "", "{}"
    field = entry.tracker.fields[0]
    value = entry.value
    if entry.tracker.layout == "record":
        return "", json.dumps({field.name: value.get(field.name)}, ensure_ascii=False)
    row_name, row = next(iter(value.items()), ("New row", {}))
    current = row.get(field.name) if isinstance(row, Mapping) else None
    if current is None:
        current = initial_value(field)
    return str(row_name), json.dumps({field.name: current}, ensure_ascii=False)


def calls_example(chat: Chat) -> str:
    """An `update_trackers` call for the turn form, made from the scene's own trackers.

    The first linked tracker with a number field sets it to half its value at the tip (a wound,
    a spent coin), on its first row for a list; a scene whose trackers hold no number sets the
    first field as it stands; a scene that links none makes no call (`[]`).
    """
    entries = chat.panel()
    pick = next(
        (e for e in entries if any(isinstance(f, NumberField) for f in e.tracker.fields)),
        entries[0] if entries else None,
    )
    if pick is None or not pick.tracker.fields:
        return "[]"
    field = next(
        (f for f in pick.tracker.fields if isinstance(f, NumberField)), pick.tracker.fields[0]
    )
    item: dict[str, object] = {"tracker": pick.tracker.name}
    values: Mapping[str, object] = pick.value
    if pick.tracker.layout == "list":
        row_name, row = next(iter(pick.value.items()), ("New row", {}))
        item["row"] = str(row_name)
        values = row if isinstance(row, Mapping) else {}
    value = values.get(field.name, initial_value(field))
    if isinstance(field, NumberField) and is_number(value) and isinstance(value, int | float):
        value = int(value // 2) if isinstance(value, int) else value / 2
    item["set"] = {field.name: value}
    call = {"name": "update_trackers", "arguments": {"updates": [item]}}
    return json.dumps([call], ensure_ascii=False)
