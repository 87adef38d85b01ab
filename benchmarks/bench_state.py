"""Time one more turn on a short and on a 10,000-message take, and a 1,000-item update batch.

Three linked trackers from the bundled library: Health (a record with a top), Inventory (a list)
and Weather (a record with choices). One turn is what a simulated reply costs the core: add a user
message, begin the turn (which reloads the linked trackers through the strict decoder, TR-25),
one update call, commit. Its cost must not grow with the length of the history.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from trackerkit import Chat, Scene, apply_tracker_updates, decode_tracker
from trackerkit.scene import Prompting

_LIBRARY = Path(__file__).resolve().parent.parent / "data" / "trackers"
_IDS = ("health", "inventory", "weather")
_SKIES = ("clear", "overcast", "rain", "storm", "fog")


def _pieces() -> dict[str, Any]:
    return {i: orjson.loads((_LIBRARY / f"{i}.json").read_bytes()) for i in _IDS}


def _chat() -> Chat:
    scene = Scene(id="bench", title="Bench", prompting=Prompting(trackers=list(_IDS)))
    return Chat(scene, _pieces())


def _updates(n: int) -> list[dict[str, Any]]:
    return [
        {"tracker": "Health", "set": {"hp": n % 31}},
        {"tracker": "Inventory", "row": f"item {n % 40}", "set": {"qty": n % 7 + 1}},
        {"tracker": "Weather", "set": {"sky": _SKIES[n % 5], "temperature": n % 30}},
    ]


def _turn(chat: Chat, n: int) -> None:
    chat.add_user("And then?")
    turn = chat.begin_turn()
    turn.call({"updates": _updates(n)})
    turn.commit("So it goes.")


def _grown(messages: int) -> Chat:
    chat = _chat()
    for n in range(messages // 2):
        _turn(chat, n)
    return chat


def _median_ms(run: Callable[[int], object], repeat: int) -> float:
    times = []
    for n in range(repeat):
        start = time.perf_counter()
        run(n)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _batch(n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            items.append({"tracker": "Health", "set": {"hp_max": 20 + i % 20, "hp": i % 45}})
        elif kind == 1:
            items.append({"tracker": "Weather", "set": {"sky": _SKIES[i % 5], "night": i % 2 == 0}})
        else:
            items.append(
                {"tracker": "Inventory", "row": f"Gem {i}", "set": {"qty": i, "weight": 1}}
            )
    return items


def main() -> None:
    """Print the turn cost at 100 and 10,000 messages, their ratio, and the 1,000-item batch."""
    short, long = _grown(100), _grown(10_000)
    for n in range(10):  # warm both before timing
        _turn(short, n)
        _turn(long, n)
    # Alternate the two, so a busy moment of the machine falls on both alike.
    times: dict[Chat, list[float]] = {short: [], long: []}
    for n in range(61):
        for chat in (short, long):
            start = time.perf_counter()
            _turn(chat, n)
            times[chat].append(time.perf_counter() - start)
    turn_short = statistics.median(times[short]) * 1000
    turn_long = statistics.median(times[long]) * 1000
    ratio = turn_long / turn_short

    trackers = [decode_tracker(piece) for piece in _pieces().values()]
    state = long.take.state_at()
    items = {"updates": _batch(1000)}
    result = apply_tracker_updates(trackers, state, items)
    assert result.ok, result.answer
    batch = _median_ms(lambda n: apply_tracker_updates(trackers, state, items), 31)

    def swipe(n: int) -> None:
        turn = long.begin_turn("swipe")
        turn.call({"updates": _updates(n)})
        turn.commit("Again.")

    rows = [
        ("one turn at ~100 messages", f"{turn_short:.3f}", ""),
        ("one turn at ~10,000 messages", f"{turn_long:.3f}", ""),
        ("ratio (10,000 / 100)", f"{ratio:.2f}", "<= 2"),
        ("1,000-item batch (apply_tracker_updates)", f"{batch:.3f}", "< 20 ms"),
        ("swipe the tip reply at 10,000 messages", f"{_median_ms(swipe, 21):.3f}", ""),
        ("panel read at 10,000 messages", f"{_median_ms(lambda n: long.panel(), 21):.3f}", ""),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"| {'operation':<{width}} | median ms | target  |")
    print(f"|{'-' * (width + 2)}|----------:|---------|")
    for name, value, target in rows:
        print(f"| {name:<{width}} | {value:>9} | {target:<7} |")


if __name__ == "__main__":
    main()
