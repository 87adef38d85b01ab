"""What a draft's save breaks in the scenes that link the tracker: a warning, never a refusal.

A scene's scripted tool calls (`calls`, `rounds`, an `edit` action) and its `expect` blocks name
the tracker by its name and its fields by theirs, while the scene links the piece by id. So a
renamed tracker, or a field renamed or deleted, still saves, yet the linked scenes' calls are then
refused ("no linked tracker is called ...") and their expectations fail. `scene_breaks` reads the
scenes (no I/O) and says so, per change, with each scene's count.

Other changes (a field's type, choices, range or top; a record made a list) break nothing by
name, yet a call may now be refused or an expectation missed. Given the library's trackers,
`scene_breaks` also plays each linked scene's scripted turns (no model, no trace) on the opened
revision and on the draft, and names the calls refused and expectations missed that were not
before, with the first of each.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.design.draft import Draft, named, namesakes
from trackerkit.errors import ModelError, TrackerkitError
from trackerkit.scene import Scene
from trackerkit.steps import TurnPlan
from trackerkit.tracker import Tracker
from trackerkit.update import name_key

__all__ = ["scene_breaks"]


def scene_breaks(
    draft: Draft, scenes: Iterable[object], trackers: Iterable[Tracker] | None = None
) -> list[str]:
    """Sentences naming what saving `draft` over the revision it opened breaks in linked scenes.

    The sentences hold names as written (markdown, not escaped): the page escapes each one
    (`trackerkit.views.markdown.safe_md`) before `mo.md`.

    Args:
        draft: the draft on the page; compared with the revision it was opened on.
        scenes: scenes as `load_scenes` reads them (objects with `id`, `trackers`, `turns` and
            `deleted`); scenes that do not link the draft's id, and deleted ones, are skipped.
        trackers: the library's trackers (the scenes' other links); when given, and the draft
            decodes, each linked scene not named already is played on both (see the module).
    Returns:
        One sentence per change that something refers to, tracker rename first, then each field
        in the opened order, then one per scene whose play the draft changes; empty when
        nothing in a linked scene refers to what changed.
    """
    linked = [s for s in scenes if _links(s, draft.id)]
    lines, named = _name_breaks(draft, linked)
    if trackers is not None:
        library = list(trackers)
        others = [s for s in linked if isinstance(s, Scene) and s.id not in named]
        lines = _name_clashes(draft, linked, library) + lines
        lines += _played_breaks(draft, others, library)
    return lines


def _name_clashes(draft: Draft, linked: list[object], trackers: list[Tracker]) -> list[str]:
    """A new name another tracker of the library already has: a scene linking both leaves one
    out of every turn (two linked trackers of one name cannot both be called by it)."""
    if name_key(draft.name) == name_key(draft.base.name):
        return []
    lines = []
    for other in namesakes(draft.name, trackers, draft.id):
        both = [_scene_id(s) for s in linked if _links(s, other.id)]
        if both:
            lines.append(
                f'Renaming {draft.base.name} to "{draft.name}" clashes with the tracker '
                f"{other.name} ({other.id}), which {_scenes(len(both))} also "
                f"{_verb(len(both), 'link')}: {', '.join(both)}; a turn leaves one of two "
                "trackers of one name out."
            )
        else:
            lines.append(
                f"Another tracker of the library is named {named([other])}; a scene "
                "that links both leaves one of them out."
            )
    return lines


def _name_breaks(draft: Draft, linked: list[object]) -> tuple[list[str], set[str]]:
    """The renamed tracker's and renamed or deleted fields' sentences, and the ids of the scenes
    they name."""
    base = draft.base
    lines: list[str] = []
    named: set[str] = set()
    if draft.name != base.name:
        counts = [(_scene_id(s), *_name_uses(s, base.name)) for s in linked]
        hit = [(sid, calls, expects) for sid, calls, expects in counts if calls or expects]
        named.update(sid for sid, _calls, _expects in hit)
        if hit:
            lines.append(
                f'Renaming {base.name} to "{draft.name}" breaks {_scenes(len(hit))} that '
                f"{_verb(len(hit), 'call')} or {_verb(len(hit), 'expect')} it by name: {_list(hit, 'call', 'expectation')}."
            )
    now = {f.key: f.name for f in draft.fields}
    names_now = set(now.values())
    record = base.body.layout == "record"
    for field, key in zip(base.fields, draft.opened, strict=True):  # by identity (TR-47)
        new_name = now.get(key)
        if field.name in names_now:
            continue
        counts = [(_scene_id(s), *_field_uses(s, base.name, field.name, record)) for s in linked]
        hit = [(sid, sets, expects) for sid, sets, expects in counts if sets or expects]
        if not hit:
            continue
        named.update(sid for sid, _sets, _expects in hit)
        doing = (
            f"Deleting {field.name}"
            if new_name is None
            else f'Renaming {field.name} to "{new_name}"'
        )
        lines.append(
            f"{doing} breaks {_scenes(len(hit))} that {_verb(len(hit), 'set')} or {_verb(len(hit), 'expect')} it: "
            f"{_list(hit, 'set', 'expectation')}."
        )
    return lines, named


_played: dict[tuple[str, str], tuple[dict[tuple[int, int], str], set[str]]] = {}
"""Plays of a scene on trackers (by their JSON), kept: the opened revision's play is asked for on
every change of a draft."""


def _play(scene: Scene, trackers: Sequence[Tracker]) -> tuple[dict[tuple[int, int], str], set[str]]:
    """The scene's scripted turns played on `trackers`: each refused call's answer by (turn,
    call), and the expectations missed."""
    from trackerkit.simulate.session import Session  # the simulator imports the designer's kin

    key = (scene.model_dump_json(), "\n".join(t.model_dump_json() for t in trackers))
    if key not in _played:
        session = Session(scene, trackers)
        refused: dict[tuple[int, int], str] = {}
        for report in session.run():
            for number, call in enumerate(report.calls):
                if not call.ok:
                    refused[(report.index, number)] = call.answer
        if len(_played) > 64:
            _played.clear()
        _played[key] = (refused, set(session.mismatches))
    return _played[key]


def _played_breaks(draft: Draft, scenes: list[Scene], trackers: list[Tracker]) -> list[str]:
    """One sentence per scene whose scripted play refuses or misses more on the draft."""
    try:
        changed = draft.tracker()
    except TrackerkitError:  # the verdict says why; nothing to play
        return []
    if changed == draft.base:
        return []
    lines = []
    for scene in scenes:
        try:
            before = _play(scene, _pieces(scene, trackers, draft.base))
        except TrackerkitError:  # the scene does not play as it is: its own check says why
            continue
        try:
            after = _play(scene, _pieces(scene, trackers, changed))
        except TrackerkitError as stop:  # a scripted edit refused, say
            lines.append(
                f"The change stops the play of {scene.id} at a scripted step: {_short(str(stop))}."
            )
            continue
        refused = sorted(after[0].keys() - before[0].keys())
        missed = [m for m in _play_order(after[1]) if m not in before[1]]
        said = []
        if refused:
            said.append(
                f"{len(refused)} call{'' if len(refused) == 1 else 's'} now refused "
                f"(the first: {_short(_why(after[0][refused[0]]))})"
            )
        if missed:
            said.append(
                f"{len(missed)} expectation{'' if len(missed) == 1 else 's'} now missed "
                f"(the first: {_short(missed[0])})"
            )
        if said:
            lines.append(f"The change breaks the play of {scene.id}: {'; '.join(said)}.")
    return lines


def _pieces(scene: Scene, trackers: list[Tracker], own: Tracker) -> list[Tracker]:
    """The trackers the scene links, `own` in place of the library's piece of its id."""
    return [own if t.id == own.id else t for t in trackers if t.id in scene.trackers]


