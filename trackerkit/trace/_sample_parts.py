"""The pieces of the sample days: an installation's clock and writer, and one chat turn."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from trackerkit.trace.write import TraceWriter, format_ts

SAMPLE_TIMEZONE = "Europe/Moscow"

MSK = dt.timezone(dt.timedelta(hours=3))
WORDS = [
    "the",
    "tracker",
    "keeps",
    "hp",
    "mood",
    "inventory",
    "and",
    "the",
    "turn",
    "reads",
    "them",
    "back",
    "before",
    "it",
    "answers",
]


class Install:
    """One installation's writer, with a clock that only moves forward."""

    def __init__(self, data_dir: Path, rng: random.Random) -> None:
        # Generated days delete nothing (retention is the assistant's own writer's, TC-3).
        self.writer = TraceWriter(
            data_dir, timezone=SAMPLE_TIMEZONE, capture_content=True, keep_days=None
        )
        self.rng = rng
        self.now = dt.datetime(2026, 11, 26, 0, 5, tzinfo=MSK)
        self.update = 5000
        self.sessions = 0

    def tick(self, low: float = 0.005, high: float = 0.4) -> None:
        self.now += dt.timedelta(seconds=self.rng.uniform(low, high))

    def emit(
        self, turn: str, session: str, source: str, kind: str, name: str, /, **data: Any
    ) -> None:
        self.tick()
        self.writer.write(
            turn=turn, session=session, source=source, kind=kind, name=name, data=data, ts=self.now
        )

    def emit_legacy(
        self, turn: str, session: str, source: str, kind: str, name: str, /, **data: Any
    ) -> None:
        """A line as an older writer wrote it (result kept an object), appended past the writer."""
        self.tick()
        event: dict[str, Any] = {"ts": format_ts(self.now), "turn": turn, "session": session}
        event["source"] = source
        event |= {"kind": kind, "name": name, "data": data}
        path = self.writer.path_for(self.now)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as out:
            out.write(orjson.dumps(event) + b"\n")

    def text(self, words: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(words))

    def session(self) -> str:
        self.sessions += 1
        return f"wrun_01JS{self.sessions:04d}{self.rng.randrange(16**6):06X}"


def bridge(ins: Install, key: str, update: int, kind: str, name: str, **extra: Any) -> None:
    base = {"updateId": update, "chatId": 42, "messageId": update - 4000, "kind": kind}
    ins.emit(
        key, "", "bridge", "bridge", name, **base, decision=extra.pop("decision", "owned"), **extra
    )


_RESULTS: list[tuple[str, Any, dict[str, Any]]] = [
    # (tool, result, extra data) — one of each failure class (TC-16) and the non-failures
    ("read_file", {"ok": True, "content": "hp: 12/20"}, {}),
    ("update_trackers", {"ok": False, "message": "hp above hp_max"}, {"failure": "ok:false"}),
    (
        "web_fetch",
        '{"status":"failed","code":"E_HTTP","message":"502 from upstream"}',
        {"failure": "status:failed", "errorCode": "E_HTTP"},
    ),
    ("search", {"error": "index unavailable"}, {"failure": "error"}),
    ("web_fetch", {"ok": True, "note": "slow"}, {"failure": "timeout", "status": "timeout"}),
    (
        "bash",
        {"stdout": "", "stderr": "grep: no such file", "exitCode": 2},
        {"failure": "exit 2", "exitCode": 2},
    ),
    ("bash", {"stdout": "done", "stderr": "", "exitCode": 1}, {"exitCode": 1}),  # empty stderr
    ("read_file", {"ok": True, "content": "x"}, {"isError": True, "failure": "isError"}),
    ("send_message", {"ok": True}, {"status": "rejected"}),
    ("legacy_tool", {"ok": False, "message": "old row"}, {"legacy": True}),
]


