"""Character cards inside PNG images: the chunk reader and the card's text chunks.

Card editors store a card in a PNG text chunk as base64 of its JSON: a Character Card V2 under
the keyword `chara`, a V3 card under `ccv3` (a V3 card usually carries a V2 copy under `chara`
too, and V3 readers prefer `ccv3`). The chunk may be `tEXt` (Latin-1), `iTXt` (UTF-8, perhaps
zlib-compressed) or `zTXt` (zlib-compressed). Everything is read with the standard library's
`struct` and `zlib`; a file that is not a PNG, is cut short, fails a chunk's CRC, or holds a
chunk that cannot be read is refused with an `ImportRefusedError` naming the file, and nothing
else comes out of this module (the fuzz test holds it to that).
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from dataclasses import dataclass

from trackerkit.errors import ImportRefusedError

__all__ = [
    "CARD_KEYWORDS",
    "PNG_SIGNATURE",
    "CardChunk",
    "is_png",
    "png_card_chunks",
    "png_chunk",
    "png_chunks",
]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The keywords card editors store a card under, the one V3 readers prefer first.
CARD_KEYWORDS = ("ccv3", "chara")
#: A compressed text chunk is refused past this many bytes unpacked (a card is kilobytes).
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
    """A card text chunk: its keyword (`chara` or `ccv3`), its chunk type and the card's JSON text."""

    keyword: str
    kind: str
    text: str


def png_card_chunks(png: bytes, file: str) -> list[CardChunk]:
    """Every `chara` and `ccv3` text chunk of the PNG, in file order, decoded to JSON text.

    Raises:
        ImportRefusedError: a broken PNG (see `png_chunks`), or a card chunk that is not
            base64 of UTF-8 text (or whose compressed text cannot be unpacked).
    """
    found: list[CardChunk] = []
    for kind, data in png_chunks(png, file):
        if kind not in _TEXT_KINDS:
            continue
        keyword, _, rest = data.partition(b"\0")
        name = keyword.decode("latin-1")
        if name not in CARD_KEYWORDS:
            continue
        what = f"{kind.decode()} chunk {name!r}"
        payload = _text_payload(kind, rest, file, what)
        try:
            raw = base64.b64decode(payload.strip(), validate=True)
            text = raw.decode("utf-8-sig")
        except (binascii.Error, ValueError) as exc:
            raise ImportRefusedError(
                file, f"holds a {what} that is not base64 of UTF-8 JSON ({exc})"
            ) from None
        found.append(CardChunk(name, kind.decode(), text))
    return found


def _text_payload(kind: bytes, rest: bytes, file: str, what: str) -> bytes:
    """The text of a `tEXt`, `zTXt` or `iTXt` chunk after its keyword, unpacked."""
    if kind == b"tEXt":
        return rest
    if kind == b"zTXt":
        if not rest or rest[0] != 0:
            raise ImportRefusedError(file, f"holds a {what} with an unknown compression method")
        return _inflate(rest[1:], file, what)
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
        return text
    if flag != 1 or method != 0:
        raise ImportRefusedError(file, f"holds a {what} with an unknown compression method")
    return _inflate(text, file, what)


def _inflate(data: bytes, file: str, what: str) -> bytes:
    unpack = zlib.decompressobj()
    try:
        out = unpack.decompress(data, MAX_TEXT_BYTES)
    except zlib.error as exc:
        raise ImportRefusedError(
            file, f"holds a {what} whose text cannot be unpacked ({exc})"
        ) from None
    if unpack.unconsumed_tail:
        raise ImportRefusedError(
            file, f"holds a {what} that unpacks past {MAX_TEXT_BYTES // 2**20} MiB"
        )
    if not unpack.eof:
        raise ImportRefusedError(file, f"holds a {what} whose compressed text is cut short")
    return out
