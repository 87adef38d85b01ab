"""The simulator: one turn = prompt, model, tool loop, commit, changes, trace events.

`Session` runs a scene turn by turn against a model (the scripted one by default). Each turn
assembles the request (card, `### Trackers` block, history, the update tool when offered), runs
the tool loop (model call -> tool calls -> answers -> model call, until the model answers without
calls or the round limit), commits the reply with its pending deltas (a failed turn keeps none),
reads the reply's changes, and appends the turn's events to the trace journal when a writer is set.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from trackerkit.arguments import read_arguments
from trackerkit.changes import tracker_changes_between
from trackerkit.chat import Chat, Turn, TurnKind
from trackerkit.errors import ModelError, TrackerkitError, TurnError
from trackerkit.prompt import (
    PromptContext,
    Request,
    assemble_request,
    render_card,
    render_trackers_block,
)
from trackerkit.scene import PieceSource, Scene, load_scene
from trackerkit.simulate.model import (
    Model,
    ModelReply,
    ModelRequest,
    ScriptedModel,
    ToolCall,
    ToolsRefusedError,
    TurnPlan,
)
from trackerkit.simulate.report import CallReport, RoundReport, TurnReport
from trackerkit.simulate.scenario import ScenarioPlayer
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens
from trackerkit.tool import ToolDefinition
from trackerkit.tracker import Tracker
from trackerkit.update import UpdateResult

__all__ = [
    "MAX_TOOL_ANSWER",
    "ReadTool",
    "Session",
    "TraceSink",
]

#: Other tools' answers past this many characters are shortened (TR-39: never update_trackers').
MAX_TOOL_ANSWER = 12_000
_SHORTENED = "…[truncated]"


class TraceSink(Protocol):
    """Where turn events go: one call per event, with the journal's seven fields."""

    def write(
        self,
        *,
        turn: str,
        session: str,
        source: str,
        kind: str,
        name: str,
        data: Mapping[str, Any],
        ts: datetime | None = None,
    ) -> None: ...


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


