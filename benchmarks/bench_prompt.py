"""Time what a turn of the typical scene costs to prepare: block, tool, token counts (issue 4).

A turn renders the `### Trackers` block, builds the `update_trackers` tool and counts both in
tokens. The target is under 2 ms per turn once warm; loading the encoding (once per process)
is reported on its own row.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks._timing import cold_load_encoding, median_ms
from trackerkit.prompt import PromptContext, preview_prompt, render_trackers_block
from trackerkit.scene import load_linked, load_scene, source_for
from trackerkit.state import State
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens, count_tool_tokens, load_encoding
from trackerkit.tool import update_trackers_tool
from trackerkit.update import slot_of

_DATA = Path(__file__).resolve().parent.parent / "data"


def main() -> None:
    """Print one row per operation: its median in milliseconds and its target."""
    scene = load_scene(_DATA / "scenes" / "typical.json")
    trackers = load_linked(scene, source_for(_DATA / "trackers")).trackers
    context = PromptContext(scene.user, scene.char)
    health, pack, _ = trackers
    # Mid-story: hurt, tense, carrying a few things.
    state: State = {
        slot_of(health): {"hp": 17, "mood": "tense"},
        slot_of(pack): {"Rope": {"qty": 1}, "Torch": {"qty": 2, "worn": True}, "Bread": {}},
    }

    def turn() -> None:
        block = render_trackers_block(trackers, state, context)
        tool = update_trackers_tool(trackers)
        count_tokens(block.text or "")
        count_tool_tokens(tool.name, tool.description, tool.parameters)

    rows = [
        (
            f"load {DEFAULT_ENCODING} (cold, once per process)",
            median_ms(cold_load_encoding, 3),
            "-",
        ),
    ]
    load_encoding(DEFAULT_ENCODING)
    turn()  # warm
    rows += [
        ("turn: block + tool + token counts (warm)", median_ms(turn, 2000), "< 2"),
        (
            "block only (3 trackers, 3 rows)",
            median_ms(lambda: render_trackers_block(trackers, state, context), 2000),
            "-",
        ),
        (
            "preview: + card, no-meanings and anyOf costs",
            median_ms(lambda: preview_prompt(trackers, scene.card, state, context), 1000),
            "-",
        ),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"encoding: {DEFAULT_ENCODING}")
    print(f"| {'operation':<{width}} | median ms | target ms |")
    print(f"|{'-' * (width + 2)}|----------:|----------:|")
    for name, ms, target in rows:
        print(f"| {name:<{width}} | {ms:9.3f} | {target:>9} |")


if __name__ == "__main__":
    main()
