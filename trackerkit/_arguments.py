"""Reading a tool call's argument text as a model wrote it: any text in, JSON or one plain reason out (TR-37).

The text is the model's, so nothing in it may break the turn: nesting deep enough to exhaust the
interpreter's recursion, an integer past the interpreter's digit limit, a lone surrogate or
`NaN` all come back as a value the update rules judge, or as a reason the model is answered with.
"""

from __future__ import annotations

import json
import math

__all__ = ["read_arguments", "unicode_problem", "valid_text"]


def _number(text: str) -> int | float:
    """An integer literal: exact when the interpreter will convert it, else an infinity of its sign.

    Python refuses to convert more than about 4,300 digits; such a number is past every range a
    field can have, so the update rules clamp it (TR-13) or refuse it like any other huge number.
    """
    try:
        return int(text)
    except ValueError:
        return -math.inf if text.startswith("-") else math.inf


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON; send a number")


def read_arguments(text: str | bytes, *, block: str | None = None) -> tuple[object, str | None]:
    """The arguments as JSON, or `(None, reason)`; never raises.

    Bytes are read as UTF-8 (bytes that are not UTF-8 are refused with a reason). Empty text reads
    as `{}`. `NaN` and `Infinity` are refused (JSON has no such literals); an integer too long for
    the interpreter reads as an infinity of its sign; nesting too deep for the interpreter is
    refused with a reason. Lone surrogates are kept: the update rules refuse
    text holding one wherever it would be written (see `unicode_problem`).

    Args:
        text: the JSON text as the model wrote it (or its UTF-8 bytes).
        block: the label of the text protocol's fenced block when the text is its body (the
            reasons then name the block); both ways of sending a call read alike (TR-37).
    """
    subject, are, nest = (
        ("the arguments", "are", "nest") if block is None else (f"the {block} block", "is", "nests")
    )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return (
                None,
                f"{subject} {are} not valid JSON (not UTF-8: {exc.reason} at byte {exc.start})",
            )
    if not text.strip():
        return {}, None
    try:
        return json.loads(text, parse_int=_number, parse_constant=_constant), None
    except json.JSONDecodeError as exc:
        # A block is lines, so its place is a line and column, as a person counts them.
        where = f"character {exc.pos}" if block is None else f"line {exc.lineno} column {exc.colno}"
        return None, f"{subject} {are} not valid JSON ({exc.msg} at {where})"
    except RecursionError:
        return None, f"{subject} {nest} too deep to read; an update call needs four levels"
    except ValueError as exc:
        return None, f"{subject} {are} not valid JSON ({exc})"


def unicode_problem(text: str) -> str | None:
    """Why `text` cannot be stored or shown (a lone surrogate, with where), or None when it can."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        found = text[exc.start].encode("unicode_escape").decode("ascii")
        return f"is not valid Unicode: a lone surrogate {found} at character {exc.start}"
    return None


def valid_text(text: str) -> str:
    """`text` with every lone surrogate written as its escape (`\\ud800`), so it can be shown anywhere."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
