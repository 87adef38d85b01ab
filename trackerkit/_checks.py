"""Checks of a caller's arguments shared by the chat and its turns: each wrong one a BadRequestError
that names what was expected and what was found."""

from __future__ import annotations

from trackerkit.errors import BadRequestError

__all__ = ["count_argument", "described", "text_argument"]


def text_argument(value: object, what: str) -> str:
    """`value` when it is text; else a BadRequestError naming `what` and what was found."""
    if not isinstance(value, str):
        raise BadRequestError(f"{what} must be text; found {described(value)}")
    return value


def count_argument(value: object, what: str) -> int:
    """`value` when it is an integer (a bool is none); else a BadRequestError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequestError(f"{what} must be an integer; found {described(value)}")
    return value


def described(value: object) -> str:
    """What a wrong argument was, for the error: `the boolean True`, `a float (1.5)`, `None`."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"the boolean {value}"
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"{type(value).__name__} {shown}"
