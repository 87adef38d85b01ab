"""The update tool for models without tool calling: one fenced JSON block at the end of the reply.

The prompt asks for the same call the tool takes (TR-35), written as

    ```update_trackers
    {"updates": [{"tracker": "Health", "set": {"hp": 22}}]}
    ```

at the very end of the reply. `parse_text_updates` takes it out: the visible reply never shows
the block, and the arguments go through `apply_tracker_updates`, all or nothing (TR-37), exactly
as a tool call's do; `text_answer` is what the next turn tells the model. A final block fenced as
`json` that holds an object with `updates` counts too, since models often label it so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackerkit._arguments import read_arguments
from trackerkit.tool import TOOL_NAME, tracker_line
from trackerkit.tracker import Tracker
from trackerkit.update import UpdateResult
from trackerkit.values import initial_value

__all__ = [
    "BLOCK_LABEL",
    "TextUpdates",
    "parse_text_updates",
    "render_text_updates",
    "text_answer",
    "text_instructions",
]

#: The fence's info string.
BLOCK_LABEL = TOOL_NAME

# A fence opens a line as CommonMark has it: up to three spaces, then three or more backticks
# (and no backtick in the info string after them) or three or more tildes; the info string follows.
_OPEN = re.compile(
    r"^(?P<indent> {0,3})(?P<fence>`{3,}(?=[^`\n]*$)|~{3,})(?P<info>[^\n]*)$", re.MULTILINE
)


@dataclass(frozen=True, slots=True)
class TextUpdates:
    """A reply read under the text protocol.

    Attributes:
        visible: the reply without the update block (what the person sees).
        arguments: the call's arguments when a block was sent and read as a JSON object; None
            when there was no block, or it could not be read.
        error: why the block could not be read (a sentence for the model); None otherwise.
        body: the block's text as the model wrote it, stripped (None when there was no block); what a
            trace records as the call's arguments, so a value nested too deep to write again
            is recorded as sent.
    """

    visible: str
    arguments: dict[str, Any] | None = None
    error: str | None = None
    body: str | None = field(default=None, compare=False, repr=False)

    @property
    def sent(self) -> bool:
        """True when the reply held an update block, readable or not."""
        return self.arguments is not None or self.error is not None


@dataclass(frozen=True, slots=True)
class _Block:
    start: int
    end: int
    info: str
    body: str
    closed: bool
    fence: str


def _blocks(reply: str) -> list[_Block]:
    """Every fenced block of the reply, in order; one left open runs to the end.

    As CommonMark reads them: the closing fence is of the opening's character and at least its
    length, indented up to three spaces; as many spaces as the opening fence was indented are
    taken off the start of each line inside.
    """
    found: list[_Block] = []
    at = 0
    while (opened := _OPEN.search(reply, at)) is not None:
        fence, indent = opened.group("fence"), len(opened.group("indent"))
        info = opened.group("info").strip()
        body_start = opened.end() + 1
        closing = re.compile(  # CRLF lines too
            rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t\r]*$", re.MULTILINE
        )
        closed = closing.search(reply, body_start) if body_start <= len(reply) else None
        end = len(reply) if closed is None else closed.end()
        body = reply[body_start : len(reply) if closed is None else closed.start()]
        if indent:
            body = re.sub(rf"^ {{1,{indent}}}", "", body, flags=re.MULTILINE)
        found.append(_Block(opened.start(), end, info, body, closed is not None, fence))
        if closed is None:
            break
        at = closed.end()
    return found


def _read(body: str) -> tuple[object, str | None]:
    """The block's JSON, or `(None, reason)`: read exactly as a tool call's arguments (TR-37)."""
    return read_arguments(body, block=BLOCK_LABEL)


def _is_updates_json(block: _Block) -> bool:
    if block.info.lower() != "json" or not block.closed:
        return False
    value, problem = _read(block.body)
    return problem is None and isinstance(value, dict) and "updates" in value


def _cut(reply: str, blocks: Sequence[_Block]) -> str:
    kept, at = [], 0
    for block in blocks:
        kept.append(reply[at : block.start])
        at = block.end
    kept.append(reply[at:])
    return "".join(kept).strip()


def parse_text_updates(reply: str) -> TextUpdates:
    """Take the update block out of a reply: the visible text, and the arguments or why they could not be read.

    Every `update_trackers` block is taken out of the visible text wherever it stands; there
    must be exactly one, closed, at the end, holding a JSON object. A last block fenced `json`
    holding an object with `updates` counts as the update block. The arguments' shape and
    contents are checked as a tool call's are, by `apply_tracker_updates`.
    """
    blocks = _blocks(reply)
    ours = [b for b in blocks if b.info == BLOCK_LABEL]
    if not ours and blocks and _is_updates_json(blocks[-1]) and not reply[blocks[-1].end :].strip():
        ours = [blocks[-1]]
    if not ours:
        return TextUpdates(reply)
    visible = _cut(reply, ours)
    last = ours[-1]
    body = last.body.strip()
    if len(ours) > 1:
        return TextUpdates(
            visible,
            error=f"send one {BLOCK_LABEL} block at the end of the reply; found {len(ours)}",
            body=body,
        )
    if not last.closed:
        return TextUpdates(
            visible,
            error=f"the {BLOCK_LABEL} block is not closed with {last.fence}",
            body=body,
        )
    if reply[last.end :].strip():
        return TextUpdates(
            visible,
            error=f"the {BLOCK_LABEL} block must end the reply; text came after it",
            body=body,
        )
    value, problem = _read(body)
    if problem is not None:
        return TextUpdates(visible, error=problem, body=body)
    if not isinstance(value, dict):
        kind = type(value).__name__ if value is not None else "null"
        return TextUpdates(
            visible,
            error=f'the {BLOCK_LABEL} block must hold an object {{"updates": [...]}}; found {kind}',
            body=body,
        )
    return TextUpdates(visible, value, body=body)


def render_text_updates(arguments: Mapping[str, Any]) -> str:
    """The update block for `arguments`, as a reply ends with it (what a scripted model appends)."""
    body = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    return f"```{BLOCK_LABEL}\n{body}\n```"


def _example(trackers: Sequence[Tracker]) -> dict[str, Any]:
    tracker = trackers[0]
    field = tracker.fields[0]
    item: dict[str, Any] = {"tracker": tracker.name}
    if tracker.layout == "list":
        item["row"] = "Rope"
    item["set"] = {field.name: initial_value(field)}
    return {"updates": [item]}


def text_instructions(trackers: Sequence[Tracker]) -> str:
    """What the prompt says under the text protocol: the block's form, the rules, one line per tracker (TR-36)."""
    if not trackers:
        return ""
    lines = [
        "To change the trackers shown in the ### Trackers block, end your reply with one fenced "
        f"block labelled {BLOCK_LABEL}, holding a JSON object, for example:",
        render_text_updates(_example(trackers)),
        "Each update names a tracker and sets field values (a list tracker also names its row; "
        '"remove": true deletes the row); updates apply in order, all or nothing. Leave the '
        "block out when nothing changed. The reader never sees the block; the next turn tells "
        "you what it changed, or why nothing was written.",
        *(tracker_line(t) for t in trackers),
    ]
    return "\n".join(lines)


def text_answer(parsed: TextUpdates, result: UpdateResult | None) -> str | None:
    """What the next turn tells the model about its block: the answer (TR-38), or why nothing was written.

    Args:
        parsed: the reply as `parse_text_updates` read it.
        result: what `apply_tracker_updates` made of `parsed.arguments` (None when there were none).
    Returns:
        None when the reply sent no block.
    """
    if not parsed.sent:
        return None
    if parsed.error is not None:
        return f"[{BLOCK_LABEL}] Nothing was written: {parsed.error}. Send the whole block again."
    assert result is not None
    return f"[{BLOCK_LABEL}] {result.answer}"
