"""A large plain trace day, written fast, for benchmarks (not through the writer)."""

from __future__ import annotations

import datetime as dt
import os
import random
from pathlib import Path

import orjson

from trackerkit.trace._sample_parts import WORDS

__all__ = ["BROKEN_LINES", "synthetic_day"]

BROKEN_LINES = (
    b'{"ts":"2026-11-27T10:00:00.000Z","turn":"turn_1","session":"wrun_X","source":"bridge"',
    b"",
    b'{"ts":"2026-11-27T10:00:00.000Z","turn":"\xff\xfe","session":"","source":"bridge","kind":"bridge","name":"admitted","data":{}}',
    b'{"turn":"turn_1","ts":"2026-11-27T10:00:00.000Z","session":"","source":"unknown","kind":"eve","name":"x","data":{}}',
    b'["not", "an", "object"]',
    b'{"ts":"yesterday","turn":"","session":"","source":"cron","kind":"gate","name":"outbound","data":{}}',
)


def synthetic_day(
    path: str | os.PathLike[str], lines: int, *, broken: int = 0, seed: int = 0
) -> Path:
    """A large day of plain chat turns (about 450 bytes a line), written fast; `broken` bad lines."""
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
            event = {
                "ts": ts.replace("+00:00", "Z"),
                "turn": f"turn_{(i // 40) % 50}",
                "session": f"wrun_01JBENCH{i // 2000:08d}",
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
