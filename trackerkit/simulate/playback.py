"""The simulator page's steps played again on a fresh session, each with what it did or why not.

The page keeps the steps a person adds (a turn, a swipe, an edit, a fork, a switch of takes) as
plain dicts and plays them, after the scene's scripted steps, on a new `Session` each time it
draws. `play_page` never raises for a step: a step refused (tool calls that are not JSON, an edit
the rules refuse, a cut of a message that is gone) becomes an `Outcome` whose `refused` sentence
the page shows, and nothing of it is written. Message ids count per chat, so every replay gives
the same ids, and the page's numbers (message 1, version 1) count from 1 everywhere.

A step the person adds carries the tracker each linked name meant when it was added (`pinned`,
under `trackerIds`), so a tracker renamed in the library since then (its id unchanged) still gets
that step's calls and edits: on replay a name is rewritten to the tracker's name now (TR-21: the
values live under the id). Without it, every replay after a rename would refuse the old batches
(all or nothing, so their other trackers' writes too), and the values the person saw would go.
Fields follow the same way: the step carries each tracker's revision (`trackerRevisions`), and
its field names are read through the renames the library recorded since (`trackerkit.renames`,
TR-44); its writes to a field deleted since are dropped, the rest of its batch or edit is written
as before. The scene's own scripted steps are played as stored: a scene file says no revision
(`trackerkit.simulate.outdated` says why that is not guessed), so a scripted call naming a field
renamed since is refused, and `Playback.outdated` names each such field for the page to say so.

A person's edit carries where its form was read (`baseStep`: how many of the page's steps had
been played), not a version number: the version it guards with (TR-27) is re-read at that place
on every replay. So the edit is written on the message it was made on when "Scripted steps
played" moves (the versions count anew then), and is still refused when a step the person added
after reading came first. A swipe, regenerate or continue that carries `baseStep` is played on
the reply it was made on in the same way. A reply the scripted steps made is named too
(`baseMessage`, see `Playback.base`): its id is the same at any slider, so a step made on it is
refused, never moved to another reply, when the slider leaves it out or passes it. A step
refused on replay is listed by `Playback.refusals` for the page to show as loudly as the
scripted ones.

The page plays under either protocol (`protocol="tools" | "text"`); `compare_protocols` plays
the same steps under both and lists, step by step, where their values part (under the text
protocol a batch the tool path retries in a second round is answered only on the next turn).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.chat import Chat
from trackerkit.errors import TrackerkitError
from trackerkit.fields import is_number
from trackerkit.line import line_of, md_text
from trackerkit.renames import FieldRenames, read_renames
from trackerkit.scene import load_scene, scene_trackers
from trackerkit.simulate.completion import PROTOCOLS, UpdateProtocol
from trackerkit.simulate.outdated import OutdatedName, outdated_names
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.session import Session
from trackerkit.tool import TOOL_NAME
from trackerkit.tracker import Tracker
from trackerkit.update import name_key
from trackerkit.values import same_value

__all__ = [
    "Clamp",
    "ForkPoint",
    "Outcome",
    "Playback",
    "ProtocolComparison",
    "StepValues",
    "clamps_of",
    "compare_protocols",
    "linked_names",
    "pinned",
    "play_page",
    "read_json",
    "turn_clamps",
]


class _LongNumberError(Exception):
    """An integer literal past the interpreter's digit limit, by its digit count."""

    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past sys.get_int_max_str_digits(): Python will not read (or write) it
        raise _LongNumberError(len(text.lstrip("-"))) from None


def read_json(text: str, what: str) -> tuple[Any, str | None]:
    """`text` read as JSON, or `(None, sentence)` naming `what`, the parser's message and where.

    Never raises for any text: nesting too deep to read, and an integer longer than Python reads
    (`sys.get_int_max_str_digits()`, 4,300 digits by default), are sentences too.

    Example: `read_json('[{"a": 1}', "The tool calls")` gives
    `(None, "The tool calls are not valid JSON: Expecting ',' delimiter at line 1, column 10
    (character 9). Nothing was sent.")`.
    """
    try:
        return json.loads(text, parse_int=_integer), None
    except json.JSONDecodeError as exc:
        return None, (
            f"{what} are not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno} "
            f"(character {exc.pos}). Nothing was sent."
        )
    except RecursionError:
        return None, f"{what} nest too deep to read. Nothing was sent."
    except _LongNumberError as exc:
        return None, (
            f"{what} hold a whole number of {exc.digits:,} digits; numbers are read up to "
            f"{sys.get_int_max_str_digits():,} digits. Write a smaller number. Nothing was sent."
        )


