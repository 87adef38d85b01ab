"""A page step pinned to the trackers, revisions and fields its names meant when it was added.

`pinned` records them on the step (`trackerIds`, `trackerRevisions`, `trackerFields`); on every
replay `_follow_renames` sends the step's calls and edits to those same trackers under their names
now (TR-21: the values live under the id), names their fields through the renames saved since
(TR-44), drops its writes to fields deleted since, and keeps refused (`_KeptRefused`) a name that
was no field of its tracker then (TR-37).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from trackerkit.chat import Chat
from trackerkit.errors import TrackerkitError
from trackerkit.line import line_of
from trackerkit.renames import FieldRenames
from trackerkit.scene import load_scene, scene_trackers
from trackerkit.simulate.forms import read_json
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.session import Session
from trackerkit.tool import TOOL_NAME
from trackerkit.tracker import Tracker
from trackerkit.update import name_key

__all__ = ["linked_names", "pinned"]


#: The page step's key for what each tracker name meant when the step was added: name -> id.
PINS = "trackerIds"
#: The page step's key for the revision of each tracker when the step was added: id -> revision.
REVISIONS = "trackerRevisions"
#: The page step's key for each tracker's field names at that revision: id -> names, in order.
FIELDS = "trackerFields"


def _linked(scene: str | Path, trackers: str | Path | None) -> tuple[Tracker, ...]:
    path = Path(scene)
    return Chat(load_scene(path), scene_trackers(path, trackers)).linked().trackers


def linked_names(scene: str | Path, trackers: str | Path | None = None) -> dict[str, str]:
    """Each tracker the scene links, as the library holds it now: its name -> its id.

    Args:
        scene: the scene file.
        trackers: the folder of tracker pieces (`<data>/trackers` beside the scene when None).
    Raises:
        TrackerkitError: the scene file cannot be read.
    """
    return {t.name: t.id for t in _linked(scene, trackers)}


def pinned(
    step: Mapping[str, Any], scene: str | Path, trackers: str | Path | None = None
) -> dict[str, Any]:
    """`step` with the trackers its names mean now (`linked_names`) under `trackerIds`, their
    revisions now under `trackerRevisions`, and their fields now under `trackerFields`.

    The page pins each step as the person adds it, so `play_page` sends the step's calls and
    edits to those same trackers on every replay, whatever they are called by then, and names
    their fields as they are called by then (the renames the library recorded since each
    revision, `trackerkit.renames`). A name that was no field of its tracker then keeps the step
    refused as it was (TR-37), even once a later save gives a field that name. A scene that
    cannot be read pins nothing (the playback says why the scene does not play).

    Example: `pinned({"user": "Hi", "callsText": "[]"}, "data/scenes/fight.json")` gives the step
    with `"trackerIds": {"Health": "health", ...}` and `"trackerRevisions": {"health": 0, ...}`.
    """
    try:
        linked = _linked(scene, trackers)
    except (TrackerkitError, OSError):
        return dict(step)
    return {
        **step,
        PINS: {t.name: t.id for t in linked},
        REVISIONS: {t.id: t.revision for t in linked},
        FIELDS: {t.id: [f.name for f in t.fields] for t in linked},
    }


def _tracker_of(names: Mapping[str, str], name: str, *, folded: bool) -> str | None:
    """The id `name` reaches among `names` (name -> id): as written, else (for an update item,
    matched as the update rules match, TR-20) by its folded key, the first tracker in order
    winning. A person's edit names its tracker exactly (`Linked.by_name`)."""
    if name in names or not folded:
        return names.get(name)
    key = name_key(name)
    return next((i for n, i in names.items() if name_key(n) == key), None)


