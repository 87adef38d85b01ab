"""A chat on a scene: takes, turns that write replies, swipes, cuts, forks and a person's edits.

`Chat` ties the scene's linked trackers to the take's state. A turn (`begin_turn`) fixes the state
its reply sees, runs update calls whose deltas stay pending, and `commit` stamps them on the new
reply version (`fail` drops them). A person's edit writes message-level deltas on the tip message.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trackerkit._checks import count_argument, described, text_argument
from trackerkit.errors import BadRequestError, EditRefusedError, NotFoundError, TurnError
from trackerkit.renames import follow_renames
from trackerkit.scene import Linked, PieceSource, Scene, load_linked, source_for
from trackerkit.state import Message, Take
from trackerkit.tool import update_trackers_tool
from trackerkit.tracker import Tracker
from trackerkit.turn import TURN_KINDS, Turn, TurnKind
from trackerkit.update import (
    UpdateResult,
    apply_tracker_updates,
    read_updates,
    slot_of,
    tracker_value,
    tracker_values,
)
from trackerkit.values import Value, same_value

# `Turn` and `TurnKind` live in trackerkit.turn; they are importable from here as they were.
__all__ = ["Chat", "PanelEntry", "Turn", "TurnKind"]


@dataclass(frozen=True, slots=True)
class PanelEntry:
    """One linked tracker in the Trackers panel: its value at the tip and the reply that last changed it."""

    tracker: Tracker
    value: dict[str, Value] | dict[str, dict[str, Value]]
    changed_by: str | None


def _no_folder(path: Path) -> str:
    """Why `path` cannot be a chat's tracker folder: it does not exist, or it is not a folder."""
    found = "is not a folder" if path.exists() else "does not exist"
    where = "" if path.is_absolute() else f" (looked for {path.absolute()})"
    return (
        f"the tracker folder {str(path)!r} {found}{where}; check the path: it should name "
        "the folder that holds the tracker pieces, one <id>.json each, such as data/trackers"
    )


