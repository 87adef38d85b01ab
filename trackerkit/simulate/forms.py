"""What a person types into the simulator page's forms (tool calls, values to set), read as JSON.

`read_json` gives the value, or a sentence that says why the text is not JSON and that nothing was
sent; it never raises, whatever the text.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["read_json"]


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
