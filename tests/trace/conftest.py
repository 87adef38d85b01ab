"""Fixtures of the trace tests: the hand-written days, the bundled sample days, a line maker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

DAYS = Path(__file__).parent / "days"
SAMPLE = Path(__file__).parents[2] / "data" / "trace"


@pytest.fixture
def days() -> Path:
    """The hand-written day folders, one per turn-assembly rule (`days/tc09`, ...)."""
    return DAYS


@pytest.fixture
def sample() -> Path:
    """The bundled sample days (data/trace)."""
    return SAMPLE


@pytest.fixture
def line() -> Callable[..., bytes]:
    """One valid event line, fields overridable: `line(ts=..., turn=..., data={...})`."""

    def make(**fields: Any) -> bytes:
        event = {
            "ts": "2026-03-01T10:00:00.000Z",
            "turn": "turn_0",
            "session": "wrun_A",
            "source": "telegram",
            "kind": "eve",
            "name": "step.started",
            "data": {"sequence": 1, "stepIndex": 0},
        }
        event.update(fields)
        return orjson.dumps(event)

    return make
