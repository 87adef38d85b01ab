"""`trackerkit eval`: score a model's tracker updates on scenarios, variants side by side."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from trackerkit._pieces import regular_target
from trackerkit.cli import (
    add_data_option,
    add_model_options,
    check_model_options,
    check_out_file,
    held_trace_failures,
    model_options_given,
    non_negative_number,
    positive_int,
    positive_number,
    refuse_tracker_for_scene,
    say_trace,
    say_unread_workspace,
    scene_and_trackers,
    trace_folder,
)
from trackerkit.errors import TrackerkitError

__all__ = ["register"]

#: `--timeout`'s default: seconds per model call, retries included (a `Variant`'s too).
_TIMEOUT = 60.0

#: The progress bar on a terminal: turns played of the total, and the time left.
_PROGRESS = "{n_fmt} of {total_fmt} turns played |{bar}| {elapsed} gone, {remaining} left"


def _runs(text: str) -> int:
    """`--runs`: 1 to `MAX_RUNS` (every run's turns are kept in memory); argparse's `type`."""
    from trackerkit.evaluation.harness import MAX_RUNS

    value = positive_int(text)
    if value > MAX_RUNS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is too many; give 1 to {MAX_RUNS} (every run's turns are kept in memory)"
        )
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `eval` command."""
    command = sub.add_parser(
        "eval",
        help="score a model's tracker updates on scenarios (variants side by side)",
        description=(
            "Play scenarios (scene files whose steps carry `expect`) with a model, or with each "
            "variant of --variants FILE, --runs times, and score every turn against the expected "
            "state: joint goal and slot accuracy, numbers within tolerance, numbers' mean error "
            "over the numbers the model gave, and the share it left out (numbers_missing: a row "
            "never added, say), list rows' F1 and the accuracy of their number fields "
            "(quantity_accuracy: every one, a weight as well as a qty), changes, no-call turns, "
            "refused batches, clamps, retries, tokens and latency, each with a 95% interval. "
            "--model openai needs --model-name (the model the server knows; it names the "
            "column). Every run's turns go to the trace journal DATA/trace/YYYY-MM-DD.jsonl "
            "unless --no-trace (DATA as for simulate)."
        ),
    )
    command.add_argument("scenarios", metavar="SCENARIO", nargs="+", type=Path, help="scene files")
    # The same model options as `simulate`, defined once (no default model name: one that fits
    # every server does not exist; `gpt-4o-mini` was asked of a local server).
    add_model_options(command)
    command.add_argument(
        "--variants",
        metavar="FILE",
        type=Path,
        help="a JSON list of variants (name, model, base_url, model_name, api_key_env, timeout, "
        "trackers, tool_style lines|anyOf|strict|gemini, protocol); replaces the model options "
        "and --timeout: given with it, they are not used, and said so",
    )
    command.add_argument(
        "--runs",
        metavar="K",
        type=_runs,
        default=1,
        help="repeats of each scenario, 1 to 1000 (default 1)",
    )
    command.add_argument(
        "--mode",
        choices=["free", "forced"],
        default="free",
        help=(
            "free: errors carry from turn to turn; forced: each turn starts from the expected "
            "state (default: free)"
        ),
    )
    command.add_argument(
        "--concurrency",
        metavar="N",
        type=positive_int,
        default=1,
        help="runs in flight at once (default 1)",
    )
    command.add_argument(
        "--out",
        metavar="FILE",
        type=Path,
        help="write the results to this Parquet file (its name ends in .parquet)",
    )
    command.add_argument(
        "--trackers",
        metavar="DIR",
        type=Path,
        help="the tracker folder (default: trackers/ beside the scenes' folder)",
    )
    command.add_argument(
        "--tolerance",
        metavar="N",
        type=non_negative_number,
        default=1.0,  # scoring.DEFAULT_TOLERANCE (not imported: the CLI starts without pandas)
        help="numbers this close to the expected value count as within tolerance (default "
        "%(default)g; a field with min and max is held to a tenth of its range when that is "
        "less, so a 0-1 field to 0.1); the results name the tolerance used",
    )
    command.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_number,
        default=_TIMEOUT,
        help="seconds per model call, retries included (default %(default)g)",
    )
    add_data_option(command)
    command.add_argument(
        "--timezone",
        metavar="TZ",
        help="the IANA time zone naming the trace day file (default: $ASSISTANT_TIMEZONE, else UTC)",
    )
    command.add_argument("--no-trace", action="store_true", help="write no trace events")
    command.set_defaults(func=_eval)


