"""The evaluation harness: does a tracker design hold on a model? (issue 17)

Scenarios carry the whole expected state after each step; `evaluate` plays them with one or more
variants (a model endpoint, a tracker design), in free-running or teacher-forced mode, k times,
concurrently, and scores every turn field by field (`scoring`), summarised per run and per
variant with intervals (`metrics`, `intervals`), and drawn (`accuracy_figure`, `drift_figure`,
`field_heatmap`). Values are compared by the one equality, `trackerkit.values.same_value`.
"""

from trackerkit.evaluation.client import EndpointModel, retry_after
from trackerkit.evaluation.figures import accuracy_figure, drift_figure, field_heatmap
from trackerkit.evaluation.harness import count_turns, evaluate
from trackerkit.evaluation.intervals import Interval, bootstrap_mean, wilson
from trackerkit.evaluation.metrics import (
    TurnRecord,
    field_frame,
    pass_at_k,
    summarize_runs,
    summarize_variants,
    turn_frame,
)
from trackerkit.evaluation.noisy import Noise, NoisyServer, serving_noisy
from trackerkit.evaluation.page import (
    NumberBox,
    RunGuard,
    ScenarioFolder,
    endpoint_name_clash,
    play_with_progress,
    read_scenarios,
    settings_key,
    variations,
)
from trackerkit.evaluation.results import EvaluationResults, read_results
from trackerkit.evaluation.runs import MODES, Mode, RunResult, play_run
from trackerkit.evaluation.scoring import FieldScore, score_turn
from trackerkit.evaluation.tool_style import TOOL_STYLES
from trackerkit.evaluation.variants import Variant, load_design, read_variants

__all__ = [
    "MODES",
    "TOOL_STYLES",
    "EndpointModel",
    "EvaluationResults",
    "FieldScore",
    "Interval",
    "Mode",
    "Noise",
    "NoisyServer",
    "NumberBox",
    "RunGuard",
    "RunResult",
    "ScenarioFolder",
    "TurnRecord",
    "Variant",
    "accuracy_figure",
    "bootstrap_mean",
    "count_turns",
    "drift_figure",
    "endpoint_name_clash",
    "evaluate",
    "field_frame",
    "field_heatmap",
    "load_design",
    "pass_at_k",
    "play_run",
    "play_with_progress",
    "read_results",
    "read_scenarios",
    "read_variants",
    "retry_after",
    "score_turn",
    "serving_noisy",
    "settings_key",
    "summarize_runs",
    "summarize_variants",
    "turn_frame",
    "variations",
    "wilson",
]