def _play_order(missed: set[str]) -> list[str]:
    """Mismatches in step order (`step N: ...`), then as text."""

    def order(line: str) -> tuple[int, str]:
        head = line.split(":", 1)[0].removeprefix("step ")
        return (int(head) if head.isdigit() else 0, line)

    return sorted(missed, key=order)


def _why(answer: str) -> str:
    """A refusal's first reason: the tool's answer without its opening sentence."""
    reasons = [line.removeprefix("- ") for line in answer.splitlines() if line.startswith("- ")]
    return reasons[0] if reasons else answer


def _short(text: str, limit: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scenes(count: int) -> str:
    return f"{count} linked scene{'' if count == 1 else 's'}"


def _verb(count: int, verb: str) -> str:
    return verb if count != 1 else f"{verb}s"


def _list(hit: list[tuple[str, int, int]], first: str, second: str) -> str:
    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    parts = []
    for sid, a, b in hit:
        said = [plural(n, word) for n, word in ((a, first), (b, second)) if n]
        parts.append(f"{sid} ({', '.join(said)})")
    return ", ".join(parts)


def _scene_id(scene: object) -> str:
    return str(getattr(scene, "id", "?"))


def _links(scene: object, tracker_id: str) -> bool:
    if getattr(scene, "deleted", None) is True:
        return False
    trackers = getattr(scene, "trackers", None)
    return isinstance(trackers, list | tuple) and tracker_id in trackers


def _turns(scene: object) -> list[Mapping[str, Any]]:
    turns = getattr(scene, "turns", None)
    return [t for t in turns if isinstance(t, Mapping)] if isinstance(turns, list) else []


def _updates(turn: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every update item a step sends: the calls of the rounds the scripted model plays
    (`TurnPlan.from_step`: `rounds`, else `calls`), and an `edit` action's set."""
    try:
        rounds = TurnPlan.from_step(turn).rounds
    except ModelError:  # not rounds of calls: the scene's own check says so
        rounds = []
    for call in (call for round_ in rounds for call in round_):
        arguments = call.get("arguments") if isinstance(call, Mapping) else None
        if isinstance(arguments, str):  # a step may give them as the JSON text a model sends
            arguments, _problem = read_arguments(arguments)
        updates = arguments.get("updates") if isinstance(arguments, Mapping) else None
        for item in updates if isinstance(updates, list) else []:
            if isinstance(item, Mapping):
                yield item
    if "tracker" in turn:
        yield turn


def _same(a: object, b: str) -> bool:
    # The update tool finds a tracker by its name, case folded (trackerkit.update).
    return isinstance(a, str) and name_key(a) == name_key(b)


def _name_uses(scene: object, name: str) -> tuple[int, int]:
    calls = expects = 0
    for turn in _turns(scene):
        calls += sum(1 for item in _updates(turn) if _same(item.get("tracker"), name))
        expect = turn.get("expect")
        expects += isinstance(expect, Mapping) and name in expect
    return calls, expects


def _field_uses(scene: object, tracker: str, field: str, record: bool) -> tuple[int, int]:
    sets = expects = 0
    for turn in _turns(scene):
        for item in _updates(turn):
            values = item.get("set")
            if _same(item.get("tracker"), tracker) and isinstance(values, Mapping):
                sets += any(_same(k, field) for k in values)
        expect = turn.get("expect")
        wanted = expect.get(tracker) if isinstance(expect, Mapping) else None
        if not isinstance(wanted, Mapping):
            continue
        rows = [wanted] if record else [r for r in wanted.values() if isinstance(r, Mapping)]
        expects += any(field in row for row in rows)
    return sets, expects
