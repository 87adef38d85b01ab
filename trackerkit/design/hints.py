"""Warnings on trackers that decode but will not read as their author means (`trackerkit check`).

A tracker file can pass the strict decoder and still write a blank or garbled prompt line:

- its template names a tracker or field that none of the trackers checked with it holds (a
  rename made by hand in one file leaves the old name in another's macros, TR-32);
- its name is one a macro cannot write: outer spaces, or `{{`, `}}` or `::` inside (TR-32);
- two trackers' names match as the update tool matches names (`update.name_key`, TR-20), so a
  scene linking both reaches the second only by its exact spelling;
- its template reads a row of a list (`{{tracker::Pack::Torch::qty}}`): a list starts with no
  rows, so the macro writes nothing until a reply adds that row, and a line left empty leaves
  the tracker out of the `### Trackers` block (TR-28, TR-32; `unsure_rows`);
- a number field starts above the field that is its top (`maxField`): a start is held to that
  field's value when read (TR-18), so it shows as the top's start (`held_starts`).

These are warnings, never refusals: the file is a valid piece, and the tracker a macro names
may live in a folder that was not checked. The designer's verdict holds back the same name
problems before a save (`name_problems`) and warns of the same rows and starts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from trackerkit.design.sample import starting_state
from trackerkit.errors import Problem
from trackerkit.line import line_of
from trackerkit.macros import MacroIssue
from trackerkit.prompt import tracker_texts
from trackerkit.tracker import Tracker
from trackerkit.update import name_key
from trackerkit.values import read_values, same_value

__all__ = ["held_starts", "name_problems", "old_names", "tracker_hints", "unsure_rows"]

#: A list tracker's rows exist only in a chat: a macro naming a row is warned of by
#: `unsure_rows`, never judged as an error here.
_NOT_JUDGED = frozenset({"no_row"})


def name_problems(name: str) -> list[Problem]:
    """Why a tracker name cannot be written in a macro (`{{tracker::Name::field}}`, TR-32): the
    prompt line's macros name the tracker, so such a name would blank or garble its line."""
    problems = []
    if name.strip() and name != name.strip():
        problems.append(
            Problem(
                ("name",),
                "must not start or end with a space: macros read the name without it",
                "spaces",
            )
        )
    marks = [mark for mark in ("{{", "}}", "::") if mark in name]
    if marks:
        shown = ", ".join(f'"{mark}"' for mark in marks)
        problems.append(
            Problem(
                ("name",),
                f"must not hold {shown}: macros such as {{{{tracker::Name::field}}}} use them",
                "macro_marks",
            )
        )
    return problems


def tracker_hints(trackers: Sequence[Tracker], files: Sequence[str] = ()) -> list[list[Problem]]:
    """Each tracker's warnings, in the order given, judged against all of `trackers`.

    A template runs read-only at the trackers' starting values with every tracker given loaded;
    a list holds each row a macro names. A macro whose arguments are themselves macros
    (`{{tracker::{{char}}::hp}}`) is judged only by its syntax: what it names is known only in a
    chat. `files` names each tracker's file for the namesake warning (its id when not given).
    """
    where = list(files) or [t.id for t in trackers]
    issues = _template_issues(trackers)
    rows = unsure_rows(trackers)
    hints: list[list[Problem]] = []
    for index, tracker in enumerate(trackers):
        found = [_named(problem) for problem in name_problems(tracker.name)]
        found.extend(_template_problem(issue) for issue in issues.get(tracker.name, []))
        found.extend(rows.get(tracker.name, []))
        found.extend(held_starts(tracker))
        found.extend(_namesakes(index, trackers, where))
        hints.append(found)
    return hints


def unsure_rows(trackers: Sequence[Tracker]) -> dict[str, list[Problem]]:
    """Each template's macros that read a list row, by the template's tracker name (a warning each).

    The templates run with every list empty, as a chat starts (TR-19): a macro naming a row then
    finds none and writes nothing. A row named through a macro (`{{tracker::Pack::{{char}}::qty}}`)
    is known only in a chat and is not judged.
    """
    if not any(t.body.template is not None for t in trackers):
        return {}
    _, report = tracker_texts(trackers, {})
    out: dict[str, list[Problem]] = {}
    for issue in report.errors:
        if issue.code != "no_row" or _computed(issue):
            continue
        tracker = issue.macro[2:-2].split("::")[1].strip()  # no nested macro: split as written
        problem = Problem(
            ("body", "template"),
            f'{issue.macro} reads the row "{line_of(issue.name)}" of {line_of(tracker)}, and a '
            "list starts with no rows: until a reply adds that row the macro writes nothing, and "
            f"a prompt line left empty leaves {line_of(issue.source)} out of the ### Trackers block",
            "unsure_row",
        )
        seen = out.setdefault(issue.source, [])
        if problem not in seen:
            seen.append(problem)
    return out


