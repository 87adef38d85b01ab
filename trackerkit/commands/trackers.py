"""The tracker commands: `check`, which decodes tracker files and prints every problem."""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson

from trackerkit.commands.scene import file_kind, say_unread_workspace
from trackerkit.design.hints import tracker_hints
from trackerkit.errors import Problem
from trackerkit.library import Verdict, check_paths
from trackerkit.line import shown_path


def register_trackers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The tracker-side commands: `check`."""
    check = sub.add_parser(
        "check",
        help="decode tracker files or folders and print every problem",
        description=(
            "Decode tracker files (or every *.json in a folder) through the strict decoder. "
            "Prints each problem as `file: path: message`; exits 1 when any file is refused. "
            "Files that decode may get warnings (`file: warning: path: message`, exit code "
            "unchanged): a template macro naming a tracker or field none of the files checked "
            "holds, a name a macro cannot write, two trackers of one name whatever the case."
        ),
    )
    check.add_argument(
        "paths", nargs="+", metavar="PATH", help="a tracker file or a folder of them"
    )
    check.add_argument("--json", action="store_true", help="print machine-readable verdicts")
    check.set_defaults(func=_check)


def _check(args: argparse.Namespace) -> int:
    say_unread_workspace(args.paths, None, scenes=False)
    checked = [
        (path, [_scene_verdict(v) for v in found]) for path, found in check_paths(args.paths)
    ]
    verdicts = [v for _, found in checked for v in found]
    warned = _warnings(verdicts)
    if args.json:
        out = [{**v.to_json(), "warnings": _problems_json(warned.get(id(v), []))} for v in verdicts]
        print(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return 0 if all(v.ok for v in verdicts) else 1
    for path, found in checked:
        if found and all(_is_scene(v) for v in found) and Path(path).is_dir():
            # A folder of scenes given for trackers: one line says so, not every scene's keys.
            print(f"{shown_path(path)}: {_scenes_folder(Path(path), len(found))}")
            continue
        for verdict in found:
            for line in verdict.lines():
                print(line)
            for problem in warned.get(id(verdict), []):
                print(f"{shown_path(verdict.file)}: warning: {problem}")
        if len(found) != 1 or not _is_scene(found[0]) or Path(path).is_dir():
            count = sum(len(warned.get(id(v), [])) for v in found)
            print(f"{shown_path(path)}: {_summary(found)}{_warning_count(count)}")
    return 0 if all(v.ok for v in verdicts) else 1


def _warnings(verdicts: list[Verdict]) -> dict[int, list[Problem]]:
    """Each decoded verdict's warnings (`design.tracker_hints`), by the verdict's identity: the
    trackers of every path checked are judged together, as a scene could link them."""
    decoded: list[Verdict] = []
    seen: set[Path] = set()
    for verdict in verdicts:  # a file named twice (a folder and a file in it) is judged once
        if verdict.tracker is None:  # refused (a looping link among them): nothing to judge
            continue
        try:
            where = Path(verdict.file).resolve()
        except (OSError, RuntimeError):  # replaced by a looping link since it was read
            where = Path(verdict.file).absolute()
        if where not in seen:
            seen.add(where)
            decoded.append(verdict)
    hints = tracker_hints([v.tracker for v in decoded if v.tracker], [v.file for v in decoded])
    return {id(v): found for v, found in zip(decoded, hints, strict=True) if found}


def _problems_json(problems: list[Problem]) -> list[dict[str, str]]:
    return [{"path": p.path, "message": p.message} for p in problems]


def _warning_count(count: int) -> str:
    if not count:
        return ""
    return f" ({count} warning{'' if count == 1 else 's'} above)"


#: What `check` says of a scene file given for a tracker (its problem code is `is_scene`).
_SCENE_NOT_TRACKER = (
    "is a scene, not a tracker; check reads tracker files (trackerkit prompt SCENE reads a scene)"
)


def _scene_verdict(verdict: Verdict) -> Verdict:
    """A refused verdict on a scene file: one problem saying so, in place of the unknown keys."""
    if verdict.ok or file_kind(verdict.file) != "scene":
        return verdict
    return Verdict(verdict.file, verdict.id, None, (Problem((), _SCENE_NOT_TRACKER, "is_scene"),))


def _is_scene(verdict: Verdict) -> bool:
    return any(p.code == "is_scene" for p in verdict.problems)


def _scenes_folder(folder: Path, count: int) -> str:
    noun = "file" if count == 1 else "files"
    trackers = folder.parent / "trackers"
    hint = f": try {trackers}" if trackers.is_dir() and trackers != folder else ""
    return (
        f"is a folder of scenes ({count} scene {noun}), not trackers; check reads tracker "
        f"files{hint}"
    )


def _summary(verdicts: list[Verdict]) -> str:
    total = len(verdicts)
    if total == 0:
        return "no tracker files (*.json)"
    noun = "tracker" if total == 1 else "trackers"
    refused = sum(not v.ok for v in verdicts)
    scenes = sum(_is_scene(v) for v in verdicts)
    if scenes:
        are = "is a scene, not a tracker" if scenes == 1 else "are scenes, not trackers"
        return f"{refused} of {total} files refused ({scenes} {are})"
    if refused:
        return f"{refused} of {total} {noun} refused"
    return f"{total} {noun}, all decode" if total > 1 else "1 tracker, decodes"