@dataclass(frozen=True, slots=True)
class Clamp:
    """A number written other than asked: the rules held it to its range or top (TR-13, TR-14)."""

    tracker: str
    row: str | None
    field: str
    asked: object
    written: object

    def __str__(self) -> str:
        where = f"{self.tracker}" + (f" · {self.row}" if self.row is not None else "")
        return f"{where} · {self.field}: asked {_plain(self.asked)}, written {_plain(self.written)}"


def _plain(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value) if isinstance(value, str) else str(value)


def _asked_numbers(items: object) -> dict[tuple[str, str | None, str], object]:
    """The numbers a batch asked for, by (tracker, row, field); a later item wins."""
    updates = items.get("updates") if isinstance(items, Mapping) else items
    asked: dict[tuple[str, str | None, str], object] = {}
    if not isinstance(updates, list):
        return asked
    for item in updates:
        if not isinstance(item, Mapping):
            continue
        tracker, row, values = item.get("tracker"), item.get("row"), item.get("set")
        if not isinstance(tracker, str) or not isinstance(values, Mapping):
            continue
        for name, value in values.items():
            # Any number asked, past the safe range too: the update clamps 9007199254740993 or
            # 1e300 to a top like any other number, and the page says so.
            if type(value) in (int, float):
                asked[(tracker, row if isinstance(row, str) else None, str(name))] = value
    return asked


def clamps_of(asked: object, values: Mapping[str, Any]) -> tuple[Clamp, ...]:
    """The numbers of `asked` (an update call's arguments) that `values` hold otherwise.

    Args:
        asked: the arguments of the accepted `update_trackers` calls, or one edit's item list.
        values: each tracker's value after the writes, by name (`Session.values()`).
    """
    found = []
    for (tracker, row, name), wanted in _asked_numbers(asked).items():
        value = values.get(tracker)
        if row is not None and isinstance(value, Mapping):
            # Rows are matched as the update rules match them (`name_key`).
            key = name_key(row)
            value = next((v for k, v in value.items() if name_key(str(k)) == key), None)
        if not isinstance(value, Mapping) or name not in value:
            continue
        written = value[name]
        if is_number(written) and not same_value(written, wanted):
            found.append(Clamp(tracker, row, name, wanted, written))
    return tuple(found)


def turn_clamps(report: TurnReport) -> tuple[Clamp, ...]:
    """The numbers a turn's accepted update calls asked for that its reply version stored otherwise
    (none for a failed turn).

    Only the range rules make a clamp: a person's edit on the message lies over every version
    (TR-27), so the values are read as the version wrote them (`report.written`), not as shown.
    """
    updates: list[object] = []
    for call in report.calls:
        if call.ok and call.name == report.tool_name:
            arguments, problem = read_arguments(call.arguments)
            if problem is None and isinstance(arguments, Mapping):
                found = arguments.get("updates")
                updates.extend(found if isinstance(found, list) else [])
    written = report.written if report.written is not None else report.values
    return clamps_of(updates, written) if report.ok else ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one step did: the turn's report, the values clamped, or why it was refused."""

    number: int
    kind: str
    scripted: bool
    refused: str | None = None
    report: TurnReport | None = None
    clamps: tuple[Clamp, ...] = ()
    take: str = "t1"
    #: The reply version the turn wrote (its index), when it wrote one.
    version: int | None = None
    #: The step as the page gave it (texts as typed), so a refused one can be shown again.
    typed: Mapping[str, Any] = field(default_factory=dict)
    #: Tool calls the step gave that no tool could take (the scene links no tracker).
    unsent: int = 0

    @property
    def sentence(self) -> str:
        """The step's outcome in one line, as the page shows it next to the control."""
        label = f"Step {self.number} ({self.kind})"
        if self.refused is not None:
            return f"{label} was refused, nothing was written: {self.refused}"
        if self.report is not None and self.report.failed:
            return f"{label} failed and kept nothing: {self.report.failed}"
        refused = [c for c in self.report.calls if not c.ok] if self.report else []
        parts = [f"{label} done"]
        if self.unsent:
            parts.append(
                f"the scene links no tracker, so no update tool was offered and the {self.unsent} "
                f"tool call{'s' if self.unsent != 1 else ''} typed {'were' if self.unsent != 1 else 'was'} not sent"
            )
        if refused:
            parts.append(f"{len(refused)} tool call(s) refused (see under the reply)")
        if self.clamps:
            parts.append("clamped: " + "; ".join(map(str, self.clamps)))
        return "; ".join(parts) + "."


