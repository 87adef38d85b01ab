"""What reaches the terminal: text shown, never obeyed, and every error as one line."""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

_UNSHOWN = [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
"""C0 and C1 controls (ESC among them) and the bidi embeddings, overrides and isolates."""


class Shown:
    """A text stream that writes control characters as escapes (`\\x1b`), bidi overrides as
    `\\u202e`, and keeps only the layout characters `keep` (JSON output holds none raw)."""

    def __init__(self, stream: Any, keep: str) -> None:
        self._stream = stream
        self._table = {
            cp: f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"
            for cp in _UNSHOWN
            if chr(cp) not in keep
        }

    def write(self, text: str) -> int:
        self._stream.write(text.translate(self._table))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self._stream, name)


def say(message: str) -> None:
    """Print `message` on stderr as `trackerkit: <message>`, on one line whatever it holds: a
    newline or a lone surrogate never breaks stderr."""
    line = " ".join(message.split())[:2000] or "failed"
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    print(f"trackerkit: {line}", file=sys.stderr)


_ESCAPE = "trackerkit-json-escape"
"""The codec error handler `escaping` sets: what an encoding lacks, as JSON writes it."""


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    """Each character the encoding lacks as `\\uXXXX`, past the BMP as a surrogate pair: in a
    JSON string the same character read back, in text a readable stand-in."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escaped = []
    for char in error.object[error.start : error.end]:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            escaped.append(f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{point:04x}")
    return "".join(escaped), error.end


codecs.register_error(_ESCAPE, _json_escape)


@contextmanager
def escaping(stream: Any) -> Iterator[None]:
    """While in the block, `stream` writes each character its encoding lacks as a JSON escape.

    A stdout that is not UTF-8 (cp1252, Windows redirecting to a file) then takes every
    command's output whole: JSON stays valid JSON reading back the same text, and text shows
    `\\u2615` where it cannot show the character. A stream that cannot be set is left as it is.
    """
    was = getattr(stream, "errors", None)
    try:
        stream.reconfigure(errors=_ESCAPE)
    except (AttributeError, ValueError, OSError):
        was = None  # not a text file (a test's stand-in): nothing to set, nothing to restore
    try:
        yield
    finally:
        if was is not None:
            with suppress(OSError, ValueError):  # its flush failing (a reader gone) was said
                stream.reconfigure(errors=was)
