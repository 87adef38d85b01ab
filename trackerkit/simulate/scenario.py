"""Playing a scene's scripted steps on a session: turns and actions, each checked against its `expect`.

The steps themselves (the scenario file format) are decoded by `trackerkit.steps`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from trackerkit.update import UpdateResult

__all__ = ["ScenarioPlayer"]


class ScenarioPlayer:
    """Plays the scripted steps of a scene on the session that inherits it."""

    steps: list[dict[str, Any]]
    step_index: int
    mismatches: list[str]

    if TYPE_CHECKING:
        # What the player needs of its session; `Session` defines each.
        def turn(
            self, user_text: str, script: TurnPlan | Mapping[str, Any] | None = None
        ) -> TurnReport: ...
        def swipe(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport: ...
        def regenerate(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport: ...
        def continue_(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport: ...
        def show_version(self, message: str | int, index: int) -> None: ...
        def cut(self, message: str | int) -> None: ...
        def fork(self, message: str | int) -> str: ...
        def edit(self, tracker: str, **item: Any) -> UpdateResult: ...
        def values(self) -> dict[str, Any]: ...

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
            self.mismatches.extend(
                f"{label}: {m}" for m in expect_mismatches(self.values(), step.expect.as_mapping())
            )
        if getattr(step, "expect_no_call", False) and report is not None:
            made = sum(c.name == report.tool_name for c in report.calls)
            if made:
                self.mismatches.append(f"{label}: expected no update call, found {made}")
        return report

    def _play(self, step: Step) -> TurnReport | None:
        if isinstance(step, TurnStep):
            return self.turn(step.user, step.plan())
        if isinstance(step, SwipeStep):
            return self.swipe(step.plan())
        if isinstance(step, RegenerateStep):
            return self.regenerate(step.plan())
        if isinstance(step, ContinueStep):
            return self.continue_(step.plan())
        if isinstance(step, EditStep):
            self.edit(step.tracker, set=step.set_, row=step.row, remove=step.remove)
        elif isinstance(step, CutStep):
            self.cut(step.message)
        elif isinstance(step, ForkStep):
            self.fork(step.message)
        else:
            self.show_version(step.message, step.version)
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