class _KeptRefused:
    """The field names a person's step gave that were no field of their tracker when it was added:
    the step was refused then (TR-37), so it stays refused on every replay, even after a save
    gives a field that name (added, or given back after a delete).

    Each such name is sent under a stand-in no field can have (TR-1), so the rules refuse its item
    as they did; `restore` then puts the name, and the fields the tracker had then, back into
    what the page shows and the model was told, so the refusal reads as it did.
    """

    def __init__(self) -> None:
        self._names: dict[str, tuple[str, tuple[str, ...]]] = {}

    def __bool__(self) -> bool:
        return bool(self._names)

    def hidden(self, tracker_id: str, values: object, then: object) -> object:
        """An item's `set` with each name that was no field `then` (the tracker's field names when
        the step was added) under its stand-in; as it is when `then` is not known."""
        if not isinstance(values, Mapping) or not isinstance(then, list):
            return values
        known = tuple(str(n) for n in then)
        out = {}
        for name, value in values.items():
            key = str(name)
            if key not in known:
                stand_in = f"{key}#{tracker_id}#not-a-field-then"
                self._names[stand_in] = (key, known)
                key = stand_in
            out[key] = value
        return out

    def restore(self, text: str) -> str:
        """`text` (a refusal, a call's arguments or answer) with each stand-in back as the name
        given, and the fields it lists as the tracker's fields then."""
        for stand_in, (name, known) in self._names.items():
            listed = re.escape(repr(line_of(stand_in))) + r" \(fields: [^)]*\)"
            then = f"{line_of(name)!r} (fields: {', '.join(known)})"
            text = _put(listed, then, text).replace(stand_in, name)
        return text

    def restore_turn(self, session: Session, report: TurnReport | None) -> None:
        """The turn's calls and the text protocol's answers, as they read when it was refused."""
        if report is None or not self._names:
            return
        report.calls[:] = [
            replace(c, arguments=self.restore(c.arguments), answer=self.restore(c.answer))
            for c in report.calls
        ]
        for key, answer in session.text_answers.items():
            session.text_answers[key] = self.restore(answer)


def _put(pattern: str, text: str, into: str) -> str:
    """`into` with each match of `pattern` replaced by `text` as it is (no group references)."""
    return re.sub(pattern, lambda _: text, into)


def _follow_renames(
    session: Session,
    step: dict[str, Any],
    history: Callable[[str], FieldRenames],
    kept: _KeptRefused,
) -> None:
    """Rewrite the step's tracker names that now reach another tracker than when it was added (or
    none) to the name that tracker has now; a tracker no longer linked keeps the name typed, and
    a name that reached no tracker then is left to be refused again. Each item's fields are named
    as they are now: through the field renames `history` gives for the tracker meant, saved since
    the revision the step was added at, and without the fields deleted since
    (`trackerRevisions`; a step without it keeps its fields). A name that was no field of the
    tracker then (`trackerFields`) is hidden in `kept`, so its item is refused as it was then,
    whatever field has that name now."""
    pins = step.pop(PINS, None)
    revisions = step.pop(REVISIONS, None)
    fields = step.pop(FIELDS, None)
    if not isinstance(pins, Mapping):
        return
    was = {str(n): i for n, i in pins.items() if isinstance(i, str)}
    if not was or not ("calls" in step or "tracker" in step):
        return
    linked = session.chat.linked().trackers
    now = {t.name: t.id for t in linked}
    name_now = {t.id: t.name for t in linked}
    revision_now = {t.id: t.revision for t in linked}
    added_at = revisions if isinstance(revisions, Mapping) else {}
    fields_then = fields if isinstance(fields, Mapping) else {}

    def follow(item: Mapping[str, Any], *, folded: bool = True) -> dict[str, Any]:
        name = item.get("tracker")
        meant = _tracker_of(was, name, folded=folded) if isinstance(name, str) else None
        if meant is None or meant not in name_now:
            return dict(item)
        out = dict(item)
        if _tracker_of(now, str(name), folded=folded) != meant:
            out["tracker"] = name_now[meant]
        since = added_at.get(meant)
        if "set" in item and type(since) is int:
            values = kept.hidden(meant, item["set"], fields_then.get(meant))
            out["set"] = history(meant).values_now(values, since, revision_now[meant])
        return out

    if "tracker" in step:
        step.update(follow(step, folded=False))
    calls = step.get("calls")
    if isinstance(calls, list):
        step["calls"] = [_call_followed(call, follow) for call in calls]


def _call_followed(
    call: object, follow: Callable[[Mapping[str, Any]], Mapping[str, Any]]
) -> object:
    """The call with each update item followed (its tracker and fields as named now); the call
    itself when nothing changes (arguments as typed, text included, stay exactly as they were)."""
    if not isinstance(call, Mapping) or call.get("name", TOOL_NAME) != TOOL_NAME:
        return call
    arguments = call.get("arguments")
    value = arguments
    if isinstance(arguments, str):
        value, problem = read_json(arguments, "The arguments")
        if problem is not None:
            return call
    updates = value.get("updates") if isinstance(value, Mapping) else value
    if not isinstance(updates, list):
        return call
    items = [
        follow(item) if isinstance(item, Mapping) and "tracker" in item else item
        for item in updates
    ]
    if items == updates:
        return call
    value = {**value, "updates": items} if isinstance(value, Mapping) else items
    if isinstance(arguments, str):
        value = json.dumps(value, ensure_ascii=False)
    return {**call, "arguments": value}
