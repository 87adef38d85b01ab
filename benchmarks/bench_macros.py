"""Time the macro engine on a typical template and on hostile ones, and the token encoder."""

from __future__ import annotations

import functools

from benchmarks._timing import cold_load_encoding, median_ms
from trackerkit.errors import MacroLookupError
from trackerkit.macros import MacroHandler, context_handlers, render_macros
from trackerkit.tokens import DEFAULT_ENCODING, count_tokens, load_encoding

_STATE = {
    ("Health", "hp"): "25",
    ("Health", "hp_max"): "30",
    ("Mood", "mood"): "tense",
    ("Inventory", "rope", "count"): "2",
}

_TYPICAL = (
    "{{char}}: {{tracker::Health::hp}}/{{tracker::Health::hp_max}} hp, "
    "feels {{tracker::Mood::mood}}, carries {{tracker::Inventory::rope::count}} rope "
    "while {{user}} watches ({{tracker::{{char}}::hp}} by name)"
)

_BLOCK = (
    "### Trackers\nHealth: hp=25, hp_max=30\nInventory:\nrope: count=2, weight=1.5\n"
    "torch: count=1, weight=0.5\nMood: mood=tense, note=Vera keeps looking at the door"
)


def _tracker(args: tuple[str, ...]) -> str:
    try:
        return _STATE[args]
    except KeyError:
        raise MacroLookupError(f"nothing is linked at {'::'.join(args)}") from None


def _handlers() -> dict[str, MacroHandler]:
    handlers = context_handlers("Ann", "Health")
    handlers["tracker"] = _tracker
    handlers["double"] = lambda args: args[0] * 2
    handlers["big"] = lambda args: "y" * 5_000_000
    return handlers


def main() -> None:
    """Print one row per operation with its median time in milliseconds."""
    handlers = _handlers()
    hostile = {
        "exponential nesting, 30 levels": "{{double::" * 30 + "x" + "}}" * 30,
        "{{user}} x 1,000,000 (step budget)": "{{user}}" * 1_000_000,
        "handler writing 5,000,000 chars (ceiling)": "{{big}}",
        "1,000,000 plain characters + 1 macro": "{{user}}" + "z" * 1_000_000,
        "{{ x 1,000,000 (depth cap)": "{{" * 1_000_000,
        "one macro with 1,000,000 arguments": "{{user" + "::" * 1_000_000 + "}}",
    }
    rows: list[tuple[str, float]] = [
        ("typical template (7 macros)", median_ms(lambda: render_macros(_TYPICAL, handlers), 2000))
    ]
    for name, template in hostile.items():
        rows.append((name, median_ms(functools.partial(render_macros, template, handlers), 5)))
    rows.append((f"load {DEFAULT_ENCODING} (cold)", median_ms(cold_load_encoding, 3)))
    load_encoding(DEFAULT_ENCODING)
    rows.append(
        (
            f"count_tokens, 6-line block (warm, {DEFAULT_ENCODING})",
            median_ms(lambda: count_tokens(_BLOCK), 2000),
        )
    )
    width = max(len(name) for name, _ in rows)
    print(f"| {'operation':<{width}} | median ms |")
    print(f"|{'-' * (width + 2)}|----------:|")
    for name, ms in rows:
        print(f"| {name:<{width}} | {ms:9.3f} |")


if __name__ == "__main__":
    main()
