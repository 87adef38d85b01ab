"""Trace reader speed and memory on two generated days of one size (issues 7 and 14).

Run with `make bench` (all benchmarks) or alone:

    .venv/bin/python -m benchmarks.bench_trace

`TRACKERKIT_BENCH_LINES` sets the size of the plain generated day (default 1,000,000 lines,
about 450 bytes each); the wide day (a session every three events, about 1,450 bytes a line
with non-ASCII text) is written to the same size in bytes. `TRACKERKIT_BENCH_REPEATS` sets the
runs per operation (default 3; the median is printed). The days are written to a temporary
folder and deleted afterwards. Times are printed, never asserted.

The floor and the readers it is compared with run in interleaved rounds (floor, reader,
reader, floor, …), so a shared machine's slow minute weighs on both sides of each ratio; the
ratio printed is the median of the per-round ratios, of wall time (`x floor`, the targets) and
of this process's CPU time (`cpu x`, which other work on a shared machine moves less), and of
its user CPU time alone (`user x`: the process's own work, without the kernel's page faults).

Two reference rows show what keeping the events costs before any checking: every line by
`orjson.loads` kept in a list, and one msgspec call per block into events whose `data` is a
dict (one decode per line); both pause the collector as `read_trace` does.

Page faults. The floor decodes each line into memory freed at once and reused by the next
line; a reader that keeps its dicts touches fresh memory for all of them, and the kernel
faults in each 4 KiB page on first touch. What a fault costs depends on the machine (a
virtual machine's nested paging makes it dearer), so the cost per page is measured in the same
run (touching 256 MiB of fresh anonymous memory), each run's minor faults are counted, and the
dict reader's ratio is printed a second time with the faults' estimated time taken out of it:
the part of the ratio that is the code's.
"""

from __future__ import annotations

import gc
import json
import mmap
import os
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import numpy as np
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


