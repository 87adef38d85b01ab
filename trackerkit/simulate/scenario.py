"""Playing a scene's scripted steps on a stage: turns and actions, each checked against its `expect`.

The steps themselves (the scenario file format) are decoded by `trackerkit.steps`. A
`ScenarioPlayer` plays them on a `Stage`: something that runs whole turns (a `Session`) and holds
the chat they write, on which the actions (edit, cut, fork, show a version) are made directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias

from trackerkit.chat import Chat
from trackerkit.errors import BadRequestError, EditRefusedError, TurnError
from trackerkit.simulate.report import TurnReport, expect_mismatches
from trackerkit.steps import (
    BaseStep,
    ContinueStep,
    CutStep,
    EditStep,
    ForkStep,
    RegenerateStep,
    Step,
    SwipeStep,
    TurnPlan,
    TurnStep,
    decode_step,
    step_kind,
)

__all__ = ["ScenarioPlayer", "Stage"]

#: A turn's script: a plan, a step's dict of one, or None for what the model was planned already.
Script: TypeAlias = TurnPlan | Mapping[str, Any] | None


class Stage(Protocol):
    """What a scenario is played on: the chat, and the four verbs that run a whole turn on it."""

    @property
    def chat(self) -> Chat: ...

    def turn(self, user_text: str, script: Script = None) -> TurnReport: ...
    def swipe(self, script: Script = None) -> TurnReport: ...
    def regenerate(self, script: Script = None) -> TurnReport: ...
    def continue_(self, script: Script = None) -> TurnReport: ...


class ScenarioPlayer:
    """Plays scripted steps, in order, on a stage; keeps every `expect` mismatch.

    Args:
        stage: where the steps are played (a `Session`).
        steps: the steps as stored (a scene's `turns`), decoded one by one as they are played.
    """

    def __init__(self, stage: Stage, steps: Sequence[Mapping[str, Any]] = ()) -> None:
        self.stage = stage
        self.steps: list[dict[str, Any]] = [dict(step) for step in steps]
        self.step_index = 0
        self.mismatches: list[str] = []

    @property
    def done(self) -> bool:
        """True when every scripted step of the scene has been played."""
        return self.step_index >= len(self.steps)

    def play_next(self) -> TurnReport | None:
        """Play the scene's next scripted step; returns the turn's report (None for an action).

        Raises:
            TurnError: no step is left, or the step does not decode (its path says where).
        """
        if self.done:
            raise TurnError("the scenario has no steps left")
        index = self.step_index
        self.step_index += 1
        return self.play(self.steps[index], label=f"step {index + 1}", where=f"turns[{index}]")

    def play(
        self, step: Step | Mapping[str, Any], *, label: str | None = None, where: str = "step"
    ) -> TurnReport | None:
        """Play one scenario step: a turn (`user`), or an action (`swipe`, `edit`, `cut`, ...).

        A step's `expect` (values by tracker, field and row; `absent` lists rows that must be
        gone) is compared after the step; each mismatch is kept in `self.mismatches`.

        Raises:
            TurnError: the step does not decode (every problem, with its path from `where`).
            EditRefusedError: an edit step that does not decode; nothing was written (TR-27).
        """
        if not isinstance(step, BaseStep):
            try:
                step = decode_step(step, where)
            except BadRequestError as exc:
                if step_kind(step) == "edit":
                    raise EditRefusedError(str(exc)) from None
                raise TurnError(str(exc)) from None
        report = self._play(step)
        if label is None:
            label = f"after {step.user!r}" if isinstance(step, TurnStep) else f"after {step.kind}"
        if step.expect is not None:
            values = self.stage.chat.values()
            self.mismatches.extend(
                f"{label}: {m}" for m in expect_mismatches(values, step.expect.as_mapping())
            )
        if getattr(step, "expect_no_call", False) and report is not None:
            made = sum(c.name == report.tool_name for c in report.calls)
            if made:
                self.mismatches.append(f"{label}: expected no update call, found {made}")
        return report

    def _play(self, step: Step) -> TurnReport | None:
        stage, chat = self.stage, self.stage.chat
        if isinstance(step, TurnStep):
            return stage.turn(step.user, step.plan())
        if isinstance(step, SwipeStep):
            return stage.swipe(step.plan())
        if isinstance(step, RegenerateStep):
            return stage.regenerate(step.plan())
        if isinstance(step, ContinueStep):
            return stage.continue_(step.plan())
        if isinstance(step, EditStep):
            chat.edit(step.tracker, set=step.set_, row=step.row, remove=step.remove)
        elif isinstance(step, CutStep):
            chat.cut(step.message)
        elif isinstance(step, ForkStep):
            chat.fork(step.message)
        else:
            chat.show_version(step.message, step.version)
        return None

    def run(self, progress: Callable[[int, int], None] | None = None) -> list[TurnReport]:
        """Play every remaining scripted step; returns the turn reports."""
        reports = []
        while not self.done:
            report = self.play_next()
            if report is not None:
                reports.append(report)
            if progress is not None:
                progress(self.step_index, len(self.steps))
        return reports
