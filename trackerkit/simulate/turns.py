"""One turn of a session while it runs: begun, then committed with its reply, or failed keeping nothing.

A turn is begun with the chat's turn, its report and its trace (`_Running`, which also holds the
tool loop's own messages as they join, with their tokens and characters). A turn that completes
is committed with its reply (under the text protocol, the reply without its update block) and
the deltas its calls left pending; the report takes the values, the writes of the reply's shown
version and the reply's changes. A failed turn keeps nothing: its report and its trace say why,
with the trace code and sentence `_failure` reads from the error that ended it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackerkit.changes import tracker_changes_between
from trackerkit.chat import Chat
from trackerkit.errors import ModelError, PromptTooLargeError, TrackerkitError
from trackerkit.scene import Scene
from trackerkit.simulate.completion import UpdateProtocol
from trackerkit.simulate.events import SessionTrace, TurnTrace
from trackerkit.simulate.model import ModelReply, ToolsRefusedError
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.request import ReadTool
from trackerkit.state import Message, fold
from trackerkit.turn import Turn, TurnKind
from trackerkit.update import tracker_values

__all__: list[str] = []  # its parts serve `Session` (`trackerkit.simulate.session`) only


class _TurnTooLargeError(TrackerkitError):
    """The turn's tool loop passed `MAX_TURN_TEXT` characters."""


@dataclass(slots=True)
class _Running:
    """One turn while it runs: the chat's turn, its report, its trace, and the tool loop's own messages."""

    turn: Turn
    report: TurnReport
    trace: TurnTrace
    #: The tool loop's messages so far (calls asked, answers given), sent after the history.
    said: list[dict[str, Any]] = field(default_factory=list)
    #: Tokens of `said`, each message counted once as it joins (the round's `turn` part).
    said_tokens: int = 0
    #: Characters of the loop so far: the replies with their calls, and the answers.
    chars: int = 0
    #: Tokens of the last reply's message (its text and calls), counted when it arrived.
    reply_tokens: int = 0
    #: Seconds other tools have spent in this turn (update_trackers is never counted, TR-39).
    spent: float = 0.0
    #: Under the text protocol: the reply without its update block (what the chat keeps).
    visible: str | None = None
    #: Under the text protocol: what the block did, told to the model on the next turn.
    text_answer: str | None = None


class _Turns:
    """The part of a `Session` that begins a turn, and commits or fails it."""

    # What a turn's beginning and end read and write of the session (`Session.__init__` sets them).
    protocol: UpdateProtocol
    scene: Scene
    chat: Chat
    tools: dict[str, ReadTool]
    tools_supported: bool
    text_answers: dict[tuple[str, int], str]
    reports: list[TurnReport]
    _events: SessionTrace
    _turns: int

    def _begin(self, kind: TurnKind, user_text: str | None) -> _Running:
        """Open the chat's turn, its report and its trace (its `bound` and `turn.started` events)."""
        text = self.protocol == "text"
        # The text protocol needs no tool calling, so its update is offered on any connection,
        # and no other tool is offered beside it (so no other tool's name is taken).
        turn = self.chat.begin_turn(
            kind,
            tools_supported=self.tools_supported or text,
            taken=() if text else tuple(self.tools),
        )
        index = self._turns
        self._turns += 1
        tool = turn.tool
        report = TurnReport(
            index,
            kind,
            user_text,
            tool is not None,
            tool.name if tool else None,
            tool.description if tool and not text else None,
            None,
            None,
            protocol=self.protocol,
        )
        return _Running(turn, report, self._events.turn(index, self.scene.id, self.protocol))

    def _commit(self, run: _Running, reply: ModelReply) -> TurnReport:
        """Stamp the reply with the turn's writes; the report takes its values and changes."""
        shown = run.visible if run.visible is not None else reply.content
        message = run.turn.commit(shown)
        if run.text_answer is not None:
            self.text_answers[(message.id, message.shown)] = run.text_answer
        report = run.report
        report.reply = message.text
        report.message_id = message.id
        report.values = self.chat.values()
        report.written = self._written(message)
        read = tracker_changes_between(self.chat, None, message.id, message.id)
        report.changes = read.of(message.id)
        run.trace.message_completed(len(report.rounds) - 1, reply.finish_reason, shown)
        run.trace.turn_completed()
        self.reports.append(report)
        return report

    def _written(self, message: Message) -> dict[str, Any]:
        """The values at `message` with its shown version's writes and not the person's edits on it."""
        take = self.chat.take
        state = fold(message.version.deltas, take.state_before(take.index_of(message.id)))
        return tracker_values(self.chat.linked().trackers, state)

    def _fail(self, run: _Running, sentence: str, code: str) -> TurnReport:
        """Close the turn keeping nothing; the report says why."""
        run.turn.fail()
        report = run.report
        report.failed = sentence
        report.values = self.chat.values()
        run.trace.turn_failed(max(len(report.rounds) - 1, 0), code, sentence)
        self.reports.append(report)
        return report


def _failure(exc: TrackerkitError) -> tuple[str, str]:
    """A failed turn's trace code and its sentence, from the error that ended it."""
    if isinstance(exc, ToolsRefusedError):
        return (
            "tools_refused",
            f"The model does not take tools, so this scene's trackers cannot be offered; the turn failed ({exc}).",
        )
    if isinstance(exc, ModelError):
        return "model_error", f"The model failed: {str(exc).rstrip('.')}."
    if isinstance(exc, _TurnTooLargeError):
        return "turn_too_large", str(exc)
    if isinstance(exc, PromptTooLargeError) and "turn" in exc.parts:
        return "turn_error", _loop_too_large(exc)
    return "turn_error", str(exc)


def _loop_too_large(exc: PromptTooLargeError) -> str:
    """Why a round after tool calls was not sent: the turn's own calls and answers, which are
    never dropped, and the fixed parts leave no room in the window."""
    parts = dict(exc.parts)
    turn = parts.pop("turn")
    named = ", ".join(f"{name} {tokens} tokens" for name, tokens in parts.items())
    return (
        f"This turn's own tool calls and answers ({turn} tokens) and the request's fixed parts "
        f"({named}) need {turn + sum(parts.values())} tokens, but the window of {exc.window} "
        f"tokens leaves {exc.window - exc.reserve} after the reply reserve of {exc.reserve}, so "
        "the model could not be asked again; the turn failed and kept nothing. Use a larger "
        "window or a smaller reserve."
    )


def _said(reply: ModelReply) -> dict[str, Any]:
    """The reply as the loop's assistant message: its text and its calls."""
    return {
        "role": "assistant",
        "content": reply.content or None,
        "tool_calls": [c.to_openai() for c in reply.tool_calls],
    }


def _flatten(messages: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for message in messages:
        if message.get("content"):
            parts.append(str(message["content"]))
        for call in message.get("tool_calls") or []:
            parts.append(call["function"]["name"] + call["function"]["arguments"])
    return "\n".join(parts)