@contextmanager
def _paused() -> Iterator[None]:
    """The collector paused as `read_trace` pauses it (what was built goes to the oldest
    generation, so no young collection after the clock stops walks it all)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _orjson_kept(path: Path) -> list[object]:
    """A reference: every line decoded and kept in a list with the collector paused."""
    loads = orjson.loads
    with _paused(), path.open("rb") as handle:
        return [loads(raw) for raw in handle]


class _Event(msgspec.Struct, gc=False):
    """The seven fields, `data` as a dict: what one decode per line would build."""

    ts: str
    turn: str
    session: str
    source: str
    kind: str
    name: str
    data: dict[str, object]


_decode_events = msgspec.json.Decoder(_Event).decode_lines


def _msgspec_kept(path: Path) -> list[_Event]:
    """A reference: blocks of about a megabyte, each decoded by one msgspec call into events
    whose data is a dict, kept with the collector paused (no check that a block is compact)."""
    events: list[_Event] = []
    tail = b""
    with _paused(), path.open("rb") as handle:
        while block := handle.read(1 << 20):
            last = block.rfind(b"\n") + 1
            events += _decode_events(tail + block[:last])
            tail = block[last:]
        if tail:
            events += _decode_events(tail)
    return events


def _fault_us(mib: int = 256, repeats: int = 3) -> float:
    """What touching one fresh page of anonymous memory costs here, in µs (median of runs)."""
    costs = []
    for _ in range(repeats):
        region = mmap.mmap(-1, mib << 20)
        octets = np.frombuffer(region, dtype=np.uint8)
        start = time.perf_counter()
        octets[:: mmap.PAGESIZE] = 1  # one write a page: each page faulted in once
        costs.append((time.perf_counter() - start) * 1e6 / (len(octets) // mmap.PAGESIZE))
        del octets
        region.close()
    return statistics.median(costs)


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


PATHS = ["usage.in", "usage.costUsd", "failure"]
"""The three paths the `columns=` row extracts (issue 14)."""


def _day(folder: Path, name: str, path_name: str, lines: int, shape: str) -> dict[str, object]:
    clean = synthetic_day(Path(folder, name, path_name), lines, seed=1, shape=shape)  # type: ignore[arg-type]
    return {"path": clean, "lines": lines, "mb": clean.stat().st_size / 1e6}


def _measure(name: str, day: dict[str, object], repeats: int) -> dict[str, float]:
    """One day's rows: the readers in interleaved rounds against the floor, then the rest."""
    clean = day["path"]
    assert isinstance(clean, Path)
    size_mb = float(day["mb"])  # type: ignore[arg-type]
    print(f"\n### {name}: {day['lines']:,} lines, {size_mb:,.0f} MB "
          f"({clean.stat().st_size / int(day['lines']):.0f} bytes a line); median of {repeats} runs")  # type: ignore[call-overload]  # fmt: skip
    cpu: dict[str, list[float]] = {}
    user: dict[str, list[float]] = {}
    faults: dict[str, list[int]] = {}
    paired = interleaved_ms(
        {
            "orjson.loads loop (floor)": lambda: _orjson_floor(clean),
            "orjson.loads kept, GC paused (ref.)": lambda: _orjson_kept(clean),
            "msgspec one pass, dicts kept (ref.)": lambda: _msgspec_kept(clean),
            "read_trace (dicts)": lambda: read_trace(clean),
            'read_trace(data="raw")': lambda: read_trace(clean, data="raw"),
            "read_trace(columns=3 paths)": lambda: read_trace(clean, columns=PATHS),
        },
        repeats,
        cpu,
        faults,
        user,
    )
    floor_runs = paired["orjson.loads loop (floor)"]
    ratios = _per_round(paired)
    cpu_ratios = _per_round(cpu)
    user_ratios = _per_round(user)
    timings = {name: statistics.median(runs) for name, runs in paired.items()}
    timings['read_trace(data="lazy")'] = collected_median_ms(
        lambda: read_trace(clean, data="lazy"), repeats
    )
    timings["pandas.read_json(lines=True)"] = collected_median_ms(
        lambda: pd.read_json(clean, lines=True), max(1, repeats // 2)
    )
    timings["assemble_turns"] = _turns_ms(clean, repeats)
    floor = timings["orjson.loads loop (floor)"]
    pandas_ms = timings["pandas.read_json(lines=True)"]
    print(f"\n{'operation':<40} {'median ms':>10} {'x floor':>8} {'cpu x':>6} {'user x':>6} {'pandas/this':>12}")  # fmt: skip
    for label, ms in timings.items():
        ratio = ratios.get(label, ms / floor)
        by_cpu = f"{cpu_ratios[label]:6.2f}" if label in cpu_ratios else f"{'':6}"
        by_user = f"{user_ratios[label]:6.2f}" if label in user_ratios else f"{'':6}"
        print(f"{label:<40} {ms:>10,.0f} {ratio:>8.2f} {by_cpu} {by_user} {pandas_ms / ms:>12.2f}")
    peak = _peak_mb(lambda: read_trace(clean))
    peak_raw = _peak_mb(lambda: read_trace(clean, data="raw"))
    reader = timings["read_trace (dicts)"]
    raw = 'read_trace(data="raw")'
    print(
        f"\ntargets (issue 14), per-round ratios in brackets:"
        f"\n  read_trace dicts / floor   {ratios['read_trace (dicts)']:5.2f}  (at most 1.30;"
        f" {_spread(paired['read_trace (dicts)'], floor_runs)})"
        f"\n  pandas / read_trace dicts  {pandas_ms / reader:5.2f}  (at least 5)"
        f"\n  dicts peak memory / file   {peak / size_mb:5.2f}  (aim under 5; {peak:,.0f} MB)"
        f"\n  data='raw' / floor         {ratios[raw]:5.2f}  (at most 1.10;"
        f" {_spread(paired[raw], floor_runs)})"
        f"\n  raw peak memory / file     {peak_raw / size_mb:5.2f}  (under 2; {peak_raw:,.0f} MB)"
        f"\n  columns= 3 paths / floor   {ratios['read_trace(columns=3 paths)']:5.2f}  (at most 1.50;"
        f" {_spread(paired['read_trace(columns=3 paths)'], floor_runs)})"
        f"\n  assemble_turns / read_trace {timings['assemble_turns'] / reader:4.2f}  (at most 1.00)"
        f"\n  (CPU time per-round ratios, less moved by other work on the machine: dicts"
        f" {cpu_ratios['read_trace (dicts)']:.2f}, raw {cpu_ratios[raw]:.2f},"
        f" columns {cpu_ratios['read_trace(columns=3 paths)']:.2f})"
        f"\n  (user CPU time alone, the process's own work without the kernel's, which holds"
        f" the page faults: dicts {user_ratios['read_trace (dicts)']:.2f},"
        f" raw {user_ratios[raw]:.2f}, columns {user_ratios['read_trace(columns=3 paths)']:.2f})"
    )
    _print_faults(paired, faults)
    return timings


def _per_round(times: dict[str, list[float]]) -> dict[str, float]:
    """Each run's median per-round ratio to the floor's time in the same round."""
    floor = times["orjson.loads loop (floor)"]
    return {
        name: statistics.median(r / f for r, f in zip(runs, floor, strict=True))
        for name, runs in times.items()
    }


def _print_faults(paired: dict[str, list[float]], faults: dict[str, list[int]]) -> None:
    """Each reader's page faults, their estimated time, and the dict reader's ratio without it."""
    per_page = _fault_us()
    floor_runs = paired["orjson.loads loop (floor)"]
    print(
        f"\npage faults (fresh 4 KiB pages first touched; here {per_page:.2f} µs a page,"
        " measured on 256 MiB):"
        f"\n{'operation':<40} {'faults':>10} {'MiB':>7} {'est. ms':>8} {'x floor':>8}"
    )
    floor_ms = statistics.median(floor_runs)
    for label, counts in faults.items():
        count = statistics.median(counts)
        cost = count * per_page / 1000
        print(
            f"{label:<40} {count:>10,.0f} {count * mmap.PAGESIZE / 2**20:>7,.0f}"
            f" {cost:>8,.0f} {cost / floor_ms:>8.2f}"
        )
    dicts = "read_trace (dicts)"
    without = statistics.median(
        (run - count * per_page / 1000) / floor
        for run, count, floor in zip(paired[dicts], faults[dicts], floor_runs, strict=True)
    )
    print(f"  read_trace dicts / floor, the faults' estimated time taken out: {without:.2f}")


def _spaced(folder: Path, plain: Path, lines: int, repeats: int) -> None:
    """The first lines of the plain day as Python's json writes them (`, ` and `: `): not the
    compact form, so every block takes the loose path. A ratio to its own floor, printed."""
    folder.mkdir()
    spaced = folder / "2026-11-28.jsonl"
    with plain.open("rb") as source, spaced.open("w", encoding="utf-8") as out:
        for _, raw in zip(range(lines), source, strict=False):
            out.write(json.dumps(orjson.loads(raw)) + "\n")
    paired = interleaved_ms(
        {
            "orjson.loads loop (floor)": lambda: _orjson_floor(spaced),
            "read_trace (dicts)": lambda: read_trace(spaced),
            "read_trace raw": lambda: read_trace(spaced, data="raw"),
        },
        repeats,
    )
    ratios = _per_round(paired)
    print(
        f"a spaced day ({lines:,} lines as json.dumps writes them, not the compact form):"
        f" read_trace dicts {ratios['read_trace (dicts)']:.2f}x its floor,"
        f" raw {ratios['read_trace raw']:.2f}x (no target; the compact form is the"
        " writer's)"
    )


def main() -> None:
    """Generate both days, time each reader on each, print ratios to the floor and the targets."""
    lines = int(os.environ.get("TRACKERKIT_BENCH_LINES", "1000000"))
    repeats = int(os.environ.get("TRACKERKIT_BENCH_REPEATS", "3"))
    with tempfile.TemporaryDirectory(prefix="trackerkit-bench-") as folder:
        for sub in ("clean", "wide"):
            Path(folder, sub).mkdir()
        plain = _day(Path(folder), "clean", "2026-11-28.jsonl", lines, "plain")
        # The wide day: the same size in bytes, in lines about three times as long.
        wide_lines = max(1, int(lines * float(plain["mb"]) * 1e6 / lines / 1450))  # type: ignore[arg-type]
        wide = _day(Path(folder), "wide", "2026-11-28.jsonl", wide_lines, "wide")
        broken = synthetic_day(Path(folder, "2026-11-28.jsonl"), lines, broken=BROKEN, seed=1)
        plain_path = plain["path"]
        assert isinstance(plain_path, Path)
        paired = interleaved_ms(
            {
                "orjson.loads loop (floor)": lambda: _orjson_floor(plain_path),
                "read_trace (broken lines)": lambda: read_trace(broken),
            },
            repeats,
        )
        ratio = _per_round(paired)["read_trace (broken lines)"]
        print(f"read_trace on the plain day with {BROKEN} broken lines: {ratio:.2f}x the floor")
        _spaced(Path(folder, "spaced"), plain_path, max(1, lines // 5), repeats)
        _measure("the plain day (few sessions, ASCII)", plain, repeats)
        _measure("the wide day (many sessions, large non-ASCII data)", wide, repeats)


if __name__ == "__main__":
    main()
