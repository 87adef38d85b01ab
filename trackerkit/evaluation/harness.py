"""`evaluate`: scenarios x variants x repeats, played concurrently and scored.

Each run (one variant, one scenario, one repeat) is independent: its own session and its own
model client. Up to `concurrency` runs are in flight at once on threads (the HTTP client releases
the GIL while it waits on the network); the turns of one run are always played in order. Results
come back in the same order whatever the concurrency, so a seeded noisy server gives the same
table with 1 or 8 threads.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from trackerkit._names import repeated
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.evaluation.metrics import field_frame, turn_frame, unscored
from trackerkit.evaluation.results import EvaluationResults
from trackerkit.evaluation.runs import MODES, Mode, RunResult, play_run
from trackerkit.evaluation.scoring import DEFAULT_TOLERANCE, expectation_problems
from trackerkit.evaluation.variants import Variant, load_design
from trackerkit.fields import describe_value
from trackerkit.renames import histories
from trackerkit.scene import Scene, load_scene, scene_trackers
from trackerkit.simulate.outdated import outdated_names
from trackerkit.simulate.session import TraceSink
from trackerkit.steps import BaseStep, decode_steps
from trackerkit.tokens import load_encoding
from trackerkit.tracker import Tracker

__all__ = ["MAX_RUNS", "count_turns", "evaluate"]

Progress = Callable[[int, int], None]


#: The most repeats `evaluate` plays of each scenario and variant (`trackerkit eval --runs`, the
#: page's Runs box): every run's turns are kept in memory, so a mistyped 10**11 is refused.
MAX_RUNS = 1000
#: Problems named in one refusal before the rest are counted.
_SHOWN = 10


def _scenes(
    scenarios: Sequence[str | Path | Scene], trackers: Path | None
) -> list[tuple[Scene, Path, str]]:
    """Each scenario, its tracker folder and how a message names it (its file, or its id)."""
    found = []
    for item in scenarios:
        if isinstance(item, Scene):
            if trackers is None:
                raise BadRequestError(
                    f"scene {item.id!r} was given as a Scene, not a file: pass trackers= (the "
                    "folder of its tracker pieces)"
                )
            found.append((item, trackers, f"scene {item.id}"))
            _check_scored(item, f"scene {item.id}")
            continue
        if not isinstance(item, str | Path):
            raise BadRequestError(
                f"a scenario must be a scene file's path or a Scene; found {type(item).__name__}"
            )
        path = Path(item)
        scene = load_scene(path)
        if not scene.turns:
            raise BadRequestError(f"{path}: has no scripted turns to evaluate")
        _check_scored(scene, str(path))
        found.append((scene, scene_trackers(path, trackers), str(path)))
    ids = [s.id for s, _, _ in found]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        files = [label for s, _, label in found if s.id == twice[0]]
        raise BadRequestError(
            f"two scenarios have the id {twice[0]!r} ({' and '.join(files)}); each run is named "
            "by it, so each scenario needs its own"
        )
    return found


def _check_scored(scene: Scene, label: str) -> None:
    """Refuse a scenario with no turn to score: it would give an empty table, as if it passed;
    and one whose every `expect` names nothing and that has no quiet turn: a vacuous joint 1."""
    scored = [s for s in decode_steps(scene.turns) if _scored(s)]
    if any(getattr(s, "expect_no_call", False) or _names_values(s) for s in scored):
        return
    if scored:
        raise BadRequestError(
            f"every expect of {label} is empty (it names no tracker): nothing to score; give "
            "its turns the values each should leave"
        )
    if any(step.expect is not None for step in decode_steps(scene.turns)):
        raise BadRequestError(
            f"no turn the model plays in {label} carries expect (only other steps do): nothing "
            "to score; give its turns an `expect`, the values each should leave"
        )
    raise BadRequestError(
        f"no step of {label} carries expect: nothing to score; give its turns an `expect`, "
        "the values each should leave"
    )


def _renamed(label: str, scene: Scene, design: Sequence[Tracker], folder: Path) -> list[str]:
    """What the simulator page says of the fields the scenario's steps set or expect by a name a
    designer save took from them (`trackerkit.simulate.outdated`), read in `folder`'s record."""
    found = outdated_names(scene.id, Path(label), scene.turns, design, histories(folder))
    return [o.sentence for o in found]


