"""Sample trace days, reproducible from a seed, written through `TraceWriter`.

`write_sample(data_dir, seed)` writes three days of an installation in Moscow time (so night
turns cross midnight in a zone that is not UTC) covering the whole catalogue (TC-15), every
failure class (TC-16), subagents, callbacks and stops, trimmed and truncated events, a gate
verdict without an outbox, a fallen-back delivery and a few broken lines (TC-19).
`scripts/gen_trace.py` runs it; `synthetic.synthetic_day` writes large days for benchmarks.

`write_days(data_dir, days=4, seed=5)` writes days an analyst can ask questions of (issue 14,
item 7): sessions with several turns each, one session whose turns fail again and again, and
failures and costs that differ from day to day, so "which session had the most failed turns?"
has one answer.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from pathlib import Path

import orjson

from trackerkit.errors import BadRequestError
from trackerkit.trace._sample_parts import MSK, SAMPLE_TIMEZONE, Install, bridge, chat_turn, step
from trackerkit.trace.synthetic import BROKEN_LINES

__all__ = ["CATALOGUE", "SAMPLE_DAYS", "SAMPLE_TIMEZONE", "write_days", "write_sample"]

CATALOGUE = (
    "bridge.admitted",
    "bridge.dropped",
    "bridge.queued",
    "bridge.delivered",
    "bridge.rejected",
    "inbound.received",
    "inbound.accepted",
    "inbound.dropped",
    "gate.inbound",
    "gate.web",
    "gate.outbound",
    "turn.bound",
    "context.parts",
    "eve.turn.started",
    "eve.turn.completed",
    "eve.turn.cancelled",
    "eve.turn.failed",
    "eve.step.started",
    "eve.step.completed",
    "eve.step.failed",
    "eve.actions.requested",
    "eve.action.result",
    "eve.message.completed",
    "eve.message.received",
    "eve.reasoning.completed",
    "eve.subagent.started",
    "eve.subagent.completed",
    "eve.subagent.called",
    "outbox.delivered",
    "outbox.failed",
    "stop.requested",
    "stop.idle",
    "stop.failed",
)
"""Every `kind.name` of the contract's catalogue (TC-15)."""

SAMPLE_DAYS = ("2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29")
"""The files written: three full days and the small hours after the last night."""


def _night(ins: Install, session: str, number: int, source: str) -> None:
    """A night turn: eve rows say unknown, the send says rollup or cron and has no turn key (TC-8, TC-12)."""
    turn = f"turn_{number}"
    ins.emit(turn, session, "unknown", "eve", "turn.started", sequence=0)
    for index in range(3):
        step(ins, turn, session, "unknown", index)
        ins.tick(10, 20)  # long steps: a turn begun just before midnight ends after it
    digest = ins.text(200)
    ins.emit(
        "",
        session,
        source,
        "gate",
        "outbound",
        clean=True,
        findings=[],
        chars=len(digest),
        text=digest,
    )
    ins.emit(
        "",
        session,
        source,
        "outbox",
        "delivered",
        ok=True,
        delivered=True,
        fellBack=False,
        error=None,
        chars=len(digest),
        ms=400,
    )
    ins.emit(turn, session, "unknown", "eve", "turn.completed", sequence=9)


def _specials(ins: Install, day: int) -> None:
    """Callbacks, drops, proactive sends, web gate, and the writer's marks (TC-7, TC-14)."""
    _callback(ins)
    _dropped(ins)
    _proactive(ins)
    session, turn = ins.session(), f"turn_{90 + day}"
    ins.emit(turn, session, "digest" if day == 0 else "http", "eve", "turn.started", sequence=0)
    ins.emit(
        turn,
        session,
        "web",
        "gate",
        "web",
        surface="web",
        blocked=True,
        reason="prompt-injection",
        flags=["ignore-previous"],
        truncatedChars=0,
        chars=300,
    )
    _oversized(ins, turn, session)
    _unwritable(ins, turn, session)


