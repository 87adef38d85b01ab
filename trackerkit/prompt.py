"""What the model sees: default rendering, templates, the `### Trackers` block and the request (TR-28..TR-33).

Every value, row name or model-written text reaches the prompt through `line_of`, so it cannot
start a line, forge a heading or pose as another tracker. Templates run read-only through the
macro engine after every tracker's value and default text are computed (TR-31). The request keeps
its fixed parts (card, trackers block, tool) whole and drops the oldest history to fit the window
(TR-33); when the fixed parts alone do not fit, the error names each with its token count.

The parts live in their own modules, and every public name is importable from here:
`trackerkit._tracker_texts` (`PromptContext`, `default_text`, `tracker_texts`: each tracker's
text and the `{{tracker::…}}` macro) and `._request` (`Card`, `Request`, `assemble_request`: the
card's marker and the window); this module renders the block, any macro text and the card, and
previews what a turn sends and costs (`preview_prompt`, `tool_token_costs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackerkit._request import LINKED_TRACKERS_MARKER, Card, Request, assemble_request
from trackerkit._tracker_texts import (
    _CONTEXT,
    _LIMITS,
    PromptContext,
    _text_handlers,
    default_text,
    tracker_texts,
)
from trackerkit._tracker_texts import _find_row as _find_row
from trackerkit.errors import MacroLookupError
from trackerkit.line import line_of
from trackerkit.macros import MacroLimits, MacroReport, Rendered, render_macros
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens, count_tool_tokens
from trackerkit.tool import ToolDefinition, anyof_parameters, tracker_line, update_trackers_tool
from trackerkit.tracker import Tracker

__all__ = [
    "BLOCK_HEADING",
    "LINKED_TRACKERS_MARKER",
    "Block",
    "Card",
    "PromptContext",
    "PromptPreview",
    "Request",
    "assemble_request",
    "default_text",
    "preview_prompt",
    "render_card",
    "render_text",
    "render_trackers_block",
    "tool_token_costs",
    "tracker_texts",
]

BLOCK_HEADING = "### Trackers"


@dataclass(frozen=True, slots=True)
class Block:
    """The `### Trackers` block (None when no tracker has text) and the macro report of its templates."""

    text: str | None
    report: MacroReport
    texts: dict[str, str] = field(default_factory=dict)


def render_trackers_block(
    trackers: Sequence[Tracker],
    state: Mapping[str, Mapping[str, object]],
    context: PromptContext = _CONTEXT,
    limits: MacroLimits = _LIMITS,
) -> Block:
    """One system block headed `### Trackers` with each linked tracker's text (TR-28)."""
    texts, report = tracker_texts(trackers, state, context, limits)
    shown = [text for text in texts.values() if text.strip()]
    if not shown:
        return Block(None, report, texts)
    return Block("\n".join([BLOCK_HEADING, *shown]), report, texts)


def render_text(
    text: str,
    trackers: Sequence[Tracker],
    state: Mapping[str, Mapping[str, object]],
    context: PromptContext = _CONTEXT,
    limits: MacroLimits = _LIMITS,
) -> Rendered:
    """Run any macro text (a card, a message) with the tracker macros (TR-32).

    Here `{{tracker::Name}}` is the tracker's text (its template's output, or the default). Pass
    the turn's current state so a macro run after an update reads the new values.
    """
    handlers, report = _text_handlers(trackers, state, context, limits)
    # A card run through here keeps its block marker for `assemble_request`, not an error.
    handlers["linkedtrackers"] = _marker
    rendered = render_macros(text, handlers, limits=limits)
    return Rendered(rendered.text, report.merge(rendered.report))


def _marker(args: tuple[str, ...]) -> str:
    if args:
        raise MacroLookupError(f"{LINKED_TRACKERS_MARKER} takes no arguments", code="usage")
    return LINKED_TRACKERS_MARKER


def _no_text(args: tuple[str, ...]) -> str:
    _marker(args)
    return ""


def render_card(
    text: str,
    trackers: Sequence[Tracker],
    state: Mapping[str, Mapping[str, object]],
    context: PromptContext = _CONTEXT,
    limits: MacroLimits = _LIMITS,
) -> Card:
    """Run a card's macros as `render_text` does, finding the block's marker in the author's text only.

    The marker is known by where the macro engine wrote the author's `{{linkedTrackers}}` macro,
    not by searching the output, so no substituted value can pose as it (TR-30).
    """
    handlers, report = _text_handlers(trackers, state, context, limits)
    handlers["linkedtrackers"] = _no_text
    rendered = render_macros(text, handlers, limits=limits)
    marks = [u.at for u in rendered.report.uses if u.name == "linkedtrackers" and u.at is not None]
    return Card(rendered.text, marks[0] if marks else None, report.merge(rendered.report))


