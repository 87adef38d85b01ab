"""An evaluation's results: the turns and fields frames, their summaries, and Parquet.

One Parquet file holds everything, tidy: one row per run x turn x field, each row carrying its
turn's columns (prefixed `turn_` where a name would clash), so DuckDB or pandas can read it
alone; `read_results` splits it back into the two frames exactly. A failed turn's field rows
keep what was expected and found but no score (`correct`, `within_tolerance`, `abs_error` null),
so the mean of `correct` over a file is the table's slot accuracy (rows of kind `row` aside).
The tolerance the numbers were scored with is kept in the file's metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs, no py.typed
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from trackerkit._pieces import replace_atomically
from trackerkit.evaluation.metrics import (
    TURN_KEYS,
    TurnRecord,
    failures,
    summarize_runs,
    summarize_variants,
)
from trackerkit.evaluation.scoring import DEFAULT_TOLERANCE, FieldScore

__all__ = ["EvaluationResults", "read_results", "shown_estimate", "shown_number"]

_TURN_ONLY = [f.name for f in fields(TurnRecord) if f.name not in TURN_KEYS]
_FIELD_ONLY = [f.name for f in fields(FieldScore)]
#: Marks the row kept for a turn that scored no field, so the turn survives the round trip.
_NO_FIELD = "none"
_FORMAT = b"trackerkit.evaluation/1"
_TOLERANCE = b"trackerkit.tolerance"


def shown_number(value: float) -> str:
    """A metric's value as the table shows it: three significant digits (`0.82`, `27`,
    `0.0119`), and from 100 up a whole number with thousands separators (`1,164`, where `.3g`
    gave `1.16e+03`); `n/a` for NaN."""
    if value != value:
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def shown_estimate(estimate: float, low: float, high: float) -> str:
    """An estimate and its interval as the table shows them, `0.82 [0.75, 0.88]`; the estimate
    alone when the interval is a point (or NaN), `n/a` when there is no estimate."""
    if estimate != estimate:
        return "n/a"
    if low == high or low != low or high != high:
        return shown_number(estimate)
    return f"{shown_number(estimate)} [{shown_number(low)}, {shown_number(high)}]"


@dataclass(frozen=True, slots=True)
class EvaluationResults:
    """The turns frame (one row per run x turn) and the fields frame (one per run x turn x field).

    `tolerance` is the one the numbers were scored with (see `trackerkit.evaluation.scoring`);
    `notes`, what the run found to say beside its numbers (a field the scenarios' steps name by
    a name a designer save took from it), in sentences; they are not written to Parquet.
    """

    turns: pd.DataFrame
    fields: pd.DataFrame
    tolerance: float = DEFAULT_TOLERANCE
    notes: tuple[str, ...] = ()

    def tolerance_label(self) -> str:
        """The within-tolerance metric as the table names it, its tolerance said."""
        return f"within_tolerance (±{self.tolerance:g}, range/10 if less)"

    def labels(self) -> dict[str, str]:
        """The metrics the table names with what they count (see `trackerkit.evaluation.metrics`),
        each by its name in `summary()`."""
        return {
            "within_tolerance": self.tolerance_label(),
            "number_mae": "number_mae (over the numbers given)",
            "numbers_missing": "numbers_missing (row or value left out)",
            "quantity_accuracy": "quantity_accuracy (every number field of a list row)",
        }

    def runs(self) -> pd.DataFrame:
        """One row per run: every metric (see `trackerkit.evaluation.metrics`)."""
        return summarize_runs(self.turns, self.fields)

    def failures(self) -> pd.DataFrame:
        """Each variant and mode with failed turns (not scored): how many, and the first reason."""
        return failures(self.turns)

    def failure_lines(self) -> list[str]:
        """`failures()` in words, one line per variant and mode, for a page or a terminal."""
        lines = []
        for row in self.failures().to_dict("records"):
            failed, turns, retries = (
                int(row["failed_turns"]),
                int(row["turns"]),
                int(row["retries"]),
            )
            spent = (
                f", after {retries} {'retry' if retries == 1 else 'retries'}," if retries else ""
            )
            lines.append(
                f"{row['variant']} ({row['mode']}): {failed} of {turns} turns failed{spent} and "
                f"are not scored{' (so it has no scores)' if failed == turns else ''}; "
                f"the first: {row['first_reason']}"
            )
        return lines

    def summary(self, seed: int = 0) -> pd.DataFrame:
        """One row per variant x mode x metric, with its interval; `tolerance` is the tolerance
        on the `within_tolerance` rows (NaN on the others)."""
        summary = summarize_variants(self.turns, self.fields, seed=seed)
        summary["tolerance"] = summary["metric"].map({"within_tolerance": self.tolerance})
        return summary

    def table(self, seed: int = 0) -> pd.DataFrame:
        """The summary to read: one row per metric, one column per variant and mode.

        Each cell is the estimate and, when it has one, its interval: `0.82 [0.75, 0.88]`, and a
        count from 100 up as a whole number, `1,164 [1,121, 1,209]` (`shown_estimate`); `n/a`
        when no turn measured it (no `expect_no_call` turn, say). Some rows say what they count
        (`labels()`): the within-tolerance row names its tolerance, `within_tolerance (±1,
        range/10 if less)`, and `number_mae (over the numbers given)` has
        `numbers_missing (row or value left out)` beside it.
        """
        summary = self.summary(seed)
        summary["shown"] = [
            shown_estimate(e, lo, hi)
            for e, lo, hi in zip(summary["estimate"], summary["low"], summary["high"], strict=True)
        ]
        summary["metric"] = summary["metric"].replace(self.labels())
        summary["column"] = summary["variant"].astype(str) + " (" + summary["mode"] + ")"
        wide = summary.pivot(index="metric", columns="column", values="shown")
        wide = wide.reindex(index=list(dict.fromkeys(summary["metric"])))
        wide = wide[list(dict.fromkeys(summary["column"]))]
        wide.columns.name = None
        return wide

    def to_parquet(self, path: str | Path) -> Path:
        """Write both frames to one Parquet file (see the module's note); returns the path."""
        path = Path(path)
        turns = self.turns.rename(columns={c: f"turn_{c}" for c in _TURN_ONLY})
        tidy = turns.merge(self.fields, on=TURN_KEYS, how="left")
        tidy["kind"] = tidy["kind"].fillna(_NO_FIELD)
        table = pa.Table.from_pandas(tidy, preserve_index=False)
        metadata = {
            **(table.schema.metadata or {}),
            b"trackerkit.format": _FORMAT,
            _TOLERANCE: repr(self.tolerance).encode(),
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        table = table.replace_schema_metadata(metadata)
        try:
            # Through a temporary renamed over the file: a failed write keeps the results there.
            return replace_atomically(path, lambda out: pq.write_table(table, out))
        except OSError as exc:
            raise OSError(
                exc.errno,
                f"cannot write {path}: {exc.strerror or exc}; the file there before is kept",
            ) from exc


def read_results(path: str | Path) -> EvaluationResults:
    """The results written by `EvaluationResults.to_parquet`.

    Raises:
        ValueError: the file is not an evaluation's results (the message names it).
    """
    path = Path(path)
    try:
        table = pq.read_table(path)
    except pa.ArrowInvalid:
        raise ValueError(
            f"{path}: is not a trackerkit evaluation's results (not a Parquet file)"
        ) from None
    metadata = table.schema.metadata or {}
    if metadata.get(b"trackerkit.format") != _FORMAT:
        raise ValueError(f"{path}: is not a trackerkit evaluation's results")
    # Results written before the tolerance was kept were scored with the default.
    tolerance = float(metadata.get(_TOLERANCE, repr(DEFAULT_TOLERANCE).encode()))
    tidy = table.to_pandas()
    if "turn_unknown_calls" not in tidy:  # results written before the column was kept
        tidy["turn_unknown_calls"] = 0
    turn_columns = [*TURN_KEYS, *(f"turn_{c}" for c in _TURN_ONLY)]
    turns = (
        tidy[turn_columns]
        .drop_duplicates(subset=TURN_KEYS)
        .rename(columns={f"turn_{c}": c for c in _TURN_ONLY})
        .reset_index(drop=True)
    )
    cells = tidy.loc[tidy["kind"] != _NO_FIELD, [*TURN_KEYS, *_FIELD_ONLY]].reset_index(drop=True)
    # Results written before failed turns' fields were left unscored are read as they are.
    return EvaluationResults(
        turns, cells.astype({"correct": "boolean", "within_tolerance": "boolean"}), tolerance
    )
