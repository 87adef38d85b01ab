"""The harness's numbers: tidy frames of turns and fields, and summaries per run and per variant.

Everything here is a pure function of two frames:

- the **fields** frame, one row per run x turn x field (`FieldScore`'s columns beside the run's
  keys: variant, scenario, run, mode, step, turn);
- the **turns** frame, one row per run x turn (`TurnRecord`'s columns).

Definitions (each over the scored turns: the model's steps whose scenario step has an `expect`,
or `expect_no_call`; a quiet turn without `expect` is expected to leave the state the scenario
says it starts from, since nothing should change):

- joint goal accuracy: share of turns whose whole state equals the expected one;
- slot accuracy: share of fields (list rows' presence left out) equal to the expected value;
- within-tolerance rate: share of the expected numbers (number fields) within tolerance: within
  the run's tolerance (default 1) of the expected value, or, for a field with both `min` and
  `max`, within a tenth of its range when that is less (so a 0-1 field is held to 0.1, not to a
  tolerance as wide as the field); a number the model left out is not within; the table names
  the tolerance;
- numbers' MAE: mean absolute error over the expected numbers the model gave a value for, and
  beside it **numbers missing**: the share of the expected numbers it left without one (its row
  never added, or the value empty). The two split within-tolerance's numbers (an expected `null` aside): a missing number
  has no error to average, so forgetting a row can lower the MAE, never the missing share (the
  table's rows say so: `number_mae (over the numbers given)`, then
  `numbers_missing (row or value left out)`);
- row F1: keyed lists' row sets by key (name, case-folded), pooled over turns; its interval a
  seeded bootstrap over the turns with a row expected or found (`bootstrap_ratio`);
- quantity accuracy: share of list rows' number fields right, every one of them (a weight as
  well as a qty: the tracker model marks no field as a quantity), so the table's row reads
  `quantity_accuracy (every number field of a list row)`;
- change precision and recall: a field changed rightly (it should change, it changed, and to the
  expected value) over the fields that changed, and over the fields that should have changed. A
  field **should change** when the scenario changes it on that turn: its expected value differs
  from the scenario's state before the turn, which is the scene's start with each `expect` put
  over it, moved on a step without `expect` (a turn the scenario does not check, a person's
  edit) by what the scene's own scripted calls changed there (their scripted play: the gold
  session in forced mode, one played alongside in free mode); never the model's own state. So in
  free mode one early miss is one missed change, every variant and mode has the same
  denominator, and a change made on a turn without `expect` is not charged to the next turn that
  has one (a model right on every turn has change recall 1). A field **changed** when the
  model's turn changed it from the state that turn started from;
- no-call correctness: share of `expect_no_call` turns with no update call and no call to a
  tool the turn did not offer (a misspelt `update_tracker` is an attempt, not a quiet turn);
- refused-batch rate: refused update calls over all update calls;
- clamps, retries, prompt and completion tokens, calls to tools not offered (`unknown_calls`):
  sums; latency: mean seconds per turn.

A turn that **failed** (the model server could not be reached, timed out, or answered something
that is not a chat completion: `TurnRecord.failed` says what) is not an answer: no metric above
counts it, `failed_turns` (per run) and `failed_turn_rate` (per variant) count it, and
`failures` lists each variant's count with the first reason. A variant whose every turn failed
has no metric to show (n/a), rather than the scores of a model that changed nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd

from trackerkit.evaluation.intervals import Interval, bootstrap_mean, bootstrap_ratio, wilson
from trackerkit.evaluation.scoring import FieldScore

__all__ = [
    "RUN_KEYS",
    "TurnRecord",
    "answered",
    "failures",
    "field_frame",
    "pass_at_k",
    "summarize_runs",
    "summarize_variants",
    "turn_frame",
    "unscored",
]

#: The columns naming one run.
RUN_KEYS = ["variant", "mode", "scenario", "run"]
#: The columns naming one turn of one run.
TURN_KEYS = ["variant", "scenario", "run", "mode", "step", "turn"]


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One scored turn of one run: whether its state was right, and what it cost."""

    variant: str
    scenario: str
    run: int
    mode: str
    step: int
    turn: int
    kind: str
    joint: bool
    expect_no_call: bool
    expected_calls: bool
    update_calls: int
    refused_calls: int
    clamps: int
    retries: int
    tokens_in: int
    tokens_out: int
    latency_s: float
    failed: str = ""
    #: Calls to a tool the turn did not offer (a misspelt `update_tracker`, an invented tool).
    unknown_calls: int = 0


_FIELD_COLUMNS = [f.name for f in fields(FieldScore)]
_TURN_COLUMNS = [f.name for f in fields(TurnRecord)]


def turn_frame(records: Iterable[TurnRecord]) -> pd.DataFrame:
    """The turns frame: one row per run x turn."""
    rows = list(records)
    return pd.DataFrame({c: [getattr(r, c) for r in rows] for c in _TURN_COLUMNS})


