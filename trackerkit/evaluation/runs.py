"""One run: a scenario played by one model in one mode, each scored turn scored as it ends.

- **free-running**: the model plays every step on one session, so its errors carry, as in a chat;
- **teacher-forced**: a gold session plays the scenario with the scripted model; each scored step
  is first played by the model under test on the gold session as it stands (so it starts from the
  expected state and the gold history, built by the scenario's own steps and never written as a
  person's edit that would show as a change), scored alone, then taken back, and the gold step
  played in its place.

A scored step is one the model plays (a turn, swipe, regenerate or continue) whose scenario step
has an `expect`, or `expect_no_call` (a quiet turn without `expect` is expected to leave the state
the scenario says it starts from: nothing should change). Every played turn of the model under
test goes to `trace` (the gold steps do not). What "should change" is read from is the
scenario's own (see `_Script`): in free mode the scene's script is played alongside on a session
of its own, untraced, for the steps without `expect`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trackerkit.evaluation.metrics import TurnRecord
from trackerkit.evaluation.scoring import (
    DEFAULT_TOLERANCE,
    FieldScore,
    moved_by,
    score_turn,
    scripted_state,
)
from trackerkit.scene import Scene
from trackerkit.simulate.completion import UpdateProtocol
from trackerkit.simulate.model import Model, ScriptedModel
from trackerkit.simulate.playback import turn_clamps  # the simulator page's own clamp reading
from trackerkit.simulate.session import Session, TraceSink
from trackerkit.steps import (
    BaseStep,
    ContinueStep,
    RegenerateStep,
    Step,
    SwipeStep,
    TurnStep,
    decode_steps,
)
from trackerkit.tracker import Tracker
from trackerkit.update import tracker_values

__all__ = ["MODES", "Mode", "RunResult", "play_run"]

Mode = Literal["free", "forced"]
#: The two modes, as the CLI spells them.
MODES: tuple[Mode, ...] = ("free", "forced")
_MODEL_STEPS = (TurnStep, SwipeStep, RegenerateStep, ContinueStep)


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one run scored: its turns and its fields (each field with its turn's keys)."""

    turns: list[TurnRecord]
    fields: list[tuple[tuple[Any, ...], FieldScore]]


def _expected(step: BaseStep) -> dict[str, Any]:
    assert step.expect is not None
    return {k: v for k, v in step.expect.as_mapping().items() if k != "absent"}


def play_run(
    scene: Scene,
    trackers: Sequence[Tracker],
    model: Model,
    *,
    variant: str = "default",
    run: int = 0,
    mode: Mode = "free",
    protocol: UpdateProtocol = "tools",
    trace: TraceSink | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    on_turn: Callable[[], None] | None = None,
) -> RunResult:
    """Play `scene`'s steps with `model` in `mode` and score every scored step.

    Args:
        scene: the scenario (its `turns` with `expect`).
        trackers: the linked trackers' pieces (the design under test).
        model: the model under test; if it has a `tag` attribute it is set to
            `(scenario id, step index, run)` before each step it plays, and a `retries`
            counter is read around each step.
        variant: the variant's name, kept in every row.
        run: the repeat's index.
        mode: "free" (errors carry) or "forced" (each turn from the expected state).
        protocol: how the model under test sends its updates, "tools" or "text" (the gold
            steps of the forced mode always use the tools).
        trace: where the model's turns are written (a `TraceWriter`), or None.
        tolerance: numbers within this of the expected value count as within tolerance (a
            field with `min` and `max` within a tenth of its range when that is less).
        on_turn: called after each scored turn (a progress bar).
    """
    steps = decode_steps(scene.turns)
    gold = mode == "forced"
    scripted = ScriptedModel()
    session = Session(
        scene,
        list(trackers),
        scripted if gold else model,
        trace=None if gold else trace,
        protocol="tools" if gold else protocol,
    )
    session.session_id = f"eval_{scene.id}_{run}_{uuid.uuid4().hex[:8]}"
    # The scene's own script, played alongside: what "should change" is read from where a step
    # has no `expect` (the gold session is that play in forced mode).
    played = session if gold else Session(scene, list(trackers), ScriptedModel())
    turns: list[TurnRecord] = []
    cells: list[tuple[tuple[Any, ...], FieldScore]] = []
    script = _Script(trackers, tracker_values(trackers, session.chat.take.state_at()))
    for index, step in enumerate(steps):
        was = tracker_values(trackers, played.chat.take.state_at())
        if not isinstance(step, _MODEL_STEPS):
            _play(step, session, played)
            script.moved(step, was, tracker_values(trackers, played.chat.take.state_at()))
            continue
        start = script.reply(step, was)
        wanted = _wanted(step, start)
        if wanted is None:
            _play(step, session, played)
            script.played(tracker_values(trackers, played.chat.take.state_at()))
            continue
        undo = _aside(session) if gold else None
        if gold:
            session.model, session.trace, session.protocol = model, trace, protocol
        if hasattr(model, "tag"):
            model.tag = (scene.id, index, run)
        retries = int(getattr(model, "retries", 0))
        # Read with the design's trackers as loaded once (Session.values decodes them again).
        before = tracker_values(trackers, session.chat.take.state_at())
        started = time.perf_counter()
        report = session.play(step)
        latency = time.perf_counter() - started
        assert report is not None
        after = report.values  # the session's values after the turn, read once at its end
        if played is not session:
            played.play(step)
        scores = score_turn(trackers, before, wanted, after, tolerance, reference=start)
        keys = (variant, scene.id, run, mode, index, len(turns))
        # The update tool's calls; a call by its name to a turn that did not offer it (the text
        # protocol, a continue) is a call to a tool not offered, not a refused batch.
        calls = [c for c in report.calls if c.name == report.tool_name and c.offered]
        offered = {report.tool_name, *session.tools}
        turns.append(
            TurnRecord(
                *keys,
                kind=step.kind,
                joint=all(s.correct for s in scores),
                expect_no_call=bool(getattr(step, "expect_no_call", False)),
                expected_calls=bool(step.plan().rounds),
                update_calls=len(calls),
                refused_calls=sum(not c.ok for c in calls),
                clamps=len(turn_clamps(report)),
                retries=int(getattr(model, "retries", 0)) - retries,
                tokens_in=sum(r.tokens_in for r in report.rounds),
                tokens_out=sum(r.tokens_out for r in report.rounds),
                latency_s=latency,
                failed=report.failed or "",
                unknown_calls=sum(not c.offered or c.name not in offered for c in report.calls),
            )
        )
        cells.extend((keys, s) for s in scores)
        if undo is not None:
            undo()
            session.model, session.trace, session.protocol = scripted, None, "tools"
            session.play(step)
        if on_turn is not None:
            on_turn()
    return RunResult(turns, cells)


