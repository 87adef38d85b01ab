"""What a draft's save breaks in the scenes that link the tracker: a warning, never a refusal.

A scene's scripted tool calls (`calls`, `rounds`, an `edit` action) and its `expect` blocks name
the tracker by its name and its fields by theirs, while the scene links the piece by id. So a
renamed tracker, or a field renamed or deleted, still saves, yet the linked scenes' calls are then
refused ("no linked tracker is called ...") and their expectations fail. `scene_breaks` reads the
scenes (no I/O) and says so, per change, with each scene's count.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.design.draft import Draft
from trackerkit.errors import ModelError
from trackerkit.steps import TurnPlan

__all__ = ["scene_breaks"]


def scene_breaks(draft: Draft, scenes: Iterable[object]) -> list[str]:
    """Sentences naming what saving `draft` over the revision it opened breaks in linked scenes.

    Args:
        draft: the draft on the page; compared with the revision it was opened on.
        scenes: scenes as `load_scenes` reads them (objects with `id`, `trackers`, `turns` and
            `deleted`); scenes that do not link the draft's id, and deleted ones, are skipped.
    Returns:
        One sentence per change that something refers to, tracker rename first, then each field
        in the opened order; empty when nothing in a linked scene refers to what changed.
    """
    base = draft.base
    linked = [s for s in scenes if _links(s, draft.id)]
    lines: list[str] = []
    if draft.name != base.name:
        counts = [(_scene_id(s), *_name_uses(s, base.name)) for s in linked]
        hit = [(sid, calls, expects) for sid, calls, expects in counts if calls or expects]
        if hit:
            lines.append(
                f'Renaming {base.name} to "{draft.name}" breaks {_scenes(len(hit))} that '
                f"{_verb(len(hit), 'call')} or {_verb(len(hit), 'expect')} it by name: {_list(hit, 'call', 'expectation')}."
            )
    now = {f.key: f.name for f in draft.fields}
    names_now = set(now.values())
    record = base.body.layout == "record"
    for index, field in enumerate(base.fields, 1):
        new_name = now.get(f"#{index}")
        if field.name in names_now:
            continue
        counts = [(_scene_id(s), *_field_uses(s, base.name, field.name, record)) for s in linked]
        hit = [(sid, sets, expects) for sid, sets, expects in counts if sets or expects]
        if not hit:
            continue
        doing = f"Deleting {field.name}" if new_name is None else f'Renaming {field.name} to "{new_name}"'
        lines.append(
            f"{doing} breaks {_scenes(len(hit))} that {_verb(len(hit), 'set')} or {_verb(len(hit), 'expect')} it: "
            f"{_list(hit, 'set', 'expectation')}."
        )
    return lines


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
    return isinstance(a, str) and a.casefold() == b.casefold()


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
