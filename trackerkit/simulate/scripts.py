"""What a session plays from a script: the scene's scripted steps, and each turn's planned reply.

A `Session` plays its scene's scripted steps through its `player` (a `ScenarioPlayer`, which
checks each step's `expect`), and a turn's `script` (a `TurnPlan`, or a scenario step that holds
one) is the plan its scripted model follows: the session's model itself, or the scripted model a
wrapper holds as `inner`. A script that is no plan is refused before anything is added.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from trackerkit.errors import BadRequestError
from trackerkit.simulate.model import Model, ScriptedModel, TurnPlan
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.scenario import ScenarioPlayer, Script
from trackerkit.steps import Step

__all__: list[str] = []  # its parts serve `Session` (`trackerkit.simulate.session`) only


class _Scripts:
    """The part of a `Session` that plays the scene's scripted steps and plans its scripted model."""

    # What the scripts use of the session (`Session.__init__` sets them).
    model: Model
    player: ScenarioPlayer

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The scene's scripted steps, as stored."""
        return self.player.steps

    @property
    def done(self) -> bool:
        """True when every scripted step of the scene has been played."""
        return self.player.done

    @property
    def mismatches(self) -> list[str]:
        """Every `expect` a played step missed, in words."""
        return self.player.mismatches

    def play(
        self, step: Step | Mapping[str, Any], *, label: str | None = None, where: str = "step"
    ) -> TurnReport | None:
        """Play one scenario step (see `ScenarioPlayer.play`)."""
        return self.player.play(step, label=label, where=where)

    def play_next(self) -> TurnReport | None:
        """Play the scene's next scripted step (see `ScenarioPlayer.play_next`)."""
        return self.player.play_next()

    def run(self, progress: Callable[[int, int], None] | None = None) -> list[TurnReport]:
        """Play every remaining scripted step; returns the turn reports."""
        return self.player.run(progress)

    def _plan(self, script: Script) -> None:
        scripted = _scripted(self.model)
        if scripted is not None:
            if script is not None:
                scripted.plan(
                    script if isinstance(script, TurnPlan) else TurnPlan.from_step(script)
                )
            scripted.start_turn()


def _check_script(script: object) -> None:
    """Refuse a script that is no plan: a `TurnPlan`, a scenario step (a mapping) or None."""
    if script is not None and not isinstance(script, TurnPlan | Mapping):
        raise BadRequestError(
            "a script is a TurnPlan or a scenario step (an object with reply and calls); "
            f"found {type(script).__name__}"
        )


def _scripted(model: object) -> ScriptedModel | None:
    """The scripted model a session plays, itself or wrapped (a wrapper names it `inner`, as
    `trackerkit.evaluation.tool_style.AnyOfTools` does); None for any other model."""
    seen = 0
    while not isinstance(model, ScriptedModel):
        model = getattr(model, "inner", None)
        seen += 1
        if model is None or seen > 8:
            return None
    return model
