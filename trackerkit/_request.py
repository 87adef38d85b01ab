"""The request a turn sends (TR-28, TR-33): the card with the trackers block at its place, the history that fits.

The request keeps its fixed parts (card, built-in block, trackers block, tool, the turn's own
calls and answers) whole and drops the oldest history to fit the window; when the fixed parts
alone do not fit, the error names each with its token count. The block goes where the author's
`{{linkedTrackers}}` marker stood in the card (a `Card` says where), else after the built-in block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trackerkit.errors import PromptTooLargeError
from trackerkit.macros import MacroReport
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens, count_tool_tokens
from trackerkit.tool import ToolDefinition

__all__ = ["LINKED_TRACKERS_MARKER", "Card", "Request", "assemble_request"]

#: Where a card (the preset) wants the trackers block; without it the block follows the built-in block.
LINKED_TRACKERS_MARKER = "{{linkedTrackers}}"


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
