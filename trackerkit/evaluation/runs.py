"""One run: a scenario played by one model in one mode, each scored turn scored as it ends.

- **free-running**: the model plays every step on one session, so its errors carry, as in a chat;
- **teacher-forced**: each step the model plays starts from the reference state (what the
  scenario says the step starts from, see `_Script`: the previous step's `expect` over the state
  before it, moved on a step without `expect` by what the scene's own scripted calls changed
  there), so a model that does the right thing on a turn scores 1 on it whatever it did before. A
  gold session holds that state: each scored step is played by the model under test on it as it
  stands, scored alone, then taken back; the gold step is then played by the scripted model with
  the calls that take the state it sees to the reference after the step (in place of the scene's
  own calls, which may not reach the `expect`: a scenario of expectations alone has none), so the
  reply's writes are deltas on its version (TR-23) and a swipe later sees the state before it
  as the reference does. Where the gold take is elsewhere before a turn (after a step the model
  does not play, or a continue, which is offered no tool), the difference is written as a person's
  edit on the tip message (TR-27).

A scored step is one the model plays (a turn, swipe, regenerate or continue) whose scenario step
has an `expect`, or `expect_no_call` (a quiet turn without `expect` is expected to leave the state
the scenario says it starts from: nothing should change). Every played turn of the model under
test goes to `trace` (the gold steps do not). What "should change" is read from is the
scenario's own (see `_Script`): in both modes the scene's script is played alongside on a session
of its own, untraced, for the steps without `expect`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
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
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.session import Session, TraceSink
from trackerkit.steps import (
    BaseStep,
    ContinueStep,
    RegenerateStep,
    ScriptedCall,
    Step,
    SwipeStep,
    TurnStep,
    decode_steps,
)
from trackerkit.tracker import Tracker
from trackerkit.update import name_key, tracker_values
from trackerkit.values import same_value

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


def _absent(step: BaseStep) -> dict[str, list[str]]:
    """The rows `step`'s `expect` says must be gone, by tracker name."""
    return step.expect.absent if step.expect is not None else {}


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
    # The scene's own script, played alongside on a session of its own in both modes: what
    # "should change" is read from where a step has no `expect`.
    played = Session(scene, list(trackers), ScriptedModel())
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
        if gold and not isinstance(step, SwipeStep | RegenerateStep):
            # A swipe or a regenerate sees the state before the reply it replaces, which the
            # gold take already held at the reference when that reply's turn began.
            _set_state(session, trackers, start)
        if wanted is None:
            played.play(step)
            script.played(tracker_values(trackers, played.chat.take.state_at()))
            if gold:
                _play_gold(step, session, trackers, script.state)
            else:
                session.play(step)
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
        played.play(step)
        scores = score_turn(
            trackers, before, wanted, after, tolerance, reference=start, absent=_absent(step)
        )
        keys = (variant, scene.id, run, mode, index, len(turns))
        turns.append(
            _record(
                keys,
                step,
                report,
                session,
                scores,
                int(getattr(model, "retries", 0)) - retries,
                latency,
            )
        )
        cells.extend((keys, s) for s in scores)
        if undo is not None:
            undo()
            session.model, session.trace, session.protocol = scripted, None, "tools"
            _play_gold(step, session, trackers, script.state)
        if on_turn is not None:
            on_turn()
    return RunResult(turns, cells)


def _record(
    keys: tuple[str, str, int, Mode, int, int],
    step: TurnStep | SwipeStep | RegenerateStep | ContinueStep,
    report: TurnReport,
    session: Session,
    scores: Sequence[FieldScore],
    retries: int,
    latency: float,
) -> TurnRecord:
    """The turns frame's row of one scored turn."""
    # The update tool's calls; a call by its name to a turn that did not offer it (the text
    # protocol, a continue) is a call to a tool not offered, not a refused batch.
    calls = [c for c in report.calls if c.name == report.tool_name and c.offered]
    offered = {report.tool_name, *session.tools}
    return TurnRecord(
        *keys,
        kind=step.kind,
        joint=all(s.correct for s in scores),
        expect_no_call=bool(getattr(step, "expect_no_call", False)),
        expected_calls=bool(step.plan().rounds),
        update_calls=len(calls),
        refused_calls=sum(not c.ok for c in calls),
        clamps=len(turn_clamps(report)),
        retries=retries,
        tokens_in=sum(r.tokens_in for r in report.rounds),
        tokens_out=sum(r.tokens_out for r in report.rounds),
        latency_s=latency,
        failed=report.failed or "",
        unknown_calls=sum(not c.offered or c.name not in offered for c in report.calls),
    )


