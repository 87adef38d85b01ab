"""The simulator: one turn = prompt, model, tool loop, commit, changes, trace events.

Two protocols carry the model's tracker updates (`protocol=`): "tools" offers the
`update_trackers` tool and runs the tool loop; "text" offers no tool, the prompt carries the text
protocol's instructions (`trackerkit.formats.text_protocol`), and the model's one reply per turn
may end with an update block. The block is taken out of the reply (the chat never shows it), its
batch is applied all or nothing as a tool call's is (TR-37), and what it did (or why nothing was
written) is told to the model on the next turn that sees that reply. A refused or unreadable
block is the turn's outcome (a refused call in the report), never an exception.

`Session` runs a scene turn by turn against a model (the scripted one by default). It composes a
`Chat` (`session.chat`: the takes, the actions a person makes, the values) and a `ScenarioPlayer`
(`session.player`: the scene's scripted steps). Each turn assembles the request (card,
`### Trackers` block, history, the update tool when offered), runs the tool loop (model call ->
tool calls -> answers -> model call, until the model answers without calls or the round limit),
commits the reply with its pending deltas (a failed turn keeps none), reads the reply's changes,
and writes the turn's events (`trackerkit.simulate.events`) when a trace sink is set.

What one turn may take is bounded, so a model (or a server posing as one) cannot make a turn run
for minutes: a tool call whose arguments pass `MAX_CALL_ARGUMENTS` characters is refused unread
(the model is told the size and the limit), and a turn whose tool loop (the model's replies and
calls, and the answers) passes `MAX_TURN_TEXT` characters fails and keeps nothing, with a sentence
naming the limit (trace code `turn_too_large`). The loop's own messages are counted in tokens one
message at a time, each once, as it joins the loop (the `turn` part of a round). Every round's
request fits `window - reserve` (TR-33): the turn's own calls and answers stay whole beside the
fixed parts, and each round drops the oldest history to make room for them; when they leave no
room, the turn fails with a sentence naming each part and its count.

The session's parts live in their own modules: `trackerkit.simulate.request` (each round's
request and the tools it offers, `ReadTool`), `.turns` (a turn begun, then committed or failed)
and `.scripts` (the scene's scripted steps and each turn's plan); this module runs the turns and
their tool loop and holds the limits, and every public name is still importable from here.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.chat import Chat
from trackerkit.errors import BadRequestError, TrackerkitError, TurnError
from trackerkit.formats.text_protocol import parse_text_updates, text_answer
from trackerkit.scene import PieceSource, Scene, load_scene, scene_trackers
from trackerkit.simulate.completion import MAX_REPLY_TEXT, PROTOCOLS, UpdateProtocol
from trackerkit.simulate.events import SessionTrace, TraceSink
from trackerkit.simulate.model import Model, ModelReply, ModelRequest, ScriptedModel, ToolCall
from trackerkit.simulate.report import CallReport, RoundReport, TurnReport
from trackerkit.simulate.request import ReadTool, _Requests
from trackerkit.simulate.scenario import ScenarioPlayer, Script
from trackerkit.simulate.scripts import _check_script, _Scripts
from trackerkit.simulate.turns import (
    _failure,
    _flatten,
    _Running,
    _said,
    _Turns,
    _TurnTooLargeError,
)
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens
from trackerkit.tool import TOOL_NAME
from trackerkit.tracker import Tracker
from trackerkit.turn import Turn, TurnKind

__all__ = [
    "MAX_CALL_ARGUMENTS",
    "MAX_TOOL_ANSWER",
    "MAX_TURN_TEXT",
    "ReadTool",
    "Session",
    "TraceSink",
]

#: Other tools' answers past this many characters are shortened (TR-39: never update_trackers').
MAX_TOOL_ANSWER = 12_000
_SHORTENED = "…[truncated]"
#: The most characters of one tool call's arguments that are read; a longer call is refused unread
#: (any model's: an OpenAI-compatible server's reply is already held to this when it is read).
MAX_CALL_ARGUMENTS = MAX_REPLY_TEXT
#: The most characters one turn's tool loop may hold (the model's replies with their calls, and the
#: answers); past it the turn fails and keeps nothing.
MAX_TURN_TEXT = 4 * 1024 * 1024


class Session(_Scripts, _Turns, _Requests):
    """A simulated chat on a scene, turn by turn.

    The turn verbs (`turn`, `reply`, `swipe`, `regenerate`, `continue_`) run the model; everything a
    person does besides (edit, cut, fork, show a version, switch takes) is made on `chat`.

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
        protocol: how the model sends its updates: "tools" (the update_trackers tool and the
            tool loop) or "text" (no tool; one fenced update block at the end of the reply,
            answered on the next turn). Under "text" the update is offered whatever
            `tools_supported` says, and the other tools are not offered.
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
        protocol: UpdateProtocol = "tools",
    ) -> None:
        if protocol not in PROTOCOLS:
            raise BadRequestError(
                f"protocol must be one of {', '.join(PROTOCOLS)}; found {protocol!r}"
            )
        self.protocol: UpdateProtocol = protocol
        #: Under the text protocol: what each reply version's update block did, told to the model
        #: on the next turn that sees that version, by (message id, version index).
        self.text_answers: dict[tuple[str, int], str] = {}
        self.scene = scene
        self.chat = Chat(scene, pieces)
        self.model: Model = model if model is not None else ScriptedModel()
        self.max_rounds = max_rounds
        self.tools = {t.name: t for t in tools}
        self.tool_budget = tool_budget
        self.tools_supported = tools_supported
        self.encoding = encoding
        self.reports: list[TurnReport] = []
        self.session_id = f"sim_{scene.id}_{uuid.uuid4().hex[:8]}"
        self._events = SessionTrace(trace, self.session_id, clock or (lambda: datetime.now(UTC)))
        self._turns = 0  # turns begun, failed ones too: the next turn's index and trace key
        self.player = ScenarioPlayer(self, scene.turns)

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
        return cls(scene, scene_trackers(path, trackers), model, **options)

    @property
    def trace(self) -> TraceSink | None:
        """Where turn events go (None writes nothing); it may be set between turns."""
        return self._events.sink

    @trace.setter
    def trace(self, sink: TraceSink | None) -> None:
        self._events.sink = sink

    # --- turns --------------------------------------------------------------------------

    def turn(self, user_text: str, script: Script = None) -> TurnReport:
        """Add the person's message and run one whole turn that writes a new reply.

        Raises:
            BadRequestError: `user_text` is not text, or `script` is no plan (nothing is added).
        """
        _check_script(script)
        self.chat.add_user(user_text)
        return self._run("reply", user_text, script)

    def reply(self, script: Script = None) -> TurnReport:
        """Answer the person's last message, one a cut left unanswered: a whole turn that writes
        a new reply after it, adding no message.

        Raises:
            TurnError: the take does not end on a person's message (nothing to answer).
        """
        take = self.chat.take
        if not take.messages or take.messages[-1].role != "user":
            raise TurnError(
                f"nothing to answer: the last message of take {take.id!r} is not a person's; "
                "turn adds a message and its reply"
            )
        return self._run("reply", take.messages[-1].text, script)

    def swipe(self, script: Script = None) -> TurnReport:
        """A new version of the last reply; it sees the state before the reply it replaces."""
        return self._run("swipe", None, script)

    def regenerate(self, script: Script = None) -> TurnReport:
        """Write the last reply again (a new version), seeing the state before it."""
        return self._run("regenerate", None, script)

    def continue_(self, script: Script = None) -> TurnReport:
        """Extend the last reply; it sees the state as it stands and is offered no tool."""
        return self._run("continue", None, script)

    def values(self) -> dict[str, Any]:
        """Each linked tracker's value at the tip, by name (as `chat.values()`)."""
        return self.chat.values()

    # --- one turn (planned by `_Scripts`, begun and ended by `_Turns`) --------------------

    def _run(self, kind: TurnKind, user_text: str | None, script: Script) -> TurnReport:
        _check_script(script)
        run = self._begin(kind, user_text)
        try:
            self._plan(script)
            reply = self._loop(run)
        except TrackerkitError as exc:
            code, sentence = _failure(exc)
            return self._fail(run, sentence, code)
        except BaseException:
            run.turn.fail()  # never leave the chat with a turn open
            raise
        if reply is None:
            limit = f"The model was still calling tools after {self.max_rounds} rounds; the turn failed and kept nothing."
            return self._fail(run, limit, "round_limit")
        return self._commit(run, reply)

    # --- the tool loop (its requests assembled by `_Requests`) ----------------------------

    def _loop(self, run: _Running) -> ModelReply | None:
        """Ask the model, answer its calls, ask again; the plain reply, or None past the round limit."""
        if self.protocol == "text":
            return self._text_round(run)
        for round_index in range(self.max_rounds):
            reply, tokens_in, tokens_out = self._ask(run, round_index)
            if reply.tool_calls:
                run.trace.actions_requested(round_index, reply.tool_calls)
                self._answer(run, round_index, reply)
            run.trace.step_completed(round_index, reply.finish_reason, tokens_in, tokens_out)
            if not reply.tool_calls:
                return reply
        return None

    def _text_round(self, run: _Running) -> ModelReply:
        """The text protocol's one model call: the reply read, its update block applied, all or nothing."""
        reply, tokens_in, tokens_out = self._ask(run, 0)
        parsed = parse_text_updates(reply.content)
        run.visible = parsed.visible
        calls = [
            CallReport(
                0,
                c.id,
                c.name,
                c.arguments,
                False,
                "No tool is offered under the text protocol; the call was not run.",
                failure="error",
                offered=False,
            )
            for c in reply.tool_calls
        ]
        if parsed.sent:
            # The block as the model wrote it: a value nested too deep to write again is kept.
            arguments = parsed.body or ""
            call = ToolCall(f"text_{run.report.index}", TOOL_NAME, arguments)
            run.trace.actions_requested(0, [call])
            if parsed.error is not None:
                answer = text_answer(parsed, None) or ""
                report = CallReport(0, call.id, call.name, arguments, False, answer, 0, "error")
            else:
                result = run.turn.call(parsed.arguments)
                answer = text_answer(parsed, result) or ""
                report = CallReport(
                    0,
                    call.id,
                    call.name,
                    arguments,
                    result.ok,
                    answer,
                    result.change_count,
                    None if result.ok else "ok:false",
                )
            run.text_answer = answer
            calls.append(report)
            run.trace.action_result(0, report, counts_changes=True)
        run.report.calls.extend(calls)
        run.trace.step_completed(0, reply.finish_reason, tokens_in, tokens_out)
        return reply

    def _ask(self, run: _Running, round_index: int) -> tuple[ModelReply, int, int]:
        """One model call on a freshly assembled request; the reply and its tokens in and out."""
        # The block is assembled again each round, so later rounds read the new values (TR-32),
        # and the history is trimmed again to leave room for the turn's own calls and answers.
        request, block = self._request(run.turn, run.said_tokens)
        if round_index == 0:
            run.report.request, run.report.block = request, block
        parts = request.parts
        run.trace.step_started(round_index)
        reply = self.model.complete(
            ModelRequest(
                request.messages + run.said,
                self._offered(run.turn, request),
                self.protocol,
                counted=sum(parts.values()),
            )
        )
        text = _flatten([_said(reply)])
        self._grow(run, len(text), "the model's reply")
        out = run.reply_tokens = count_tokens(text, self.encoding)
        tokens_in = reply.usage_in if reply.usage_in is not None else sum(parts.values())
        tokens_out = reply.usage_out if reply.usage_out is not None else out
        names = tuple(c.name for c in reply.tool_calls)
        run.report.rounds.append(
            RoundReport(round_index, parts, tokens_in, tokens_out, names, reply.finish_reason)
        )
        return reply, tokens_in, tokens_out

    def _answer(self, run: _Running, round_index: int, reply: ModelReply) -> None:
        """Run each call of a reply in order; the model's calls and the answers join the loop's messages."""
        run.said.append(_said(reply))
        run.said_tokens += run.reply_tokens  # counted when the reply arrived (`_ask`)
        tool = run.turn.tool
        for call in reply.tool_calls:
            started = time.monotonic()
            result = self._call(run.turn, call, round_index, run.spent)
            if result.name in self.tools:
                run.spent += time.monotonic() - started
            run.report.calls.append(result)
            self._grow(run, len(result.answer), f"the answer to call {call.id!r}")
            run.said.append({"role": "tool", "tool_call_id": call.id, "content": result.answer})
            run.said_tokens += count_tokens(result.answer, self.encoding)
            # The trace keeps the update call's number of changes, not its answer (TR-39).
            counts = tool is not None and result.name == tool.name
            run.trace.action_result(round_index, result, counts_changes=counts)

    @staticmethod
    def _grow(run: _Running, chars: int, what: str) -> None:
        """Add `chars` to the turn's loop; past `MAX_TURN_TEXT` the turn fails, naming the limit.

        Raises:
            _TurnTooLargeError: the loop would pass the limit (the turn keeps nothing).
        """
        run.chars += chars
        if run.chars > MAX_TURN_TEXT:
            raise _TurnTooLargeError(
                f"This turn's tool loop reached {run.chars:,} characters with {what}, past the "
                f"{MAX_TURN_TEXT:,} one turn may hold (MAX_TURN_TEXT: the model's replies and "
                "calls, and the answers); the turn failed and kept nothing."
            )

    def _call(self, turn: Turn, call: ToolCall, round_index: int, spent: float) -> CallReport:
        def answer(
            ok: bool, text: str, changes: int = 0, failure: str | None = None, offered: bool = True
        ) -> CallReport:
            return CallReport(
                round_index, call.id, call.name, call.arguments, ok, text, changes, failure, offered
            )

        if len(call.arguments) > MAX_CALL_ARGUMENTS:
            too_long = (
                f"{len(call.arguments):,} characters of arguments, past the "
                f"{MAX_CALL_ARGUMENTS:,} one call may send (MAX_CALL_ARGUMENTS)"
            )
            if turn.tool is not None and call.name == turn.tool.name:
                return answer(False, f"Nothing was written: {too_long}.", failure="error")
            return answer(False, f"The call was not run: {too_long}.", failure="error")
        if turn.tool is not None and call.name == turn.tool.name:
            _arguments, problem = read_arguments(call.arguments)
            if problem is not None:
                return answer(False, f"Nothing was written: {problem}.", failure="error")
            # A model offered a strict export's tool sends null for every field it leaves alone.
            strict = getattr(self.model, "null_is_absent", False) is True
            # The text as the model sent it: `Turn.call` reads text itself, and handing it the
            # decoded value would read a JSON string (`"{...}"`) a second time. Never shortened,
            # never refused for time (TR-39).
            result = turn.call(call.arguments, null_is_absent=strict)
            return answer(
                result.ok, result.answer, result.change_count, None if result.ok else "ok:false"
            )
        tool = self.tools.get(call.name)
        if tool is None:
            return answer(
                False, f"There is no tool called {call.name!r}.", failure="error", offered=False
            )
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