def _check_expectations(
    label: str, scene: Scene, design: Sequence[Tracker], folder: Path
) -> list[str]:
    """Refuse a scenario whose `expect`s name what the design cannot score, or what no state can
    meet (see `expectation_problems`): scoring would skip it without a word, or score a miss that
    no model could avoid. A field a designer save renamed or deleted is said first, as the
    simulator says it.

    Returns:
        The renames the scenario's steps still name when it is not refused (its calls set an old
        name, or the old name is another field's now), to be said beside the results.
    """
    problems = expectation_problems(scene, design)
    renamed = _renamed(label, scene, design, folder)
    if not problems:
        return renamed
    more = len(problems) - _SHOWN
    shown = "; ".join(problems[:_SHOWN]) + (f"; and {more} more" if more > 0 else "")
    count = f"{len(problems)} {'expectation' if len(problems) == 1 else 'expectations'}"
    refused = (
        f"{label}: {count} the trackers in {folder} cannot score or meet, so nothing was played"
    )
    if not renamed:
        raise BadRequestError(f"{refused}: {shown}")
    raise BadRequestError(f"{refused}. {' '.join(renamed)} The {count}: {shown}")


def _check_tolerance(tolerance: object) -> None:
    """Refuse what `--tolerance` refuses, in its words: nan or a negative tolerance would leave
    no number within it, and a text would fail only after every run had played."""
    give = "give a number of 0 or more"
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float):
        raise BadRequestError(f"tolerance {tolerance!r} is not a number; {give}")
    if not math.isfinite(tolerance):
        raise BadRequestError(f"tolerance {tolerance!r} is not a finite number; {give}")
    if tolerance < 0:
        raise BadRequestError(f"tolerance {tolerance!r} is out of range; {give}")


def _chosen(variants: Sequence[Variant] | None) -> list[Variant]:
    """The variants to play (one scripted variant when None), each checked to be a `Variant`."""
    if variants is None:
        return [Variant(name="scripted")]
    if isinstance(variants, str | bytes | Mapping | Variant) or not isinstance(variants, Iterable):
        raise BadRequestError(
            f"variants must be a list of Variant objects; found {_described(variants)}"
        )
    chosen = list(variants)
    for index, variant in enumerate(chosen):
        if not isinstance(variant, Variant):
            raise BadRequestError(
                f"variants must be Variant objects; found {_described(variant)} at "
                f'variants[{index}] (such as Variant(name="scripted"))'
            )
    return chosen


def _described(value: object) -> str:
    """`describe_value`, with a Variant named as one."""
    return "one Variant (put it in a list)" if isinstance(value, Variant) else describe_value(value)


def _design(scene: Scene, variant: Variant, index: int, folder: Path) -> list[Tracker]:
    """The scene's trackers as `variant` reads them: from its own folder, whose refusal names it
    (`variants[0].trackers: ...`), else from the scene's."""
    if variant.trackers is None:
        return load_design(scene, folder)
    try:
        return load_design(scene, variant.trackers)
    except NotFoundError as exc:
        raise NotFoundError(f"variants[{index}].trackers: {exc}") from None


def _check_settings(mode: str, runs: int, concurrency: int) -> None:
    if mode not in MODES:
        raise BadRequestError(f"mode must be one of {', '.join(MODES)}; found {mode!r}")
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise BadRequestError(
            f"runs must be a whole number from 1 to {MAX_RUNS} (every run's turns are kept); "
            f"found {runs!r}"
        )
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise BadRequestError(
            f"concurrency must be a whole number, at least 1; found {concurrency!r}"
        )


def _scored(step: BaseStep) -> bool:
    """A step the model plays that carries `expect` or `expect_no_call`."""
    return getattr(step, "plan", None) is not None and (
        step.expect is not None or bool(getattr(step, "expect_no_call", False))
    )


def _names_values(step: BaseStep) -> bool:
    """Whether `step`'s `expect` names a tracker's values or a row that must be `absent`."""
    return step.expect is not None and any(
        k != "absent" or any(v.values()) for k, v in step.expect.as_mapping().items()
    )


def count_turns(scene: Scene) -> int:
    """How many turns of `scene` are scored (the model's steps that carry an `expect`, or
    `expect_no_call`: a quiet turn)."""
    return sum(_scored(s) for s in decode_steps(scene.turns))