def tool_token_costs(
    trackers: Sequence[Tracker], encoding: str = DEFAULT_ENCODING
) -> dict[str, Any]:
    """What the update tool costs for these trackers, and what the alternatives would (TR-36).

    Returns `{"encoding", "tool", "without_meanings", "anyof", "lines": {tracker: tokens}}`: the
    tool as sent (description + parameters), the same without the field meanings, and the
    alternative that gives each tracker's fields in the `set` schema as an anyOf.
    """
    full = update_trackers_tool(trackers)
    bare = update_trackers_tool(trackers, meanings=False)
    alt = anyof_parameters(trackers)

    def cost(tool: ToolDefinition) -> int:
        return count_tool_tokens(tool.name, tool.description, tool.parameters, encoding)

    return {
        "encoding": encoding,
        "tool": cost(full),
        "without_meanings": cost(bare),
        "anyof": cost(alt),
        "lines": {t.name: count_tokens(tracker_line(t), encoding) for t in trackers},
    }


@dataclass(frozen=True, slots=True)
class PromptPreview:
    """What a turn of a scene sends at a state: the block, the card, the tool, and their costs.

    `tokens` holds `block`, `card`, and with linked trackers `tool` (description + parameters),
    `without_meanings` and `anyof` (TR-36), each counted with `encoding`; `report` is the macro
    report of the templates and the card.
    """

    block: Block
    card: str
    report: MacroReport
    tool: ToolDefinition | None
    lines: dict[str, str]
    tokens: dict[str, int]
    encoding: str

    def to_text(self) -> str:
        """The block, the tool's line per tracker, the macro errors and a token table, for a terminal."""
        out = [self.block.text or "(no ### Trackers block: no linked tracker has text)", ""]
        if self.tool is not None:
            out += [f"{self.tool.name}: one line per tracker", *self.lines.values(), ""]
        if self.report.errors:
            out += ["macro errors:", *(f"  {line_of(str(e))}" for e in self.report.errors), ""]
        rows = [
            (label, self.tokens[key]) for key, label in _TOKEN_PARTS.items() if key in self.tokens
        ]
        width = max(len(label) for label, _ in rows)
        out.append(f"{'part':<{width}}  tokens ({self.encoding})")
        out += [f"{label:<{width}}  {tokens:>6}" for label, tokens in rows]
        return "\n".join(out)

    def to_json(self) -> dict[str, Any]:
        """The same as plain data: block, tool name and lines, macro errors, tokens by part, encoding."""
        return {
            "block": self.block.text,
            "tool": self.tool.name if self.tool is not None else None,
            "lines": self.lines,
            "errors": [str(e) for e in self.report.errors],
            "encoding": self.encoding,
            "tokens": self.tokens,
        }


_TOKEN_PARTS = {
    "block": "block",
    "tool": "tool (description + parameters)",
    "without_meanings": "tool without meanings",
    "anyof": "anyOf alternative",
    "card": "card",
}


def preview_prompt(
    trackers: Sequence[Tracker],
    card: str = "",
    state: Mapping[str, Mapping[str, object]] | None = None,
    context: PromptContext = _CONTEXT,
    encoding: str = DEFAULT_ENCODING,
) -> PromptPreview:
    """Render the block, the card and the update tool for `trackers` and count each (TR-28, TR-36).

    The state defaults to the empty one, so every tracker shows its starting values.
    """
    state = state if state is not None else {}
    block = render_trackers_block(trackers, state, context)
    rendered = render_text(card, trackers, state, context)
    tokens = {
        "block": count_tokens(block.text, encoding) if block.text else 0,
        "card": count_tokens(render_card(card, trackers, state, context).text, encoding),
    }
    tool = update_trackers_tool(trackers) if trackers else None
    if trackers:
        costs = tool_token_costs(trackers, encoding)
        tokens |= {k: costs[k] for k in ("tool", "without_meanings", "anyof")}
    lines = {t.name: tracker_line(t) for t in trackers}
    return PromptPreview(block, rendered.text, rendered.report, tool, lines, tokens, encoding)