@dataclass(frozen=True, slots=True)
class ForkPoint:
    """Where a take began: the take it was forked from and the last message they share."""

    source: str
    message_id: str
    number: int


@dataclass(slots=True)
class Playback:
    """A session with the page's steps played on it, and what each step did."""

    session: Session
    outcomes: list[Outcome] = field(default_factory=list)
    forks: dict[str, ForkPoint] = field(default_factory=dict)
    #: The turn that wrote each reply version, by (message id, version index).
    replies: dict[tuple[str, int], Outcome] = field(default_factory=dict)
    #: The fields the scene's scripted steps played name that a designer save renamed or
    #: deleted since (those steps are played as written; the page says why they are refused).
    outdated: tuple[OutdatedName, ...] = ()

    @property
    def page_outcomes(self) -> list[Outcome]:
        """The outcomes of the steps the person added (not the scene's scripted ones)."""
        return [o for o in self.outcomes if not o.scripted]

    def refusals(self) -> list[Outcome]:
        """The refused steps no control shows: every scripted one, and each of the person's but
        the last (its own control shows that one), so a step refused on a replay (an edit after
        the slider moved) is never dropped in silence."""
        last = self.page_outcomes[-1:]
        return [o for o in self.outcomes if o.refused is not None and o not in last]

    def base(self) -> dict[str, Any]:
        """Where a step the person adds now is made: `{"baseStep": n, "baseMessage": "m12"}`, the
        count of their steps played and the take's last message (none on an empty take).

        Put on an edit, swipe, regenerate or continue, it keeps the step on that reply when
        "Scripted steps played" moves, and has it refused (never moved to another reply) when
        the slider leaves the reply out or passes it.
        """
        messages = self.session.chat.take.messages
        base: dict[str, Any] = {"baseStep": len(self.page_outcomes)}
        if messages:
            base["baseMessage"] = messages[-1].id
        return base

    def reply_outcome(self, message_id: str, version: int) -> Outcome | None:
        """The turn that wrote a reply version, when this page played it."""
        return self.replies.get((message_id, version))

    def last_turn(self) -> TurnReport | None:
        """The last turn of the take shown: one that wrote a version it shows, or failed on it."""
        outcome = self.last_turn_step()
        return outcome.report if outcome is not None else None

    def last_turn_step(self) -> Outcome | None:
        """The step that played `last_turn()`, so the page numbers it as it numbers every step."""
        take = self.session.chat.take
        shown = {(m.id, m.shown) for m in take.messages}
        for outcome in reversed(self.outcomes):
            report = outcome.report
            if report is None:
                continue
            if report.failed and outcome.take == take.id:
                return outcome
            if (report.message_id, outcome.version) in shown:
                return outcome
        return None

    def last_turn_heading(self) -> str:
        """The last turn's heading as markdown, numbered as the steps are:
        `Step 14 (continue) · wrote <code>m28</code>`.

        The same number and kind as that step's outcome line (`Step 14 (continue) done.`), so the
        two can never be read as two different counters. The id and the failure (a model's or a
        server's words) are escaped (`line.md_text`): the heading shows them, never runs them.
        Empty when the take shows no turn.
        """
        outcome = self.last_turn_step()
        if outcome is None or outcome.report is None:
            return ""
        report = outcome.report
        where = f" · wrote <code>{md_text(report.message_id)}</code>" if report.message_id else ""
        failed = f" · **failed**: {md_text(report.failed)}" if report.failed else ""
        return f"Step {outcome.number} ({md_text(outcome.kind)}){where}{failed}"

    def take_labels(self) -> dict[str, str]:
        """Each take's label for a switcher, by id: `t2 · forked from t1 at message 6 · 7 messages`."""
        labels = {}
        for take_id, take in self.session.chat.takes.items():
            point = self.forks.get(take_id)
            origin = (
                f" · forked from {point.source} at message {point.number}"
                if point is not None
                else " · the first take"
            )
            count = len(take.messages)
            labels[take_id] = f"{take_id}{origin} · {count} message{'s' if count != 1 else ''}"
        return labels

    def message_labels(self) -> dict[str, str]:
        """The take shown's messages for a picker, numbered from 1 as the panel numbers them."""
        return {
            m.id: f"message {i} · {m.role} · {_short(m.text)}"
            for i, m in enumerate(self.session.chat.messages, start=1)
        }