def tool_step(
    ins: Install, turn: str, session: str, source: str, step: int, calls: list[int]
) -> None:
    actions, args = [], []
    for n in calls:
        tool = _RESULTS[n][0]
        actions.append(
            {"kind": "tool", "callId": f"call_{ins.rng.randrange(16**8):08x}", "toolName": tool}
        )
        args.append(
            {"path": f"notes/{ins.text(1)}.md"} if tool != "bash" else {"command": "grep -r hp ."}
        )
    ins.emit(
        turn,
        session,
        source,
        "eve",
        "actions.requested",
        sequence=step * 10 + 1,
        stepIndex=step,
        actions=actions,
        args=args,
    )
    for n, action in zip(calls, actions, strict=True):
        tool, result, extra = _RESULTS[n]
        extra = dict(extra)
        data: dict[str, Any] = {
            "sequence": step * 10 + 2,
            "stepIndex": step,
            "status": extra.pop("status", "done"),
            "callId": action["callId"],
            "toolName": tool,
            "isError": extra.pop("isError", False),
        }
        ins.tick(0.05, 2.0)
        if extra.pop("legacy", False):  # written before TC-16: result an object, no failure
            ins.emit_legacy(turn, session, source, "eve", "action.result", **data, result=result)
            continue
        data.update(extra)
        text = result if isinstance(result, str) else orjson.dumps(result).decode()
        data.update(outChars=len(text), result=text)
        ins.emit(turn, session, source, "eve", "action.result", **data)


def step(
    ins: Install, turn: str, session: str, source: str, step: int, finish: str = "stop"
) -> None:
    ins.emit(turn, session, source, "eve", "step.started", sequence=step * 10, stepIndex=step)
    ins.tick(0.3, 3.0)
    usage: dict[str, float] = {
        "in": ins.rng.randrange(800, 9000),
        "out": ins.rng.randrange(20, 900),
        "cacheRead": ins.rng.randrange(0, 4000),
        "cacheWrite": ins.rng.choice([0, 0, 512]),
    }
    if ins.rng.random() < 0.8:
        usage["costUsd"] = round(usage["in"] * 3e-6 + usage["out"] * 15e-6, 6)
    ins.emit(
        turn,
        session,
        source,
        "eve",
        "step.completed",
        sequence=step * 10 + 3,
        stepIndex=step,
        finishReason=finish,
        usage=usage,
    )


@dataclass(frozen=True, slots=True)
class _Turn:
    """Where one chat turn's events go: its update key, turn id and session, from Telegram."""

    ins: Install
    key: str
    turn: str
    session: str

    def emit(self, kind: str, name: str, /, **data: Any) -> None:
        self.ins.emit(self.turn, self.session, "telegram", kind, name, **data)

    def inbound(self, kind: str, name: str, /, **data: Any) -> None:
        """An event of the update before it is bound to a turn (no turn, no session)."""
        self.ins.emit(self.key, "", "telegram", kind, name, **data)


def chat_turn(ins: Install, number: int, variant: int, session: str | None = None) -> None:
    """One chat turn; `variant` picks its tools, a subagent, a stop or a failure (E_MODEL when
    `variant % 9 == 4`); a new session unless `session` is given."""
    ins.update += 1
    key, turn = f"tg:42:{ins.update}", f"turn_{number}"
    session = session if session is not None else ins.session()
    bridge(ins, key, ins.update, "message", "admitted")
    if variant % 5 == 1:
        bridge(ins, key, ins.update, "message", "queued", count=2, parts=2)
    at = _Turn(ins, key, turn, session)
    hello = _received(at)
    _started(at, hello)
    step(ins, turn, session, "telegram", 0, "tool-calls")
    calls = [variant % len(_RESULTS), (variant * 3 + 1) % len(_RESULTS)]
    tool_step(ins, turn, session, "telegram", 0, calls)
    if variant % 4 == 2:
        _subagent(at)
    if variant % 4 == 3:
        _stopped(at, variant)
    elif variant % 9 == 4:
        _failed(at)
    else:
        _answered(at, variant)


def _received(at: _Turn) -> str:
    """The user's message received, accepted and passed by the inbound gate; returns its text."""
    ins = at.ins
    hello = ins.text(ins.rng.randrange(3, 30))
    at.inbound(
        "inbound",
        "received",
        chatId=42,
        chatType="private",
        messageId=ins.update - 4000,
        userId=7,
        allowlisted=True,
        text=hello,
    )
    at.inbound(
        "inbound",
        "accepted",
        chatId=42,
        chatKey="tg:42",
        parts=1,
        partChars=[len(hello)],
        context=[hello],
    )
    at.inbound(
        "gate",
        "inbound",
        surface="telegram",
        blocked=False,
        reason="",
        flags=[],
        truncatedChars=0,
        chars=len(hello),
    )
    return hello


