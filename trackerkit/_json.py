"""JSON reading the package shares: `loads` (what the trace reader and the chat client read),
and keys given twice in one object, read last-wins by every JSON reader, named as a problem.

`loads` reads JSON bytes as Python's `json` module would, fast (msgspec), and keeps what a
stricter reader refuses but is still JSON: a lone surrogate escape (a text cut inside an emoji's
pair) reads as U+FFFD, and a byte order mark opening the bytes is skipped (the trace reader
skips only the one opening a file: one opening a later line is a broken line). The trace reader
reads every `data` with it; the chat client reads with it a body pydantic refused, so both read
a cut emoji alike.

RFC 8259 says the names within an object SHOULD be unique, and readers differ on what a repeated
one means; orjson (like Python's `json`) keeps the last. A tracker or scene file written by hand
may repeat a key by mistake (two `min`s in a field), and the first value would vanish without a
word. `repeated_keys` finds each one, with its path, for the file's problems.

A file saved as UTF-16 is no JSON a reader takes (RFC 8259 says UTF-8), and orjson refuses it in
its own terms ("surrogates not allowed"); `utf16_words` says what it is and what to do, for every
reader of tracker and scene files.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec

from trackerkit.errors import Problem

__all__ = ["loads", "repeated_key_problems", "repeated_keys", "utf16_words"]


def _number(digits: str) -> int | float:
    """A JSON integer; one too long for Python's int conversion reads as a float (±inf)."""
    limit = sys.get_int_max_str_digits()  # 4,300 by default, 0 for none
    return int(digits) if not limit or len(digits) < limit else float(digits)


def _no_constant(name: str) -> Any:
    raise ValueError(
        f"{name} is not a JSON value (Python's json.dumps writes it unless allow_nan=False; "
        "JavaScript's JSON.stringify writes null)"
    )


_decode_any = msgspec.json.Decoder().decode
_BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark, which a JSON reader may ignore (RFC 8259, 8.1): .NET servers and
some proxies open a body with one."""


def loads(raw: Any) -> Any:
    """JSON bytes as Python values, read alike by every path of the trace reader and the client.

    Values are what Python's `json` module gives: integers exact at any size, duplicate keys
    last-wins, one UTF-8 byte order mark opening the bytes skipped (RFC 8259, 8.1; a second, or
    one later, is refused). msgspec reads almost everything; what it refuses that is still JSON
    (a number past the double range, an integer of more digits than Python converts, a lone
    surrogate escape) is read by the standard library: numbers as ±inf, and each lone surrogate
    as U+FFFD, the replacement character (as JavaScript's `toWellFormed` reads it). A writer that
    cuts text at 4,096 UTF-16 units (TC-6) can split an emoji's pair and write `"…\\ud83d…"`;
    UTF-8, Arrow and Parquet cannot hold the half, and the event is kept. `NaN` and `Infinity`
    are not JSON.

    Raises:
        ValueError: not valid JSON (UnicodeError included).
        RecursionError: nested past the decoders' depth.
    """
    try:
        return _decode_any(raw)
    except msgspec.DecodeError:
        pass
    data = bytes(raw)
    if data.startswith(_BOM):  # msgspec refuses it; `json` skips one opening bytes
        data = data[len(_BOM) :]
        try:
            return _decode_any(data)
        except msgspec.DecodeError:
            pass
    value = json.loads(data.decode("utf-8"), parse_int=_number, parse_constant=_no_constant)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escape, read as U+FFFD
        return _well_formed(value)
    return value


def _well_formed(value: Any) -> Any:
    """`value` with each lone surrogate of its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        return {_well_formed(k): _well_formed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_well_formed(v) for v in value]
    return value


class _Pairs(list[tuple[str, Any]]):
    """An object's members in order, as written (a list: a repeated key stays twice)."""


def _pairs(members: list[tuple[str, Any]]) -> _Pairs:
    return _Pairs(members)


def repeated_keys(raw: bytes | str) -> list[tuple[tuple[str | int, ...], str]]:
    """Each key given twice in one object, as (the object's path, the key), in document order.

    `raw` must be valid JSON (read it first); what `json` refuses gives no repeated key.
    """
    try:
        tree = json.loads(raw, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        return []
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Pairs):
            seen: set[str] = set()
            for key, _value in node:
                if key in seen:
                    found.append((path, key))
                seen.add(key)
            stack.extend(((*path, key), value) for key, value in reversed(node))
        elif isinstance(node, list):
            stack.extend(((*path, i), value) for i, value in reversed(list(enumerate(node))))
    return list(dict.fromkeys(found))


def repeated_key_problems(raw: bytes | str) -> list[Problem]:
    """`repeated_keys` as a file's problems (code `key_repeated`), each at its object's path."""
    return [
        Problem(
            where,
            f'gives the key "{key[:60]}" twice (a JSON reader keeps the last); give it once',
            "key_repeated",
        )
        for where, key in repeated_keys(raw)
    ]


def utf16_words(raw: bytes) -> str | None:
    """What to say of bytes that did not read as JSON when they are UTF-16 text; None otherwise.

    UTF-16 text opens with its byte order mark, or has a NUL among its first bytes (every ASCII
    character is one byte and a NUL).
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in raw[:64]:
        return "is UTF-16 text, not UTF-8; save it as UTF-8 (JSON files are UTF-8, RFC 8259)"
    return None
