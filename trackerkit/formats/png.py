"""Character cards inside PNG images: the chunk reader and the card's text chunks.

Card editors store a card in a PNG text chunk as base64 of its JSON: a Character Card V2 under
the keyword `chara`, a V3 card under `ccv3` (a V3 card usually carries a V2 copy under `chara`
too, and V3 readers prefer `ccv3`). The chunk may be `tEXt` (Latin-1), `iTXt` (UTF-8, perhaps
zlib-compressed) or `zTXt` (zlib-compressed). Everything is read with the standard library's
`struct` and `zlib`; a file that is not a PNG, is cut short, fails a chunk's CRC, or holds a
chunk that cannot be read is refused with an `ImportRefusedError` naming the file, and nothing
else comes out of this module (the fuzz test holds it to that).

Readers use the last chunk of a keyword, so only that one is unpacked: a PNG of many compressed
chunks unpacks at most `MAX_TEXT_BYTES` in all, however many it holds.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from trackerkit.errors import ImportRefusedError

__all__ = [
    "CARD_KEYWORDS",
    "PNG_SIGNATURE",
    "CardChunk",
    "card_chunk",
    "is_png",
    "png_card_chunks",
    "png_chunk",
    "png_chunks",
]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The keywords card editors store a card under, the one V3 readers prefer first.
CARD_KEYWORDS = ("ccv3", "chara")
#: The card chunks read from one PNG may hold this many bytes of text in all, unpacked (a card is
#: kilobytes); the same 32 MiB as a JSON or YAML file may hold.
MAX_TEXT_BYTES = 32 * 1024 * 1024
_TEXT_KINDS = (b"tEXt", b"iTXt", b"zTXt")


def is_png(raw: bytes) -> bool:
    """Whether `raw` starts with PNG's eight-byte signature."""
    return raw.startswith(PNG_SIGNATURE)


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One chunk as stored: length, type, data and CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_chunks(png: bytes, file: str) -> list[tuple[bytes, bytes]]:
    """The PNG's chunks as `(type, data)` up to `IEND`, checked for bounds and CRCs.

    Raises:
        ImportRefusedError: not a PNG, a chunk cut short or running past the end, a CRC that does
            not match, or no `IEND`.
    """
    if not is_png(png):
        raise ImportRefusedError(file, "is not a PNG image (its first bytes are not PNG's)")
    chunks: list[tuple[bytes, bytes]] = []
    at = len(PNG_SIGNATURE)
    while at < len(png):
        if at + 12 > len(png):
            raise ImportRefusedError(file, f"is a broken PNG: a chunk is cut short at byte {at:,}")
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        end = at + 8 + length
        if end + 4 > len(png):
            raise ImportRefusedError(
                file, f"is a broken PNG: chunk {kind!r} at byte {at:,} runs past the end"
            )
        data = png[at + 8 : end]
        (crc,) = struct.unpack(">I", png[end : end + 4])
        if zlib.crc32(kind + data) != crc:
            raise ImportRefusedError(
                file, f"is a broken PNG: chunk {kind!r} at byte {at:,} fails its CRC"
            )
        chunks.append((kind, data))
        at = end + 4
        if kind == b"IEND":
            break
    if not chunks or chunks[-1][0] != b"IEND":
        raise ImportRefusedError(file, "is a broken PNG: it has no IEND chunk")
    return chunks


@dataclass(frozen=True, slots=True)
class CardChunk:
    """A card text chunk: its keyword (`chara` or `ccv3`), its chunk type and the card's JSON text.

    `unpacked` is how many bytes of base64 text the chunk unpacked to (what it took of the
    `MAX_TEXT_BYTES` a PNG's card chunks may hold in all).
    """

    keyword: str
    kind: str
    text: str
    unpacked: int = field(default=0, compare=False, repr=False)

    @property
    def what(self) -> str:
        """The chunk as a message names it: `tEXt chunk 'chara'`."""
        return f"{self.kind} chunk {self.keyword!r}"


def _last(chunks: Sequence[tuple[bytes, bytes]], keyword: str) -> int | None:
    """Where the last text chunk under `keyword` stands in `chunks`, or None."""
    tagged = keyword.encode("latin-1") + b"\0"
    for at in range(len(chunks) - 1, -1, -1):
        kind, data = chunks[at]
        if kind in _TEXT_KINDS and data.startswith(tagged):
            return at
    return None


