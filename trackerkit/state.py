"""Where tracker values live: deltas on reply versions, messages, takes, and the fold (TR-21..TR-23).

A write is a `Delta` on the reply version being written (or, for a person's edit, on the message
itself). The state at a message is the fold of every live message up to it: each message's shown
version's deltas, then the message's own. So a swipe, a regenerate, a cut and a fork always leave
every tracker where the visible history says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

from trackerkit._slots import LIST_PREFIX, RECORD_PREFIX, is_tracker_slot
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
        return is_tracker_slot(self.slot)


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


@dataclass(frozen=True, slots=True)
class Version:
    """One version (swipe) of a message: its text and the deltas written with it."""

    text: str
    deltas: tuple[Delta, ...] = ()


@dataclass(frozen=True, slots=True)
class Message:
    """A live message: its versions, the one shown, and its own message-level deltas (edits).

    A message is a value: a write (a new version, a continued text, another version shown, an
    edit) is made by its `Take`, which puts a new message in its place and keeps its folds right.
    So takes that share a message (a fork) share it safely.
    """

    id: str
    role: Role
    versions: Sequence[Version]
    shown: int = 0
    edits: Sequence[Delta] = ()

    def __post_init__(self) -> None:
        # Stored as tuples whatever the caller passed, so nothing outside a take can write them.
        object.__setattr__(self, "versions", tuple(self.versions))
        object.__setattr__(self, "edits", tuple(self.edits))
        if not 0 <= self.shown < len(self.versions):
            raise BadRequestError(
                f"message {self.id!r} has {len(self.versions)} versions; "
                f"it cannot show version {self.shown}"
            )

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


class _Count:
    """Counts up from `start`, as `itertools.count` does, but pickles and deep-copies.

    Chats are pickled to be stored, and itertools objects no longer pickle or copy from Python
    3.14 (deprecated in 3.12).
    """

    __slots__ = ("next_value",)

    def __init__(self, start: int = 0) -> None:
        self.next_value = start

    def __iter__(self) -> _Count:
        return self

    def __next__(self) -> int:
        value = self.next_value
        self.next_value += 1
        return value


def is_message_id(text: object) -> bool:
    """True when `text` has the shape of a message id (`m` and digits)."""
    return isinstance(text, str) and len(text) > 1 and text[0] == "m" and text[1:].isdigit()


class Take:
    """One branch of a chat: an ordered list of live messages and a version that moves on every write.

    The take owns every write to its history: `add` (or `append`) a message, `add_version` (a
    swipe or regenerate), `extend_shown` (a continue), `show` another version, `add_edits` (a
    person's edit), `cut` and `fork`. Each moves the version and keeps the folds right itself;
    `messages` is for reading.

    Versions are drawn from `stamps`, which a chat shares among its takes, so a version is never
    held by two takes of one chat: a version read on one take names that take, and an edit that
    carries it cannot land on another (TR-27). A take on its own counts from 0. Message ids are
    drawn from `ids` (`m<n>`), which a chat shares among its takes too, so ids count per chat: the
    same steps played again give the same ids. A take on its own counts on from its messages.

    The fold of a prefix is served from checkpoints kept every few messages, so the tip's state
    costs the same at 100 messages as at 10,000; a write at message `i` drops the checkpoints
    past `i`, and a write that only adds deltas at the end (an append, an edit on the tip)
    extends the tip's fold instead.
    """

    def __init__(
        self,
        take_id: str,
        messages: Sequence[Message] = (),
        stamps: Iterator[int] | None = None,
        ids: Iterator[int] | None = None,
    ) -> None:
        self.id = take_id
        #: The live messages, oldest first: read them; write through the take's methods.
        self.messages: list[Message] = list(messages)
        self._stamps = stamps if stamps is not None else _Count()
        if ids is None:
            numbers = (int(m.id[1:]) for m in self.messages if is_message_id(m.id))
            ids = _Count(max(numbers, default=0) + 1)
        self._ids = ids
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

    # --- writing: every write moves the version and keeps the folds right -----------------

    def new_id(self) -> str:
        """A fresh message id, `m<n>`, counted across the takes that share this take's ids."""
        return f"m{next(self._ids)}"

    def add(self, role: Role, text: str, deltas: Iterable[Delta] = ()) -> Message:
        """Add a new message at the end, under a fresh id, showing one version with `deltas`."""
        message = Message(self.new_id(), role, (Version(text, tuple(deltas)),))
        self.append(message)
        return message

    def append(self, message: Message) -> None:
        """Add a message made elsewhere at the end of the take.

        Raises:
            BadRequestError: a live message of this take has that id already.
        """
        if message.id in self._index:
            raise BadRequestError(f"take {self.id!r} holds a message {message.id!r} already")
        tip_count, tip_state = self._tip
        self.messages.append(message)
        self._index[message.id] = len(self.messages) - 1
        if tip_count == len(self.messages) - 1:
            apply_deltas(tip_state, message.deltas())
            self._tip = (tip_count + 1, tip_state)
        self._touch()

    def add_version(self, message_id: str, text: str, deltas: Iterable[Delta] = ()) -> Message:
        """A new version of a message (a swipe, a regenerate), shown at once; returns the message."""
        index = self.index_of(message_id)
        old = self.messages[index]
        versions = (*old.versions, Version(text, tuple(deltas)))
        return self._put(index, replace(old, versions=versions, shown=len(versions) - 1))

    def extend_shown(self, message_id: str, text: str, deltas: Iterable[Delta] = ()) -> Message:
        """Extend the shown version (a continue): `text` after its text, `deltas` after its deltas."""
        index = self.index_of(message_id)
        old = self.messages[index]
        added = tuple(deltas)
        versions = list(old.versions)
        versions[old.shown] = Version(old.text + text, old.version.deltas + added)
        new = replace(old, versions=tuple(versions))
        # The new deltas fold before the message's edits, so they extend the tip only without any.
        return self._put(index, new, tail=added if not old.edits else None)

    def show(self, message_id: str, version: int) -> Message:
        """Show another version of a message (counted from 0); its writes replace the old one's.

        Raises:
            BadRequestError: `version` is not an integer (a boolean is none).
            NotFoundError: the message has no such version.
        """
        if isinstance(version, bool) or not isinstance(version, int):
            raise BadRequestError(
                f"a version index must be an integer; found {type(version).__name__} {version!r}"
            )
        index = self.index_of(message_id)
        old = self.messages[index]
        if not 0 <= version < len(old.versions):
            raise NotFoundError(
                f"message {message_id!r} has {len(old.versions)} versions; there is no version {version}"
            )
        if version == old.shown:
            return old
        return self._put(index, replace(old, shown=version))

    def add_edits(self, message_id: str, deltas: Iterable[Delta]) -> Message:
        """Add message-level deltas (a person's edit): they fold after the shown version's (TR-23)."""
        index = self.index_of(message_id)
        old = self.messages[index]
        added = tuple(deltas)
        if not added:
            return old
        return self._put(index, replace(old, edits=(*old.edits, *added)), tail=added)

    def rewrite(self, change: Callable[[Message], Message]) -> None:
        """Put `change(message)` in place of each message: the same message (its id kept) with its
        stored names rewritten, such as a tracker's fields renamed since they were written.

        The folds past the first message that changed are dropped. The version does not move:
        the history says what it said, in today's names, so a version a person read still
        stands for an edit (TR-27).

        Raises:
            BadRequestError: `change` gave a message another id; nothing was put in place.
        """
        changed = {i: change(m) for i, m in enumerate(self.messages)}
        changed = {i: m for i, m in changed.items() if m is not self.messages[i]}
        moved = next((i for i, m in changed.items() if m.id != self.messages[i].id), None)
        if moved is not None:
            raise BadRequestError(
                f"a rewrite must keep message ids; message {self.messages[moved].id!r} "
                f"came back as {changed[moved].id!r}"
            )
        for index, message in changed.items():
            self.messages[index] = message
        if changed:
            self._drop_folds_past(min(changed))

    def cut(self, message_id: str) -> list[Message]:
        """Drop a message and every message after it; returns what was dropped."""
        index = self.index_of(message_id)
        dropped = self.messages[index:]
        del self.messages[index:]
        for message in dropped:
            self._index.pop(message.id, None)
        self._drop_folds_past(index)
        self._touch()
        return dropped

    def fork(self, take_id: str, message_id: str) -> Take:
        """A new take holding this take's messages up to and including `message_id`.

        The two share their messages (values, never written in place), their version stamps and
        their message ids, so neither can reuse a version or an id of the other.
        """
        end = self.index_of(message_id) + 1
        return Take(take_id, self.messages[:end], stamps=self._stamps, ids=self._ids)

    def _put(self, index: int, message: Message, tail: tuple[Delta, ...] | None = None) -> Message:
        """Put `message` at `index` and keep the folds right.

        `tail` says the new message writes what the old one did, then `tail`: the tip's fold is
        then extended when it ends at this message; otherwise every fold past it is dropped.
        """
        self.messages[index] = message
        tip_count, tip_state = self._tip
        self._drop_folds_past(index)
        if tail is not None and tip_count == len(self.messages) == index + 1:
            apply_deltas(tip_state, tail)
            self._tip = (tip_count, tip_state)
        self._touch()
        return message

    def _drop_folds_past(self, index: int) -> None:
        """Message `index` changed what it writes (or went): drop the folds that included it."""
        self._checkpoints = [cp for cp in self._checkpoints if cp[0] <= index]
        if self._tip[0] > index:
            self._tip = (0, {})

    def _touch(self) -> None:
        """Move the version on: every write does, even one that changes no fold (a continue's text)."""
        self.version = next(self._stamps)

    def _checkpoint_at_most(self, index: int) -> tuple[int, State]:
        best = self._checkpoints[0]
        for checkpoint in self._checkpoints:
            if checkpoint[0] <= index and checkpoint[0] >= best[0]:
                best = checkpoint
        return best

    def _remember(self, count: int, state: State) -> None:
        if all(cp[0] != count for cp in self._checkpoints):
            self._checkpoints.append((count, copy_state(state)))
