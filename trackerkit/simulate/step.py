"""One simulator page step played on a `Playback`: written, or refused with the sentence why.

Its typed forms are read first (`callsText`, `setText`) and its names followed to the trackers and
fields they meant when it was added (`trackerkit.simulate.pins`). A step made on a reply (an edit,
swipe, regenerate or continue with `baseStep`, and `baseMessage` when the scripted steps made that
reply) is played on that reply or refused, never moved to another one; an edit guards with the
take's version where its form was read (TR-27). Nothing of a refused step is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trackerkit.errors import TrackerkitError
from trackerkit.renames import FieldRenames
from trackerkit.simulate.clamps import clamps_of, turn_clamps
from trackerkit.simulate.forms import read_json
from trackerkit.simulate.outcomes import ForkPoint, Outcome, Playback
from trackerkit.simulate.pins import _follow_renames, _KeptRefused
from trackerkit.simulate.report import TurnReport
from trackerkit.simulate.session import Session
from trackerkit.steps import RegenerateStep, decode_step

__all__: list[str] = []  # its helpers serve `play_page` (`trackerkit.simulate.playback`) only


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

    problem = (
        _picked_message_problem(playback, step, kind)
        or _read_page_forms(step, session, history, kept)
        or _reply_problem(session, step, read, kind)
        or (None if scripted else _unanswered_problem(session, kind) or _blank_user(step, kind))
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
        report = _reply(session, step) if kind == "reply" else session.play(step)
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


#: The page steps made on the reply shown (a reply: on the person's message it answers), and
#: what the person does to make one again.
_ON_A_REPLY = {
    "reply": "reply to the last message",
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
    """The sentence for a step made on a scripted message this replay does not end on (a reply;
    the person's message a reply answers)."""
    what = "edit's form was read" if kind == "edit" else f"{kind} was made"
    noun = "message" if kind == "reply" else "reply"
    live = any(m.id == meant for take in session.chat.takes.values() for m in take.messages)
    where = (
        f"which is not the last {noun} here ({reading.tip} is: more scripted steps are played)"
        if live
        else "which this replay does not play (the scripted steps played stop before it)"
    )
    return (
        f"The {what} on the {noun} {meant}, {where}, and is not moved to another {noun}. Set "
        f"the scripted steps played back to where it was made, or {_ON_A_REPLY[kind]}."
    )


def _unanswered_problem(session: Session, kind: str) -> str | None:
    """Why a page's reply, swipe, regenerate or continue is not played on the take's last
    message, or None: a reply answers the person's message (one a cut left unanswered), the
    others write the last reply again (the chat refuses them on a person's message)."""
    if kind not in ("reply", "swipe", "regenerate", "continue"):
        return None
    messages = session.chat.take.messages
    last = f"message {len(messages)}"
    if kind == "reply":
        if not messages:
            return "Nothing to answer: the take has no message. Send turn adds your message and its reply."
        if messages[-1].role == "user":
            return None
        return (
            f"Nothing to answer: the last message ({last}) is already a reply. Send turn adds "
            "your message and its reply; Swipe or Regenerate writes this reply again."
        )
    if messages and messages[-1].role == "user":
        return (
            f"Nothing to {kind}: the last message ({last}) is yours, not a reply. Press Reply to "
            "last message to answer it."
        )
    return None


def _blank_user(step: Mapping[str, Any], kind: str) -> str | None:
    """Why a page's turn is not sent: its user message is blank (a chat sends no empty message)."""
    user = step.get("user")
    if kind == "turn" and (not isinstance(user, str) or not user.strip()):
        return "Type a user message: a turn is your message and its reply. Nothing was sent."
    return None


def _reply(session: Session, step: Mapping[str, Any]) -> TurnReport | None:
    """A page's reply to the person's last message: its reply and calls, read as a regenerate
    step's are (the scene file's steps have no reply of their own)."""
    planned = decode_step({**step, "action": "regenerate"}, "step")
    assert isinstance(planned, RegenerateStep)
    return session.reply(planned.plan())


#: The page steps made on a message the person picks, and what each does to it.
_ON_A_MESSAGE = {"cut": "cut", "fork": "fork", "show_version": "version shown"}


def _picked_message_problem(playback: Playback, step: dict[str, Any], kind: str) -> str | None:
    """Point a cut, fork or version on the message it was made on in this replay (`origin`, see
    `Playback.origin`), or say why it cannot be: the step that made the message made none here,
    or the scripted steps played here stop before it. Never moved to another message.

    A step without an origin (a scene file's, or one added before origins were kept) plays on
    its id as given.
    """
    if kind not in _ON_A_MESSAGE:
        return None
    scripted = step.pop("messageScripted", None)
    by_step = step.pop("messageStep", None)
    nth = step.pop("messageNth", 0)
    picked = step.get("message")
    what = f"The {_ON_A_MESSAGE[kind]} was made on"
    if scripted is True:
        if picked in playback.scripted_ids:
            return None
        return (
            f"{what} a message the scene's scripted steps write ({picked}), and the scripted "
            "steps played here stop before it. Set the scripted steps played back to where it "
            "was made, or pick a message again."
        )
    if by_step is None:
        return None
    made = playback.made
    if type(by_step) is not int or type(nth) is not int or not 0 <= by_step < len(made):
        return f"{what} a message of a step of yours that this replay does not play."
    ids = made[by_step]
    if not 0 <= nth < len(ids):
        number = playback.page_outcomes[by_step].number
        return (
            f"{what} a message your step {number} wrote, and that step writes no such message "
            "in this replay (see its line). Pick a message again."
        )
    step["message"] = ids[nth]
    return None


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


def _sentence(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"The step has no {exc!s}."
    text = str(exc).strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."
