"""Time `parse_document` on hostile 2 MB texts that fall through JSON and YAML to JSON5, against
orjson reading 2 MB of valid JSON in the same rounds (trial nu4: the pure-Python JSON5 reader took
172 s to refuse the first of them).

Prints a table (text, what came of it, median ms, the median per-round ratio to the JSON figure);
never asserts on time: `python -m benchmarks document`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import orjson

from benchmarks._timing import interleaved_ms
from trackerkit.errors import ImportRefusedError
from trackerkit.formats.document import parse_document

_SIZE = 2 * 1024 * 1024

_VALID_JSON = orjson.dumps(
    [{"name": f"field {i}", "type": "number", "min": 0, "max": i} for i in range(_SIZE // 55)]
).decode()

#: Texts of about 2 MB, each read or refused by the JSON5 reading after JSON and YAML.
_TEXTS = {
    "{a:1,a:1,… then @ (trial nu4)": "{" + "a:1," * (_SIZE // 4) + "@",
    "[1,1,… then @ (past 1M values)": "[" + "1," * (_SIZE // 2) + "@",
    "99 levels, again and again": "[" + ("[" * 99 + "]" * 99 + ",") * (_SIZE // 200) + "x",
    "unclosed string": "{a: '" + "x" * _SIZE,
    "unclosed comment": "{/*" + "x" * _SIZE,
    "valid JSON5 with comments": "// a preset\n["
    + "{name: 'field', type: 'number', min: 0,}, // why\n" * (_SIZE // 50)
    + "]",
}


def _outcome(text: str) -> str:
    try:
        found = parse_document(text, "bench.json5")
    except ImportRefusedError as error:
        return "refused: " + str(error).removeprefix("bench.json5: ")[:40]
    return f"read ({type(found).__name__})"


def _parse(text: str) -> Callable[[], object]:
    def run() -> object:
        try:
            return parse_document(text, "bench.json5")
        except ImportRefusedError:
            return None

    return run


def main() -> None:
    """Print one row per text with its median time and its ratio to orjson on valid JSON."""
    runs = {"orjson, valid 2 MB JSON": lambda: orjson.loads(_VALID_JSON)}
    runs |= {name: _parse(text) for name, text in _TEXTS.items()}
    times = interleaved_ms(runs, 3)
    floor = times["orjson, valid 2 MB JSON"]
    width = max(len(name) for name in runs)
    print(f"| {'text':<{width}} | {'outcome':<50} | median ms | x orjson |")
    print(f"|{'-' * (width + 2)}|{'-' * 52}|----------:|---------:|")
    for name, ms in times.items():
        outcome = "read" if name not in _TEXTS else _outcome(_TEXTS[name])
        ratio = statistics.median(t / f for t, f in zip(ms, floor, strict=True))
        print(f"| {name:<{width}} | {outcome:<50} | {statistics.median(ms):9.1f} | {ratio:8.1f} |")


if __name__ == "__main__":
    main()