def evaluate(
    scenarios: Sequence[str | Path | Scene],
    variants: Sequence[Variant] | None = None,
    *,
    runs: int = 1,
    mode: Mode = "free",
    concurrency: int = 1,
    trackers: str | Path | None = None,
    trace: TraceSink | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    progress: Progress | None = None,
) -> EvaluationResults:
    """Play every scenario with every variant `runs` times and score each turn.

    Args:
        scenarios: scene files (or `Scene`s, with `trackers`) whose steps carry `expect`; one
            path or `Scene` alone is one scenario.
        variants: what is compared (models, designs, tool styles, protocols); one scripted
            variant when None.
        runs: repeats per scenario and variant (pass^k uses all of them), at most `MAX_RUNS`.
        mode: "free" (errors carry) or "forced" (each turn starts from the expected state).
        concurrency: runs in flight at once (turns of one run stay in order).
        trackers: the tracker folder for scenes a variant does not name one for.
        trace: where every run's turns are written (a `TraceWriter`); None writes nothing.
        tolerance: numbers within this (a finite number of 0 or more) of the expected value
            count as within tolerance (a field with `min` and `max` within a tenth of its range
            when that is less); the results keep it (`EvaluationResults.tolerance`) and their
            table names it.
        progress: called with (turns done, turns in all) after each scored turn.

    Raises:
        BadRequestError: a bad argument (a tolerance that is not a finite number of 0 or more,
            or a variant that is not a `Variant`, say), a scene without turns, without a turn
            that carries `expect` or `expect_no_call` (nothing to score) or whose every `expect`
            is empty, two scenes with one id, or an `expect` naming a tracker or field the
            design does not have, a value its field cannot hold, or what no state can meet (a
            number above its top given in the same expect, null for a field, two rows differing
            only in case, a row both expected and absent); every such place named, before any
            turn is played.
        NotFoundError: a variant's `trackers` folder (named `variants[i].trackers`), or a scene's
            own, that does not exist or lacks a tracker the scene links.
    """
    _check_settings(mode, runs, concurrency)
    _check_tolerance(tolerance)
    chosen = _chosen(variants)
    if not chosen:
        raise BadRequestError(
            "no variant to evaluate: give at least one (variants=None plays the scripted model)"
        )
    twice = repeated(v.name for v in chosen)
    if twice:
        raise BadRequestError(
            f"two variants are named {twice[0]!r}; names must differ (each names a column of "
            "the results)"
        )
    if isinstance(scenarios, str | Path | Scene):
        scenarios = [scenarios]  # one scenario, given alone rather than in a list
    if not list(scenarios):
        raise BadRequestError("no scenario to evaluate: give at least one scene file")
    scenes = _scenes(scenarios, Path(trackers) if trackers is not None else None)
    designs: dict[tuple[str, str], list[Tracker]] = {}
    notes: dict[str, None] = {}  # each said once, though variants share a design
    for index, v in enumerate(chosen):
        for scene, folder, label in scenes:
            design = _design(scene, v, index, folder)
            notes.update(
                dict.fromkeys(_check_expectations(label, scene, design, v.trackers or folder))
            )
            designs[(v.name, scene.id)] = design
    # The tokenizer loads once per process (a second or two): load it before the first turn, so
    # that turn's latency is the model's and trackerkit's own work, not the load.
    load_encoding()
    jobs = [(v, scene, run) for v in chosen for scene, _, _ in scenes for run in range(runs)]
    lengths = {scene.id: count_turns(scene) for scene, _, _ in scenes}
    total = sum(lengths[scene.id] for _, scene, _ in jobs)
    done = 0
    lock = threading.Lock()

    def advance() -> None:
        nonlocal done
        with lock:
            done += 1
            if progress is not None:
                progress(done, total)

    def one(job: tuple[Variant, Scene, int]) -> RunResult:
        variant, scene, run = job
        design = designs[(variant.name, scene.id)]
        return play_run(
            scene,
            design,
            variant.make_model(design),
            variant=variant.name,
            run=run,
            mode=mode,
            protocol=variant.protocol,
            trace=trace,
            tolerance=tolerance,
            on_turn=advance,
        )

    if concurrency == 1:
        results = [one(job) for job in jobs]
    else:
        # The longest runs start first, so a long one does not start last and run alone.
        order = sorted(range(len(jobs)), key=lambda i: -lengths[jobs[i][1].id])
        with ThreadPoolExecutor(
            max_workers=concurrency, thread_name_prefix="trackerkit-eval"
        ) as pool:
            futures = {i: pool.submit(one, jobs[i]) for i in order}
            results = [futures[i].result() for i in range(len(jobs))]
    turns = turn_frame(t for r in results for t in r.turns)
    return EvaluationResults(
        turns,
        unscored(turns, field_frame(c for r in results for c in r.fields)),
        tolerance,
        tuple(notes),
    )
