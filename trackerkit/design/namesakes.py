"""Trackers by name: the others the tool calls by a draft's name, and the sentences that say so.

The update tool matches trackers by name (`update.name_key`: `HEALTH` is `Health`), so a scene
that links two trackers of one name leaves one of them out of every turn. The designer says so
before a save and after one, and when an import would take in a tracker of a name already held.
A template macro that names another tracker the library holds is no error of the draft: it is
linked on use (`_names_another`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from trackerkit.macros import MacroIssue
from trackerkit.tracker import Tracker
from trackerkit.update import name_key

__all__ = ["name_clash", "named", "namesakes"]


def _names_another(issue: MacroIssue, own: str, library_names: Collection[str]) -> bool:
    """True when the macro only names another tracker the library holds (it is linked on use)."""
    return issue.code == "no_tracker" and issue.name != own and issue.name in library_names


def namesakes(name: str, trackers: Iterable[Tracker], own_id: str | None = None) -> list[Tracker]:
    """The trackers, other than the one with `own_id`, that the tool calls by `name`.

    Matched as the update tool matches names (`update.name_key`: `HEALTH` is `Health`), in the
    order of their ids. A blank name has none.
    """
    if not name.strip():
        return []
    key = name_key(name)
    same = (t for t in trackers if t.id != own_id and name_key(t.name) == key)
    return sorted(same, key=lambda t: t.id)


def named(trackers: Iterable[Tracker]) -> str:
    """Trackers as the designer's sentences name them: `"Health" (health), "Health" (health-2)`."""
    return ", ".join(f'"{t.name}" ({t.id})' for t in trackers)


def name_clash(name: str, trackers: Iterable[Tracker], own_id: str | None = None) -> str:
    """A sentence naming the other trackers called `name` (see `namesakes`), or '' when none.

    A scene that links two trackers of one name leaves one of them out of every turn, so the
    designer says it before a save and after one; it never refuses a save. Names as written,
    not escaped: the page escapes the sentence (`safe_md`).
    """
    same = namesakes(name, trackers, own_id)
    if not same:
        return ""
    return (
        f"The library already holds a tracker of this name: {named(same)}. A scene that links two "
        "trackers of one name leaves one of them out of every turn: rename one before linking both."
    )
