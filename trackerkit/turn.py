"""One reply being written: the state it sees, the deltas it holds pending, and the tool it may call.

`Chat.begin_turn` opens a `Turn`; its `call`s run `update_trackers` all or nothing, their deltas
pending (TR-38); `commit` stamps them on the new reply version and `fail` drops them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from trackerkit._arguments import read_arguments
from trackerkit._checks import described, text_argument
from trackerkit._items import ItemRefusal
from trackerkit.errors import BadRequestError, TurnError
from trackerkit.scene import Linked
from trackerkit.state import Delta, Message, State, Take, fold
from trackerkit.tool import ToolDefinition
from trackerkit.tracker import Tracker
from trackerkit.update import UpdateResult, apply_tracker_updates, tracker_values

__all__ = ["TURN_KINDS", "Turn", "TurnKind"]

TurnKind: TypeAlias = Literal["reply", "swipe", "regenerate", "continue"]
TURN_KINDS: tuple[TurnKind, ...] = ("reply", "swipe", "regenerate", "continue")
"""Every kind of turn, in the order `Chat.begin_turn` names them."""


class Turn:
    """One reply being written: the state it sees, pending deltas, and the tool it may call."""

    def __init__(
        self,
        kind: TurnKind,
        take: Take,
        linked: Linked,
        base: State,
        tool: ToolDefinition | None,
        closed: Callable[[Turn], None],
    ) -> None:
        self.kind = kind
        self.take = take
        self.linked = linked
        self.base = base
        self.tool = tool
        self.pending: list[Delta] = []
        self.results: list[UpdateResult] = []
        self.open = True
        self.message: Message | None = None
        # The chat's own hook: told once when the turn closes, so it can take the next one.
        self._closed = closed

    @property
    def trackers(self) -> tuple[Tracker, ...]:
        """The linked trackers this turn loaded (TR-25)."""
        return self.linked.trackers

    @property
    def state(self) -> State:
        """The state as the reply sees it now: the base, then the pending deltas (TR-32)."""
        return fold(self.pending, self.base)

    def values(self) -> dict[str, Any]:
        """Each loaded tracker's value as the reply sees it now, by tracker name."""
        state = self.state
        return tracker_values(self.trackers, state)

    def call(self, arguments: object, *, null_is_absent: bool = False) -> UpdateResult:
        """Run one `update_trackers` call: all or nothing; on success its deltas join the pending set (TR-38).

        `arguments` is the call's arguments as the model sent them: the JSON text (a `str`, or
        UTF-8 `bytes`; OpenAI's `tool_calls[i].function.arguments` passed as it is) or the object
        it decodes to (Anthropic's `input`). Text is read as the simulator's `Session` reads it
        (`NaN` refused, an integer past the digit limit taken as too large); text that is not
        JSON is refused in the answer, and nothing is written.

        `null_is_absent=True` is for a call the model made through an OpenAI strict or Gemini
        export (`trackerkit export --to openai|gemini`): those schemas list every field, required
        and nullable, so `null` there means "not given" rather than a value to write.

        Raises:
            BadRequestError: `null_is_absent` is not True or False.
        """
        if not isinstance(null_is_absent, bool):
            raise BadRequestError(
                f"null_is_absent must be True or False; found {described(null_is_absent)}"
            )
        if not self.open:
            return UpdateResult(
                False,
                answer="The turn is no longer open, so nothing was kept; the change did not happen.",
            )
        if self.tool is None:
            return UpdateResult(
                False, answer="No tracker tool is offered on this turn; nothing was written."
            )
        problem = None
        if isinstance(arguments, str | bytes):
            arguments, problem = read_arguments(arguments)
        if problem is not None:
            refused = (ItemRefusal(-1, None, problem),)
            result = UpdateResult(False, answer=f"Nothing was written: {problem}.", errors=refused)
        else:
            result = apply_tracker_updates(
                self.trackers, self.state, arguments, null_is_absent=null_is_absent
            )
        if result.ok:
            self.pending.extend(result.deltas)
        self.results.append(result)
        return result

    def commit(self, text: str) -> Message:
        """Stamp the pending deltas on the new reply version and close the turn.

        Raises:
            TurnError: the turn is closed already.
            BadRequestError: `text` is not text (the turn stays open).
        """
        if not self.open:
            raise TurnError("this turn is closed already; begin a new turn")
        text_argument(text, "the reply")
        take = self.take
        if self.kind == "reply":
            message = take.add("assistant", text, self.pending)
        elif self.kind in ("swipe", "regenerate"):
            message = take.add_version(take.messages[-1].id, text, self.pending)
        else:
            message = take.extend_shown(take.messages[-1].id, text, self.pending)
        self.message = message
        self._close()
        return message

    def fail(self) -> None:
        """Drop the pending deltas and close the turn: a failed turn keeps nothing (TR-38)."""
        self.pending.clear()
        if self.open:
            self._close()

    def _close(self) -> None:
        self.open = False
        self._closed(self)
