"""Where tracker values live: deltas on reply versions, messages, takes, and the fold (TR-21..TR-23).

A write is a `Delta` on the reply version being written (or, for a person's edit, on the message
itself). The state at a message is the fold of every live message up to it: each message's shown
version's deltas, then the message's own. So a swipe, a regenerate, a cut and a fork always leave
every tracker where the visible history says.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from trackerkit.errors import BadRequestError, NotFoundError

__all__ = [
    "LIST_PREFIX",
    "RECORD_PREFIX",
    "Delta",
    "Message",
    "Role",
    "State",
    "Take",
    "Version",
    "apply_deltas",
    "fold",
    "is_message_id",
]

RECORD_PREFIX = "tracker-record:"
LIST_PREFIX = "tracker-list:"
Role: TypeAlias = Literal["user", "assistant"]
#: A folded state: slot -> key -> stored value. A list slot's value is a whole row (no name).
State: TypeAlias = dict[str, dict[str, object]]

_CHECKPOINT_EVERY = 128


@dataclass(frozen=True, slots=True)
class Delta:
    """One write to one key of one scene-state slot (TR-21).

    `tracker-record:<id>` takes one delta per field (`key` = field, `value` = its value);
    `tracker-list:<id>` takes one delta per row (`key` = the exact row name, `value` = the whole
    row without its name, or None for a removal).
    """

    slot: str
    key: str
    value: object

    @property
    def is_tracker(self) -> bool:
        """True for a tracker slot (the only slots the changes read counts)."""
        return self.slot.startswith((RECORD_PREFIX, LIST_PREFIX))


def apply_deltas(state: State, deltas: Iterable[Delta]) -> None:
    """Fold `deltas` into `state` in place: a list row's None value removes the row."""
    for delta in deltas:
        slot = state.get(delta.slot)
        if slot is None:
            slot = state[delta.slot] = {}
        if delta.value is None and delta.slot.startswith(LIST_PREFIX):
            slot.pop(delta.key, None)
        else:
            slot[delta.key] = delta.value


def fold(deltas: Iterable[Delta], start: Mapping[str, Mapping[str, object]] | None = None) -> State:
    """A new state: `start` (not changed) with `deltas` folded in."""
    state = copy_state(start or {})
    apply_deltas(state, deltas)
    return state


def copy_state(state: Mapping[str, Mapping[str, object]]) -> State:
    """A copy safe to fold into; rows themselves are never changed in place, so they are shared."""
    return {slot: dict(keys) for slot, keys in state.items()}


@dataclass(slots=True)
class Version:
    """One version (swipe) of a message: its text and the deltas written with it."""

    text: str
    deltas: tuple[Delta, ...] = ()


@dataclass(slots=True)
class Message:
    """A live message: its versions, the one shown, and its own message-level deltas (edits)."""

    id: str
    role: Role
    versions: list[Version]
    shown: int = 0
    edits: list[Delta] = field(default_factory=list)

    @property
    def version(self) -> Version:
        """The shown version."""
        return self.versions[self.shown]

    @property
    def text(self) -> str:
        """The shown version's text."""
        return self.version.text

    def deltas(self) -> list[Delta]:
        """What this message writes: the shown version's deltas, then the message's own (TR-23)."""
        return [*self.version.deltas, *self.edits]

    def copy(self) -> Message:
        """An independent copy (for a fork): versions are immutable in use and shared."""
        return Message(self.id, self.role, list(self.versions), self.shown, list(self.edits))


_MESSAGE_IDS = itertools.count(1)


def new_message_id() -> str:
    """A fresh message id, `m<n>`, unique in this process."""
    return f"m{next(_MESSAGE_IDS)}"


def is_message_id(text: object) -> bool:
    """True when `text` has the shape of a message id (`m` and digits)."""
    return isinstance(text, str) and len(text) > 1 and text[0] == "m" and text[1:].isdigit()