def _callback(ins: Install) -> None:
    """A button press: a callback admitted and handled."""
    ins.update += 1
    bridge(ins, f"tg:42:cb:{ins.update}", ins.update, "callback", "admitted")
    bridge(
        ins,
        f"tg:42:cb:{ins.update}",
        ins.update,
        "callback",
        "delivered",
        accepted="handled",
        ms=40,
        parts=1,
    )


def _dropped(ins: Install) -> None:
    """A message from a chat nobody owns, dropped at the bridge and at the inbound."""
    ins.update += 1
    bridge(ins, f"tg:99:{ins.update}", ins.update, "message", "dropped", decision="unownable")
    ins.emit(
        f"tg:99:{ins.update}",
        "",
        "telegram",
        "inbound",
        "dropped",
        chatId=99,
        chatKey="tg:99",
        parts=1,
        partChars=[5],
        context=["hello"],
    )


def _proactive(ins: Install) -> None:
    """Sends no turn asked for (watch, brief, insight): through the gate and out, without a turn."""
    for source in ("watch", "brief", "insight"):
        note = ins.text(25)
        ins.emit(
            "", "", source, "gate", "outbound", clean=True, findings=[], chars=len(note), text=note
        )
        ins.emit(
            "",
            "",
            source,
            "outbox",
            "delivered",
            ok=True,
            delivered=True,
            fellBack=False,
            error=None,
            chars=len(note),
            ms=200,
        )


def _oversized(ins: Install, turn: str, session: str) -> None:
    """Events past the writer's limits: a message cut at 4,096 (TC-6), a large result, and a
    request rebuilt (TC-5)."""
    long = "".join(ins.rng.choice("abcdefgh \n") for _ in range(9000))
    ins.emit(
        turn,
        session,
        "unknown",
        "eve",
        "message.completed",
        sequence=1,
        stepIndex=0,
        finishReason="stop",
        message=long,
    )  # cut at 4,096 (TC-6)
    ins.emit(
        turn,
        session,
        "unknown",
        "eve",
        "action.result",
        sequence=2,
        stepIndex=0,
        status="done",
        callId="call_bash_big",
        toolName="bash",
        isError=False,
        outChars=20000,
        result=orjson.dumps({"stdout": long * 2, "stderr": "warn " * 400, "exitCode": 0}).decode(),
    )
    ins.emit(
        turn,
        session,
        "unknown",
        "eve",
        "actions.requested",
        sequence=3,
        stepIndex=1,
        actions=[{"kind": "tool", "callId": f"c{i}", "toolName": "write_file"} for i in range(6)],
        args=[{"text": long[: 3000 + i]} for i in range(6)],
        input=long * 3,
    )  # rebuilt (TC-5)


