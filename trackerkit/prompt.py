"""What the model sees: default rendering, templates, the `### Trackers` block and the request (TR-28..TR-33).

Every value, row name or model-written text reaches the prompt through `line_of`, so it cannot
start a line, forge a heading or pose as another tracker. Templates run read-only through the
macro engine after every tracker's value and default text are computed (TR-31). The request keeps
its fixed parts (card, trackers block, tool) whole and drops the oldest history to fit the window
(TR-33); when the fixed parts alone do not fit, the error names each with its token count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackerkit.errors import MacroLookupError, PromptTooLargeError
from trackerkit.line import line_of
from trackerkit.macros import (
    MacroHandler,
    MacroLimits,
    MacroReport,
    Rendered,
    context_handlers,
    render_macros,
)
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens, count_tool_tokens
from trackerkit.tool import ToolDefinition, anyof_parameters, tracker_line, update_trackers_tool
from trackerkit.tracker import Tracker
from trackerkit.update import name_key, tracker_values

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
_LIMITS = MacroLimits()
#: Where a card (the preset) wants the trackers block; without it the block follows the built-in block.
LINKED_TRACKERS_MARKER = "{{linkedTrackers}}"


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


def _marker(args: tuple[str, ...]) -> str:
    if args:
        raise MacroLookupError(f"{LINKED_TRACKERS_MARKER} takes no arguments", code="usage")
    return LINKED_TRACKERS_MARKER


def _no_text(args: tuple[str, ...]) -> str:
    _marker(args)
    return ""


@dataclass(frozen=True, slots=True)
class Card:
    """A card whose macros ran, and where the author's `{{linkedTrackers}}` marker stood (TR-28, TR-30).

    `text` holds no marker the author wrote; `marker` is the offset in it of the first one, or None.
    Text a value brought in (a model-written `{{linkedTrackers}}` shown by `{{tracker::Notes::text}}`)
    stays in `text` as plain characters and never moves the block.
    """

    text: str
    marker: int | None
    report: MacroReport


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


# --- the request -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    """An assembled chat-completions request and what each part costs in tokens.

    Token counts are of the text each part carries (a tool: the JSON a client sends), counted
    with `encoding`; a provider's per-message framing tokens are not included. `parts["turn"]`,
    when present, is the turn's own tool calls and answers, which the caller sends after
    `messages`.
    """

    messages: list[dict[str, str]]
    tools: list[dict[str, Any]]
    parts: dict[str, int]
    history_tokens: list[int]
    kept: int
    dropped: int
    window: int
    reserve: int
    encoding: str

    @property
    def total(self) -> int:
        """Tokens of every part sent."""
        return sum(self.parts.values())

    def to_openai(self, model: str) -> dict[str, Any]:
        """The JSON body for `POST /chat/completions` (no tool_choice: the model decides)."""
        body: dict[str, Any] = {"model": model, "messages": self.messages}
        if self.tools:
            body["tools"] = self.tools
        return body


def assemble_request(
    *,
    card: str | Card,
    block: str | None,
    history: Sequence[tuple[str, str]],
    tool: ToolDefinition | None = None,
    window: int = 8192,
    reserve: int = 1024,
    builtin: str | None = None,
    encoding: str = DEFAULT_ENCODING,
    turn: int = 0,
) -> Request:
    """Build a turn's messages within a context window (TR-28, TR-33).

    Args:
        card: the system card: a `Card` from `render_card` (the block goes at its marker), or
            the author's text with no macros run, where the first `{{linkedTrackers}}` marks the
            block's place and any other is dropped. Pass a `Card` whenever macros ran, so that
            a value spelling the marker cannot move the block (TR-30).
        block: the `### Trackers` block text, or None when there is none.
        history: `(role, text)` pairs, oldest first.
        tool: the update tool when it is offered.
        window: the model's context window in tokens.
        reserve: tokens kept free for the reply.
        builtin: the built-in trackers' block; the trackers block follows it.
        encoding: the tiktoken encoding every count uses.
        turn: tokens of the turn's own tool calls and answers so far, which the caller sends
            after the history (a round after a tool call). They are never dropped: like the
            fixed parts they stay whole, and the oldest history goes to make room (part `turn`).
    Raises:
        PromptTooLargeError: the fixed parts alone (card, built-in block, trackers block, tool),
            with the turn's own calls and answers, do not fit in `window - reserve`; the
            message names each part with its count.
    """
    parts: dict[str, int] = {}
    if isinstance(card, str):
        card = _author_card(card)
    if card.marker is not None:
        text, at = card.text, card.marker
        sections = [text[:at] + (block or "") + text[at:], builtin or ""]
    else:
        sections = [card.text, builtin or "", block or ""]
    parts["card"] = count_tokens(card.text, encoding)
    if builtin:
        parts["builtin"] = count_tokens(builtin, encoding)
    if block:
        parts["trackers"] = count_tokens(block, encoding)
    if tool is not None:
        parts["tool"] = count_tool_tokens(tool.name, tool.description, tool.parameters, encoding)
    budget = window - reserve
    loop = {"turn": turn} if turn else {}
    fixed = sum(parts.values()) + turn
    if fixed > budget:
        raise PromptTooLargeError(window, reserve, parts | loop)
    counts = [count_tokens(text, encoding) for _, text in history]
    kept = 0
    room = budget - fixed
    for tokens in reversed(counts):
        if tokens > room:
            break
        room -= tokens
        kept += 1
    first = len(history) - kept
    parts["history"] = sum(counts[first:])
    parts |= loop
    system_text = "\n\n".join(s for s in sections if s)
    messages = [{"role": "system", "content": system_text}] if system_text else []
    messages += [{"role": role, "content": text} for role, text in history[first:]]
    tools = [tool.to_openai()] if tool is not None else []
    return Request(messages, tools, parts, counts[first:], kept, first, window, reserve, encoding)


def _author_card(text: str) -> Card:
    """A card the author wrote, no macros run: the first marker is the block's place, others go."""
    before, found, after = text.partition(LINKED_TRACKERS_MARKER)
    if not found:
        return Card(text, None, MacroReport())
    return Card(before + after.replace(LINKED_TRACKERS_MARKER, ""), len(before), MacroReport())


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