def _short(text: str, width: int = 40) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def play_page(
    scene: str | Path,
    steps: Sequence[Mapping[str, Any]],
    *,
    scripted: int | None = None,
    trackers: str | Path | None = None,
    protocol: UpdateProtocol = "tools",
) -> Playback:
    """A new session on `scene` with its first `scripted` steps and then the page's `steps` played.

    Page steps are the scene file's step shapes, with these page forms: `callsText` (the tool
    calls as typed, read here), `setText` and `baseVersion` (the take's version the form read,
    for this very replay) on an edit, `baseStep` and `baseMessage` on an edit, swipe,
    regenerate or continue (see `Playback.base`: the reply it was made on, refused when this
    replay does not end on it there; an edit's guard is the take's version there, TR-27),
    `trackerIds` and `trackerRevisions` (see `pinned`: a call or edit naming a tracker or a
    field renamed since is sent under its name now), and `{"action": "use", "take": "t1"}`,
    which shows another take. Message references are ids; `version` counts from 1.

    Args:
        scene: the scene file.
        steps: the steps the person added, oldest first.
        scripted: how many of the scene's scripted steps to play first (all when None).
        trackers: the folder of tracker pieces (`<data>/trackers` beside the scene when None).
        protocol: how the model sends its updates, "tools" or "text" (the scripted model then
            writes its calls as the reply's update block).
    Raises:
        TrackerkitError: the scene itself cannot be read (no step is ever the cause).
    """
    session = Session.from_scene(scene, trackers=trackers, protocol=protocol)
    playback = Playback(session)
    count = len(session.steps) if scripted is None else max(0, min(scripted, len(session.steps)))
    for index in range(count):
        _play(playback, dict(session.steps[index]), index + 1, scripted=True)
    session.player.step_index = count
    chat = session.chat
    # The messages the scripted steps made: ids count per chat, so theirs are the same at any
    # slider, while the ids of the messages the page's steps make move with it.
    made = frozenset(m.id for take in chat.takes.values() for m in take.messages)
    folder = scene_trackers(scene, trackers)
    histories: dict[str, FieldRenames] = {}

    def history(tracker_id: str) -> FieldRenames:
        if tracker_id not in histories:
            histories[tracker_id] = read_renames(folder, tracker_id)
        return histories[tracker_id]

    playback.outdated = outdated_names(
        session.scene.id, Path(scene), session.steps[:count], chat.linked().trackers, history
    )

    read: list[_Reading] = []  # the take before each page step: what a form read there
    for index, step in enumerate(steps, start=count + 1):
        tip = chat.take.messages[-1].id if chat.take.messages else None
        read.append(_Reading(chat.take.version, chat.current, tip, tip in made))
        _play(playback, dict(step), index, scripted=False, read=read, history=history)
    return playback


@dataclass(frozen=True, slots=True)
class _Reading:
    """The take as a form read it before a page step: its version, id and last message, and
    whether the scripted steps made that message (its id is then the same at any slider)."""

    version: int
    take: str
    tip: str | None
    scripted: bool


def _kind(step: Mapping[str, Any]) -> str:
    action = step.get("action")
    return "turn" if action is None else str(action)


