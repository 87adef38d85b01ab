"""What taking imported trackers into the library did: `Taken`, and its message for the page.

`design.importing.take_imported` returns one: the trackers saved, those refused and why, the ids
changed because the library held them, the scene written to link them, and the library's trackers
that bear a saved one's name. `Taken.message` says it all in markdown (names as written; the page
escapes it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trackerkit.design.namesakes import named
from trackerkit.tracker import Tracker

__all__ = ["Taken"]


@dataclass(frozen=True, slots=True)
class Taken:
    """What taking imported trackers into the library did.

    Attributes:
        saved: each tracker as the library now holds it, in the import's order.
        refused: a sentence for each tracker not saved, and why.
        scene: the scene file written to link them, when one was.
        renamed: the import's id to the id saved under, for each id the library already held.
        namesakes: each saved id whose name the library's other trackers also bear, and those
            trackers (a scene linking two of one name leaves one out: `draft.name_clash`).
        scene_links: the ids the scene written links (empty when none was written).
        scene_twins: the other scene files of the written scene's title (a second import).
    """

    saved: tuple[Tracker, ...]
    refused: tuple[str, ...] = ()
    scene: Path | None = None
    renamed: dict[str, str] = field(default_factory=dict)
    namesakes: dict[str, tuple[Tracker, ...]] = field(default_factory=dict)
    scene_links: tuple[str, ...] = ()
    scene_twins: tuple[Path, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every tracker asked for was saved."""
        return bool(self.saved) and not self.refused

    @property
    def took(self) -> dict[str, str]:
        """The import's id of each tracker saved, to the id the library now holds it under."""
        was = {now: before for before, now in self.renamed.items()}
        return {was.get(t.id, t.id): t.id for t in self.saved}

    def message(self) -> str:
        """What happened, in markdown for the page (names as written; the page escapes it, `safe_md`)."""
        lines = []
        for tracker in self.saved:
            line = f'- saved "{tracker.name}" as `{tracker.id}.json`'
            same = self.namesakes.get(tracker.id, ())
            if same:
                line += f"; the library already holds a tracker of this name: {named(same)}"
            lines.append(line)
        for was, now in self.renamed.items():
            lines.append(f"- `{was}` was taken, so it is `{now}`")
        if self.scene is not None:
            lines.append(f"- a scene linking them: `{self.scene.name}`")
        if self.scene is not None and self.scene_twins:
            twins = ", ".join(f"`{p.name}`" for p in self.scene_twins)
            lines.append(
                f"- same title: `{self.scene.name}`: the scenes folder already holds a scene of "
                f"this title, {twins}; the scene lists show two of one title"
            )
        lines += [f"- {line}" for line in self.refused]
        lines += self._namesake_lines()
        head = f"Took {len(self.saved)} into the library." if self.saved else "Nothing was taken."
        return head + "\n\n" + "\n".join(lines)

    def _namesake_lines(self) -> list[str]:
        """One line per group of trackers sharing a name, naming them, and whether the scene
        written links more than one of them (a trial: the general sentence read as if the new
        scene linked both when it did not)."""
        lines, told = [], set()
        for tracker in self.saved:
            same = self.namesakes.get(tracker.id, ())
            group = frozenset([tracker.id, *(t.id for t in same)])
            if not same or group in told:
                continue
            told.add(group)
            ids = ", ".join(f"`{i}`" for i in sorted(group))
            linked = sorted(group & set(self.scene_links))
            if self.scene is not None and len(linked) > 1:
                both = ", ".join(f"`{i}`" for i in linked)
                lines.append(
                    f"- the scene written, `{self.scene.name}`, links {both}, which share a name: "
                    "every turn leaves one of them out: rename one"
                )
            else:
                scene = (
                    f"`{self.scene.name}` links one of them; "
                    if self.scene is not None and linked
                    else ""
                )
                lines.append(
                    f"- {ids} share a name: {scene}a scene that links two trackers of one name "
                    "leaves one of them out of every turn: rename one before linking both"
                )
        return lines
