"""One entry for every export (`trackerkit export`): what to export, to which target, and its costs.

`load_export_source` reads the trackers from files (a scene, tracker files, a folder of them);
`export_trackers` makes the document for a target and says what a person should know about it;
`costs_table` shows each provider export's token cost beside the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import orjson

from trackerkit._names import repeated
from trackerkit._pieces import read_piece_file, write_atomically
from trackerkit.errors import ImportRefusedError, NotFoundError, TrackerkitError
from trackerkit.formats.card import CARD_KEY, card_from_png, card_into_png, export_card
from trackerkit.formats.checkers import check_provider_tool, is_warning, problem_lines
from trackerkit.formats.detect import FORMAT_NAMES, piece_kind, sniff
from trackerkit.formats.document import encoding_problem
from trackerkit.formats.leaves import quoted
from trackerkit.formats.providers import ExportCost, export_costs, provider_tool
from trackerkit.formats.wtracker_export import export_wtracker
from trackerkit.tokens import ENCODINGS
from trackerkit.tracker import Tracker, decode_tracker

if TYPE_CHECKING:
    from trackerkit.scene import Scene

__all__ = [
    "EXPORT_TARGETS",
    "Export",
    "ExportSource",
    "ExportTarget",
    "costs_table",
    "export_trackers",
    "load_export_source",
    "write_export",
]

ExportTarget: TypeAlias = Literal["openai", "anthropic", "gemini", "wtracker", "card"]
EXPORT_TARGETS: tuple[ExportTarget, ...] = ("openai", "anthropic", "gemini", "wtracker", "card")


@dataclass(frozen=True, slots=True)
class Export:
    """An export's document, the notes a person should read (what was left behind), and for a provider each export's cost.

    `image` is the PNG card with the document in it, when the card given was a PNG. `refused` is
    True when the provider's documented rules refuse the tool (a note says each rule broken); a
    warning (a limit the provider may have lifted) is a note only.
    """

    target: ExportTarget
    document: dict[str, Any]
    notes: tuple[str, ...] = ()
    costs: tuple[ExportCost, ...] = field(default=())
    image: bytes | None = None
    refused: bool = False


def _read_bytes(path: Path, what: str) -> bytes:
    data, unread = read_piece_file(path)
    if data is None:
        if unread is None:
            raise NotFoundError(f"no {what} at {path}")
        raise TrackerkitError(f"{path}: the file {unread}")
    return data


def _read_json(path: Path, what: str) -> object:
    data = _read_bytes(path, what)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        said = encoding_problem(data) or f"not valid JSON ({exc})"
        raise TrackerkitError(f"{path}: {said}") from None


@dataclass(frozen=True, slots=True)
class ExportSource:
    """What to export: the trackers in order (a scene's link order, files as given, a folder's
    by file name), a sentence for each linked tracker a scene had to leave out, and the scenes
    read (a card takes its name, card text, title, char and user from a scene)."""

    trackers: list[Tracker]
    notes: list[str]
    scenes: tuple[Scene, ...] = ()


def load_export_source(
    paths: Sequence[str | Path], trackers_dir: Path | None = None
) -> ExportSource:
    """The trackers to export, from a scene file (its linked trackers), tracker files or folders of them.

    Raises:
        TrackerkitError: a file that is missing, unreadable, not JSON, or a tracker the strict
            decoder refuses (naming the file); no tracker at all.
    """
    from trackerkit.scene import FolderSource, load_linked, load_scene, scene_trackers

    trackers: list[Tracker] = []
    notes: list[str] = []
    scenes: list[Scene] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(path.glob("*.json"))
            if not files:
                raise TrackerkitError(f"{path}: no tracker files (*.json) in this folder")
            for file in files:
                trackers.append(decode_tracker(_read_json(file, "tracker file"), source=str(file)))
            continue
        data = _read_json(path, "scene or tracker file")
        if isinstance(data, dict) and "body" in data:
            trackers.append(decode_tracker(data, source=str(path)))
            continue
        if piece_kind(data) is None:
            other = sniff(data)
            if other is not None:  # another tool's file: its trackers come in by import first
                raise TrackerkitError(
                    f"{path}: is a {FORMAT_NAMES[other]} file, not a trackerkit scene or tracker; "
                    f"import it first (trackerkit import {path}), then export what it wrote"
                )
        scene = load_scene(path)
        scenes.append(scene)
        folder = scene_trackers(path, trackers_dir)
        if not folder.is_dir():
            raise TrackerkitError(f"{path}: no tracker folder at {folder}; pass --trackers DIR")
        linked = load_linked(scene, FolderSource(folder))
        notes += [f"left out {left.tracker_id}: {left.reason}" for left in linked.left_out]
        trackers += linked.trackers
    if not trackers:
        why = f" ({'; '.join(notes)})" if notes else ""
        raise TrackerkitError(f"nothing to export: no tracker was read{why}")
    twins = repeated(t.name for t in trackers)
    if twins:
        raise TrackerkitError(
            f"two trackers share the name {', '.join(twins)}; a tool names trackers by name, "
            "so export them apart or rename one"
        )
    return ExportSource(trackers, notes, tuple(scenes))


_PROVIDERS = {"openai": "OpenAI", "anthropic": "Anthropic", "gemini": "Gemini"}


def export_trackers(
    target: ExportTarget,
    trackers: Sequence[Tracker],
    card: Path | None = None,
    *,
    name: str = "Trackers",
    scenes: Sequence[Scene] = (),
) -> Export:
    """The export of `trackers` for `target`.

    Args:
        target: `openai`, `anthropic`, `gemini` (the update tool), `wtracker` (presets) or
            `card` (a Character Card V2).
        trackers: what to export, in link order.
        card: for `card`, a Character Card V2 (or V1) JSON file, or a PNG card, to carry the
            trackers (every other key of it is kept; the trackers it carried are replaced, and
            a warning names each one none of `trackers` replaces); without one, a new card
            named `name`, or the scene's char.
        scenes: the scenes the trackers came from; for `card`, one scene gives a new card its
            name (the char) and description (the card text), and any card its id, title, char
            and user (`card.export_card`). With none or several, the notes say what the card lacks.
    Raises:
        TrackerkitError: `card` given for another target, or a card file that cannot be read.
        ImportRefusedError: the card file is not a Character Card V2.
    """
    if card is not None and target != "card":
        raise TrackerkitError(f"--card is only for --to card, not --to {target}")
    if target == "wtracker":
        done = export_wtracker(trackers)
        return Export(target, done.settings, tuple(f"left behind: {n}" for n in done.left_behind))
    if target == "card":
        base = None
        png = None
        if card is not None:
            raw = _read_bytes(card, "card file")
            if raw.startswith(b"\x89PNG"):
                png = raw
                read = card_from_png(raw, str(card))
            else:
                read = _read_json(card, "card file")
            if not isinstance(read, dict):
                raise ImportRefusedError(str(card), "is not a Character Card V2 (a JSON object)")
            base = read
        scene = scenes[0] if len(scenes) == 1 else None
        out = export_card(trackers, base, name=name, file=str(card or "card"), scene=scene)
        count = len(trackers)
        note = f"{count} {'tracker' if count == 1 else 'trackers'} under data.extensions.{CARD_KEY}"
        note += _card_identity(out, scene, len(scenes), made=base is None)
        image = card_into_png(png, out, str(card)) if png is not None else None
        dropped = _dropped(base, trackers) if base is not None else []
        said = (note, _dropped_note(card, dropped)) if dropped else (note,)
        return Export(target, out, said, image=image)
    tool = provider_tool(target, trackers)
    problems = check_provider_tool(target, tool)
    refused = not all(is_warning(p) for p in problems)
    notes = tuple(problem_lines(_PROVIDERS[target], problems))
    return Export(target, tool, notes, tuple(export_costs(trackers)), refused=refused)


def _dropped(card: dict[str, Any], trackers: Sequence[Tracker]) -> list[str]:
    """The names of the trackers `card` carries that none of `trackers` replaces (by name or id)."""
    data = card.get("data")
    extensions = data.get("extensions") if isinstance(data, dict) else None
    mine = extensions.get(CARD_KEY) if isinstance(extensions, dict) else None
    carried = mine.get("trackers") if isinstance(mine, dict) else None
    kept = {t.name for t in trackers} | {t.id for t in trackers}
    dropped: list[str] = []
    for entry in carried if isinstance(carried, list) else []:
        named = [entry.get(key) for key in ("name", "id")] if isinstance(entry, dict) else []
        names = [n for n in named if isinstance(n, str) and n]
        if names and not kept.intersection(names):
            dropped.append(names[0])
    return list(dict.fromkeys(dropped))


def _dropped_note(card: Path | None, dropped: Sequence[str]) -> str:
    """The warning naming the trackers a card carried that the export drops, and how to keep them."""
    shown = [quoted(name, 40) for name in dropped]
    listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    noun, them, files = ("tracker", "it", "its tracker file")
    if len(shown) > 1:
        noun, them, files = ("trackers", "them", "their tracker files")
    return (
        f"warning: {card} carried the {noun} {listed}, which this export drops: --card replaces "
        f"the trackers a card carries with the ones exported. To keep {them}, export {them} "
        f"together with these in one command ({files}, or a scene linking {them}, beside the "
        "others)"
    )


def _card_identity(card: dict[str, Any], scene: Scene | None, scenes: int, *, made: bool) -> str:
    """The rest of the card's note: where its name and description came from, what it lacks."""
    data = card["data"]
    if scene is None:
        if not made:  # the card given keeps its own name and description
            return "; of several scenes, none gives its title or user" if scenes else ""
        why = "of several scenes exported, none is the card's" if scenes else "no scene exported"
        return (
            f"; {why}, so the card is named {quoted(data['name'], 40)}, its description is "
            "empty and it has no scene title or user (export one scene file to fill them)"
        )
    where = f"data.extensions.{CARD_KEY}.scene"
    if made:
        size = len(scene.card)
        text = f"{size:,} character{'' if size == 1 else 's'}" if size else "empty"
        return (
            f"; name {quoted(scene.char, 40)} (the scene's char), description the scene's card "
            f"text ({text}); the scene's id, title, char and user under {where}"
        )
    name = data.get("name")
    shown = quoted(name, 40) if isinstance(name, str) else "(none)"
    kept = f"; the card keeps its own name {shown} and description"
    if data.get("description") != scene.card:
        kept += " (the scene's card text is not written)"
    return f"{kept}; the scene's id, title, char and user under {where}"


