"""The fields a scene's own scripted steps name that a designer save renamed or deleted since.

A person's steps on the simulator page carry the revision of each tracker they were written
against (`playback.pinned`), so a replay reads their fields through the renames saved since
(TR-44). A scene file carries no revision: its scripted calls and expectations name fields as
they were when someone wrote the file, which may be before or after any recorded save. Reading
them through the renames would be a guess that can write a value to the wrong field without a
word (two fields that swapped names, a name given to another field later), and would leave the
scene's expectations naming the old field anyway. So the scripted steps are played as written,
and a call naming a renamed field is refused as the rules refuse it; `outdated_names` finds
those names through the library's record (`trackerkit.renames`) so the page can say why, and
what to change in the scene file. A name that another field has taken since (hp_max renamed to
hp_top, then a new field called hp_max) is not refused: the scripted calls write the new field,
so it is said too, as the case to check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.errors import ModelError
from trackerkit.renames import FieldRenames
from trackerkit.steps import TurnPlan
from trackerkit.tracker import Tracker
from trackerkit.update import name_key

__all__ = ["OutdatedName", "outdated_names"]


@dataclass(frozen=True, slots=True)
class OutdatedName:
    """A field the scene's scripted steps name by a name a designer save took from it."""

    #: The scene's id and its file.
    scene: str
    path: Path
    #: The tracker, by its name now, and the field as the scene names it.
    tracker: str
    field: str
    #: The field's name now; None when a save deleted it.
    now: str | None
    #: The revision the save that renamed (or deleted) it made.
    revision: int
    #: The scripted steps (from 1) whose calls or edit set it, and whose expectations name it.
    sets: tuple[int, ...]
    expects: tuple[int, ...]
    #: True when the name belongs to another field now (one added, or renamed to it, since): the
    #: steps are not refused then, they write and check that other field.
    reused: bool = False

    @property
    def sentence(self) -> str:
        """What happened and what to do, in words the page shows as they are (plain text)."""
        named = (
            f"{self.tracker}.{self.field}, which a designer save "
            + (f"renamed to {self.now}" if self.now is not None else "deleted")
            + f" (the save that made revision {self.revision})"
        )
        other = f"the name {self.field} now belongs to another field of {self.tracker}"
        one = len(self.sets) == 1
        if self.sets:
            lead = f"its own scripted {_steps(self.sets)} set{'s' if one else ''} {named}: "
            if self.reused:
                lead += (
                    f"{other}, so {'the call writes' if one else 'their calls write'} that "
                    "field instead, and every step after them, yours too, reads what that leaves"
                )
            else:
                lead += (
                    "the call is refused, so nothing of its batch is written"
                    if one
                    else "their calls are refused, so nothing of those batches is written"
                )
            checked = "are checked against that field" if self.reused else "are not met"
            body = lead + (
                f"; the expectations of {_steps(self.expects)} name it and {checked}"
                if self.expects
                else ""
            )
        else:
            body = f"the expectations of its own scripted {_steps(self.expects)} name {named}: " + (
                f"{other}, so they are checked against that field"
                if self.reused
                else "they are not met"
            )
        fix = (
            f"write {self.now} for {self.field}"
            if self.now is not None
            else f"take {self.field} out"
        )
        if self.reused:
            was = f"the field now named {self.now}" if self.now is not None else "the deleted field"
            fix = f"if they were written for {was}, {fix}"
        return (
            f"Scene {self.scene}: {body}. A scene's steps are played as written (its file does "
            f"not say which revision of {self.tracker} they were written for, so they are not "
            f"renamed for it). Edit the scene: in {self.path}, {fix} in those steps' calls and "
            "expectations."
        )


def _steps(numbers: Sequence[int]) -> str:
    shown = [str(n) for n in numbers]
    if len(shown) == 1:
        return f"step {shown[0]}"
    return f"steps {', '.join(shown[:-1])} and {shown[-1]}"