def _unwritable(ins: Install, turn: str, session: str) -> None:
    """What the writer marks: data it cannot write, data that is no mapping (TC-7), and an event
    trimmed to fit (TC-5)."""
    ins.emit(
        turn,
        session,
        "unknown",
        "eve",
        "step.failed",
        sequence=4,
        stepIndex=1,
        code="E_DEEP",
        message="nested",
        details={"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}},
        when=object(),
    )
    ins.writer.write(
        turn=turn,
        session=session,
        source="unknown",
        kind="eve",
        name="turn.failed",
        data=["not", "a", "mapping"],  # type: ignore[arg-type]  # becomes traceUnreadable (TC-7)
        ts=ins.now + dt.timedelta(seconds=1),
    )
    ins.tick(1.1, 1.2)
    wide = {f"k{i}": "v" * 40 for i in range(600)}
    ins.emit(
        turn,
        session,
        "unknown",
        "eve",
        "action.result",
        sequence=5,
        stepIndex=1,
        status="done",
        callId="c0",
        toolName="write_file",
        isError=False,
        outChars=2,
        result="ok",
        **{f"meta{i}": "m" * 90 for i in range(150)},
        output=wide,
    )  # trimmed (TC-5)


def _break(path: Path, rng: random.Random, count: int) -> None:
    """Insert `count` broken lines at seeded positions (TC-19)."""
    lines = path.read_bytes().split(b"\n")[:-1]
    for broken in rng.sample(BROKEN_LINES, count):
        lines.insert(rng.randrange(1, len(lines)), broken)
    path.write_bytes(b"\n".join(lines) + b"\n")


def write_sample(data_dir: str | os.PathLike[str], seed: int = 3) -> list[Path]:
    """Write the sample days to `<data_dir>/trace/`, replacing them; returns the day files."""
    folder = Path(data_dir, "trace")
    for name in SAMPLE_DAYS:
        folder.joinpath(f"{name}.jsonl").unlink(missing_ok=True)
    rng = random.Random(seed)
    ins = Install(Path(data_dir), rng)
    rollup = ins.session()
    number = 0
    for day in range(3):
        _specials(ins, day)
        for variant in range(12):
            ins.now += dt.timedelta(minutes=rng.uniform(20, 90))
            chat_turn(ins, number % 6, variant + day)
            number += 1
        ins.now = dt.datetime(2026, 11, 26 + day, 23, 59, 45, tzinfo=MSK)
        _night(ins, rollup, day, "rollup")  # the same session night after night (TC-10)
        ins.now += dt.timedelta(hours=3)
        _night(ins, ins.session(), 0, "cron")
    ins.writer.close()
    files = [folder / f"{name}.jsonl" for name in SAMPLE_DAYS]
    for path in files[1:3]:
        _break(path, rng, 3)
    return files


_FAILING = (4, 13, 22)
"""Variants of `chat_turn` that end in a failed turn (E_MODEL)."""
_PLAIN = (0, 1, 2, 5, 6, 8, 9, 10)
"""Variants that complete (some with failed tools on the way)."""


def write_days(data_dir: str | os.PathLike[str], *, days: int = 4, seed: int = 5) -> list[Path]:
    """Write `days` days of chat turns to `<data_dir>/trace/` (replacing those days); returns them.

    Only the day files written are returned, in order; other files in the folder are left alone.

    Each generated day draws five to seven sessions and 14 to 21 turns among them (`turn_0`,
    `turn_1`, ... per session); the first session, `flaky`, runs every day and fails about half
    its turns; the others fail at a rate that changes from day to day (none, one in ten, one in
    four, one in twenty, in turn), so failures and costs differ by day. A generated day starts
    where the last one ended, not at midnight, so it spreads over two day files: a file's counts
    mix two generated days (the seed-5 file of 2026-11-28 holds four sessions, say).
    """
    if days < 1:
        raise BadRequestError(f"days={days} writes nothing; ask for at least one day.")
    rng = random.Random(seed)
    ins = Install(Path(data_dir), rng)
    folder = Path(data_dir, "trace")
    start = ins.now
    for day in range(days):
        folder.joinpath(f"{(start + dt.timedelta(days=day)).date().isoformat()}.jsonl").unlink(
            missing_ok=True
        )
    flaky = ins.session()
    numbers: dict[str, int] = {flaky: 0}
    for day in range(days):
        ins.now = max(ins.now, start + dt.timedelta(days=day))
        sessions = [flaky, *(ins.session() for _ in range(rng.randrange(4, 7)))]
        rate = [0.0, 0.1, 0.25, 0.05][day % 4]
        for _ in range(rng.randrange(14, 22)):
            ins.now += dt.timedelta(minutes=rng.uniform(15, 55))
            session = rng.choice(sessions)
            number = numbers.get(session, 0)
            numbers[session] = number + 1
            failing = rng.random() < (0.5 if session == flaky else rate)
            chat_turn(ins, number, rng.choice(_FAILING if failing else _PLAIN), session)
    ins.writer.close()
    written = (
        start + dt.timedelta(days=n) for n in range((ins.now.date() - start.date()).days + 1)
    )
    return [p for p in (folder / f"{d.date().isoformat()}.jsonl" for d in written) if p.exists()]