def _play(
    playback: Playback,
    step: dict[str, Any],
    number: int,
    *,
    scripted: bool,
    read: Sequence[_Reading] = (),
    history: Callable[[str], FieldRenames] = lambda _: FieldRenames(),
) -> None:
    session = playback.session
    kind = _kind(step)
    take = session.chat.current
    typed = dict(step)

    kept = _KeptRefused()

    def refuse(reason: str) -> None:
        playback.outcomes.append(
            Outcome(number, kind, scripted, refused=kept.restore(reason), take=take, typed=typed)
        )

    problem = _read_page_forms(step, session, history, kept) or _reply_problem(
        session, step, read, kind
    )
    if problem is not None:
        return refuse(problem)
    try:
        if kind == "use":
            session.chat.use(str(step.get("take")))
            playback.outcomes.append(
                Outcome(number, kind, scripted, take=session.chat.current, typed=typed)
            )
            return None
        if kind == "fork":
            message_id = _message_id(session, step["message"])
            position = session.chat.take.index_of(message_id) + 1
            new = session.chat.fork(message_id).id
            playback.forks[new] = ForkPoint(take, message_id, position)
            playback.outcomes.append(Outcome(number, kind, scripted, take=new, typed=typed))
            return None
        if kind == "show_version" and not scripted:
            problem = _version_problem(session, step)
            if problem is not None:
                return refuse(problem)
            step["version"] -= 1  # the page counts versions from 1
        if kind == "edit":
            problem = _edit(session, step, read)
            if problem is not None:
                return refuse(problem)
            item = {"tracker": step.get("tracker"), "set": step.get("set"), "row": step.get("row")}
            clamps = clamps_of([item], session.values())
            playback.outcomes.append(
                Outcome(number, kind, scripted, clamps=clamps, take=take, typed=typed)
            )
            return None
        report = session.play(step)
    except (TrackerkitError, KeyError) as exc:
        return refuse(_sentence(exc))
    kept.restore_turn(session, report)
    version = None
    if report is not None and report.ok and report.message_id is not None:
        version = session.chat.take.message(report.message_id).shown
    given = step.get("calls")
    unsent = (
        len(given)
        if isinstance(given, list)
        and report is not None
        and report.protocol == "tools"
        and not report.tool_offered
        else 0
    )
    outcome = Outcome(
        number,
        kind,
        scripted,
        report=report,
        clamps=turn_clamps(report) if report is not None else (),
        take=session.chat.current,
        version=version,
        typed=typed,
        unsent=unsent,
    )
    playback.outcomes.append(outcome)
    if report is not None and version is not None and report.message_id is not None:
        playback.replies[(report.message_id, version)] = outcome
    return None


def _edit(session: Session, step: dict[str, Any], read: Sequence[_Reading]) -> str | None:
    """Write the step's edit; why its form's place cannot be read, or None when written.

    Raises:
        TrackerkitError: the chat refuses the edit (the take moved on since the form was read,
            a tracker the scene does not link, an item the rules refuse).
    """
    base = step.pop("baseVersion", None)
    if "baseStep" in step:
        reading, problem = _reading(step.pop("baseStep"), read, "edit")
        if reading is None:
            return problem
        base = reading.version
    if base is None:
        session.play(step)
        return None
    # The values the form showed were read at `base`: an edit on a take that has moved since
    # (or on another take) is refused, never written elsewhere (TR-27).
    session.chat.edit(
        str(step.get("tracker")),
        set=step.get("set"),  # read by the tool's own item reader
        row=step.get("row"),
        remove=step.get("remove", False),
        base_version=base,
    )
    return None


#: The page steps made on the reply shown, and what the person does to make one again.
_ON_A_REPLY = {
    "edit": "read the values again and edit",
    "swipe": "swipe the reply shown",
    "regenerate": "regenerate the reply shown",
    "continue": "continue the reply shown",
}


def _reading(
    base_step: object, read: Sequence[_Reading], kind: str
) -> tuple[_Reading | None, str | None]:
    """The take where a step's form was read (after `base_step` of the page's steps), or why
    there is none; `read` holds the take before each page step so far, the step's own last."""
    mine = len(read) - 1
    if type(base_step) is not int or not 0 <= base_step <= mine:
        made = "edit's form was read" if kind == "edit" else f"{kind} was made"
        return None, (
            f"The {made} after step {base_step} of yours, but it comes after {mine}; "
            f"{_ON_A_REPLY[kind]}."
        )
    return read[base_step], None


