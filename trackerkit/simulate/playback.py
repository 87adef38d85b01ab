"""The simulator page's steps played again on a fresh session, each with what it did or why not.

The page keeps the steps a person adds (a turn, a swipe, an edit, a fork, a switch of takes) as
plain dicts and plays them, after the scene's scripted steps, on a new `Session` each time it
draws. `play_page` never raises for a step: a step refused (tool calls that are not JSON, an edit
the rules refuse, a cut of a message that is gone) becomes an `Outcome` whose `refused` sentence
the page shows, and nothing of it is written. Message ids count per chat, so every replay gives
the same ids, and the page's numbers (message 1, version 1) count from 1 everywhere.

A step the person adds carries the tracker each linked name meant when it was added (`pinned`,
under `trackerIds`), so a tracker renamed in the library since then (its id unchanged) still gets
that step's calls and edits: on replay a name is rewritten to the tracker's name now (TR-21: the
values live under the id). Without it, every replay after a rename would refuse the old batches
(all or nothing, so their other trackers' writes too), and the values the person saw would go.
Fields follow the same way: the step carries each tracker's revision (`trackerRevisions`), and
its field names are read through the renames the library recorded since (`trackerkit.renames`,
TR-44); its writes to a field deleted since are dropped, the rest of its batch or edit is written
as before. The scene's own scripted steps are played as stored: a scene file says no revision
(`trackerkit.simulate.outdated` says why that is not guessed), so a scripted call naming a field
renamed since is refused, and `Playback.outdated` names each such field for the page to say so.

A person's edit carries where its form was read (`baseStep`: how many of the page's steps had
been played), not a version number: the version it guards with (TR-27) is re-read at that place
on every replay. So the edit is written on the message it was made on when "Scripted steps
played" moves (the versions count anew then), and is still refused when a step the person added
after reading came first. A swipe, regenerate or continue that carries `baseStep` is played on
the reply it was made on in the same way. A reply the scripted steps made is named too
(`baseMessage`, see `Playback.base`): its id is the same at any slider, so a step made on it is
refused, never moved to another reply, when the slider leaves it out or passes it. A step
refused on replay is listed by `Playback.refusals` for the page to show as loudly as the
scripted ones.

The page plays under either protocol (`protocol="tools" | "text"`); `compare_protocols` plays
the same steps under both and lists, step by step, where their values part (under the text
protocol a batch the tool path retries in a second round is answered only on the next turn).

The parts live in their own modules, and every public name is importable from here:
`trackerkit.simulate.forms` (`read_json`), `.clamps` (`Clamp`, `clamps_of`, `turn_clamps`),
`.outcomes` (`Outcome`, `ForkPoint`, `Playback`), `.pins` (`pinned`, `linked_names`) and `.step`
(one step played); this module plays them (`play_page`, `compare_protocols`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trackerkit.chat import Chat
from trackerkit.renames import histories
from trackerkit.scene import scene_trackers
from trackerkit.simulate.clamps import Clamp, _plain, clamps_of, turn_clamps
from trackerkit.simulate.completion import PROTOCOLS, UpdateProtocol
from trackerkit.simulate.forms import read_json
from trackerkit.simulate.outcomes import ForkPoint, Outcome, Playback
from trackerkit.simulate.outdated import outdated_names
from trackerkit.simulate.pins import linked_names, pinned
from trackerkit.simulate.session import Session
from trackerkit.simulate.step import _play, _Reading
from trackerkit.values import same_value

__all__ = [
    "Clamp",
    "ForkPoint",
    "Outcome",
    "Playback",
    "ProtocolComparison",
    "StepValues",
    "clamps_of",
    "compare_protocols",
    "linked_names",
    "pinned",
    "play_page",
    "read_json",
    "turn_clamps",
]


def play_page(
    scene: str | Path,
    steps: Sequence[Mapping[str, Any]],
    *,
    scripted: int | None = None,
    trackers: str | Path | None = None,
    protocol: UpdateProtocol = "tools",
) -> Playback:
    """A new session on `scene` with its first `scripted` steps and then the page's `steps` played.

    Page steps are the scene file's step shapes, with these page forms: `callsText` (the tool
    calls as typed, read here), `setText` and `baseVersion` (the take's version the form read,
    for this very replay) on an edit, `baseStep` and `baseMessage` on an edit, swipe,
    regenerate or continue (see `Playback.base`: the reply it was made on, refused when this
    replay does not end on it there; an edit's guard is the take's version there, TR-27),
    `trackerIds` and `trackerRevisions` (see `pinned`: a call or edit naming a tracker or a
    field renamed since is sent under its name now), and `{"action": "use", "take": "t1"}`,
    which shows another take. Message references are ids; `version` counts from 1.

    Args:
        scene: the scene file.
        steps: the steps the person added, oldest first.
        scripted: how many of the scene's scripted steps to play first (all when None).
        trackers: the folder of tracker pieces (`<data>/trackers` beside the scene when None).
        protocol: how the model sends its updates, "tools" or "text" (the scripted model then
            writes its calls as the reply's update block).
    Raises:
        TrackerkitError: the scene itself cannot be read (no step is ever the cause).
    """
    session = Session.from_scene(scene, trackers=trackers, protocol=protocol)
    playback = Playback(session)
    count = len(session.steps) if scripted is None else max(0, min(scripted, len(session.steps)))
    for index in range(count):
        _play(playback, dict(session.steps[index]), index + 1, scripted=True)
    session.player.step_index = count
    chat = session.chat
    # The messages the scripted steps made: ids count per chat, so theirs are the same at any
    # slider, while the ids of the messages the page's steps make move with it.
    made = _message_ids(chat)
    playback.scripted_ids = frozenset(made)
    folder = scene_trackers(scene, trackers)
    history = histories(folder)
    playback.outdated = outdated_names(
        session.scene.id, Path(scene), session.steps[:count], chat.linked().trackers, history
    )

    read: list[_Reading] = []  # the take before each page step: what a form read there
    for index, step in enumerate(steps, start=count + 1):
        tip = chat.take.messages[-1].id if chat.take.messages else None
        read.append(_Reading(chat.take.version, chat.current, tip, tip in made))
        before = _message_ids(chat)
        _play(playback, dict(step), index, scripted=False, read=read, history=history)
        playback.made.append(tuple(i for i in _message_ids(chat) if i not in before))
    return playback


def _message_ids(chat: Chat) -> dict[str, None]:
    """Every message id of every take, in the order they were made (an ordered set)."""
    ids = {m.id: None for take in chat.takes.values() for m in take.messages}
    return dict.fromkeys(sorted(ids, key=lambda i: int(i[1:]) if i[1:].isdigit() else -1))


@dataclass(frozen=True, slots=True)
class StepValues:
    """One step's values after it, under each protocol, flattened to `tracker.field` (lists:
    `tracker.row.field`); None for a step that wrote no turn under that protocol."""

    number: int
    kind: str
    tools: Mapping[str, object] | None
    text: Mapping[str, object] | None

    def differences(self) -> list[tuple[str, object, object]]:
        """`(place, tools value, text value)` wherever the two differ, in order of place."""
        tools, text = self.tools or {}, self.text or {}
        places = sorted(set(tools) | set(text))
        return [
            (p, tools.get(p, _NO_ROW), text.get(p, _NO_ROW))
            for p in places
            if not same_value(tools.get(p, _NO_ROW), text.get(p, _NO_ROW))
        ]


_NO_ROW = "(no row)"


@dataclass(frozen=True, slots=True)
class ProtocolComparison:
    """The same steps played under the tool path and the text protocol, step by step."""

    steps: list[StepValues]
    #: The steps whose plan sends a refused batch again in a second round (numbers from 1): the
    #: text protocol answers that refusal on the next turn, so they differ by design.
    retried: frozenset[int] = frozenset()

    @property
    def same(self) -> bool:
        """True when every step reached the same values under both protocols."""
        return not any(s.differences() for s in self.steps)

    def mismatches(self) -> list[str]:
        """Each value that differs, in words: `Step 3 (turn): Health.hp: tools 12, text 22`."""
        lines = []
        for step in self.steps:
            note = (
                " (a retried batch: the text protocol answers it next turn)"
                if step.number in self.retried
                else ""
            )
            lines += [
                f"Step {step.number} ({step.kind}){note}: {place}: tools {_plain(a)}, text {_plain(b)}"
                for place, a, b in step.differences()
            ]
        return lines

    def rows(self) -> list[dict[str, object]]:
        """One row per differing value, for a table: step, kind, place, tools, text."""
        return [
            {
                "step": s.number,
                "kind": s.kind,
                "value": place,
                "tools": _plain(a),
                "text": _plain(b),
            }
            for s in self.steps
            for place, a, b in s.differences()
        ]


def _flat(values: Mapping[str, Any]) -> dict[str, object]:
    flat: dict[str, object] = {}
    for tracker, value in values.items():
        if not isinstance(value, Mapping):
            continue
        for key, item in value.items():
            if isinstance(item, Mapping):
                flat.update({f"{tracker}.{key}.{f}": v for f, v in item.items()})
            else:
                flat[f"{tracker}.{key}"] = item
    return flat


def compare_protocols(
    scene: str | Path,
    steps: Sequence[Mapping[str, Any]] = (),
    *,
    scripted: int | None = None,
    trackers: str | Path | None = None,
) -> ProtocolComparison:
    """Play the page's steps (after `scripted` scene steps) under both protocols; their values step by step.

    Each side plays freely (as a chat would), so a step that differs carries into the next ones.
    Raises:
        TrackerkitError: the scene itself cannot be read.
    """
    played = {
        p: play_page(scene, steps, scripted=scripted, trackers=trackers, protocol=p)
        for p in PROTOCOLS
    }
    tools, text = played["tools"], played["text"]
    compared = []
    for a, b in zip(tools.outcomes, text.outcomes, strict=True):
        if a.report is None and b.report is None:
            continue
        compared.append(
            StepValues(
                a.number,
                a.kind,
                _flat(a.report.values) if a.report is not None else None,
                _flat(b.report.values) if b.report is not None else None,
            )
        )
    retried = frozenset(
        o.number
        for o in tools.outcomes
        if o.report is not None and len({c.round for c in o.report.calls}) > 1
    )
    return ProtocolComparison(compared, retried)