def outdated_names(
    scene: str,
    path: Path,
    steps: Sequence[Mapping[str, Any]],
    trackers: Sequence[Tracker],
    history: Callable[[str], FieldRenames],
) -> tuple[OutdatedName, ...]:
    """The fields `steps` (the scene's scripted steps played, in order) set or expect by a name
    that the record says a save renamed or deleted: a name that is no field of the linked tracker
    now, or one that another field has taken since (`OutdatedName.reused`; a field renamed away
    and back again is the same field, and is not said).

    Args:
        scene: the scene's id; `path` its file, named in the sentence.
        steps: the scripted steps played.
        trackers: the trackers the scene links now.
        history: the recorded renames of a tracker, by its id.
    Returns:
        One per tracker and field, in the order the steps first name them.
    """
    found: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
    for number, step in enumerate(steps, start=1):
        for tracker in trackers:
            for name in _set_names(step, tracker):
                found.setdefault((tracker.id, name), ([], []))[0].append(number)
            for name in _expected_names(step, tracker):
                found.setdefault((tracker.id, name), ([], []))[1].append(number)
    by_id = {t.id: t for t in trackers}
    outdated = []
    for (tracker_id, name), (sets, expects) in found.items():
        tracker = by_id[tracker_id]
        taken = _taken(history(tracker_id), name, tracker.revision)
        if taken is None:
            continue
        revision, now = taken
        reused = name in {f.name for f in tracker.fields}
        if reused and now == name:
            continue
        outdated.append(
            OutdatedName(
                scene,
                path,
                tracker.name,
                name,
                now,
                revision,
                tuple(sorted(set(sets))),
                tuple(sorted(set(expects))),
                reused,
            )
        )
    return tuple(outdated)


def _taken(history: FieldRenames, name: str, until: int) -> tuple[int, str | None] | None:
    """The last save (up to `until`) that renamed `name` away or deleted it, and the field's name
    now (None when deleted since); None when no save did."""
    renamed = {r for r, names in history.revisions if name in names and names[name] != name}
    deleted = {r for r, names in history.deleted if name in names}
    saves = [r for r in renamed | deleted if r <= until]
    if not saves:
        return None
    revision = max(saves)
    return revision, history.name_now(name, revision - 1, until)


def _set_names(step: Mapping[str, Any], tracker: Tracker) -> Iterator[str]:
    """The field names the step's update items (its calls, each round, or its edit) set on
    `tracker`, matched by its name as the update rules match it (TR-20)."""
    key = name_key(tracker.name)
    for item in _items(step):
        name, values = item.get("tracker"), item.get("set")
        if isinstance(name, str) and name_key(name) == key and isinstance(values, Mapping):
            yield from (str(k) for k in values)


def _items(step: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    if step.get("action") == "edit":
        yield step
        return
    try:
        rounds = TurnPlan.from_step(step).rounds
    except ModelError:  # not rounds of calls: the step's own outcome says so
        return
    for call in (call for round_ in rounds for call in round_):
        arguments = call.get("arguments") if isinstance(call, Mapping) else None
        if isinstance(arguments, str):  # given as the JSON text a model sends
            arguments, _problem = read_arguments(arguments)
        updates = arguments.get("updates") if isinstance(arguments, Mapping) else arguments
        for item in updates if isinstance(updates, list) else []:
            if isinstance(item, Mapping):
                yield item


def _expected_names(step: Mapping[str, Any], tracker: Tracker) -> Iterator[str]:
    """The field names the step's expectations give for `tracker` (a list's: in any row)."""
    expect = step.get("expect")
    wanted = expect.get(tracker.name) if isinstance(expect, Mapping) else None
    if not isinstance(wanted, Mapping):
        return
    if tracker.layout == "record":
        yield from (str(k) for k in wanted)
        return
    for row in wanted.values():
        if isinstance(row, Mapping):
            yield from (str(k) for k in row)
