"""The request of one round of a session's turn: what one model call is sent, and the tools offered.

Each round assembles its request again (`trackerkit.prompt.assemble_request`), so a later round
reads the values the turn's calls wrote (TR-32): the card and the `### Trackers` block rendered on
the turn's state, the history the turn sees (a swipe or regenerate does not see the reply it
replaces), and the update tool when it is offered, then the other tools (`ReadTool`; only read
tools run, TR-40). Every round's request fits `window - reserve` (TR-33): `said`, the tokens of
the turn's own calls and answers so far, stays whole, and the oldest history is dropped to make
room for it. Under the text protocol no tool is offered: the protocol's instructions and what the
last reply's update block did follow the block in the system message, counted apart as the
request's `protocol` part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from trackerkit.formats.text_protocol import text_instructions
from trackerkit.prompt import (
    PromptContext,
    Request,
    assemble_request,
    render_card,
    render_trackers_block,
)
from trackerkit.scene import Scene
from trackerkit.simulate.completion import UpdateProtocol
from trackerkit.state import Message
from trackerkit.tokens import count_tokens
from trackerkit.tool import ToolDefinition
from trackerkit.turn import Turn

__all__ = ["ReadTool"]


@dataclass(frozen=True, slots=True)
class ReadTool:
    """Another tool the model may call; only read tools run (TR-40)."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    run: Callable[[object], str]
    access: str = "read"

    def to_openai(self) -> dict[str, Any]:
        """The function-tool dict, in the same shape as the update tool's."""
        return ToolDefinition(self.name, self.description, dict(self.parameters)).to_openai()


class _Requests:
    """The part of a `Session` that assembles each round's request and the tools it offers."""

    # What the requests read of the session (`Session.__init__` sets them).
    protocol: UpdateProtocol
    scene: Scene
    tools: dict[str, ReadTool]
    tools_supported: bool
    encoding: str
    text_answers: dict[tuple[str, int], str]

    def _offered(self, turn: Turn, request: Request) -> list[dict[str, Any]]:
        """The tools of one model call: the request's (the update tool when offered), then the others."""
        # Other tools follow the connection and the turn kind, not whether a tracker loaded.
        if self.protocol == "text":
            return []
        others = self.scene.tool_access and self.tools_supported and turn.kind != "continue"
        return list(request.tools) + (
            [t.to_openai() for t in self.tools.values()] if others else []
        )

    def _history(self, turn: Turn) -> list[tuple[str, str]]:
        return [(m.role, m.text) for m in self._seen(turn)]

    def _seen(self, turn: Turn) -> Sequence[Message]:
        """The messages a turn's model sees (a swipe or regenerate does not see the reply it replaces)."""
        messages = turn.take.messages
        if turn.kind in ("swipe", "regenerate"):
            messages = messages[:-1]
        return messages

    def _last_answer(self, turn: Turn) -> str | None:
        """Under the text protocol: what the update block of the last reply this turn sees did."""
        replies = [m for m in self._seen(turn) if m.role == "assistant"]
        if not replies:
            return None
        last = replies[-1]
        return self.text_answers.get((last.id, last.shown))

    def _request(self, turn: Turn, said: int = 0) -> tuple[Request, str | None]:
        """The round's request: `said` is the tokens of the turn's own calls and answers so far."""
        context = PromptContext(self.scene.user, self.scene.char)
        state = turn.state
        block = render_trackers_block(turn.trackers, state, context)
        # The card's macros ({{user}}, {{tracker::Name::field}}) run on the turn's state (TR-32);
        # the block goes where the author's marker stands, never where a value spells it (TR-30).
        card = render_card(self.scene.card, turn.trackers, state, context)
        text = self.protocol == "text"
        # Under the text protocol the instructions (and the last block's answer) follow the
        # block in the system message, in the place of the tool (TR-36: one line per tracker).
        extra = "\n\n".join(
            part
            for part in (
                text_instructions(turn.trackers) if text and turn.tool is not None else "",
                (self._last_answer(turn) or "") if text else "",
            )
            if part
        )
        request = assemble_request(
            card=card,
            block="\n\n".join(p for p in (block.text, extra) if p) or None,
            history=self._history(turn),
            tool=None if text else turn.tool,
            window=self.scene.window,
            reserve=self.scene.reserve,
            builtin=self.scene.builtin,
            encoding=self.encoding,
            turn=said,
        )
        if extra:
            # The parts counted apart: the block, and the protocol's words (as a tool is).
            parts = dict(request.parts)
            if block.text:
                parts["trackers"] = count_tokens(block.text, self.encoding)
            else:
                parts.pop("trackers", None)
            history = parts.pop("history")
            parts["protocol"] = count_tokens(extra, self.encoding)
            parts["history"] = history
            request = replace(request, parts=parts)
        return request, block.text
