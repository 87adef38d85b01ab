"""What reaches the terminal: text shown, never obeyed, and every error as one line."""

from __future__ import annotations

import sys
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
