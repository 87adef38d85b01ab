"""Time the changes read (TR-43: one forward pass) and the history frame on long takes.

The take is built directly from messages and deltas (the writes the update tool would make), so
building a 10,000-message session takes a moment rather than a minute.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from pathlib import Path

from benchmarks._timing import collected_median_ms, interleaved_ms
from trackerkit.changes import tracker_changes_between
from trackerkit.chat import Chat
from trackerkit.scene import Scene
from trackerkit.state import Delta, Message, Version
from trackerkit.views.frames import history_frame

TRACKERS = Path(__file__).resolve().parent.parent / "data" / "trackers"
#: Targets from issue 5: the read over 10,000 messages, and how 10x the messages may scale.
TARGET_MS = 300.0
TARGET_RATIO = 12.0
_ROWS = ["rope", "torch", "rations", "lantern", "map", "coin", "dagger", "cloak", "flint", "salve"]


def build(messages: int, seed: int = 7) -> Chat:
    """A chat on health (record), inventory (list) and quest (record) with `messages` live messages.

    Every second message is a reply; each reply writes one to three of the trackers, some replies
    have a second version, and every tenth carries a person's edit.
    """
    scene = Scene(
        id="bench", title="Bench", prompting={"trackers": ["health", "inventory", "quest"]}
    )
    chat = Chat(scene, TRACKERS)
    rng = random.Random(seed)
    take = chat.take
    for index in range(messages):
        if index % 2 == 0:
            take.append(Message(take.new_id(), "user", [Version("go")]))
            continue
        deltas = [Delta("tracker-record:health", "hp", rng.randint(0, 30))]
        if rng.random() < 0.6:
            row = {
                "qty": rng.randint(0, 9),
                "weight": 1,
                "equipped": rng.random() < 0.5,
                "notes": "",
            }
            deltas.append(Delta("tracker-list:inventory", rng.choice(_ROWS), row))
        if rng.random() < 0.3:
            deltas.append(Delta("tracker-record:quest", "gold", rng.randint(0, 500)))
        versions = [Version("reply", tuple(deltas))]
        if rng.random() < 0.1:
            versions.append(
                Version("swipe", (Delta("tracker-record:health", "hp", rng.randint(0, 30)),))
            )
        edits = [Delta("tracker-record:health", "mood", "tense")] if index % 20 == 1 else []
        take.append(Message(take.new_id(), "assistant", versions, len(versions) - 1, edits))
    return chat


def _changes(chat: Chat) -> Callable[[], object]:
    first = chat.take.messages[0].id
    return lambda: tracker_changes_between(chat, None, first)


def main() -> None:
    small, large = build(1_000), build(10_000)
    times = interleaved_ms({"small": _changes(small), "large": _changes(large)}, 11)
    small_ms, large_ms = (statistics.median(times[name]) for name in ("small", "large"))
    frame_ms = collected_median_ms(lambda: history_frame(large), 3)
    rows = len(history_frame(large))
    ratio = large_ms / small_ms
    table = [
        ("changes, 1,000 messages x 3 trackers", f"{small_ms:.1f}", "-"),
        ("changes, 10,000 messages x 3 trackers", f"{large_ms:.1f}", f"< {TARGET_MS:.0f}"),
        ("scaling ratio (10x messages)", f"{ratio:.1f}x", f"<= {TARGET_RATIO:.0f}x"),
        (f"history_frame, 10,000 messages ({rows:,} rows)", f"{frame_ms:.1f}", "-"),
    ]
    width = max(len(row[0]) for row in table)
    print(f"| {'operation':<{width}} | median ms | target |")
    print(f"|{'-' * (width + 2)}|-----------|--------|")
    for name, ms, target in table:
        print(f"| {name:<{width}} | {ms:>9} | {target:<6} |")
    verdict = "ok" if large_ms < TARGET_MS and ratio <= TARGET_RATIO else "OVER TARGET"
    print(f"\nchanges read: {verdict}")


if __name__ == "__main__":
    main()
