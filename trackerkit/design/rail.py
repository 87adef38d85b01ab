"""The editor's rail: what the model gets from one tracker, at its starting values (TR-51)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trackerkit.macros import MacroReport
from trackerkit.prompt import PromptContext, default_text, render_trackers_block
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens
from trackerkit.tool import tracker_line
from trackerkit.tracker import Tracker
from trackerkit.update import slot_of, tracker_value

if TYPE_CHECKING:
    from trackerkit.design.draft import Draft

__all__ = ["SAMPLE_ROW", "Rail", "rail", "starting_state"]

#: The one row a list shows at its starting values (the rail, a draft's template check).
SAMPLE_ROW = "Sample"

_CONTEXT = PromptContext()


def starting_state(tracker: Tracker, rows: Iterable[str] = ()) -> dict[str, dict[str, object]]:
    """The state a tracker shows at its starting values: a list holds `rows`, else one sample row."""
    if tracker.layout == "record":
        return {}
    names = list(dict.fromkeys(rows)) or [SAMPLE_ROW]
    return {slot_of(tracker): {row: {} for row in names}}


@dataclass(frozen=True, slots=True)
class Rail:
    """What the model gets from a tracker (TR-51), a list showing one sample row.

    Attributes:
        block: the `### Trackers` block as prompt assembly renders it (None when the text is empty).
        plain: the default rendering the tracker falls back to without a template.
        tokens: the block's cost in tokens per reply, counted with `encoding`.
        plain_tokens: what the block would cost with the plain line instead.
        encoding: the tiktoken encoding of both counts.
        tool_line: the tracker's own line in the `update_trackers` description.
        report: the macro report of the template.
    """

    block: str | None
    plain: str
    tokens: int
    plain_tokens: int
    encoding: str
    tool_line: str
    report: MacroReport


def rail(
    subject: Draft | Tracker,
    context: PromptContext = _CONTEXT,
    encoding: str = DEFAULT_ENCODING,
) -> Rail:
    """The rail for a tracker or a draft at its starting values (a list with one sample row).

    Raises:
        TrackerDecodeError: a draft the strict decoder refuses (its verdict says why).
        TrackerkitError: an encoding that is not available offline.
    """
    tracker = subject if isinstance(subject, Tracker) else subject.tracker()
    state = starting_state(tracker)
    block = render_trackers_block([tracker], state, context)
    plain = default_text(tracker, tracker_value(tracker, state))
    plain_block = render_trackers_block(
        [tracker.model_copy(update={"body": tracker.body.model_copy(update={"template": None})})],
        state,
        context,
    )
    return Rail(
        block=block.text,
        plain=plain,
        tokens=count_tokens(block.text, encoding) if block.text else 0,
        plain_tokens=count_tokens(plain_block.text, encoding) if plain_block.text else 0,
        encoding=encoding,
        tool_line=tracker_line(tracker),
        report=block.report,
    )
