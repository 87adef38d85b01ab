"""Timing helpers shared by the benchmarks: medians of repeated runs, in milliseconds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of `repeat` calls of `run`, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cold_load_encoding() -> object:
    """Load the default token encoding from scratch (its cache cleared first)."""
    from trackerkit.tokens import DEFAULT_ENCODING, load_encoding

    load_encoding.cache_clear()
    return load_encoding(DEFAULT_ENCODING)
