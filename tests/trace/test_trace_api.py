"""The public contract of trackerkit.trace: a sorted __all__, every name importable, dask optional."""

from __future__ import annotations

import subprocess
import sys

import trackerkit.trace as trace


def _isort_style(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then functions, each alphabetical."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_all_is_sorted_and_importable() -> None:
    """__all__ is sorted (constants, classes, functions; as ruff keeps it) and every name imports."""
    assert trace.__all__ == sorted(set(trace.__all__), key=_isort_style)
    for name in trace.__all__:
        assert getattr(trace, name) is not None


def test_the_documented_names_are_public() -> None:
    """The names the issue and the notebooks rely on are exported."""
    wanted = {
        "read_trace", "TraceLineError", "steps", "tool_calls", "deliveries", "gates", "markers",
        "assemble_turns", "assign_turns", "turn_events", "resolve_turn", "TraceWriter", "turn_timeline",
        "tokens_over_day", "failures_by_class", "turn_durations", "trace_days", "EVENT_COLUMNS",
    }  # fmt: skip
    assert wanted <= set(trace.__all__)


def test_dask_is_not_imported_by_the_package() -> None:
    """Importing trackerkit.trace does not import dask (it is an optional extra)."""
    code = "import sys, trackerkit.trace; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