def _wanted(step: BaseStep, start: dict[str, Any]) -> dict[str, Any] | None:
    """What the model's `step` is scored against: its `expect`; for a quiet turn without one
    (`expect_no_call`), `start` (nothing should change); None when it is not scored."""
    if step.expect is not None:
        return _expected(step)
    return start if getattr(step, "expect_no_call", False) else None


def _updates(
    trackers: Sequence[Tracker], have: Mapping[str, Any], want: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The update items that take the values `have` to `want`, by tracker name: one item per
    record (tops settled first within it, TR-14), one per list row set or removed (rows matched
    case-folded, TR-20); a tracker `want` does not hold is left alone."""
    items: list[dict[str, Any]] = []
    for tracker in trackers:
        now = want.get(tracker.name)
        if not isinstance(now, Mapping):
            continue
        was = have.get(tracker.name) or {}
        if tracker.layout == "record":
            set_ = {k: v for k, v in now.items() if not same_value(was.get(k), v)}
            if set_:
                items.append({"tracker": tracker.name, "set": set_})
            continue
        kept = {name_key(str(row)) for row in now}
        items += [
            {"tracker": tracker.name, "row": row, "remove": True}
            for row in was
            if name_key(str(row)) not in kept
        ]
        old = {name_key(str(row)): values for row, values in was.items()}
        for row, values in now.items():
            prior = old.get(name_key(str(row)))
            set_ = {
                k: v for k, v in values.items() if prior is None or not same_value(prior.get(k), v)
            }
            if set_ or prior is None:
                items.append({"tracker": tracker.name, "row": row, "set": set_})
    return items


def _set_state(session: Session, trackers: Sequence[Tracker], state: Mapping[str, Any]) -> None:
    """Bring the gold take's tip to `state` where it is not there (a step the model does not
    play, or a continue, which is offered no tool, left it elsewhere): a person's edit on the tip
    message, the tool's items and clamps (TR-27). The gold replies reach it by their own calls,
    so there is most often nothing to write."""
    if not session.chat.messages:
        return  # nothing played yet: the take holds the scene's start, the reference's own start
    have = tracker_values(trackers, session.chat.take.state_at())
    for item in _updates(trackers, have, state):
        session.chat.edit(
            item["tracker"],
            set=item.get("set"),
            row=item.get("row"),
            remove=item.get("remove", False),
        )


def _play_gold(
    step: TurnStep | SwipeStep | RegenerateStep | ContinueStep,
    session: Session,
    trackers: Sequence[Tracker],
    state: Mapping[str, Any],
) -> None:
    """Play the scripted `step` on the gold take with the calls that take the state it sees to
    `state` (the reference after it) in place of the scene's own: the reply's writes are deltas on
    its version (TR-23), so a swipe or a cut later sees the gold state where the history says."""
    take = session.chat.take
    again = isinstance(step, SwipeStep | RegenerateStep)
    seen = take.state_before(len(take.messages) - 1) if again else take.state_at()
    items = _updates(trackers, tracker_values(trackers, seen), state)
    calls = [ScriptedCall.model_validate({"arguments": {"updates": items}})] if items else None
    session.play(step.model_copy(update={"calls": calls, "rounds": None, "refuses_tools": False}))


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
    scene's own script changed in that step (its scripted play, on a session of its own), so a change made on a turn the scenario does not
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
        if wanted is not None:
            self.state = scripted_state(self.trackers, start, wanted, _absent(step))
        else:
            self.state = start
        return start

    def played(self, after: dict[str, Any]) -> None:
        """The model's step without `expect` was played: the scripted play went from where it
        started to `after`, and the state moves by that."""
        self.state = moved_by(self.trackers, self.state, self.played_start, after)

    def moved(self, step: BaseStep, before: dict[str, Any], after: dict[str, Any]) -> None:
        """A step the model does not play changed the scripted play from `before` to `after`."""
        self.state = moved_by(self.trackers, self.state, before, after)
        if step.expect is not None:
            self.state = scripted_state(self.trackers, self.state, _expected(step), _absent(step))


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