class Session(ScenarioPlayer):
    """A simulated chat on a scene, turn by turn.

    Args:
        scene: the scene (trackers linked, card, names, window, tool access, scripted turns).
        pieces: where tracker pieces are read from (a folder, a mapping, a list of trackers).
        model: the model; a `ScriptedModel` over the scene's scripted turns when None.
        trace: where turn events go (a `trackerkit.trace.TraceWriter`); None writes nothing.
        max_rounds: model calls per turn before the turn fails.
        tools: other tools offered beside update_trackers; only read tools run.
        tool_budget: seconds other tools may spend per turn; update_trackers is never refused for it.
        tools_supported: whether the connection takes tools at all.
        encoding: the tiktoken encoding every count uses.
        clock: gives "now" (UTC) for trace timestamps.
    """

    def __init__(
        self,
        scene: Scene,
        pieces: PieceSource | Mapping[str, object] | Sequence[Tracker] | str | Path,
        model: Model | None = None,
        *,
        trace: TraceSink | None = None,
        max_rounds: int = 8,
        tools: Sequence[ReadTool] = (),
        tool_budget: float = 30.0,
        tools_supported: bool = True,
        encoding: str = DEFAULT_ENCODING,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.scene = scene
        self.chat = Chat(scene, pieces)
        self.model: Model = model if model is not None else ScriptedModel()
        self.trace = trace
        self.max_rounds = max_rounds
        self.tools = {t.name: t for t in tools}
        self.tool_budget = tool_budget
        self.tools_supported = tools_supported
        self.encoding = encoding
        self.clock = clock or (lambda: datetime.now(UTC))
        self.reports: list[TurnReport] = []
        self.steps: list[dict[str, Any]] = list(scene.turns)
        self.step_index = 0
        self.mismatches: list[str] = []
        self.session_id = f"sim_{scene.id}_{uuid.uuid4().hex[:8]}"
        self._sequence = 0
        self._turns = 0

    @classmethod
    def from_scene(
        cls,
        path: str | Path,
        model: Model | None = None,
        *,
        trackers: str | Path | None = None,
        **options: Any,
    ) -> Session:
        """A session on a scene file; trackers come from `<data>/trackers` beside `<data>/scenes`."""
        path = Path(path)
        scene = load_scene(path)
        folder = (
            Path(trackers) if trackers is not None else path.resolve().parent.parent / "trackers"
        )
        return cls(scene, folder, model, **options)

    # --- turns --------------------------------------------------------------------------

    def turn(
        self, user_text: str, script: TurnPlan | Mapping[str, Any] | None = None
    ) -> TurnReport:
        """Add the person's message and run one whole turn that writes a new reply."""
        self.chat.add_user(user_text)
        return self._run("reply", user_text, script)

    def swipe(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport:
        """A new version of the last reply; it sees the state before the reply it replaces."""
        return self._run("swipe", None, script)

    def regenerate(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport:
        """Write the last reply again (a new version), seeing the state before it."""
        return self._run("regenerate", None, script)

    def continue_(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport:
        """Extend the last reply; it sees the state as it stands and is offered no tool."""
        return self._run("continue", None, script)

    def show_version(self, message: str | int, index: int) -> None:
        """Show another version of a reply."""
        self.chat.show_version(self._message_id(message), index)

    def cut(self, message: str | int) -> None:
        """Drop a message and all after it."""
        self.chat.cut(self._message_id(message))

    def fork(self, message: str | int) -> str:
        """Start a new take sharing the history up to `message`; returns its id."""
        return self.chat.fork(self._message_id(message)).id

    def edit(self, tracker: str, **item: Any) -> UpdateResult:
        """A person's edit on the tip message (the update tool's item shape, TR-27)."""
        return self.chat.edit(tracker, **item)

    def values(self) -> dict[str, Any]:
        """Each linked tracker's value at the tip, by name."""
        return self.chat.values()

    def _message_id(self, message: str | int) -> str:
        if isinstance(message, int):
            messages = self.chat.messages
            if not -len(messages) <= message < len(messages):
                raise TurnError(
                    f"the take has {len(messages)} messages; there is no message {message}"
                )
            return messages[message].id
        return message

    # --- one turn ------------------------------------------------------------------------

    def _plan(self, script: TurnPlan | Mapping[str, Any] | None) -> None:
        if isinstance(self.model, ScriptedModel):
            if script is not None:
                self.model.plan(
                    script if isinstance(script, TurnPlan) else TurnPlan.from_step(script)
                )
            self.model.start_turn()

    def _run(
        self, kind: TurnKind, user_text: str | None, script: TurnPlan | Mapping[str, Any] | None
    ) -> TurnReport:
        turn = self.chat.begin_turn(
            kind, tools_supported=self.tools_supported, taken=tuple(self.tools)
        )
        index = self._turns
        self._turns += 1
        report = TurnReport(
            index,
            kind,
            user_text,
            turn.tool is not None,
            turn.tool.name if turn.tool else None,
            turn.tool.description if turn.tool else None,
            None,
            None,
        )
        key = f"turn_{index}"
        self._event(
            key,
            "turn",
            "bound",
            {"chatKey": f"sim:{self.scene.id}", "updateKey": f"sim:{self.scene.id}:{index}"},
        )
        self._event(key, "eve", "turn.started", {"sequence": self._next()})
        try:
            self._plan(script)
            reply = self._loop(turn, report, key)
        except ToolsRefusedError as exc:
            refused = f"The model does not take tools, so this scene's trackers cannot be offered; the turn failed ({exc})."
            return self._fail(turn, report, key, refused, "tools_refused")
        except ModelError as exc:
            failed = f"The model failed: {str(exc).rstrip('.')}."
            return self._fail(turn, report, key, failed, "model_error")
        except TrackerkitError as exc:
            return self._fail(turn, report, key, str(exc), "turn_error")
        except BaseException:
            turn.fail()  # never leave the chat with a turn open
            raise
        if reply is None:
            limit = f"The model was still calling tools after {self.max_rounds} rounds; the turn failed and kept nothing."
            return self._fail(turn, report, key, limit, "round_limit")
        message = turn.commit(reply.content)
        report.reply = message.text
        report.message_id = message.id
        report.values = self.chat.values()
        read = tracker_changes_between(self.chat, None, message.id, message.id)
        report.changes = read.of(message.id)
        step = len(report.rounds) - 1
        self._event(
            key,
            "eve",
            "message.completed",
            {
                "sequence": self._next(),
                "stepIndex": step,
                "finishReason": reply.finish_reason,
                "message": reply.content,
            },
        )
        self._event(key, "eve", "turn.completed", {"sequence": self._next()})
        self.reports.append(report)
        return report

    def _fail(
        self, turn: Turn, report: TurnReport, key: str, sentence: str, code: str
    ) -> TurnReport:
        turn.fail()
        report.failed = sentence
        report.values = self.chat.values()
        self._event(
            key,
            "eve",
            "turn.failed",
            {
                "sequence": self._next(),
                "stepIndex": max(len(report.rounds) - 1, 0),
                "code": code,
                "message": sentence,
            },
        )
        self.reports.append(report)
        return report

    def _history(self, turn: Turn) -> list[tuple[str, str]]:
        messages = turn.take.messages
        if turn.kind in ("swipe", "regenerate"):
            messages = messages[:-1]
        return [(m.role, m.text) for m in messages]

    def _request(self, turn: Turn) -> tuple[Request, str | None]:
        context = PromptContext(self.scene.user, self.scene.char)
        state = turn.state
        block = render_trackers_block(turn.trackers, state, context)
        # The card's macros ({{user}}, {{tracker::Name::field}}) run on the turn's state (TR-32);
        # the block goes where the author's marker stands, never where a value spells it (TR-30).
        card = render_card(self.scene.card, turn.trackers, state, context)
        request = assemble_request(
            card=card,
            block=block.text,
            history=self._history(turn),
            tool=turn.tool,
            window=self.scene.window,
            reserve=self.scene.reserve,
            builtin=self.scene.builtin,
            encoding=self.encoding,
        )
        return request, block.text

    def _loop(self, turn: Turn, report: TurnReport, key: str) -> ModelReply | None:
        in_turn: list[dict[str, Any]] = []
        spent = 0.0
        # Other tools follow the connection and the turn kind, not whether a tracker loaded.
        offer_others = self.scene.tool_access and self.tools_supported and turn.kind != "continue"
        others = [t.to_openai() for t in self.tools.values()]
        for round_index in range(self.max_rounds):
            # The block is assembled again each round, so later rounds read the new values (TR-32).
            request, block = self._request(turn)
            if round_index == 0:
                report.request, report.block = request, block
            tools = list(request.tools) + (others if offer_others else [])
            turn_tokens = count_tokens(_flatten(in_turn), self.encoding) if in_turn else 0
            parts = {**request.parts, **({"turn": turn_tokens} if turn_tokens else {})}
            self._event(
                key, "eve", "step.started", {"sequence": self._next(), "stepIndex": round_index}
            )
            reply = self.model.complete(ModelRequest(request.messages + in_turn, tools))
            out = count_tokens(
                reply.content + "".join(c.name + c.arguments for c in reply.tool_calls),
                self.encoding,
            )
            tokens_in = reply.usage_in if reply.usage_in is not None else sum(parts.values())
            tokens_out = reply.usage_out if reply.usage_out is not None else out
            report.rounds.append(
                RoundReport(
                    round_index,
                    parts,
                    tokens_in,
                    tokens_out,
                    tuple(c.name for c in reply.tool_calls),
                    reply.finish_reason,
                )
            )
            if not reply.tool_calls:
                self._step_completed(key, round_index, reply.finish_reason, tokens_in, tokens_out)
                return reply
            self._event(
                key,
                "eve",
                "actions.requested",
                {
                    "sequence": self._next(),
                    "stepIndex": round_index,
                    "actions": [
                        {"kind": "tool", "callId": c.id, "toolName": c.name}
                        for c in reply.tool_calls
                    ],
                    "args": [c.arguments for c in reply.tool_calls],
                },
            )
            in_turn.append(
                {
                    "role": "assistant",
                    "content": reply.content or None,
                    "tool_calls": [c.to_openai() for c in reply.tool_calls],
                }
            )
            for call in reply.tool_calls:
                started = time.monotonic()
                result = self._call(turn, call, round_index, spent)
                if result.name in self.tools:
                    spent += time.monotonic() - started
                report.calls.append(result)
                in_turn.append({"role": "tool", "tool_call_id": call.id, "content": result.answer})
                self._result_event(key, round_index, call, result, turn)
            self._step_completed(key, round_index, reply.finish_reason, tokens_in, tokens_out)
        return None

    def _call(self, turn: Turn, call: ToolCall, round_index: int, spent: float) -> CallReport:
        def answer(ok: bool, text: str, changes: int = 0, failure: str | None = None) -> CallReport:
            return CallReport(
                round_index, call.id, call.name, call.arguments, ok, text, changes, failure
            )

        if turn.tool is not None and call.name == turn.tool.name:
            arguments, problem = read_arguments(call.arguments)
            if problem is not None:
                return answer(False, f"Nothing was written: {problem}.", failure="error")
            result = turn.call(arguments)  # never shortened, never refused for time (TR-39)
            return answer(
                result.ok, result.answer, result.change_count, None if result.ok else "ok:false"
            )
        tool = self.tools.get(call.name)
        if tool is None:
            return answer(False, f"There is no tool called {call.name!r}.", failure="error")
        if tool.access != "read":
            refused = f"{call.name} is not a read tool, so the tool loop refuses it (TR-40)."
            return answer(False, refused, failure="error")
        if spent >= self.tool_budget:
            spent_text = "The tool time budget for this turn is spent; the call was refused."
            return answer(False, spent_text, failure="timeout")
        arguments, problem = read_arguments(call.arguments)
        if problem is not None:
            return answer(False, f"The call was not run: {problem}.", failure="error")
        try:
            text = tool.run(arguments)
        except Exception as exc:  # a broken tool is the model's answer, never a broken turn
            return answer(False, f"{call.name} failed: {exc}", failure="error")
        if len(text) > MAX_TOOL_ANSWER:
            text = text[:MAX_TOOL_ANSWER] + _SHORTENED
        return answer(True, text)

    # --- trace ---------------------------------------------------------------------------

    def _next(self) -> int:
        self._sequence += 1
        return self._sequence

    def _event(self, turn: str, kind: str, name: str, data: Mapping[str, Any]) -> None:
        if self.trace is not None:
            self.trace.write(
                turn=turn,
                session=self.session_id,
                source="web",
                kind=kind,
                name=name,
                data=data,
                ts=self.clock(),
            )

    def _step_completed(
        self, key: str, step: int, finish: str, tokens_in: int, tokens_out: int
    ) -> None:
        usage = {"in": tokens_in, "out": tokens_out, "cacheRead": 0, "cacheWrite": 0}
        self._event(
            key,
            "eve",
            "step.completed",
            {"sequence": self._next(), "stepIndex": step, "finishReason": finish, "usage": usage},
        )

    def _result_event(
        self, key: str, step: int, call: ToolCall, result: CallReport, turn: Turn
    ) -> None:
        data: dict[str, Any] = {
            "sequence": self._next(),
            "stepIndex": step,
            "status": "ok" if result.ok else "failed",
            "callId": call.id,
            "toolName": call.name,
            "isError": not result.ok,
            "outChars": len(result.answer),
        }
        if result.failure:
            data["failure"] = result.failure
        # The trace keeps the call's arguments and the number of changes, not the answer (TR-39).
        is_tracker_tool = turn.tool is not None and result.name == turn.tool.name
        summary = (
            {"ok": result.ok, "changes": result.changes} if is_tracker_tool else {"ok": result.ok}
        )
        data["result"] = json.dumps(summary)  # one line of JSON, as the journal keeps results
        self._event(key, "eve", "action.result", data)


def _flatten(messages: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for message in messages:
        if message.get("content"):
            parts.append(str(message["content"]))
        for call in message.get("tool_calls") or []:
            parts.append(call["function"]["name"] + call["function"]["arguments"])
    return "\n".join(parts)
