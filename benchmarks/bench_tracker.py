"""Time the strict decoder on the bundled library and on hostile files at each ceiling (TR-11).

Prints a table (operation, median ms, target, ok?); never asserts on time. Targets from issue 2:
a typical tracker decodes in under 0.2 ms, each hostile file is refused in under 50 ms. Issue 12:
10,000 number fields that each take the next as their top (f0 -> ... -> f9999) decode in at most
1.5x the time of the same fields without tops, both timed in turns in the same run (the top graph
is read in one pass); closing the chain into a loop is refused like any hostile file.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from benchmarks._timing import interleaved_ms, median_ms
from trackerkit import TrackerDecodeError, decode_tracker
from trackerkit.fields import MAX_SAFE_INTEGER
from trackerkit.tracker import MAX_ITEMS, MAX_TEXT

_LIBRARY = Path(__file__).resolve().parent.parent / "data" / "trackers"


def _decode(data: object, expect_ok: bool) -> Callable[[], object]:
    def run() -> object:
        try:
            return decode_tracker(data)
        except TrackerDecodeError:
            if expect_ok:
                raise
            return None

    # Check the outcome once, outside the timing, so a wrong verdict cannot hide in a figure.
    try:
        decode_tracker(data)
        accepted = True
    except TrackerDecodeError:
        accepted = False
    if accepted != expect_ok:
        raise SystemExit(f"expected {'accepted' if expect_ok else 'refused'}; got the opposite")
    return run


def _tracker(**body: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": "hostile",
        "name": "Hostile",
        "description": "",
        "body": {
            "layout": "record",
            "fields": [{"name": "v", "description": "", "type": "number"}],
            "note": "",
        },
    }
    doc["body"].update(body)
    return doc


def _deep(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    at = root
    for _ in range(levels):
        at["a"] = {}
        at = at["a"]
    return root


#: Issue 12: a 10,000-field chain of tops decodes in at most this multiple of the same fields' time.
CHAIN_RATIO = 1.5


def _chain(tops: bool, loop: bool = False) -> dict[str, Any]:
    fields: list[dict[str, Any]] = [
        {"name": f"f{i}", "description": "", "type": "number"} for i in range(MAX_ITEMS)
    ]
    if tops:
        for i, field in enumerate(fields[:-1]):
            field["maxField"] = f"f{i + 1}"
    if loop:
        fields[-1]["maxField"] = "f0"
    return _tracker(fields=fields)


def _chain_rows() -> tuple[float, float, float]:
    """The chain and the same fields without tops, in turns: (without ms, chain ms, ratio).

    The ratio is the median of each round's own ratio: the two runs of a round are next to each
    other in time, so a busy moment of a shared machine weighs on both.
    """
    times = interleaved_ms(
        {"without": _decode(_chain(False), True), "chain": _decode(_chain(True), True)}, 41
    )
    without, chain = (statistics.median(times[name]) for name in ("without", "chain"))
    ratios = [c / w for w, c in zip(times["without"], times["chain"], strict=True)]
    return without, chain, statistics.median(ratios)


def main() -> None:
    pieces = [orjson.loads(p.read_bytes()) for p in sorted(_LIBRARY.glob("*.json"))]

    def whole_library() -> None:
        for piece in pieces:
            decode_tracker(piece)

    many = [{"name": f"f{i}", "description": "", "type": "number"} for i in range(MAX_ITEMS)]
    many_refused = _tracker(fields=many)
    many_refused["name"] = 7
    choices = [
        {
            "name": "c",
            "description": "",
            "type": "choice",
            "choices": [str(i) for i in range(MAX_ITEMS + 1)],
        }
    ]
    deep = _tracker()
    deep["body"]["extra"] = _deep(5_000)
    typical = orjson.loads((_LIBRARY / "health.json").read_bytes())

    rows: list[tuple[str, float, float]] = []
    per_piece = median_ms(whole_library, 1_000) / max(len(pieces), 1)
    rows.append((f"bundled library ({len(pieces)} trackers) x1000, per tracker", per_piece, 0.2))
    rows.append(("typical tracker (health)", median_ms(_decode(typical, True), 2_000), 0.2))
    hostile: list[tuple[str, object, bool]] = [
        ("10,000 fields (accepted)", _tracker(fields=many), True),
        ("10,000 fields, one bad key (refused)", many_refused, False),
        ("10,001 fields (refused)", _tracker(fields=[*many, many[0]]), False),
        ("1,000,001-character note (refused)", _tracker(note="n" * (MAX_TEXT + 1)), False),
        ("10,001 choices (refused)", _tracker(fields=choices), False),
        (
            "whole number 2^53 (refused)",
            _tracker(fields=[{**many[0], "default": MAX_SAFE_INTEGER + 1}]),
            False,
        ),
        ("5,000-level nesting (refused)", deep, False),
        ("10,000-field loop of tops f0 -> ... -> f9999 -> f0 (refused)", _chain(True, True), False),
    ]
    for label, data, ok in hostile:
        rows.append((label, median_ms(_decode(data, ok), 21), 50.0))

    without, chain, ratio = _chain_rows()
    width = max(len(label) for label, _, _ in rows)
    print(f"| {'operation':<{width}} | median ms | target ms | ok? |")
    print(f"|{'-' * (width + 2)}|----------:|----------:|:---:|")
    for label, ms, target in rows:
        print(
            f"| {label:<{width}} | {ms:9.3f} | {target:9g} | {'yes' if ms < target else 'NO':^3} |"
        )
    chain_rows = [
        ("10,000 number fields, no tops", f"{without:.1f} ms", "-", ""),
        ("10,000 number fields, chain f0 -> ... -> f9999", f"{chain:.1f} ms", "-", ""),
        (
            "chain / no tops (median of each round's ratio)",
            f"{ratio:.2f}x",
            f"<= {CHAIN_RATIO}x",
            "yes" if ratio <= CHAIN_RATIO else "NO",
        ),
    ]
    width = max(len(row[0]) for row in chain_rows)
    print(f"\n| {'chain of tops':<{width}} |   median |   target | ok? |")
    print(f"|{'-' * (width + 2)}|---------:|---------:|:---:|")
    for label, figure, limit, met in chain_rows:
        print(f"| {label:<{width}} | {figure:>8} | {limit:>8} | {met:^3} |")


if __name__ == "__main__":
    main()
