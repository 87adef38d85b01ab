"""Saving from the designer: the id of a new tracker, and every save's outcome in plain words (TR-50).

A save never loses the draft: when it is refused the outcome carries the draft as it was, and when
the piece moved since it was opened (a stale revision) it also carries the newer revision, so the
person can read what it holds and choose to reload it or to save the draft under another id. A new
piece is only ever created, never written over an existing file. A copy ("save as new") takes a
name of its own, proposed free (`suggest_name`): one the library holds is refused before writing,
as Import refuses it, since a scene linking two trackers of one name leaves one of them out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from trackerkit._pieces import check_tracker_id
from trackerkit.design.draft import Draft, name_clash, named, namesakes, save_draft
from trackerkit.errors import (
    BadRequestError,
    StaleRevisionError,
    TrackerDecodeError,
    TrackerkitError,
)
from trackerkit.formats.names import piece_id
from trackerkit.library import Library
from trackerkit.tracker import Tracker

__all__ = [
    "SaveOutcome",
    "clash_line",
    "holds",
    "id_problem",
    "name_clash",
    "namesakes",
    "save",
    "suggest_id",
    "suggest_name",
]

Kind = Literal["saved", "unchanged", "refused", "stale", "taken"]


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """What one press of Save did.

    Attributes:
        kind: `saved`, `unchanged` (nothing edited, nothing sent), `refused` (the draft breaks a
            rule or the id is not usable), `stale` (the piece moved since it was opened) or
            `taken` (a new piece's id names a file that exists).
        message: one or more sentences for the page.
        draft: the draft now: rebased on the saved piece, or exactly the draft given.
        newer: the piece as the library holds it now, for a stale save (None when unreadable).
    """

    kind: Kind
    message: str
    draft: Draft
    newer: Tracker | None = None

    @property
    def ok(self) -> bool:
        """True when the library holds the draft's edits."""
        return self.kind in ("saved", "unchanged")


def suggest_id(name: str, taken: Collection[str] = ()) -> str:
    """An id made from a tracker's name: lowercase words joined by `-`, not one of `taken`.

    The words are the ones the WTracker export keys a preset by (`formats.names.piece_id`):
    other scripts transliterated, so `Vitals ❤️ Ærin` gives `vitals-heart-aerin`, not
    `vitals-rin`. `Mana Pool` gives `mana-pool`, then `mana-pool-2`, ...; a name without
    letters or digits gives `tracker`.
    """
    return piece_id(name, set(taken))


def suggest_name(name: str, trackers: Iterable[Tracker]) -> str:
    """A name for a copy of a tracker called `name` that none of `trackers` is called by.

    The name itself (without outer spaces) when it is free, else the next free `Name 2`,
    `Name 3`, ..., matched as the update tool matches names (`namesakes`); a name already
    numbered counts on (`Inventory 2` gives `Inventory 3`). A blank name stays blank.
    """
    held = list(trackers)
    name = name.strip()
    if not name or not namesakes(name, held):
        return name
    numbered = _NUMBERED.fullmatch(name)
    stem, n = (numbered[1], int(numbered[2])) if numbered else (name, 1)
    while namesakes(f"{stem} {n + 1}", held):
        n += 1
    return f"{stem} {n + 1}"


_NUMBERED = re.compile(r"(.*\S) (\d{1,6})")


def clash_line(name: str, new_id: str, same: Sequence[Tracker]) -> str:
    """The sentence for a new piece named as `same`, the trackers already there (Import's words).

    Markdown, names as written: the page escapes it (`safe_md`).
    """
    return (
        f'"{name}" (would be `{new_id}.json`): the library already holds a tracker of this name: '
        f"{named(same)}"
    )


def id_problem(text: str, taken: Collection[str] = ()) -> str | None:
    """Why `text` cannot be a new tracker's id, or None when it can."""
    try:
        check_tracker_id(text)
    except BadRequestError as error:
        return str(error)
    if text in taken:
        return f'the library already holds a tracker "{text}"; choose another id'
    return None


def holds(tracker: Tracker) -> list[str]:
    """What a revision of a piece holds, as lines for the page: name, revision, each field.

    Markdown with names as written, not escaped: the page escapes each line (`safe_md`).
    """
    lines = [f"{tracker.name} at revision {tracker.revision}: {tracker.description}".rstrip(": ")]
    lines += [f"{f.name} ({f.type}): {f.description}".rstrip(": ") for f in tracker.fields]
    if tracker.body.template is not None:
        lines.append(f"prompt line: {tracker.body.template}")
    return lines


def save(
    draft: Draft, library: Library, new_id: str | None = None, *, name: str | None = None
) -> SaveOutcome:
    """Save the draft: as a patch on the revision opened, or as a new piece under `new_id`.

    Args:
        draft: the draft on the page.
        library: where the piece lives.
        new_id: save as a new piece under this id (a new tracker, or "save as new"); the file
            must not exist, so nothing is ever written over another piece.
        name: with `new_id`, the new piece's name ("save as new"; outer spaces dropped). A name
            a library tracker is called by is refused and nothing is written (`clash_line`).
            Without it the draft keeps its own name, a namesake said after the save.
    Returns:
        The outcome; on anything but a save, `outcome.draft` is `draft` unchanged.
    """
    if new_id is not None:
        return _create(draft, library, new_id, name)
    try:
        saved = save_draft(draft, library)
    except StaleRevisionError as error:
        return _stale(draft, library, error)
    except TrackerDecodeError as error:
        return SaveOutcome("refused", _refusal(draft, library, error), draft)
    except TrackerkitError as error:
        return SaveOutcome("refused", f"Not saved: {error}", draft)
    if saved is draft or saved.revision == draft.revision:
        return SaveOutcome("unchanged", "Nothing edited, nothing sent.", saved)
    return SaveOutcome("saved", f'Saved "{saved.id}" at revision {saved.revision}.', saved)


def _create(draft: Draft, library: Library, new_id: str, name: str | None) -> SaveOutcome:
    problem = id_problem(new_id, library.ids())
    if problem is not None:
        kind: Kind = "taken" if new_id in library.ids() else "refused"
        return SaveOutcome(kind, f"Not saved: {problem}.", draft)
    fresh = draft.with_id(new_id)
    if name is not None:
        fresh = fresh.rename_tracker(name.strip())
        same = namesakes(fresh.name, library.trackers())
        if same:
            line = clash_line(fresh.name, new_id, same)
            message = (
                f"Not saved: {line}; nothing was written. Give the new tracker another name, or "
                "rename the one there."
            )
            return SaveOutcome("refused", message, draft)
    verdict = fresh.verdict([t.name for t in library.trackers()])
    if verdict.tracker is None or not verdict.ok:
        lines = "; ".join(verdict.lines())
        return SaveOutcome("refused", f"Not saved: the draft is held back: {lines}", draft)
    try:
        # Base revision -1 matches no stored file: the library refuses rather than overwrite.
        stored = library.save(verdict.tracker, base_revision=-1)
    except StaleRevisionError:
        return SaveOutcome(
            "taken",
            f'Not saved: the library already holds a tracker "{new_id}"; choose another id.',
            draft,
        )
    except TrackerkitError as error:
        return SaveOutcome("refused", f"Not saved: {error}", draft)
    message = f'Saved as a new tracker "{stored.id}" at revision {stored.revision}.'
    return SaveOutcome("saved", message + _namesakes(stored, library), fresh.rebased(stored))


def _namesakes(stored: Tracker, library: Library) -> str:
    """`name_clash` for a tracker just saved, with a space before it; '' when none or unreadable."""
    try:
        clash = name_clash(stored.name, library.trackers(), stored.id)
    except TrackerkitError:
        return ""
    return f" {clash}" if clash else ""


def _stale(draft: Draft, library: Library, error: StaleRevisionError) -> SaveOutcome:
    try:
        newer: Tracker | None = library.get(draft.id)
    except TrackerkitError:
        newer = None
    message = (
        f'Not saved: "{draft.id}" was opened at revision {error.base_revision} but the library now '
        f"holds revision {error.current_revision}. Your draft is kept on the page: reload the "
        "newer revision (your edits are dropped) or save the draft as a new tracker under another id."
    )
    return SaveOutcome("stale", message, draft, newer)


def _refusal(draft: Draft, library: Library, error: TrackerDecodeError) -> str:
    verdict = draft.verdict([t.name for t in library.trackers() if t.id != draft.id])
    lines = verdict.lines() or [str(error)]
    return "Not saved: the draft is held back: " + "; ".join(lines)