def write_export(done: Export, out: Path | None) -> str | None:
    """Write the export to `out` atomically, or return its JSON text for stdout when `out` is None.

    A provider's tool is written as that provider's `tools` list (`[tool]`), so the file is
    passed as `tools` as it is read. A PNG card is written as the image; it needs `out`.

    Raises:
        TrackerkitError: a PNG card with no `out` or an `out` not named `.png`; JSON for an
            `out` named `.png` (a PNG card needs `--card` with a PNG to write into).
    """
    document = [done.document] if done.target in _PROVIDERS else done.document
    text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
    if out is None:
        if done.image is not None:
            raise TrackerkitError(
                "the card is a PNG image, which is not printed; pass --out FILE.png to write it"
            )
        return text
    png_name = out.suffix.lower() == ".png"
    if done.image is None and png_name:
        json_name = out.with_suffix(".json").name
        if done.target == "card":
            why = (
                "without --card the card is JSON, not a PNG image; pass --card CARD.png (the "
                f"picture to write the trackers into) or name the file {json_name}"
            )
        else:
            why = f"--to {done.target} writes JSON, not a PNG image; name the file {json_name}"
        raise TrackerkitError(f"--out {out}: {why}")
    if done.image is not None and not png_name:
        raise TrackerkitError(
            f"--out {out}: the card is a PNG image (its --card is a PNG); name the file "
            f"{out.with_suffix('.png').name}"
        )
    write_atomically(out, done.image if done.image is not None else (text + "\n").encode())
    return None


def costs_table(costs: Sequence[ExportCost], chosen: str) -> str:
    """Each export's tokens in both OpenAI encodings, the chosen one marked with `>`."""
    header = "token cost of each export (OpenAI encodings; for Anthropic and Gemini, estimates):"
    width = max(len(c.label) for c in costs)
    lines = [header, f"  {'':<{width}}  " + "  ".join(f"{e:>11}" for e in ENCODINGS)]
    for cost in costs:
        mark = ">" if cost.key == chosen else " "
        counts = "  ".join(f"{cost.tokens[e]:>11}" for e in ENCODINGS)
        lines.append(f"{mark} {cost.label:<{width}}  {counts}")
    return "\n".join(lines)