def _check_parquet_name(out: Path) -> None:
    """Refuse an --out whose name says another format: the results are written as Parquet only
    (`results.csv` held a Parquet file)."""
    if out.suffix.lower() != ".parquet":
        raise TrackerkitError(
            f"--out {out}: the results are written as Parquet; give a file name ending in "
            f".parquet, such as {out.with_suffix('.parquet')}"
        )


def _say_replaced(args: argparse.Namespace) -> None:
    """Say the options `--variants` replaces that were given all the same: each variant names
    its own model, key and timeout, so they are not used (`--model openai` was refused for a
    missing `--base-url` the variants did not need)."""
    unused = model_options_given(args) + (["--timeout"] if args.timeout != _TIMEOUT else [])
    if unused:
        print(
            f"trackerkit: --variants replaces the model options; {', '.join(unused)} "
            f"{'is' if len(unused) == 1 else 'are'} not used (each variant in "
            f"{args.variants} names its own)",
            file=sys.stderr,
        )


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None]]:
    """The turns played of the total on standard error, as the notebook's bar words them: on a
    terminal only, cleared at the end; yields the `progress` callback `evaluate` takes."""
    from tqdm import tqdm

    with tqdm(unit="turn", disable=None, leave=False, file=sys.stderr, bar_format=_PROGRESS) as bar:

        def advance(done: int, total: int) -> None:
            # The total is drawn from the first turn on, and the last turn is drawn: a fast run
            # would skip both between tqdm's redraws.
            first = bar.total is None
            bar.total = total
            bar.update(done - bar.n)
            if first or done == total:
                bar.refresh()

        yield advance


def _eval(args: argparse.Namespace) -> int:
    from trackerkit.evaluation.harness import evaluate
    from trackerkit.evaluation.page import variations
    from trackerkit.evaluation.variants import Variant, read_variants
    from trackerkit.simulate import time_zone

    zone = time_zone(args.timezone)
    # Everything that can be refused is refused before the first run plays.
    if args.out is not None:
        check_out_file(args.out)
        regular_target(args.out)  # what the final write refuses (a device, a FIFO), refused now
        _check_parquet_name(args.out)
    check_model_options(args)
    if args.variants is not None:
        _say_replaced(args)
    for scenario in args.scenarios:
        if args.variants is None:
            scene_and_trackers(scenario, args.trackers, "eval", turns=True)
        else:  # a variant may name its own tracker folder: the harness checks those
            refuse_tracker_for_scene(scenario, "eval")
    if args.variants is not None:
        variants = read_variants(args.variants)
    else:
        model = (
            Variant(
                name=args.model_name,
                model="openai",
                base_url=args.base_url,
                model_name=args.model_name,
                api_key_env=args.api_key_env,
                timeout=args.timeout,
            )
            if args.model == "openai"
            else Variant(name="scripted")
        )
        # Named as the evaluate page names it, so a text run's column says so (`scripted · text`).
        variants = variations([model], [args.protocol], ["lines"])
    # A variant naming its own tracker folder reads that one; the others, each scene's own.
    named = [v.trackers for v in variants if v.trackers is not None]
    say_unread_workspace(
        args.scenarios,
        args.trackers,
        data=args.data,
        scenes=len(named) < len(variants),
        folders=named,
    )
    trace = None
    if not args.no_trace:
        from trackerkit.trace import TraceWriter

        trace = TraceWriter(trace_folder(args.data), timezone=zone)
    started = datetime.now(UTC)
    try:
        with held_trace_failures() as reasons, _progress() as advance:
            results = evaluate(
                args.scenarios,
                variants,
                runs=args.runs,
                mode=args.mode,
                concurrency=args.concurrency,
                trackers=args.trackers,
                trace=trace,
                tolerance=args.tolerance,
                progress=advance,
            )
    finally:
        if trace is not None:
            trace.close()
    traced = say_trace(trace, started, datetime.now(UTC), reasons) if trace is not None else True
    for line in [*results.notes, *results.failure_lines()]:
        print(f"trackerkit: {line}", file=sys.stderr)
    print(results.table().to_string())
    if args.out is not None:
        print(f"trackerkit: results written to {results.to_parquet(args.out)}", file=sys.stderr)
    # A variant that answered no turn has no scores: a script must not take that for a pass.
    # Nor a trace asked for and not written.
    failures = results.failures()
    return 1 if bool((failures["failed_turns"] == failures["turns"]).any()) or not traced else 0