class Take:
    """One branch of a chat: an ordered list of live messages and a version that moves on every write.

    Versions are drawn from `stamps`, which a chat shares among its takes, so a version is never
    held by two takes of one chat: a version read on one take names that take, and an edit that
    carries it cannot land on another (TR-27). A take on its own counts from 0.

    The fold of a prefix is served from checkpoints kept every few messages, so the tip's state
    costs the same at 100 messages as at 10,000; a change at message `i` drops the checkpoints
    past `i` (swipe, show-version, cut, edit), and appending extends them.
    """

    def __init__(
        self, take_id: str, messages: Sequence[Message] = (), stamps: Iterator[int] | None = None
    ) -> None:
        self.id = take_id
        self.messages: list[Message] = list(messages)
        self._stamps = stamps if stamps is not None else itertools.count()
        self.version = next(self._stamps)
        self._index: dict[str, int] = {m.id: i for i, m in enumerate(self.messages)}
        # (count, state): the fold of messages[:count]; count 0 is always the empty state.
        self._checkpoints: list[tuple[int, State]] = [(0, {})]
        self._tip: tuple[int, State] = (0, {})

    # --- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.messages)

    def index_of(self, message_id: str) -> int:
        """The position of a live message.

        Raises:
            BadRequestError: the id is not of the shape of a message id.
            NotFoundError: no live message of this take has that id.
        """
        if not is_message_id(message_id):
            raise BadRequestError(f"{message_id!r} is not a message id (ids look like m12)")
        index = self._index.get(message_id)
        if index is None:
            raise NotFoundError(f"take {self.id!r} has no live message {message_id!r}")
        return index

    def message(self, message_id: str) -> Message:
        """The live message with that id (see `index_of` for errors)."""
        return self.messages[self.index_of(message_id)]

    def state_before(self, index: int) -> State:
        """The fold of messages[:index]: everything shown before message `index` (a fresh copy)."""
        index = max(0, min(index, len(self.messages)))
        tip_count, tip_state = self._tip
        if tip_count == index:
            return copy_state(tip_state)
        count, base = self._checkpoint_at_most(index)
        state = copy_state(base)
        for position in range(count, index):
            apply_deltas(state, self.messages[position].deltas())
            if (position + 1) % _CHECKPOINT_EVERY == 0:
                self._remember(position + 1, state)
        if index == len(self.messages):
            self._tip = (index, copy_state(state))
        return state

    def state_at(self, message_id: str | None = None) -> State:
        """The state at a message (its own writes included); the tip's when `message_id` is None."""
        end = len(self.messages) if message_id is None else self.index_of(message_id) + 1
        return self.state_before(end)

    # --- writing: every write moves the version ------------------------------------------

    def append(self, message: Message) -> None:
        """Add a message at the end of the take."""
        tip_count, tip_state = self._tip
        self.messages.append(message)
        self._index[message.id] = len(self.messages) - 1
        if tip_count == len(self.messages) - 1:
            apply_deltas(tip_state, message.deltas())
            self._tip = (tip_count + 1, tip_state)
        self.touch()

    def changed(self, index: int) -> None:
        """Message `index` changed what it writes: drop the folds that included it."""
        self._checkpoints = [cp for cp in self._checkpoints if cp[0] <= index]
        if self._tip[0] > index:
            self._tip = (0, {})
        self.touch()

    def touch(self) -> None:
        """Move the version on: a write that changes no fold (a continue's text) still moves it."""
        self.version = next(self._stamps)

    def cut(self, index: int) -> list[Message]:
        """Drop message `index` and every message after it; returns what was dropped."""
        dropped = self.messages[index:]
        del self.messages[index:]
        for message in dropped:
            self._index.pop(message.id, None)
        self.changed(index)
        return dropped

    def _checkpoint_at_most(self, index: int) -> tuple[int, State]:
        best = self._checkpoints[0]
        for checkpoint in self._checkpoints:
            if checkpoint[0] <= index and checkpoint[0] >= best[0]:
                best = checkpoint
        return best

    def _remember(self, count: int, state: State) -> None:
        if all(cp[0] != count for cp in self._checkpoints):
            self._checkpoints.append((count, copy_state(state)))
