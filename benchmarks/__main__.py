"""Run every `benchmarks/bench_*.py` (each has a `main()` that prints its table)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> None:
    only = set(sys.argv[1:])
    folder = Path(__file__).parent
    for module in sorted(pkgutil.iter_modules([str(folder)]), key=lambda m: m.name):
        if not module.name.startswith("bench_"):
            continue
        if only and module.name.removeprefix("bench_") not in only and module.name not in only:
            continue
        print(f"\n## {module.name}\n", flush=True)
        importlib.import_module(f"benchmarks.{module.name}").main()


if __name__ == "__main__":
    main()