def _reply_problem(
    session: Session, step: dict[str, Any], read: Sequence[_Reading], kind: str
) -> str | None:
    """Why a step made on a reply is not played on that reply here, or None (then it is).

    A step that carries `baseStep` was made on the take's last message there (and the page may
    name it, `baseMessage`). A message the scripted steps made keeps its id at any slider, so one
    that is not the message named was left out or passed by the slider; the step is refused, never
    moved to another reply. A swipe, regenerate or continue is also refused when a step came
    between (the take or its last message is not the one read); an edit's version says that
    (TR-27). A step without `baseStep` plays on the reply shown, as it always did, and a scripted
    step (no `read`) as stored.
    """
    if kind not in _ON_A_REPLY or not read:
        return None
    meant = step.pop("baseMessage", None)
    if "baseStep" not in step:
        return None
    reading, problem = _reading(step["baseStep"], read, kind)
    if reading is None:
        return problem
    if isinstance(meant, str) and reading.scripted and reading.tip != meant:
        return _not_played(session, kind, meant, reading)
    if kind == "edit":
        return None
    del step["baseStep"]
    take = session.chat.take
    tip = take.messages[-1].id if take.messages else None
    if (take.id, tip) != (reading.take, reading.tip):
        return (
            f"The {kind} was made on {reading.tip or 'no message'} of take {reading.take!r}, but "
            f"the take shown ends with {tip or 'no message'} on take {take.id!r} (a step came "
            f"first). {_ON_A_REPLY[kind].capitalize()} again."
        )
    return None


def _not_played(session: Session, kind: str, meant: str, reading: _Reading) -> str:
    """The sentence for a step made on a scripted reply this replay does not end on."""
    what = "edit's form was read" if kind == "edit" else f"{kind} was made"
    live = any(m.id == meant for take in session.chat.takes.values() for m in take.messages)
    where = (
        f"which is not the last reply here ({reading.tip} is: more scripted steps are played)"
        if live
        else "which this replay does not play (the scripted steps played stop before it)"
    )
    return (
        f"The {what} on the reply {meant}, {where}, and is not moved to another reply. Set "
        f"the scripted steps played back to where it was made, or {_ON_A_REPLY[kind]}."
    )


def _message_id(session: Session, reference: object) -> str:
    """A message id from a step's reference: an id, or an index such as -1 (scene files)."""
    if isinstance(reference, int) and not isinstance(reference, bool):
        return session.chat.message_id(reference)
    return str(reference)


def _version_problem(session: Session, step: Mapping[str, Any]) -> str | None:
    """Why a page's version number (from 1) cannot be shown, or None."""
    version = step.get("version")
    message_id = _message_id(session, step.get("message"))
    take = session.chat.take
    position = take.index_of(message_id) + 1
    count = len(take.messages[position - 1].versions)
    versions = f"message {position} has {count} version{'s' if count != 1 else ''} (1 to {count})"
    if version is None:  # the box was emptied
        return f"Type a version number: {versions}."
    if not isinstance(version, int) or not 1 <= version <= count:
        return f"{versions}; there is no version {version}."
    return None


def _or_blank(typed: object, blank: str) -> str:
    """The text as typed (positions in a parser's message are its own), `blank` when it is none."""
    text = str(typed or "")
    return text if text.strip() else blank


def _read_page_forms(
    step: dict[str, Any],
    session: Session,
    history: Callable[[str], FieldRenames],
    kept: _KeptRefused,
) -> str | None:
    """Turn the page's typed texts into the step's values; the reason when one is not JSON.

    A step's tracker names are then followed to the trackers they meant when it was added
    (`trackerIds`, a page form only: a scene file refuses the key, so its steps play as stored),
    and the names that were no field then are hidden in `kept`.
    """
    if "callsText" in step:
        calls, problem = read_json(_or_blank(step.pop("callsText"), "[]"), "The tool calls")
        if problem is not None:
            return problem
        if not isinstance(calls, list):
            return (
                'The tool calls must be a JSON list of calls ([{"name": ..., "arguments": '
                "...}]); found "
                + type(calls).__name__.replace("dict", "an object")
                + ". Nothing was sent."
            )
        step["calls"] = calls
    if "setText" in step:
        values, problem = read_json(_or_blank(step.pop("setText"), "{}"), "The values to set")
        if problem is not None:
            return problem
        if values == {}:
            return (
                'Nothing to set: type the fields and their values in Set (JSON), as {"hp": 20}. '
                "Nothing was sent."
            )
        step["set"] = values
    if step.get("row") == "":
        step.pop("row")
    _follow_renames(session, step, history, kept)
    return None


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


