"""What the simulator page's steps did: each step's `Outcome`, and the `Playback` that holds them.

A `Playback` is the session the steps were played on with every step's outcome, where each take
was forked (`ForkPoint`), and which turn wrote each reply version; it gives the page its labels
(takes, messages, the last turn's heading) and where a step added now is made (`Playback.base`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackerkit.line import md_text
from trackerkit.simulate.clamps import Clamp
from trackerkit.simulate.outdated import OutdatedName
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.session import Session

__all__ = ["ForkPoint", "Outcome", "Playback"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one step did: the turn's report, the values clamped, or why it was refused."""

    number: int
    kind: str
    scripted: bool
    refused: str | None = None
    report: TurnReport | None = None
    clamps: tuple[Clamp, ...] = ()
    take: str = "t1"
    #: The reply version the turn wrote (its index), when it wrote one.
    version: int | None = None
    #: The step as the page gave it (texts as typed), so a refused one can be shown again.
    typed: Mapping[str, Any] = field(default_factory=dict)
    #: Tool calls the step gave that no tool could take (the scene links no tracker).
    unsent: int = 0

    @property
    def sentence(self) -> str:
        """The step's outcome in one line, as the page shows it next to the control."""
        label = f"Step {self.number} ({self.kind})"
        if self.refused is not None:
            return f"{label} was refused, nothing was written: {self.refused}"
        if self.report is not None and self.report.failed:
            return f"{label} failed and kept nothing: {self.report.failed}"
        refused = [c for c in self.report.calls if not c.ok] if self.report else []
        parts = [f"{label} done"]
        if self.unsent:
            parts.append(
                f"the scene links no tracker, so no update tool was offered and the {self.unsent} "
                f"tool call{'s' if self.unsent != 1 else ''} typed {'were' if self.unsent != 1 else 'was'} not sent"
            )
        if refused:
            parts.append(f"{len(refused)} tool call(s) refused (see under the reply)")
        if self.clamps:
            parts.append("clamped: " + "; ".join(map(str, self.clamps)))
        return "; ".join(parts) + "."


@dataclass(frozen=True, slots=True)
class ForkPoint:
    """Where a take began: the take it was forked from and the last message they share."""

    source: str
    message_id: str
    number: int


