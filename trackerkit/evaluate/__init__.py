"""The evaluation harness: does a tracker design hold on a model? (issue 17)

Scenarios carry the whole expected state after each step; `evaluate` plays them with one or more
variants (a model endpoint, a tracker design), in free-running or teacher-forced mode, k times,
concurrently, and scores every turn field by field (`scoring`), summarised per run and per
variant with intervals (`metrics`, `intervals`).
"""

from trackerkit.evaluate.client import EndpointModel, retry_after
from trackerkit.evaluate.intervals import Interval, bootstrap_mean, wilson
from trackerkit.evaluate.metrics import (
    TurnRecord,
    field_frame,
    pass_at_k,
    summarize_runs,
    summarize_variants,
    turn_frame,
)
from trackerkit.evaluate.runs import MODES, Mode, RunResult, play_run
from trackerkit.evaluate.scoring import FieldScore, same_value, score_turn

__all__ = [
    "MODES",
    "EndpointModel",
    "FieldScore",
    "Interval",
    "Mode",
    "RunResult",
    "TurnRecord",
    "bootstrap_mean",
    "field_frame",
    "pass_at_k",
    "play_run",
    "retry_after",
    "same_value",
    "score_turn",
    "summarize_runs",
    "summarize_variants",
    "turn_frame",
    "wilson",
]