def _sentence(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"The step has no {exc!s}."
    text = str(exc).strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


@dataclass(frozen=True, slots=True)
class StepValues:
    """One step's values after it, under each protocol, flattened to `tracker.field` (lists:
    `tracker.row.field`); None for a step that wrote no turn under that protocol."""

    number: int
    kind: str
    tools: Mapping[str, object] | None
    text: Mapping[str, object] | None

    def differences(self) -> list[tuple[str, object, object]]:
        """`(place, tools value, text value)` wherever the two differ, in order of place."""
        tools, text = self.tools or {}, self.text or {}
        places = sorted(set(tools) | set(text))
        return [
            (p, tools.get(p, _NO_ROW), text.get(p, _NO_ROW))
            for p in places
            if not same_value(tools.get(p, _NO_ROW), text.get(p, _NO_ROW))
        ]


_NO_ROW = "(no row)"


@dataclass(frozen=True, slots=True)
class ProtocolComparison:
    """The same steps played under the tool path and the text protocol, step by step."""

    steps: list[StepValues]
    #: The steps whose plan sends a refused batch again in a second round (numbers from 1): the
    #: text protocol answers that refusal on the next turn, so they differ by design.
    retried: frozenset[int] = frozenset()

    @property
    def same(self) -> bool:
        """True when every step reached the same values under both protocols."""
        return not any(s.differences() for s in self.steps)

    def mismatches(self) -> list[str]:
        """Each value that differs, in words: `Step 3 (turn): Health.hp: tools 12, text 22`."""
        lines = []
        for step in self.steps:
            note = (
                " (a retried batch: the text protocol answers it next turn)"
                if step.number in self.retried
                else ""
            )
            lines += [
                f"Step {step.number} ({step.kind}){note}: {place}: tools {_plain(a)}, text {_plain(b)}"
                for place, a, b in step.differences()
            ]
        return lines

    def rows(self) -> list[dict[str, object]]:
        """One row per differing value, for a table: step, kind, place, tools, text."""
        return [
            {
                "step": s.number,
                "kind": s.kind,
                "value": place,
                "tools": _plain(a),
                "text": _plain(b),
            }
            for s in self.steps
            for place, a, b in s.differences()
        ]


def _flat(values: Mapping[str, Any]) -> dict[str, object]:
    flat: dict[str, object] = {}
    for tracker, value in values.items():
        if not isinstance(value, Mapping):
            continue
        for key, item in value.items():
            if isinstance(item, Mapping):
                flat.update({f"{tracker}.{key}.{f}": v for f, v in item.items()})
            else:
                flat[f"{tracker}.{key}"] = item
    return flat


def compare_protocols(
    scene: str | Path,
    steps: Sequence[Mapping[str, Any]] = (),
    *,
    scripted: int | None = None,
    trackers: str | Path | None = None,
) -> ProtocolComparison:
    """Play the page's steps (after `scripted` scene steps) under both protocols; their values step by step.

    Each side plays freely (as a chat would), so a step that differs carries into the next ones.
    Raises:
        TrackerkitError: the scene itself cannot be read.
    """
    played = {
        p: play_page(scene, steps, scripted=scripted, trackers=trackers, protocol=p)
        for p in PROTOCOLS
    }
    tools, text = played["tools"], played["text"]
    compared = []
    for a, b in zip(tools.outcomes, text.outcomes, strict=True):
        if a.report is None and b.report is None:
            continue
        compared.append(
            StepValues(
                a.number,
                a.kind,
                _flat(a.report.values) if a.report is not None else None,
                _flat(b.report.values) if b.report is not None else None,
            )
        )
    retried = frozenset(
        o.number
        for o in tools.outcomes
        if o.report is not None and len({c.round for c in o.report.calls}) > 1
    )
    return ProtocolComparison(compared, retried)