@dataclass(slots=True)
class Playback:
    """A session with the page's steps played on it, and what each step did."""

    session: Session
    outcomes: list[Outcome] = field(default_factory=list)
    forks: dict[str, ForkPoint] = field(default_factory=dict)
    #: The turn that wrote each reply version, by (message id, version index).
    replies: dict[tuple[str, int], Outcome] = field(default_factory=dict)
    #: The fields the scene's scripted steps played name that a designer save renamed or
    #: deleted since (those steps are played as written; the page says why they are refused).
    outdated: tuple[OutdatedName, ...] = ()
    #: The messages the scene's scripted steps made: their ids are the same at any slider.
    scripted_ids: frozenset[str] = frozenset()
    #: The messages each of the person's steps made, oldest first (their ids move with the
    #: slider: `origin` names them by the step that made them instead).
    made: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def page_outcomes(self) -> list[Outcome]:
        """The outcomes of the steps the person added (not the scene's scripted ones)."""
        return [o for o in self.outcomes if not o.scripted]

    def refusals(self, refused_when_added: Sequence[bool] | None = None) -> list[Outcome]:
        """The refused steps the page says above the chat, since no control shows them: every
        scripted one, and each of the person's but the last (its own control shows that one).

        With `refused_when_added` (see `refused_when_added`), a step of the person's that was
        refused already when it was added is left out: its control said so then, and it stays
        in the list of their steps. Only a step written when added and refused now (a replay
        after the slider moved, an edit after a designer save) is said, so it is never dropped
        in silence, while a typo's refusal does not stay above the chat once the chat moved on.
        """
        mine = self.page_outcomes
        said_then = {id(o) for o, was in zip(mine, refused_when_added or (), strict=False) if was}
        return [
            o
            for o in self.outcomes
            if o.refused is not None and o not in mine[-1:] and id(o) not in said_then
        ]

    def refused_when_added(self, noted: Sequence[bool]) -> list[bool]:
        """Whether each of the person's steps was refused when it was added, for `refusals`.

        `noted` is what the page noted at its earlier draws: kept for the steps still there (one
        undone is dropped); a step played here for the first time is noted as it is played now.
        """
        kept = list(noted[: len(self.page_outcomes)])
        return kept + [o.refused is not None for o in self.page_outcomes[len(kept) :]]

    def base(self) -> dict[str, Any]:
        """Where a step the person adds now is made: `{"baseStep": n, "baseMessage": "m12"}`, the
        count of their steps played and the take's last message (none on an empty take).

        Put on an edit, swipe, regenerate or continue, it keeps the step on that reply when
        "Scripted steps played" moves, and has it refused (never moved to another reply) when
        the slider leaves the reply out or passes it.
        """
        messages = self.session.chat.take.messages
        base: dict[str, Any] = {"baseStep": len(self.page_outcomes)}
        if messages:
            base["baseMessage"] = messages[-1].id
        return base

    def origin(self, message_id: object) -> dict[str, Any]:
        """Who made a message the person picks for a cut, fork or version: `{"messageStep": 2,
        "messageNth": 1}` (the second message their third step made) or `{"messageScripted":
        True}` (the scene's scripted steps made it); empty for an id this playback has not.

        Put on the step, it keeps the step on that message when "Scripted steps played" moves:
        the ids of the person's messages move with the slider, so a bare id would then name
        another message (a scripted reply), and the step would cut or fork the wrong one.
        """
        if message_id in self.scripted_ids:
            return {"messageScripted": True}
        for step, ids in enumerate(self.made):
            if message_id in ids:
                return {"messageStep": step, "messageNth": ids.index(str(message_id))}
        return {}

    def message_number(self, message_id: str) -> int | None:
        """A message's number in the take shown (from 1, as the chat numbers it), or None."""
        ids = [m.id for m in self.session.chat.take.messages]
        return ids.index(message_id) + 1 if message_id in ids else None

    def reply_outcome(self, message_id: str, version: int) -> Outcome | None:
        """The turn that wrote a reply version, when this page played it."""
        return self.replies.get((message_id, version))

    def last_turn(self) -> TurnReport | None:
        """The last turn of the take shown: one that wrote a version it shows, or failed on it."""
        outcome = self.last_turn_step()
        return outcome.report if outcome is not None else None

    def last_turn_step(self) -> Outcome | None:
        """The step that played `last_turn()`, so the page numbers it as it numbers every step."""
        take = self.session.chat.take
        shown = {(m.id, m.shown) for m in take.messages}
        for outcome in reversed(self.outcomes):
            report = outcome.report
            if report is None:
                continue
            if report.failed and outcome.take == take.id:
                return outcome
            if (report.message_id, outcome.version) in shown:
                return outcome
        return None

    def last_turn_heading(self) -> str:
        """The last turn's heading as markdown, numbered as the steps are:
        `Step 14 (continue) · wrote message 8` (numbered in the take shown, as the chat is).

        The same number and kind as that step's outcome line (`Step 14 (continue) done.`), so the
        two can never be read as two different counters. The failure (a model's or a server's
        words) is escaped (`line.md_text`): the heading shows it, never runs it.
        Empty when the take shows no turn.
        """
        outcome = self.last_turn_step()
        if outcome is None or outcome.report is None:
            return ""
        report = outcome.report
        number = self.message_number(report.message_id) if report.message_id else None
        where = f" · wrote message {number}" if number is not None else ""
        failed = f" · **failed**: {md_text(report.failed)}" if report.failed else ""
        return f"Step {outcome.number} ({md_text(outcome.kind)}){where}{failed}"

    def take_labels(self) -> dict[str, str]:
        """Each take's label for a switcher, by id: `t2 · forked from t1 at message 6 · 7 messages`."""
        labels = {}
        for take_id, take in self.session.chat.takes.items():
            point = self.forks.get(take_id)
            origin = (
                f" · forked from {point.source} at message {point.number}"
                if point is not None
                else " · the first take"
            )
            count = len(take.messages)
            labels[take_id] = f"{take_id}{origin} · {count} message{'s' if count != 1 else ''}"
        return labels

    def message_labels(self) -> dict[str, str]:
        """The take shown's messages for a picker, numbered from 1 as the panel numbers them."""
        return {
            m.id: f"message {i} · {m.role} · {_short(m.text)}"
            for i, m in enumerate(self.session.chat.messages, start=1)
        }


def _short(text: str, width: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