def _decode(kind: bytes, data: bytes, file: str, budget: int) -> CardChunk:
    """The card chunk, its text unpacked to at most `budget` bytes of base64."""
    keyword, _, rest = data.partition(b"\0")
    name = keyword.decode("latin-1")
    what = f"{kind.decode()} chunk {name!r}"
    payload = _text_payload(kind, rest, file, what, budget)
    try:
        raw = base64.b64decode(payload.strip(), validate=True)
        text = raw.decode("utf-8-sig")
    except (binascii.Error, ValueError) as exc:
        raise ImportRefusedError(
            file, f"holds a {what} that is not base64 of UTF-8 JSON ({exc})"
        ) from None
    return CardChunk(name, kind.decode(), text, len(payload))


def card_chunk(
    chunks: Sequence[tuple[bytes, bytes]], keyword: str, file: str, budget: int = MAX_TEXT_BYTES
) -> CardChunk | None:
    """The last text chunk of `chunks` (from `png_chunks`) under `keyword`, decoded; None if none.

    Only that chunk is unpacked, and to at most `budget` bytes of text.

    Raises:
        ImportRefusedError: the chunk's text is not base64 of UTF-8 text, cannot be unpacked, or
            unpacks past `budget`.
    """
    at = _last(chunks, keyword)
    return None if at is None else _decode(*chunks[at], file, budget)


def png_card_chunks(png: bytes, file: str) -> list[CardChunk]:
    """The `chara` and `ccv3` text chunks readers use (the last of each), in file order, decoded.

    Their text may come to `MAX_TEXT_BYTES` in all, unpacked; no other card chunk is unpacked.

    Raises:
        ImportRefusedError: a broken PNG (see `png_chunks`), or a card chunk that is not
            base64 of UTF-8 text (or whose compressed text cannot be unpacked, or unpacks past
            what is left of `MAX_TEXT_BYTES`).
    """
    chunks = png_chunks(png, file)
    found: list[CardChunk] = []
    budget = MAX_TEXT_BYTES
    for at in sorted(a for k in CARD_KEYWORDS if (a := _last(chunks, k)) is not None):
        found.append(_decode(*chunks[at], file, budget))
        budget -= found[-1].unpacked
    return found


def _text_payload(kind: bytes, rest: bytes, file: str, what: str, budget: int) -> bytes:
    """The text of a `tEXt`, `zTXt` or `iTXt` chunk after its keyword, unpacked to at most
    `budget` bytes."""
    if kind == b"tEXt":
        return _within(rest, file, what, budget)
    if kind == b"zTXt":
        if not rest or rest[0] != 0:
            raise ImportRefusedError(file, f"holds a {what} with an unknown compression method")
        return _inflate(rest[1:], file, what, budget)
    # iTXt: compression flag, method, language tag \0, translated keyword \0, text.
    if len(rest) < 2:
        raise ImportRefusedError(file, f"holds a {what} that is cut short")
    flag, method = rest[0], rest[1]
    parts = rest[2:].split(b"\0", 2)
    if len(parts) != 3:
        raise ImportRefusedError(
            file, f"holds a {what} without its language and translated keyword"
        )
    text = parts[2]
    if flag == 0:
        return _within(text, file, what, budget)
    if flag != 1 or method != 0:
        raise ImportRefusedError(file, f"holds a {what} with an unknown compression method")
    return _inflate(text, file, what, budget)


def _past(file: str, what: str) -> ImportRefusedError:
    return ImportRefusedError(
        file,
        f"holds a {what} whose text unpacks past what is left of the "
        f"{MAX_TEXT_BYTES // 2**20} MiB a PNG's card chunks may hold in all (a card is kilobytes)",
    )


def _within(text: bytes, file: str, what: str, budget: int) -> bytes:
    if len(text) > budget:
        raise _past(file, what)
    return text


def _inflate(data: bytes, file: str, what: str, budget: int) -> bytes:
    unpack = zlib.decompressobj()
    try:
        # One byte past the budget at most (a max_length of 0 would mean no limit at all).
        out = unpack.decompress(data, budget + 1)
    except zlib.error as exc:
        raise ImportRefusedError(
            file, f"holds a {what} whose text cannot be unpacked ({exc})"
        ) from None
    if len(out) > budget:
        raise _past(file, what)
    if not unpack.eof:
        raise ImportRefusedError(file, f"holds a {what} whose compressed text is cut short")
    return out
