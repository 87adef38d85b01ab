"""Timing helpers shared by the benchmarks: medians of repeated runs, in milliseconds."""

from __future__ import annotations

import gc
import resource
import statistics
import time
from collections.abc import Callable, Mapping


def median_ms(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of `repeat` calls of `run`, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def interleaved_ms(
    runs: Mapping[str, Callable[[], object]],
    repeat: int,
    cpu: dict[str, list[float]] | None = None,
    faults: dict[str, list[int]] | None = None,
    user: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """Each run's wall times in ms over `repeat` rounds that run them all in turn.

    Taking turns (in reverse order every other round) lets a busy minute of a shared machine
    weigh on every run alike, so ratios between them hold. The garbage is collected before
    each run, and its result is dropped after the clock stops. Given `cpu`, each run's CPU
    time of this process (ms) is put there too: on a machine shared with other work it moves
    less than the wall time. Given `faults`, each run's minor page faults (fresh memory
    touched for the first time) are put there. Given `user`, each run's user CPU time (ms):
    the process's own work, without the kernel's (page faults are system time).
    """
    times: dict[str, list[float]] = {name: [] for name in runs}
    for round_ in range(repeat):
        for name in list(runs) if round_ % 2 == 0 else list(reversed(list(runs))):
            gc.collect()
            before = resource.getrusage(resource.RUSAGE_SELF)
            start, start_cpu = time.perf_counter(), time.process_time()
            result = runs[name]()
            times[name].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_SELF)
            if cpu is not None:
                cpu.setdefault(name, []).append((time.process_time() - start_cpu) * 1000)
            if faults is not None:
                faults.setdefault(name, []).append(after.ru_minflt - before.ru_minflt)
            if user is not None:
                user.setdefault(name, []).append((after.ru_utime - before.ru_utime) * 1000)
            del result
    return times


def collected_median_ms(run: Callable[[], object], repeat: int) -> float:
    """The median of `repeat` runs of a heavy operation, the garbage collected before each."""
    return statistics.median(interleaved_ms({"run": run}, repeat)["run"])


def cold_load_encoding() -> object:
    """Load the default token encoding from scratch (its cache cleared first)."""
    from trackerkit.tokens import DEFAULT_ENCODING, load_encoding

    load_encoding.cache_clear()
    return load_encoding(DEFAULT_ENCODING)
