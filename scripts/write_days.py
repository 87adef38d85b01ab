"""Write generated trace days an analyst can ask questions of, and say what they hold.

    .venv/bin/python scripts/write_days.py --out DIR [--days 4] [--seed 5]
    make days OUT=DIR [DAYS=4] [SEED=5]

The days go to `DIR/trace/YYYY-MM-DD.jsonl` (the days written are replaced, other files are left
alone). Sessions there have several turns each, one session fails again and again, and costs and
failures change from day to day; the same seed writes the same bytes. The summary reads the
days back: per day its events, turns, failed turns and known cost with the steps that carry no
cost, then the session with the most failed turns.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trackerkit import TrackerkitError
from trackerkit.trace import assemble_turns, cost_summary, costs_by_day, read_trace, write_days


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="write_days.py", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="the data folder; the days go to OUT/trace/"
    )
    parser.add_argument("--days", type=int, default=4, help="how many days (default 4)")
    parser.add_argument("--seed", type=int, default=5, help="the random seed (default 5)")
    return parser


def summary(files: list[Path]) -> list[str]:
    """The lines printed after writing: one per day file, the total, the most failing session."""
    events, errors = read_trace(files[0].parent, days=[p.stem for p in files])
    turns = assemble_turns(events)
    table = costs_by_day(turns)
    per_day = events.groupby("day").size()
    lines = [f"wrote {len(files)} day file{'s' if len(files) != 1 else ''} to {files[0].parent}:"]
    for row in table.itertuples(index=False):
        lines.append(
            f"  {row.day}.jsonl  {per_day.get(row.day, 0):>5} events  {row.turns:>3} turns"
            f"  {row.failed_turns:>2} failed  ${row.cost_usd:.4f} known cost"
            f"  ({row.steps_without_cost} of {row.steps} steps without cost)"
        )
    lines.append(f"cost: {cost_summary(turns)}")
    failed = turns[turns["status"] == "failed"].groupby("session").size()
    if len(failed):
        top = failed.sort_values(ascending=False, kind="stable")
        lines.append(
            f"most failed turns: session {top.index[0]} ({int(top.iloc[0])} of"
            f" {int((turns['session'] == top.index[0]).sum())} turns failed)"
        )
    else:
        lines.append("no turn failed")
    if errors:
        lines.append(f"{len(errors)} lines could not be read back; the first: {errors[0]}")
    folder = files[0].parent
    lines.append(
        f"read them with `trackerkit trace turns {files[0].stem} --dir {folder}`,"
        f" or in the trace explorer (`make run`) with the folder {folder}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        print(f"write_days.py: --out {args.out} is not a folder", file=sys.stderr)
        return 2
    try:
        files = write_days(args.out, days=args.days, seed=args.seed)
    except TrackerkitError as error:
        print(f"write_days.py: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"write_days.py: cannot write under {args.out}: {error}", file=sys.stderr)
        return 2
    print("\n".join(summary(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
