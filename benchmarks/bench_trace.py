"""Trace reader speed and memory on a generated day (issue 7, item 10).

Run with `make bench` (all benchmarks) or alone:

    .venv/bin/python -m benchmarks.bench_trace

`TRACKERKIT_BENCH_LINES` sets the size of the generated day (default 1,000,000 lines, about
450 bytes each) and `TRACKERKIT_BENCH_REPEATS` the runs per operation (default 3; the median
is printed). The day is written to a temporary folder and deleted afterwards. Times are
printed, never asserted.

The floor and the readers it is compared with run in interleaved rounds (floor, reader,
reader, floor, …), so a shared machine's slow minute weighs on both sides of each ratio; the
ratio printed is the median of the per-round ratios.
"""

from __future__ import annotations

import gc
import os
import statistics
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import msgspec
import orjson
import pandas as pd

from benchmarks._timing import collected_median_ms, interleaved_ms
from trackerkit.trace import assemble_turns, read_trace
from trackerkit.trace.synthetic import synthetic_day

BROKEN = 5


def _spread(runs: list[float], floor: list[float]) -> str:
    ratios = sorted(r / f for r, f in zip(runs, floor, strict=True))
    return " ".join(f"{r:.2f}" for r in ratios)


def _each_line(path: Path, decode: Callable[[bytes], object]) -> int:
    """Every line of the file decoded by `decode`, nothing else (results dropped)."""
    count = 0
    with path.open("rb") as handle:
        for raw in handle:
            decode(raw)
            count += 1
    return count


def _orjson_floor(path: Path) -> int:
    """The floor: every line decoded by orjson.loads."""
    return _each_line(path, orjson.loads)


def _orjson_kept(path: Path) -> list[object]:
    """Every line decoded and kept in a list, as a plain loop would."""
    loads = orjson.loads
    with path.open("rb") as handle:
        return [loads(raw) for raw in handle]


class _Head(msgspec.Struct):
    ts: str
    data: msgspec.Raw


def _msgspec_raw(path: Path) -> int:
    """A reference: every line decoded by msgspec with `data` left raw (what the reader builds on)."""
    return _each_line(path, msgspec.json.Decoder(_Head).decode)


def _read_and_decode(path: Path) -> object:
    """read_trace, then every `data` looked into (the cost when an analysis needs them all)."""
    events, _ = read_trace(path)
    for data in events["data"]:
        len(data)
    return events


def _turns_ms(path: Path, repeats: int) -> float:
    events, _ = read_trace(path)
    return collected_median_ms(lambda: assemble_turns(events), repeats)


def _peak_mb(run: Callable[[], object]) -> float:
    gc.collect()
    tracemalloc.start()
    result = run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak / 1e6


def main() -> None:
    """Generate the day, time each reader, print ratios to pandas and the floor, and the targets."""
    lines = int(os.environ.get("TRACKERKIT_BENCH_LINES", "1000000"))
    repeats = int(os.environ.get("TRACKERKIT_BENCH_REPEATS", "3"))
    with tempfile.TemporaryDirectory(prefix="trackerkit-bench-") as folder:
        Path(folder, "clean").mkdir()
        clean = synthetic_day(Path(folder, "clean", "2026-11-28.jsonl"), lines, seed=1)
        broken = synthetic_day(Path(folder, "2026-11-28.jsonl"), lines, broken=BROKEN, seed=1)
        size_mb = clean.stat().st_size / 1e6
        print(f"trace day: {lines:,} lines, {size_mb:,.0f} MB ({clean.stat().st_size / lines:.0f} bytes a line); "
              f"the broken copy has {BROKEN} broken lines; median of {repeats} runs")  # fmt: skip
        timings: dict[str, float] = {}
        paired = interleaved_ms(
            {
                "orjson.loads loop (floor)": lambda: _orjson_floor(clean),
                "read_trace (clean)": lambda: read_trace(clean),
                "read_trace (broken lines)": lambda: read_trace(broken),
            },
            repeats,
        )
        floor_runs = paired["orjson.loads loop (floor)"]
        ratios = {
            name: statistics.median(r / f for r, f in zip(runs, floor_runs, strict=True))
            for name, runs in paired.items()
        }
        timings.update({name: statistics.median(runs) for name, runs in paired.items()})
        timings["orjson.loads kept in a list"] = collected_median_ms(
            lambda: _orjson_kept(clean), repeats
        )
        timings["read_trace + decode every data"] = collected_median_ms(
            lambda: _read_and_decode(clean), repeats
        )
        timings["msgspec, data raw (reference)"] = collected_median_ms(
            lambda: _msgspec_raw(clean), repeats
        )
        timings["pandas.read_json(lines=True) (clean)"] = collected_median_ms(
            lambda: pd.read_json(clean, lines=True), repeats
        )
        timings["assemble_turns"] = _turns_ms(clean, repeats)
        floor = timings["orjson.loads loop (floor)"]
        pandas_ms = timings["pandas.read_json(lines=True) (clean)"]
        print(f"\n{'operation':<40} {'median ms':>10} {'x floor':>8} {'pandas/this':>12}")
        for name, ms in timings.items():
            ratio = ratios.get(name, ms / floor)
            print(f"{name:<40} {ms:>10,.0f} {ratio:>8.2f} {pandas_ms / ms:>12.2f}")
        peak = _peak_mb(lambda: read_trace(clean))
        print(
            f"\nread_trace peak memory (tracemalloc): {peak:,.0f} MB = {peak / size_mb:.2f}x the file size"
        )
        reader = timings["read_trace (clean)"]
        print(
            "\ntargets (issue 7, item 10):"
            f"\n  read_trace / floor      {ratios['read_trace (clean)']:5.2f}  (at most 1.20;"
            f" per round: {_spread(paired['read_trace (clean)'], floor_runs)})"
            f"\n  pandas / read_trace     {pandas_ms / reader:5.2f}  (at least 3)"
            f"\n  peak memory / file size {peak / size_mb:5.2f}  (under 3)"
            f"\n  assemble_turns          {timings['assemble_turns'] / 1000:5.2f} s (under 5 s)"
        )


if __name__ == "__main__":
    main()
