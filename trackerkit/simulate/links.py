"""Linking library trackers into a scene from the simulator's Trackers panel (TR-24).

A link is an id in the scene file's `prompting.trackers`, in order, once each. `link_trackers`
writes that list into the scene file of the workspace a save goes to (`Workspace.for_writing`),
so the repository's bundled `data/scenes` is never written; every other key of the file is kept
as it was, and the write is atomic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from trackerkit._pieces import write_atomically
from trackerkit.errors import BadRequestError
from trackerkit.library import Library
from trackerkit.scene import Scene, load_scene
from trackerkit.workspace import Workspace

__all__ = ["LinkChoice", "SavedLinks", "link_choices", "link_trackers", "linked_ids"]


@dataclass(frozen=True, slots=True)
class SavedLinks:
    """A saved link list: the workspace written, the scene file, and the ids now linked, in order."""

    place: Workspace
    path: Path
    ids: tuple[str, ...]

    def sentence(self) -> str:
        """What was saved, in one line for the page."""
        shown = ", ".join(self.ids) if self.ids else "no tracker"
        return f"Saved: {self.path.stem} links {shown} ({self.path})."


def linked_ids(scene_file: str | Path) -> list[str]:
    """The ids a scene file links, in order (TR-24); refused like any scene the loader refuses."""
    return list(load_scene(Path(scene_file)).prompting.trackers)


@dataclass(frozen=True, slots=True)
class LinkChoice:
    """One library tracker as the link checks show it: its id, a label, and whether it is linked."""

    id: str
    label: str
    linked: bool


def link_choices(trackers: str | Path, scene_file: str | Path) -> list[LinkChoice]:
    """A check per library tracker (a file the decoder refuses too, labelled so), in id order.

    Raises:
        BadRequestError: the scene file cannot be read.
    """
    linked = set(linked_ids(scene_file))
    choices = []
    for verdict in Library(trackers).verdicts():
        if verdict.tracker is not None:
            label = f"{verdict.tracker.name} ({verdict.id})"
        else:
            label = f"{verdict.id} (refused by the decoder: a turn leaves it out)"
        choices.append(LinkChoice(verdict.id, label, verdict.id in linked))
    return choices


def link_trackers(place: Workspace, scene: str, checked: Sequence[str]) -> SavedLinks:
    """Write the trackers `checked` as the links of scene file `scene` (its stem) in `place`.

    Ids linked before keep their order; newly checked ids follow in the order given.

    Args:
        place: the workspace the app reads; the bundled data is copied to the per-user workspace
            first (`for_writing`), so the repository's files are never written.
        scene: the scene file's stem (`fight` for `scenes/fight.json`).
        checked: the library ids to link, a list (one id is written `["health"]`).
    Returns:
        Where it was written and the ids now linked.
    Raises:
        BadRequestError: `scene` is not a file stem, `checked` is not a list of ids, the
            workspace cannot be made, the scene file is not there, cannot be read (nested too
            deep included) or is not a JSON object, or the new links would not make a valid
            scene; nothing is written then.
    """
    if not isinstance(scene, str) or scene in ("", ".", "..") or scene != Path(scene).name:
        raise BadRequestError(
            f"a scene is named by its file's stem, such as fight; found {scene!r}"
        )
    if isinstance(checked, str | bytes) or not isinstance(checked, Sequence):
        shown = repr(checked) if len(repr(checked)) <= 40 else repr(checked)[:37] + "..."
        raise BadRequestError(
            'checked must be a list of tracker ids, such as ["health"]; '
            f"found {type(checked).__name__} {shown}"
        )
    wrong = [i for i in checked if not isinstance(i, str)]
    if wrong:
        raise BadRequestError(f"checked holds tracker ids, which are text; found {wrong[0]!r}")
    target = place.for_writing()
    path = target.scenes / f"{scene}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadRequestError(
            f"{path}: there is no such scene file to link trackers into"
        ) from None
    except RecursionError:
        raise BadRequestError(f"{path}: cannot be read as a scene (nested too deep)") from None
    except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise BadRequestError(f"{path}: cannot be read as a scene ({exc})") from None
    if not isinstance(raw, dict):
        raise BadRequestError(f"{path}: a scene file holds a JSON object")
    found = raw.get("prompting")
    prompting: dict[str, object] = found if isinstance(found, dict) else {}
    stored = prompting.get("trackers")
    before = [i for i in stored if isinstance(i, str)] if isinstance(stored, list) else []
    wanted = list(dict.fromkeys(checked))
    ids = [i for i in before if i in wanted] + [i for i in wanted if i not in before]
    raw["prompting"] = {**prompting, "trackers": ids}
    try:
        Scene.model_validate(raw)
        data = orjson.dumps(raw, option=orjson.OPT_INDENT_2)
    except RecursionError:
        raise BadRequestError(f"{path}: cannot be read as a scene (nested too deep)") from None
    except orjson.JSONEncodeError as exc:  # nested past what the writer takes (255 levels)
        raise BadRequestError(f"{path}: cannot be written again as a scene ({exc})") from None
    except ValueError as exc:
        raise BadRequestError(f"{path}: the links would not make a valid scene ({exc})") from None
    write_atomically(path, data + b"\n")
    return SavedLinks(target, path, tuple(ids))
