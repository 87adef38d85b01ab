"""Playing a scene's scripted steps: turns and actions, each checked against its `expect`.

A scene file's `turns` list is a scenario: each step is a turn (`user`, with the scripted model's
`reply` and `calls` or `rounds`) or an action (`swipe`, `regenerate`, `continue`, `edit`, `cut`,
`fork`, `show_version`). `ScenarioPlayer` plays them on a `Session`, which inherits it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from trackerkit.errors import TurnError
from trackerkit.report import TurnReport, expect_mismatches

if TYPE_CHECKING:
    from trackerkit.model import TurnPlan
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
        """Play the scene's next scripted step; returns the turn's report (None for an action)."""
        if self.done:
            raise TurnError("the scenario has no steps left")
        step = {"label": f"step {self.step_index + 1}", **self.steps[self.step_index]}
        self.step_index += 1
        return self.play(step)

    def play(self, step: Mapping[str, Any]) -> TurnReport | None:
        """Play one scenario step: a turn (`user`), or an action (`swipe`, `edit`, `cut`, ...).

        A step's `expect` (values by tracker, field and row; `absent` lists rows that must be
        gone) is compared after the step; each mismatch is kept in `self.mismatches`.
        """
        report = self._play(step)
        expect = step.get("expect")
        if isinstance(expect, Mapping):
            label = step.get("label") or f"after {step.get('action') or repr(step.get('user'))}"
            self.mismatches.extend(
                f"{label}: {m}" for m in expect_mismatches(self.values(), expect)
            )
        return report

    def _play(self, step: Mapping[str, Any]) -> TurnReport | None:
        action = step.get("action")
        if action is None:
            if "user" not in step:
                raise TurnError("a scenario step needs user (a turn) or action")
            return self.turn(str(step["user"]), step)
        if action == "swipe":
            return self.swipe(step)
        if action == "regenerate":
            return self.regenerate(step)
        if action == "continue":
            return self.continue_(step)
        if action == "edit":
            item = {k: step[k] for k in ("set", "row", "remove") if k in step}
            self.edit(str(step["tracker"]), **item)
        elif action == "cut":
            self.cut(step["message"])
        elif action == "fork":
            self.fork(step["message"])
        elif action == "show_version":
            self.show_version(step["message"], int(step["version"]))
        else:
            raise TurnError(f"unknown scenario action {action!r}")
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
