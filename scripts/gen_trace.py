"""Regenerate the bundled sample trace days in data/trace (reproducible from the seed).

.venv/bin/python scripts/gen_trace.py [--seed 3] [--data-dir data]
"""

from __future__ import annotations

import argparse

from trackerkit.trace.sample import write_sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--data-dir", default="data")
    args = parser.parse_args()
    for path in write_sample(args.data_dir, seed=args.seed):
        print(path)


if __name__ == "__main__":
    main()