def held_starts(tracker: Tracker) -> list[Problem]:
    """A warning for each number field whose start is above the start of its top field (`maxField`).

    Not an error (TR-7 judges a start against the field's own range only): the top is another
    field's value, which a chat may raise. A start is read held to the top (TR-18), so the
    tracker shows the top's start; naming the top later writes that held value (TR-16).
    """
    start = read_values(tracker.fields, {}, tracker.order)
    problems = []
    for index, field in enumerate(tracker.fields):
        top = getattr(field, "max_field", None)
        if top is None or field.default is None or same_value(start[field.name], field.default):
            continue
        problems.append(
            Problem(
                ("body", "fields", index, "default"),
                f"{line_of(field.default)} is above the start of {top} ({line_of(start[top])}), "
                f"the field that is its top: {field.name} starts at {line_of(start[field.name])} "
                f"(a start is held to its top when read); start {top} higher, or {field.name} lower",
                "start_held",
            )
        )
    return problems


def old_names(renamed: Mapping[str, str], tracker: Tracker) -> list[Problem]:
    """A warning for each renamed field whose old name the tracker's own words still hold.

    Macros and tops follow a rename (TR-47); the update instruction (the note) and the fields'
    meanings are prose the model reads in the update tool (TR-36), left as written: a person
    decides whether the word meant the field. `renamed` maps old names to new ones; an old name
    that another field now bears is no stale word.
    """
    names = {f.name for f in tracker.fields}
    places = [(("update instruction",), tracker.body.note)]
    places += [((f'meaning of field "{f.name}"',), f.description) for f in tracker.fields]
    problems = []
    for old, new in renamed.items():
        if old in names:
            continue
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![A-Za-z0-9_])")
        for where, text in places:
            if word.search(text):
                problems.append(
                    Problem(
                        where,
                        f'still names "{old}", the field now called "{new}": the model is told '
                        "of a field that does not exist; edit the words (a rename leaves them as "
                        "written)",
                        "old_name",
                    )
                )
    return problems


def _named(problem: Problem) -> Problem:
    return Problem(
        problem.where, f"{problem.message} (no macro can name this tracker)", problem.code
    )


def _template_issues(trackers: Sequence[Tracker]) -> dict[str, list[MacroIssue]]:
    """The macro errors of every template, by the tracker's name, rows named by macros loaded."""
    if not any(t.body.template is not None for t in trackers):
        return {}
    _, first = tracker_texts(trackers, _state(trackers, []))
    rows = [i.name for i in first.errors if i.code == "no_row" and not _computed(i)]
    _, report = tracker_texts(trackers, _state(trackers, rows))
    out: dict[str, list[MacroIssue]] = {}
    for issue in report.errors:
        if issue.code in _NOT_JUDGED or (_computed(issue) and issue.code.startswith("no_")):
            continue
        seen = out.setdefault(issue.source, [])
        if issue not in seen:  # two trackers of one name run the same errors twice
            seen.append(issue)
    return out


def _state(trackers: Sequence[Tracker], rows: list[str]) -> dict[str, dict[str, object]]:
    state: dict[str, dict[str, object]] = {}
    for tracker in trackers:
        state.update(starting_state(tracker, rows))
    return state


def _computed(issue: MacroIssue) -> bool:
    """True when the macro's arguments hold macros, so what it names is known only in a chat."""
    return "{{" in issue.macro[2:]


def _template_problem(issue: MacroIssue) -> Problem:
    if issue.code == "no_tracker":
        message = (
            f'{issue.macro} names "{line_of(issue.name)}", and no tracker checked with it is '
            "called that (renamed, or in another folder?)"
        )
    else:
        message = f"{issue.message} (in {issue.macro})"
    return Problem(("body", "template"), message, issue.code)


def _namesakes(index: int, trackers: Sequence[Tracker], where: Sequence[str]) -> list[Problem]:
    tracker = trackers[index]
    if not tracker.name.strip():
        return []
    key = name_key(tracker.name)
    same = [i for i, other in enumerate(trackers) if i != index and name_key(other.name) == key]
    if not same:
        return []
    if all(trackers[i].name == tracker.name for i in same):
        message = (
            f"is the name of {', '.join(where[i] for i in same)} too: the update tool finds a "
            "tracker by its name, so in a scene linking both it reaches only the first linked"
        )
    else:
        others = ", ".join(f'{where[i]} ("{trackers[i].name}")' for i in same)
        message = (
            f"matches the name of {others} whatever the case, as the update tool matches "
            "names: a scene linking both reaches the second only by its exact spelling"
        )
    return [Problem(("name",), message, "namesake")]
