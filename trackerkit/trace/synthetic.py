"""Large trace days, written fast, for benchmarks (not through the writer).

Two shapes: `plain` (few sessions, about 450 bytes a line, ASCII) and `wide` (a session every
three events, about 1,600 bytes a line with non-ASCII text, nested lists and costs on most
steps), so a reader's speed is measured on more than one kind of day.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from pathlib import Path
from typing import Any, Literal

import orjson

from trackerkit.trace._sample_parts import WORDS

__all__ = ["BROKEN_LINES", "SHAPES", "synthetic_day"]

SHAPES = ("plain", "wide")
"""The shapes `synthetic_day` writes."""

_INTL = ("привет", "журнал", "ход", "café", "naïve", "日本語", "😀", "Grüße", "señal", "ζωή")

BROKEN_LINES = (
    b'{"ts":"2026-11-27T10:00:00.000Z","turn":"turn_1","session":"wrun_X","source":"bridge"',
    b"",
    b'{"ts":"2026-11-27T10:00:00.000Z","turn":"\xff\xfe","session":"","source":"bridge","kind":"bridge","name":"admitted","data":{}}',
    b'{"turn":"turn_1","ts":"2026-11-27T10:00:00.000Z","session":"","source":"unknown","kind":"eve","name":"x","data":{}}',
    b'["not", "an", "object"]',
    b'{"ts":"yesterday","turn":"","session":"","source":"cron","kind":"gate","name":"outbound","data":{}}',
)


def _wide(i: int, rng: random.Random) -> tuple[str, str, dict[str, Any]]:
    """A wide event: its turn, session and data (about 1,500 bytes of it, non-ASCII text)."""
    words = [rng.choice(_INTL) if rng.random() < 0.3 else rng.choice(WORDS) for _ in range(150)]
    usage: dict[str, Any] = {"in": 2000 + i % 9000, "out": 50 + i % 900, "cacheRead": 0}
    if i % 4:
        usage["costUsd"] = round(0.0001 + (i % 997) / 40000, 6)
    data: dict[str, Any] = {
        "sequence": i % 3,
        "stepIndex": i % 3,
        "finishReason": "stop",
        "usage": usage,
        "text": " ".join(words),
        "context": [
            {"role": role, "chars": 100 + 7 * k, "tags": ["a", "b", rng.choice(_INTL)]}
            for k, role in enumerate(("system", "user", "assistant"))
        ],
    }
    if i % 50 == 0:
        data["failure"] = "timeout"
    return f"turn_{i // 3 % 5}", f"wrun_01JWIDE{i // 3:010d}", data


def synthetic_day(
    path: str | os.PathLike[str],
    lines: int,
    *,
    broken: int = 0,
    seed: int = 0,
    shape: Literal["plain", "wide"] = "plain",
) -> Path:
    """A large day of chat turns, written fast; `broken` bad lines among them.

    `shape="plain"`: few sessions, about 450 bytes a line. `shape="wide"`: a session every
    three events, about 1,600 bytes a line with non-ASCII text (see the module docstring).
    """
    rng = random.Random(seed)
    target = Path(path)
    start = dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
    names = [
        ("eve", "step.started"),
        ("eve", "step.completed"),
        ("eve", "actions.requested"),
        ("eve", "action.result"),
        ("eve", "message.completed"),
        ("gate", "outbound"),
        ("outbox", "delivered"),
        ("eve", "turn.completed"),
    ]
    bad_at = set(rng.sample(range(lines), broken)) if broken else set()
    with target.open("wb") as out:
        chunk: list[bytes] = []
        for i in range(lines):
            if i in bad_at:
                chunk.append(BROKEN_LINES[i % len(BROKEN_LINES)])
                continue
            kind, name = names[i % len(names)]
            ts = (start + dt.timedelta(milliseconds=i * 80)).isoformat(timespec="milliseconds")
            data = {
                "sequence": i % 40,
                "stepIndex": i % 7,
                "finishReason": "stop",
                "callId": f"call_{i:09d}",
                "toolName": "read_file",
                "status": "done",
                "isError": False,
                "outChars": 120,
                "usage": {
                    "in": 1000 + i % 5000,
                    "out": 20 + i % 700,
                    "cacheRead": 512,
                    "cacheWrite": 0,
                },
                "text": " ".join(rng.choice(WORDS) for _ in range(rng.randrange(8, 30))),
            }
            turn, session = f"turn_{(i // 40) % 50}", f"wrun_01JBENCH{i // 2000:08d}"
            if shape == "wide":
                turn, session, data = _wide(i, rng)
            event = {
                "ts": ts.replace("+00:00", "Z"),
                "turn": turn,
                "session": session,
                "source": "telegram",
                "kind": kind,
                "name": name,
                "data": data,
            }
            chunk.append(orjson.dumps(event))
            if len(chunk) >= 10000:
                out.write(b"\n".join(chunk) + b"\n")
                chunk = []
        if chunk:
            out.write(b"\n".join(chunk) + b"\n")
    return target
