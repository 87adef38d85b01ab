"""Reading an import's file (JSON, YAML or JSON5, or a PNG character card) as plain JSON data.

Other tools' files are JSON, YAML or JSON5 (MagVarUpdate reads `[InitVar]` entries as YAML, then
JSON5). `read_document` tries JSON, then YAML (by the YAML 1.2 core schema those tools use, not
PyYAML's 1.1 rules), then JSON5, and turns what it got into plain JSON
data (text keys, no dates, bounded depth and size), so an importer never sees a YAML-only type and
a file of aliases cannot blow up. A PNG image is read as the character card in its text chunks
(`ccv3` when it holds a V3 card, else `chara`; see `formats.png`), so a card with trackerkit's
trackers, or an MVU card whose book holds `[InitVar]` entries, imports from its PNG. Every
failure is an `ImportRefusedError` naming the file. Telling the format of what was read is
`formats.detect`'s.

The readers live in their own modules: YAML's core-schema loader and its builder from parse
events in `formats.yaml_document`, JSON5's in `formats.json5_document`. This module tries them
in turn and holds the limits, counting YAML's parse events against them before anything is built.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from trackerkit._json import utf16_words
from trackerkit.errors import ImportRefusedError
from trackerkit.formats.png import MAX_TEXT_BYTES, CardChunk, card_chunk, is_png, png_chunks
from trackerkit.formats.yaml_document import _UNBUILT, _build_yaml, _yaml_core_loader

__all__ = [
    "MAX_BYTES",
    "LongNumber",
    "decoded_text",
    "encoding_problem",
    "parse_card_text",
    "parse_document",
    "png_card",
    "read_document",
]

#: A file past this size is refused unread: the largest real preset is well under a megabyte.
MAX_BYTES = 32 * 1024 * 1024
_MAX_DEPTH = 100
_MAX_NODES = 1_000_000
_TOO_DEEP = f"nests deeper than {_MAX_DEPTH} levels"
_TOO_MANY = f"holds more than {_MAX_NODES:,} values"
_TOO_LARGE = f"is larger than {MAX_BYTES // 2**20} MiB, the most import reads"
#: YAML up to this size (a real preset is far smaller) is read by PyYAML's pure-Python reader,
#: as it always was, with the same values and error words. A larger text is read by libyaml,
#: tens of times faster: the same values wherever both read it, but it also reads some YAML 1.2
#: PyYAML refuses (such as tabs between tokens) and words its errors its own way.
_PURE_YAML_MAX = 128 * 1024


def read_document(source: str | os.PathLike[str], text: str | None = None) -> tuple[str, object]:
    """The file's name and its content as plain JSON data.

    Args:
        source: the file to read; with `text`, only the name used in messages.
        text: the file's content, when it is already in hand.
    Raises:
        ImportRefusedError: the file is not there, not a regular file, too large, not UTF-8
            (UTF-16 named as `trackerkit check` names it), or not JSON, YAML or JSON5.
    """
    file = os.fspath(source)
    if text is None:
        raw = _read_bytes(Path(file))
        if is_png(raw):
            return file, png_card(raw, file)
        text = decoded_text(raw, file)
    return file, parse_document(text, file, whole=True)


def decoded_text(raw: bytes, file: str) -> str:
    """A file's bytes as text (UTF-8, a byte order mark dropped), decoded once.

    Raises:
        ImportRefusedError: they are UTF-16 or not UTF-8, said as `encoding_problem` says it.
    """
    if utf16_words(raw) is None:  # UTF-16 without its mark can decode as UTF-8 (NULs and all)
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass
    raise ImportRefusedError(file, encoding_problem(raw) or "is not UTF-8 text")


def encoding_problem(raw: bytes) -> str | None:
    """Why a file's bytes are no UTF-8 text, or None when they are: UTF-16 in the words
    `trackerkit check` uses (`_json.utf16_words`), else the first byte that is not UTF-8."""
    said = utf16_words(raw)
    if said is not None:
        return said
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not UTF-8 text (byte {error.start} is not UTF-8)"
    return None


def png_card(png: bytes, file: str) -> object:
    """The card a PNG carries, parsed: its `ccv3` chunk when that holds a V3 card, else `chara`.

    Only the last chunk of each keyword counts (as card editors read them), and `chara` is
    unpacked only when `ccv3` holds no V3 card; both together unpack to at most `MAX_TEXT_BYTES`.

    Raises:
        ImportRefusedError: a broken PNG, a card chunk that is not base64 of JSON, or no card.
    """
    chunks = png_chunks(png, file)
    v3_chunk = card_chunk(chunks, "ccv3", file)
    v3 = None if v3_chunk is None else parse_card_text(v3_chunk, file)
    if (
        isinstance(v3, dict)
        and v3.get("spec") == "chara_card_v3"
        and isinstance(v3.get("data"), dict)
    ):
        return v3
    left = MAX_TEXT_BYTES - (0 if v3_chunk is None else v3_chunk.unpacked)
    v2_chunk = card_chunk(chunks, "chara", file, left)
    if v2_chunk is not None:
        return parse_card_text(v2_chunk, file)
    if v3_chunk is None:
        raise ImportRefusedError(
            file, "is a PNG with no character card in it (no chara or ccv3 text chunk)"
        )
    return v3


def parse_card_text(chunk: CardChunk, file: str) -> object:
    """A card chunk's text read as JSON (what the card format stores), as plain JSON data.

    Never YAML or JSON5: a card chunk is JSON, and the long text of a broken one is refused
    at once rather than tried as each of the other two.

    Raises:
        ImportRefusedError: the text is not JSON, is JSON past the reader's limits, or holds
            neither an object nor a list.
    """
    try:
        found = orjson.loads(chunk.text.removeprefix("\ufeff"))
    except orjson.JSONDecodeError as error:
        reason = _json_past_limits(error) or (
            f"holds a {chunk.what} whose card is not JSON ({error.msg} at line {error.lineno}, "
            f"column {error.colno})"
        )
        raise ImportRefusedError(file, reason) from None
    if not isinstance(found, dict | list):
        raise ImportRefusedError(file, f"holds a {chunk.what} whose card is no JSON object or list")
    return _plain(found, file)


def _read_bytes(path: Path) -> bytes:
    try:
        if not path.is_file():
            reason = "is not a regular file" if path.exists() else "is not there"
            raise ImportRefusedError(str(path), reason)
        if path.stat().st_size > MAX_BYTES:
            raise ImportRefusedError(str(path), _TOO_LARGE)
        return path.read_bytes()
    except OSError as error:
        raise ImportRefusedError(str(path), f"cannot be read: {error.strerror or error}") from None


class LongNumber(float):
    """A JSON number too large to read (an integer of thousands of digits, `1e400`), kept in its
    place as an infinite float that says what it was, so the value alone is reported unread.

    Made only by `parse_document(..., long_numbers=True)`; an importer reports it as a value no
    field holds (`formats.leaves.leaf`). MagVarUpdate, reading JSON in JavaScript, reads such a
    number as Infinity and loads the rest.
    """

    written: str

    def __new__(cls, written: str) -> LongNumber:
        made = super().__new__(cls, "-inf" if written.startswith("-") else "inf")
        made.written = written
        return made

    def __getnewargs__(self) -> tuple[str]:  # type: ignore[override]  # made from its text
        return (self.written,)

    @property
    def reason(self) -> str:
        """`an integer of 5,000 digits, too long to read`, or `the number 1e400, too large to
        read`."""
        digits = self.written.lstrip("-")
        if digits.isdigit():
            return f"an integer of {len(digits):,} digits, too long to read"
        shown = self.written if len(self.written) <= 24 else self.written[:21] + "..."
        return f"the number {shown}, too large to read"


def _json_int(text: str) -> int | float:
    """An integer as orjson reads it: exact within 64 bits, else the nearest double, else (past
    a double's range) a `LongNumber`."""
    if len(text.lstrip("-")) <= 20:
        value = int(text)
        if -(2**63) <= value < 2**64:
            return value
    return _json_float(text)


def _json_float(text: str) -> float:
    value = float(text)
    return LongNumber(text) if math.isinf(value) else value


def _no_constant(text: str) -> object:
    """NaN and Infinity are no JSON (orjson refuses them): the text is left to YAML and JSON5."""
    raise ValueError(text)


def _json_long_numbers(text: str) -> object:
    """`text` read as JSON with each number past a double's range a `LongNumber`, or None when
    it is not such JSON."""
    try:
        return json.loads(
            text, parse_int=_json_int, parse_float=_json_float, parse_constant=_no_constant
        )
    except (ValueError, RecursionError):
        return None


def parse_document(
    text: str, file: str, *, long_numbers: bool = False, whole: bool = False
) -> object:
    """`text` read as JSON, else YAML, else JSON5, as plain JSON data (see the module doc).

    Args:
        text: the document.
        file: its name, for messages.
        long_numbers: read JSON holding a number past a double's range (a 5,000-digit integer)
            with that number a `LongNumber`, so one unreadable value need not refuse the rest.
        whole: the text is a whole file given to import (not an entry's content): when no
            reader reads it, the refusal says so of JSON Lines and names the formats import reads.
    Raises:
        ImportRefusedError: none of the three reads it as an object or a list, or it nests deeper
            than 100 levels or holds more than a million values.
    """
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_BYTES:
        raise ImportRefusedError(file, _TOO_LARGE)
    found: object = None
    try:
        found = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        reason = _json_past_limits(error)
        long = None
        if long_numbers and error.msg.startswith("number is"):
            long = _json_long_numbers(text)
        found = long if long is not None else _yaml_or_json5(text, file, reason, whole)
    if not isinstance(found, dict | list):
        raise ImportRefusedError(
            file, "holds no JSON, YAML or JSON5 object or list, so it holds no tracker"
        )
    return _plain(found, file)


def _json_past_limits(error: orjson.JSONDecodeError) -> str | None:
    """Why well-formed JSON could not be read, when it is past a limit rather than broken.

    The JSON reader stops at 1024 levels and at numbers past a double's range; the text up to
    there was JSON, so that, not a YAML reading of it, is what the person is told.
    """
    where = f"at line {error.lineno}, column {error.colno}"
    # orjson's words: "depth limit exceeded" (3.13), "array and object recursion depth
    # exceeded" (3.11): the limit is the same 1024 levels.
    if "depth" in error.msg:
        return (
            f"is JSON nested more than 1,024 levels deep ({where}); trackerkit reads at most "
            f"{_MAX_DEPTH} levels"
        )
    if error.msg.startswith("number is"):
        return f"is JSON holding a number too large to read {where}"
    return None


def _yaml_or_json5(
    text: str, file: str, json_reason: str | None = None, whole: bool = False
) -> object:
    """`text` as YAML, else JSON5; refused naming the YAML error, or `json_reason` when the
    text is JSON the JSON reader stopped on (a depth or number limit). A `whole` file's refusal
    says it holds JSON Lines when it does, else adds the formats import reads."""
    import yaml

    from trackerkit.formats.json5_document import NOT_JSON5

    reason = ""
    scalar: object = None
    read_as_yaml = False
    try:
        scalar = _load_yaml(text, file, json_reason)
        if isinstance(scalar, dict | list):
            return scalar
        read_as_yaml = True
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        reason = f"{error.problem or error.context or 'unreadable'}{where}"
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as error:
        reason = " ".join(str(error).split())[:160]
    found = _json5(text, file, json_reason)
    if found is not NOT_JSON5:
        return found
    if read_as_yaml:
        return scalar  # a YAML scalar (plain prose): refused as holding no object or list
    if json_reason is not None:
        raise ImportRefusedError(file, json_reason)
    why = f" (YAML: {reason})" if reason else ""
    if not whole:
        raise ImportRefusedError(file, f"is not JSON, YAML or JSON5{why}")
    from trackerkit.formats.detect import known_formats  # detect reads through this module

    if _is_json_lines(text):
        raise ImportRefusedError(
            file,
            "holds JSON Lines (one JSON value per line: a trace day?), not one tracker "
            f"document; import reads {known_formats()}",
        )
    raise ImportRefusedError(
        file, f"is not JSON, YAML or JSON5{why}; import reads {known_formats()}"
    )


def _is_json_lines(text: str) -> bool:
    """Whether `text` is two or more JSON values, one per line (blank lines aside)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        for line in lines:
            orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def _json5(text: str, file: str, json_reason: str | None) -> object:
    """`text` as JSON5 (`NOT_JSON5` when it is not), refused as soon as it passes a limit.

    Raises:
        ImportRefusedError: the JSON5 nests too deep, holds too many values or a number too large
            to read (`json_reason` instead, when the text is JSON the JSON reader stopped on).
    """
    # Imported here, as the YAML reader is: most imports are JSON, and pyjson5 stays off start-up.
    from trackerkit.formats.json5_document import PastLimitError, read_json5

    try:
        return read_json5(text, _MAX_DEPTH, _MAX_NODES)
    except PastLimitError as past:
        number = f"is JSON5 holding a number too large to read {past.where}".rstrip()
        reason = {"depth": _TOO_DEEP, "values": _TOO_MANY, "number": number}[past.limit]
        raise ImportRefusedError(file, json_reason or reason) from None


def _load_yaml(text: str, file: str, json_reason: str | None) -> object:
    """`text` read as YAML by the core schema, refused past the limits before anything is built
    (by libyaml past `_PURE_YAML_MAX`, when PyYAML has it).

    Raises:
        ImportRefusedError: the YAML nests too deep or holds too many values (`json_reason`
            instead, when the text is JSON the JSON reader stopped on).
        yaml.YAMLError, ValueError: the text is not YAML the core schema reads.
    """
    import yaml

    fast = bool(yaml.__with_libyaml__) and len(text) > _PURE_YAML_MAX
    loader = _yaml_core_loader(fast)
    _refuse_past_limits(text, file, json_reason, loader)
    built = _build_yaml(text, loader) if fast else _UNBUILT
    return yaml.load(text, Loader=loader) if built is _UNBUILT else built  # a safe loader


def _refuse_past_limits(text: str, file: str, json_reason: str | None, loader: type[Any]) -> None:
    """Refuse YAML nesting deeper than `_MAX_DEPTH` or holding more than `_MAX_NODES` values from
    its parse events, as soon as a limit is passed, so no tree is built for a hostile file.

    Only the first document counts (the loader refuses a second). Text the parser stops on is
    left for the loader to refuse in its own words: up to there, the limits held.

    Raises:
        ImportRefusedError: past a limit (with `json_reason` instead, when given).
    """
    import yaml

    tally = _Tally(file, json_reason)
    events = yaml.parse(text, Loader=loader)
    while True:
        try:
            event = next(events)
        except (StopIteration, yaml.YAMLError, ValueError):
            return
        if isinstance(event, yaml.CollectionEndEvent):
            tally.end()
        elif isinstance(event, yaml.NodeEvent):
            tally.node(event)
        elif isinstance(event, yaml.DocumentStartEvent) and tally.count:
            return


@dataclasses.dataclass(slots=True)
class _OpenNode:
    """A YAML list or mapping whose end has not been parsed yet."""

    anchor: str | None
    mapping: bool
    count: int  # the values counted before it
    depth: int
    deepest: int  # the deepest value in it so far, aliases expanded
    children: int = 0


class _Tally:
    """YAML parse events counted as `_plain` counts the data read from them: values, not mapping
    keys, an alias as all the values it stands for (so an alias bomb is refused in a few
    events), and depth from the top. Merge keys and repeated keys count as written, before
    merging (so a file merging one mapping again and again counts it each time)."""

    def __init__(self, file: str, json_reason: str | None) -> None:
        self.file = file
        self.json_reason = json_reason
        self.count = 0
        self.open: list[_OpenNode] = []
        self.anchored: dict[str | None, tuple[int, int]] = {}  # anchor: (values, levels below)

    def end(self) -> None:
        """A list or mapping ends: what an alias to it stands for is now known."""
        done = self.open.pop()
        if done.anchor is not None:
            self.anchored[done.anchor] = (self.count - done.count, done.deepest - done.depth)
        if self.open:
            self.open[-1].deepest = max(self.open[-1].deepest, done.deepest)

    def node(self, event: Any) -> None:
        """A scalar, an alias or the start of a list or mapping.

        Raises:
            ImportRefusedError: it takes the data past a limit.
        """
        import yaml

        depth = len(self.open)
        parent = self.open[-1] if self.open else None
        is_key = parent is not None and parent.mapping and parent.children % 2 == 0
        if parent is not None:
            parent.children += 1
        values, below = 1, 0
        if isinstance(event, yaml.AliasEvent):
            values, below = self.anchored.get(event.anchor, (1, 0))  # undefined: not loaded
        elif isinstance(event, yaml.CollectionStartEvent):
            mapping = isinstance(event, yaml.MappingStartEvent)
            self.open.append(_OpenNode(event.anchor, mapping, self.count, depth, depth))
            if event.anchor is not None:  # an alias inside it holds it inside itself: endless
                self.anchored[event.anchor] = (_MAX_NODES + 1, _MAX_DEPTH + 1)
        elif event.anchor is not None:
            self.anchored[event.anchor] = (1, 0)
        if is_key and not isinstance(event, yaml.CollectionStartEvent):
            return  # a key is no value (a list or mapping as a key is refused when loaded)
        self.count += values
        if parent is not None:
            parent.deepest = max(parent.deepest, depth + below)
        if depth + below > _MAX_DEPTH:
            raise ImportRefusedError(self.file, self.json_reason or _TOO_DEEP)
        if self.count > _MAX_NODES:
            raise ImportRefusedError(self.file, self.json_reason or _TOO_MANY)


def _plain(data: object, file: str) -> object:
    """Plain JSON data: text keys, dates as ISO text, bounded depth and count (aliases counted)."""
    count = 0

    def walk(node: object, depth: int) -> object:
        nonlocal count
        count += 1
        if count > _MAX_NODES:
            raise ImportRefusedError(file, _TOO_MANY)
        if depth > _MAX_DEPTH:
            raise ImportRefusedError(file, _TOO_DEEP)
        if isinstance(node, Mapping):
            return {_key(k): walk(v, depth + 1) for k, v in node.items()}
        if isinstance(node, list | tuple | set | frozenset):
            return [walk(v, depth + 1) for v in node]
        if isinstance(node, datetime.date | datetime.time):
            return node.isoformat()
        if isinstance(node, bytes):
            return node.decode("utf-8", "replace")
        if node is None or isinstance(node, str | bool | int | float):
            return node
        return str(node)

    return walk(data, 0)


def _key(key: object) -> str:
    """A YAML mapping key as the JSON key a JSON reader would have made of it (`true`, `null`,
    `3`, a date in ISO form): the data's own key, not a value shown to a reader."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, datetime.date | datetime.time):
        return key.isoformat()
    return str(key)