def _started(at: _Turn, hello: str) -> None:
    """The update bound to its turn, the context's parts, and the turn started on the message."""
    at.emit("turn", "bound", chatKey="tg:42", updateKey=at.key)
    at.emit(
        "context",
        "parts",
        core=2048,
        persona=912,
        moc=4410,
        daily=1730,
        unit="bytes",
        approximate=True,
    )
    at.emit("eve", "turn.started", sequence=0, sessionId=at.session)
    at.emit("eve", "message.received", sequence=1, parts=1, message=hello)


def _subagent(at: _Turn) -> None:
    """A subagent: its steps carry `turn_N#planner` (TC-8, TC-22)."""
    ins = at.ins
    call = f"call_{ins.rng.randrange(16**8):08x}"
    sub = {
        "callId": call,
        "subagentName": "planner",
        "name": "planner",
        "childSessionId": ins.session(),
    }
    at.emit("eve", "subagent.called", **sub)
    at.emit("eve", "subagent.started", **sub)
    ins.emit(
        f"{at.turn}#planner",
        at.session,
        "unknown",
        "eve",
        "step.completed",
        sequence=1,
        stepIndex=0,
        finishReason="stop",
        usage={"in": 600, "out": 90, "cacheRead": 0, "cacheWrite": 0},
        subagent="planner",
        parentCallId=call,
    )
    at.emit("eve", "subagent.completed", **sub, output=ins.text(40))


def _stopped(at: _Turn, variant: int) -> None:
    """A stop pressed while the turn runs (TC-14): the turn is cancelled, the update handled."""
    ins = at.ins
    ins.update += 1
    bridge(ins, f"tg:42:stop:{ins.update}", ins.update, "message", "admitted")
    outcome = ["stopped", "idle", "failed"][(variant // 4) % 3]
    at.emit(
        "stop", {"stopped": "requested"}.get(outcome, outcome), chatKey="tg:42", outcome=outcome
    )
    at.emit("eve", "turn.cancelled", sequence=9)
    bridge(ins, at.key, ins.update - 1, "message", "delivered", accepted="handled", ms=900, parts=1)


def _failed(at: _Turn) -> None:
    """The model fails (E_MODEL): the outbound gate sees the apology alone (TC-17), the update is
    rejected."""
    failure = {"code": "E_MODEL", "message": "the model endpoint answered 529"}
    at.emit("eve", "step.failed", sequence=8, stepIndex=1, **failure, details={"retry": 3})
    at.emit(
        "gate",
        "outbound",
        clean=True,
        findings=[],
        chars=38,
        text="Something went wrong, please try again.",
    )
    at.emit(
        "eve", "turn.failed", sequence=9, stepIndex=1, **failure, details="gave up after 3 tries"
    )
    bridge(at.ins, at.key, at.ins.update, "message", "rejected", accepted=False, ms=4000, parts=1)


def _answered(at: _Turn, variant: int) -> None:
    """The second step reasons and answers; the answer passes the gate and goes out (or fails to)."""
    ins = at.ins
    step(ins, at.turn, at.session, "telegram", 1)
    at.emit(
        "eve",
        "reasoning.completed",
        sequence=12,
        stepIndex=1,
        reasoning=ins.text(ins.rng.randrange(5, 60)),
    )
    answer = ins.text(ins.rng.randrange(10, 80))
    at.emit(
        "eve", "message.completed", sequence=13, stepIndex=1, finishReason="stop", message=answer
    )
    findings = ["token:github"] if variant % 6 == 5 else []
    at.emit(
        "gate",
        "outbound",
        clean=not findings,
        findings=findings,
        chars=len(answer),
        text=answer,
    )
    _outbox(at, variant, answer)
    at.emit("eve", "turn.completed", sequence=14)
    ms = ins.rng.randrange(900, 9000)
    bridge(ins, at.key, ins.update, "message", "delivered", accepted=True, ms=ms, parts=1)


def _outbox(at: _Turn, variant: int, answer: str) -> None:
    """The answer delivered (its buttons dropped when `variant % 5 == 3`), or blocked by the user."""
    if variant % 8 == 6:
        at.emit(
            "outbox",
            "failed",
            ok=False,
            delivered=False,
            fellBack=False,
            error="telegram 403: bot was blocked by the user",
            chars=len(answer),
            ms=120,
        )
        return
    fell = variant % 5 == 3
    error = (
        "buttons dropped: sendRichMessage 400: Bad Request: BUTTON_DATA_INVALID" if fell else None
    )
    at.emit(
        "outbox",
        "delivered",
        ok=True,
        delivered=True,
        fellBack=fell,
        error=error,
        chars=len(answer),
        ms=at.ins.rng.randrange(60, 900),
    )
