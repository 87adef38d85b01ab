"""What each message's reply wrote and what a person's edit on it wrote, told apart for the page.

The changes read (`trackerkit.changes`, TR-42, TR-43) gives a message's net change: its shown
version's deltas and then the person's edits on it, folded together. That is the message's
change, but under a reply the simulator page must let a designer tell the model's writes from
their own: an edit that brings hp back to where it was hides the reply's hp change from the net
change, and an edit of a field the reply left alone reads there as if the reply wrote it.

`changes_apart` walks the same forward pass, once for the take, stepping each message with edits
in two parts: its shown version's deltas (the reply's, or none for a person's message), then its
edits on the state the version left. The two parts add up to the message's net change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from trackerkit.changes import ForwardPass, MessageChanges
from trackerkit.chat import Chat
from trackerkit.state import Message, Version

__all__ = ["ChangesApart", "changes_apart"]


@dataclass(frozen=True, slots=True)
class ChangesApart:
    """One message's changes in two parts: what its shown version wrote (the reply's, for a
    reply), then what the person's edits on it wrote over that. None for a part that changed no
    tracker."""

    reply: MessageChanges | None
    edit: MessageChanges | None


def changes_apart(chat: Chat, take: str | None = None) -> dict[str, ChangesApart]:
    """Each live message of a take that changed a tracker, by id: its version's part and its
    edits' part, each read as the changes read reads a message (TR-42).

    Args:
        chat: the chat.
        take: the take id; None for the take shown.
    Raises:
        NotFoundError: no take has that id.
    """
    branch = chat.get_take(take)
    forward = ForwardPass(branch.state_before(0), chat.source)
    apart: dict[str, ChangesApart] = {}
    for message in branch.messages:
        own = _read(forward, replace(message, edits=()) if message.edits else message)
        edited = _read(forward, _edits_only(message)) if message.edits else None
        if own is not None or edited is not None:
            apart[message.id] = ChangesApart(own, edited)
    return apart


def _read(forward: ForwardPass, message: Message) -> MessageChanges | None:
    entries = forward.step(message)
    return MessageChanges(message.id, tuple(entries.values())) if entries else None


def _edits_only(message: Message) -> Message:
    """The message writing only its edits: one version whose deltas are the edits."""
    return Message(message.id, message.role, (Version(message.text, tuple(message.edits)),))