def field_frame(rows: Iterable[tuple[Sequence[Any], FieldScore]]) -> pd.DataFrame:
    """The fields frame from (turn keys, score) pairs; the keys in `TURN_KEYS` order."""
    pairs = list(rows)
    columns: dict[str, Any] = {k: [p[0][i] for p in pairs] for i, k in enumerate(TURN_KEYS)}
    for name in _FIELD_COLUMNS:
        columns[name] = [getattr(p[1], name) for p in pairs]
    columns["correct"] = pd.array(columns["correct"], dtype="boolean")
    columns["within_tolerance"] = pd.array(columns["within_tolerance"], dtype="boolean")
    columns["abs_error"] = pd.array(columns["abs_error"], dtype=float)
    return pd.DataFrame(columns)


def unscored(turns: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """`cells` with the scores of failed turns' fields blank (`correct`, `within_tolerance` and
    `abs_error` null): a failed turn is not an answer, so its fields have no score, in the frame
    and in the Parquet file alike (an attack trial: averaging the file's `correct` gave 0.883
    where the table's slot accuracy was 0.926). What was expected and found stays."""
    failed = turns["failed"] != ""
    if not failed.any() or cells.empty:
        return cells
    lost = pd.MultiIndex.from_frame(turns.loc[failed, TURN_KEYS])
    blank = pd.MultiIndex.from_frame(cells[TURN_KEYS]).isin(lost)
    cells = cells.copy()
    cells.loc[blank, ["correct", "within_tolerance"]] = pd.NA
    cells.loc[blank, "abs_error"] = float("nan")
    return cells


def answered(turns: pd.DataFrame, cells: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The turns the model answered (not `failed`) and their fields' rows."""
    failed = turns["failed"] != ""
    if not failed.any():
        return turns, cells
    lost = pd.MultiIndex.from_frame(turns.loc[failed, TURN_KEYS])
    kept = ~pd.MultiIndex.from_frame(cells[TURN_KEYS]).isin(lost)
    return turns[~failed], cells[kept]


def failures(turns: pd.DataFrame) -> pd.DataFrame:
    """One row per variant and mode with failed turns: how many of its turns, the retries spent
    on them (a failed turn is in no metric, `retries_per_turn` included), and the first why."""
    rows = []
    columns = ["variant", "mode", "failed_turns", "turns", "retries", "first_reason"]
    for (variant, mode), group in turns.groupby(["variant", "mode"], sort=False):
        lost = group["failed"] != ""
        failed = group.loc[lost, "failed"]
        if len(failed):
            rows.append(
                {
                    "variant": variant,
                    "mode": mode,
                    "failed_turns": len(failed),
                    "turns": len(group),
                    "retries": int(group.loc[lost, "retries"].sum()),
                    "first_reason": str(failed.iloc[0]),
                }
            )
    return pd.DataFrame(rows, columns=columns)


def _share(mask: pd.Series, within: pd.Series) -> tuple[int, int]:
    """(successes, trials) of `mask` over the rows where `within` holds."""
    chosen = mask[within.fillna(False).astype(bool)]
    return int(chosen.fillna(False).astype(bool).sum()), len(chosen)


def _missing(cells: pd.DataFrame) -> pd.Series:
    """The expected numbers the model left without a value (its row never added, say)."""
    return (cells["kind"] == "number") & (cells["expected"] != "null") & (cells["found"] == "null")


def _counts(turns: pd.DataFrame, cells: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Each proportion of the module's list as (successes, trials); `_`-named ones are shown
    elsewhere than in the list's order."""
    slots = cells["kind"] != "row"
    numbers = cells["kind"] == "number"
    rows = cells["kind"] == "row"
    right_change = cells["should_change"] & cells["changed"] & cells["correct"]
    return {
        "joint_accuracy": _share(turns["joint"], pd.Series(True, index=turns.index)),
        "slot_accuracy": _share(cells["correct"], slots),
        "within_tolerance": _share(cells["within_tolerance"], numbers),
        "quantity_accuracy": _share(cells["correct"], numbers & cells["in_list"]),
        "change_precision": _share(right_change, cells["changed"]),
        "change_recall": _share(right_change, cells["should_change"]),
        "no_call_correctness": _share(
            (turns["update_calls"] == 0) & (turns["unknown_calls"] == 0), turns["expect_no_call"]
        ),
        "refused_batch_rate": (
            int(turns["refused_calls"].sum()),
            int(turns["update_calls"].sum()),
        ),
        "_row_tp": _share(rows & (cells["found"] == "true"), rows & (cells["expected"] == "true")),
        "_row_fp": _share(cells["found"] == "true", rows & (cells["expected"] == "false")),
        "_numbers_missing": _share(_missing(cells), numbers),
    }


def _row_f1(counts: dict[str, tuple[int, int]]) -> float:
    tp, expected = counts["_row_tp"]
    fp, _ = counts["_row_fp"]
    fn = expected - tp
    return 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else math.nan


def _row_f1_interval(cells: pd.DataFrame, seed: int) -> Interval:
    """Row F1 pooled over turns, with a seeded bootstrap over the turns with a row expected or found.

    F1 is `2tp / (2tp + fp + fn)`, a ratio of sums, so each turn is drawn whole with its own
    true positives, false positives and misses (its rows are not independent of each other).
    """
    rows = cells[cells["kind"] == "row"]
    expected, found = rows["expected"] == "true", rows["found"] == "true"
    per_turn = (
        pd.DataFrame(
            {
                "tp": expected & found,
                "fp": (rows["expected"] == "false") & found,
                "fn": expected & ~found,
            }
        )
        .groupby([rows[k] for k in TURN_KEYS], sort=False)
        .sum()
    )
    doubled = 2 * per_turn["tp"]
    counted = doubled + per_turn["fp"] + per_turn["fn"]
    # A turn of true negatives alone is in no F1: it is not drawn.
    return bootstrap_ratio(doubled[counted > 0].tolist(), counted[counted > 0].tolist(), seed=seed)


def summarize_runs(turns: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per run (variant, mode, scenario, run): every metric of the module's list."""
    out = []
    scored_turns, scored_cells = answered(turns, cells)
    cell_groups = dict(iter(scored_cells.groupby(RUN_KEYS, sort=False)))
    turn_groups = dict(iter(scored_turns.groupby(RUN_KEYS, sort=False)))
    for keys, every in turns.groupby(RUN_KEYS, sort=True):
        group = turn_groups.get(keys, turns.iloc[0:0])
        mine = cell_groups.get(keys, cells.iloc[0:0])
        counts = _counts(group, mine)
        numbers = mine.loc[mine["kind"] == "number", "abs_error"]
        row: dict[str, Any] = dict(zip(RUN_KEYS, keys, strict=True))
        row["turns"] = len(every)
        row.update(
            {k: (s / n if n else math.nan) for k, (s, n) in counts.items() if not k.startswith("_")}
        )
        row["row_f1"] = _row_f1(counts)
        row["number_mae"] = float(numbers.mean()) if numbers.notna().any() else math.nan
        missing, expected = counts["_numbers_missing"]
        row["numbers_missing"] = missing / expected if expected else math.nan
        row["passed"] = len(group) == len(every) and bool(group["joint"].all())
        for total in ("clamps", "retries", "tokens_in", "tokens_out", "unknown_calls"):
            row[total] = int(group[total].sum())
        row["latency_s"] = float(group["latency_s"].mean()) if len(group) else math.nan
        row["failed_turns"] = len(every) - len(group)
        out.append(row)
    return pd.DataFrame(out)


def pass_at_k(turns: pd.DataFrame) -> tuple[int, int]:
    """(scenarios whose every scored turn was answered and jointly right in every run, scenarios
    with an answered turn)."""
    right = turns["joint"].astype(bool) & (turns["failed"] == "")
    by_scenario = pd.DataFrame({"right": right, "answered": turns["failed"] == ""}).groupby(
        turns["scenario"]
    )
    tried = by_scenario["answered"].any()
    passed = by_scenario["right"].all() & tried
    return int(passed.sum()), int(tried.sum())


def summarize_variants(turns: pd.DataFrame, cells: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """One row per variant x mode x metric: estimate, low, high and n (Wilson for shares, a seeded
    bootstrap for means and for row F1).

    `pass^k` is over scenarios, k being the runs each scenario had.
    """
    out = []
    scored_turns, scored_cells = answered(turns, cells)
    for (variant, mode), every in turns.groupby(["variant", "mode"], sort=False):
        group = scored_turns[(scored_turns["variant"] == variant) & (scored_turns["mode"] == mode)]
        mine = scored_cells[(scored_cells["variant"] == variant) & (scored_cells["mode"] == mode)]

        def add(
            metric: str, interval: Interval, n: int, variant: object = variant, mode: object = mode
        ) -> None:
            out.append(
                {
                    "variant": variant,
                    "mode": mode,
                    "metric": metric,
                    "estimate": interval.estimate,
                    "low": interval.low,
                    "high": interval.high,
                    "n": n,
                }
            )

        counts = _counts(group, mine)
        for metric, (s, n) in counts.items():
            if not metric.startswith("_"):
                add(metric, wilson(s, n), n)
        _, expected = counts["_row_tp"]
        fp, _ = counts["_row_fp"]
        add("row_f1", _row_f1_interval(mine, seed), expected + fp)
        k = int(every.groupby("scenario")["run"].nunique().min()) if len(every) else 0
        add(f"pass^{k}", wilson(*pass_at_k(every)), pass_at_k(every)[1])
        errors = mine.loc[mine["kind"] == "number", "abs_error"].dropna()
        add("number_mae", bootstrap_mean(errors.tolist(), seed=seed), len(errors))
        missing, expected = counts["_numbers_missing"]
        add("numbers_missing", wilson(missing, expected), expected)
        for column in (
            "latency_s",
            "tokens_in",
            "tokens_out",
            "retries",
            "clamps",
            "unknown_calls",
        ):
            values = group[column].astype(float).tolist()
            add(f"{column}_per_turn", bootstrap_mean(values, seed=seed), len(values))
        failed = int((every["failed"] != "").sum())
        add("failed_turn_rate", wilson(failed, len(every)), len(every))
    return pd.DataFrame(out, columns=["variant", "mode", "metric", "estimate", "low", "high", "n"])