def _wanted(step: BaseStep, start: dict[str, Any]) -> dict[str, Any] | None:
    """What the model's `step` is scored against: its `expect`; for a quiet turn without one
    (`expect_no_call`), `start` (nothing should change); None when it is not scored."""
    if step.expect is not None:
        return _expected(step)
    return start if getattr(step, "expect_no_call", False) else None


def _play(step: Step, session: Session, played: Session) -> None:
    """Play a step that is not scored on the session, and on the scene's own play if apart."""
    session.play(step)
    if played is not session:
        played.play(step)


class _Script:
    """What the scenario says each step starts from: what "should change" compares with.

    The same in both modes and for every model (so every variant's change recall has the same
    denominator, and one early miss is one missed change): the scene's start, then each step's
    `expect` put over it (`scripted_state`). A step without `expect` moves it by what the
    scene's own script changed in that step (its scripted play: the gold session in forced
    mode, one played alongside in free mode), so a change made on a turn the scenario does not
    check is not charged to the next turn that it checks; a step the model does not play (a
    person's edit, a cut) moves it the same way. A swipe or a regenerate starts where the reply
    it replaces started.
    """

    def __init__(self, trackers: Sequence[Tracker], start: dict[str, Any]) -> None:
        self.trackers = trackers
        self.state = start
        self.reply_start = start
        # The scripted play's values where the last reply started, and where this step starts.
        self.played_reply_start = start
        self.played_start = start

    def reply(self, step: BaseStep, played: dict[str, Any]) -> dict[str, Any]:
        """Where the model's `step` starts (`played`: the scripted play's values before it); the
        state then becomes what its `expect` says (a quiet turn without one: `start`; any other
        step without one, see `played`)."""
        again = isinstance(step, SwipeStep | RegenerateStep)
        start = self.reply_start if again else self.state
        self.played_start = self.played_reply_start if again else played
        if isinstance(step, TurnStep):
            self.reply_start, self.played_reply_start = start, played
        wanted = _wanted(step, start)
        self.state = start if wanted is None else scripted_state(self.trackers, start, wanted)
        return start

    def played(self, after: dict[str, Any]) -> None:
        """The model's step without `expect` was played: the scripted play went from where it
        started to `after`, and the state moves by that."""
        self.state = moved_by(self.trackers, self.state, self.played_start, after)

    def moved(self, step: BaseStep, before: dict[str, Any], after: dict[str, Any]) -> None:
        """A step the model does not play changed the scripted play from `before` to `after`."""
        self.state = moved_by(self.trackers, self.state, before, after)
        if step.expect is not None:
            self.state = scripted_state(self.trackers, self.state, _expected(step))


def _aside(session: Session) -> Callable[[], None]:
    """Play the next step on a fork of the gold take; what is returned goes back to the gold take.

    The fork shares the gold take's messages (values, never written in place), so the step under
    test sees exactly the gold state and history, and the gold take never sees its writes.
    """
    chat = session.chat
    gold = chat.current
    if not chat.messages:
        # Nothing to fork from yet: the step is played on the gold take and cut away after.
        def cut() -> None:
            if chat.messages:
                chat.cut(chat.messages[0].id)

        return cut
    fork = chat.fork(chat.messages[-1].id).id

    def back() -> None:
        chat.use(gold)
        chat.takes.pop(fork, None)

    return back