class Chat:
    """A chat on a scene: takes (branches) of messages, and the trackers the scene links.

    Args:
        scene: the scene (its linked tracker ids, card, names, window).
        pieces: where tracker pieces are read from at each turn: a folder (`data/trackers`), a
            mapping of id to piece JSON or `Tracker`, a list of trackers, or a `PieceSource`.

    Raises:
        BadRequestError: `scene` is not a `Scene`.
        NotFoundError: `pieces` is a folder path that does not exist (or is no folder). A folder
            that lacks a linked tracker's piece is no error: the turn leaves it out (TR-25).
    """

    def __init__(
        self,
        scene: Scene,
        pieces: PieceSource | Mapping[str, object] | Sequence[Tracker] | str | Path,
    ) -> None:
        if not isinstance(scene, Scene):
            raise BadRequestError(
                f"a chat needs a Scene (see load_scene); found {described(scene)}"
            )
        if isinstance(pieces, str | Path) and not Path(pieces).is_dir():
            raise NotFoundError(_no_folder(Path(pieces)))
        self.scene = scene
        self.source = source_for(pieces)
        self._takes_made = 0
        # The first take's version and message id counters are shared by every take forked from
        # it: a version read on one take names it (TR-27), and ids count per chat, so the same
        # steps played again give the same ids.
        first = Take(self._new_take_id())
        self.takes: dict[str, Take] = {first.id: first}
        self.current = first.id
        self._turn: Turn | None = None
        # Per tracker id, the revision whose field names the stored deltas hold (TR-44).
        self._seen: dict[str, int] = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A chat stored before renames were followed holds its values in the names it reads next.
        self.__dict__.update({"_seen": {}, **state})

    def _new_take_id(self) -> str:
        self._takes_made += 1
        return f"t{self._takes_made}"

    # --- reading ---------------------------------------------------------------------------

    @property
    def take(self) -> Take:
        """The take being shown."""
        return self.takes[self.current]

    def get_take(self, take_id: str | None = None) -> Take:
        """A take by id (the current one when None).

        Raises:
            BadRequestError: `take_id` is neither text nor None.
            NotFoundError: no take has that id.
        """
        self.linked()  # what the take holds is read in today's field names
        if take_id is None:
            return self.take
        text_argument(take_id, "a take id")
        take = self.takes.get(take_id)
        if take is None:
            raise NotFoundError(
                f"this chat has no take {take_id!r} (takes: {', '.join(self.takes)})"
            )
        return take

    @property
    def messages(self) -> list[Message]:
        """The live messages of the current take."""
        return self.take.messages

    @property
    def turn_open(self) -> bool:
        """True while a reply is being written."""
        return self._turn is not None

    def message_id(self, message: str | int) -> str:
        """A message id from a reference: an id, or a position in the current take (-1 is the last).

        Raises:
            BadRequestError: neither text nor an integer (a boolean is no position).
            NotFoundError: the take has no message at that position (an id is checked where used).
        """
        if isinstance(message, str):
            return message
        if isinstance(message, bool) or not isinstance(message, int):
            raise BadRequestError(
                "a message must be an id (m12) or a position (-1 is the last); "
                f"found {described(message)}"
            )
        messages = self.take.messages
        if not -len(messages) <= message < len(messages):
            raise NotFoundError(
                f"the take has {len(messages)} messages; there is no message {message}"
            )
        return messages[message].id

    def linked(self) -> Linked:
        """Load the linked trackers through the strict decoder, as a turn does (TR-25); every
        take's values follow the field renames saved since the last read (TR-44), once no turn is open."""
        linked = load_linked(self.scene, self.source)
        if self._turn is None:
            follow_renames(self._seen, linked.trackers, self.source, self.takes.values())
        return linked

    def values(self, message_id: str | None = None) -> dict[str, Any]:
        """Each linked tracker's value at a message (the tip when None), by tracker name.

        Raises:
            BadRequestError: `message_id` is not of the shape of a message id.
            NotFoundError: the take has no live message with that id.
        """
        if message_id is not None:
            text_argument(message_id, "a message id")
        trackers = self.linked().trackers
        return tracker_values(trackers, self.take.state_at(message_id))

    def panel(self) -> list[PanelEntry]:
        """The Trackers panel (TR-26): each linked tracker's value at the tip and the reply that
        last changed it, as the changes read counts a change (TR-43): the last message whose
        writes left the tracker's value, read as a turn reads it, other than they found it. A
        reply whose change a person's edit undid, or that wrote the values already there, is
        not it."""
        trackers = self.linked().trackers
        take = self.take
        state = take.state_at()
        entries = []
        for tracker in trackers:
            value = tracker_value(tracker, state)
            entries.append(PanelEntry(tracker, value, _last_change(take, tracker)))
        return entries

    # --- writing ---------------------------------------------------------------------------

    def _guard(self, what: str) -> None:
        if self._turn is not None:
            raise TurnError(
                f"cannot {what} while a reply is being written; commit or fail the turn first"
            )

    def add_user(self, text: str) -> Message:
        """Add a person's message at the end of the current take.

        Raises:
            TurnError: a reply is being written.
            BadRequestError: `text` is not text.
        """
        self._guard("add a message")
        text_argument(text, "the message")
        return self.take.add("user", text)

    def begin_turn(
        self, kind: TurnKind = "reply", *, tools_supported: bool = True, taken: Collection[str] = ()
    ) -> Turn:
        """Open a turn that writes a reply, fixing the state it sees (TR-33).

        A reply sees the tip; a swipe or regenerate sees the state before the reply it replaces;
        a continue sees the state as it stands, with the reply's own writes, and is offered no tool.
        The tool is offered when the scene has tool access, the connection takes tools, the turn
        is not a continue, and a linked tracker loaded (TR-34).

        Raises:
            TurnError: a turn is open already, the kind is unknown, or there is no reply to swipe,
                regenerate or continue.
            BadRequestError: `tools_supported` is not a boolean, or `taken` is not a collection
                of tool names (a single name is written `[name]`).
        """
        self._guard("begin a turn")
        if not isinstance(tools_supported, bool):
            raise BadRequestError(
                f"tools_supported must be True or False; found {described(tools_supported)}"
            )
        if isinstance(taken, str | bytes) or not isinstance(taken, Collection):
            raise BadRequestError(
                "taken must be a list of tool names (one name is written [name]); "
                f"found {described(taken)}"
            )
        for name in taken:
            text_argument(name, "a taken tool name")
        if not isinstance(kind, str) or kind not in TURN_KINDS:
            raise TurnError(f"unknown turn kind {kind!r}; use one of {', '.join(TURN_KINDS)}")
        take = self.take
        if kind != "reply" and (not take.messages or take.messages[-1].role != "assistant"):
            raise TurnError(
                f"nothing to {kind}: the last message of take {take.id!r} is not a reply"
            )
        linked = self.linked()
        base = (
            take.state_before(len(take) - 1) if kind in ("swipe", "regenerate") else take.state_at()
        )
        offered = (
            self.scene.tool_access
            and tools_supported
            and kind != "continue"
            and bool(linked.trackers)
        )
        tool = update_trackers_tool(linked.trackers, taken) if offered else None
        turn = Turn(kind, take, linked, base, tool, self._turn_closed)
        self._turn = turn
        return turn

    def _turn_closed(self, turn: Turn) -> None:
        """A turn committed or failed: the chat takes writes (and the next turn) again."""
        if self._turn is turn:
            self._turn = None

    def show_version(self, message: str | int, index: int) -> Message:
        """Show another version of a reply (counted from 0); the trackers follow its writes (TR-23).

        `message` is an id or a position in the take (see `message_id`).

        Raises:
            TurnError: a reply is being written.
            BadRequestError: `message` is no reference, or `index` is not an integer.
            NotFoundError: no such message, or the message has no version `index`.
        """
        self._guard("show another version")
        count_argument(index, "a version index")
        return self.take.show(self.message_id(message), index)

    def cut(self, message: str | int) -> list[Message]:
        """Drop a message (an id or a position) and everything after it from the current take."""
        self._guard("cut")
        return self.take.cut(self.message_id(message))

    def fork(self, message: str | int) -> Take:
        """Start a new take sharing the history up to and including `message`, and show it."""
        self._guard("fork")
        forked = self.take.fork(self._new_take_id(), self.message_id(message))
        self.takes[forked.id] = forked
        self.current = forked.id
        return forked

    def use(self, take_id: str) -> Take:
        """Show another take.

        Raises:
            TurnError: a reply is being written.
            BadRequestError: `take_id` is not text.
            NotFoundError: no take has that id.
        """
        self._guard("switch takes")
        text_argument(take_id, "a take id")
        take = self.get_take(take_id)
        self.current = take.id
        return take

    def edit(
        self,
        tracker: str,
        set: object = None,
        row: object = None,
        remove: object = False,
        base_version: int | None = None,
    ) -> UpdateResult:
        """A person's edit (TR-27): the tool's item shape and clamps, written on the tip message.

        The item is read by the same reader as the tool's (`read_updates`), so `remove="false"`,
        `set=[1]` or `row=5` is refused, never taken for something else.

        Raises:
            EditRefusedError: refused whole, nothing written: a tracker the scene does not link or
                a turn would leave out, a reply being written, no message to write on, a take that
                moved past `base_version` or a `base_version` read on another take (versions are
                unique across a chat's takes, so a version names its take), or an item the
                update rules refuse.
            BadRequestError: `base_version` is neither an integer nor None.
        """
        if base_version is not None:
            count_argument(base_version, "base_version")
        if self._turn is not None:
            raise EditRefusedError("a reply is being written in this scene; edit once it is done")
        take = self.take
        if base_version is not None and base_version != take.version:
            raise EditRefusedError(self._stale(take, base_version))
        if not take.messages:
            raise EditRefusedError("the take has no message to write the edit on")
        # The values come from people and scene files, so they are read as the tool reads its items.
        raw = {"tracker": tracker, "row": row, "remove": remove, "set": set}
        items, shape_errors = read_updates([raw])
        if shape_errors:
            raise EditRefusedError("; ".join(str(e) for e in shape_errors))
        linked = self.linked()
        target = linked.by_name(tracker)
        if target is None:
            left = next(
                (lo for lo in linked.left_out if self._name_of(lo.tracker_id) == tracker), None
            )
            reason = (
                f"a turn leaves it out: {left.reason}" if left else "the scene does not link it"
            )
            raise EditRefusedError(f"cannot edit {tracker!r}: {reason}")
        result = apply_tracker_updates([target], take.state_at(), items)
        if not result.ok:
            raise EditRefusedError("; ".join(str(e) for e in result.errors))
        take.add_edits(take.messages[-1].id, result.deltas)
        return result

    def _stale(self, take: Take, base_version: int) -> str:
        """Why a version read is not this take's now: read on another take, or before a later write."""
        other = next((t.id for t in self.takes.values() if t.version == base_version), None)
        if other is not None:
            return (
                f"version {base_version} was read on take {other!r}, but the take shown is "
                f"{take.id!r}; nothing was written there. Read take {take.id!r} and edit again"
            )
        return (
            f"the take moved on since it was read (read at version {base_version}, now "
            f"{take.version} on take {take.id!r}); read it again"
        )

    def _name_of(self, tracker_id: str) -> str | None:
        raw = self.source.raw(tracker_id)
        name = raw.get("name") if isinstance(raw, dict) else None
        return name if isinstance(name, str) else None


def _last_change(take: Take, tracker: Tracker) -> str | None:
    """The id of the last message of `take` that changed `tracker`'s value (TR-43's net change),
    or None; only the messages that write its slot are read, newest first."""
    slot = slot_of(tracker)
    for index in range(len(take.messages) - 1, -1, -1):
        message = take.messages[index]
        if not any(d.slot == slot for d in message.deltas()):
            continue
        before = tracker_value(tracker, take.state_before(index))
        if not same_value(before, tracker_value(tracker, take.state_before(index + 1))):
            return message.id
    return None
