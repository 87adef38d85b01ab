"""Trackers in a Character Card V2, under `data.extensions.trackerkit`, and back.

The card spec (`chara_card_v2`) makes `data.extensions` a free map that editors must keep, so
trackers travel there whole: `{"version": 1, "trackers": [<tracker piece>, ...], "links": [ids],
"scene": {"id", "title", "char", "user"[, "card"]}}`. Exporting into an existing card changes only that key; every
other key of the card, known or not, is kept as it was. Reading a card gives back trackers equal
to the ones exported (each through the strict decoder), and the order a scene links them in.

A scene and a card name the same things in two places: the scene's `char` is the card's
`data.name` and its card text (the character and how to play it, `{{user}}` and all) is
`data.description`, the field every card reader shows and sends (`system_prompt` would replace
the person's own system prompt, which a scene's card text does not). The scene's id, title and
user have no place in the spec, so they go under `data.extensions.trackerkit.scene`, and so does
its char: a card given to export into keeps its own name, and the scene read back plays its own
char, not the card's name. A scene exported as a card and read back keeps its id, title, char,
user and card text as written, an empty text or outer spaces too (the card text when the card
was made from the scene).
"""

from __future__ import annotations

import base64
import copy
import json
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from trackerkit._pieces import check_tracker_id
from trackerkit.errors import BadRequestError, ImportRefusedError, TrackerDecodeError
from trackerkit.fields import describe_value
from trackerkit.formats.detect import (
    entry_name,
    is_init_var_name,
    parse_card_text,
    png_card,
)
from trackerkit.formats.imported import Imported, ImportReport, ReportLine
from trackerkit.formats.leaves import quoted
from trackerkit.formats.png import PNG_SIGNATURE, png_card_chunks, png_chunk, png_chunks
from trackerkit.tracker import Tracker, decode_tracker, encode_tracker

if TYPE_CHECKING:
    from trackerkit.scene import Scene

__all__ = [
    "CARD_KEY",
    "CARD_VERSION",
    "card_from_data",
    "card_from_png",
    "card_into_png",
    "export_card",
    "new_card",
]

#: The namespaced key under `data.extensions`.
CARD_KEY = "trackerkit"
#: The version of what trackerkit writes under that key.
CARD_VERSION = 1
_WHERE = f"data.extensions.{CARD_KEY}"


def new_card(name: str) -> dict[str, Any]:
    """An empty Character Card V2 named `name`: every field the spec requires, blank."""
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": name,
            "description": "",
            "personality": "",
            "scenario": "",
            "first_mes": "",
            "mes_example": "",
            "creator_notes": "",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": [],
            "tags": [],
            "creator": "",
            "character_version": "",
            "extensions": {},
        },
    }


_SPECS = ("chara_card_v2", "chara_card_v3")
_V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")


def _upgraded(card: dict[str, Any]) -> dict[str, Any]:
    """A V1 card (its six text fields at the top) as V2; the top-level keys all stay, as V2 readers expect.

    Any other card is returned as it is.
    """
    if "spec" in card or not all(isinstance(card.get(k), str) for k in _V1_FIELDS):
        return card
    v2 = new_card(card["name"])
    v2["data"].update({k: card[k] for k in _V1_FIELDS})
    # SillyTavern's V1 cards carry the creator's notes and tags beside the six fields; a V2
    # reader looks for them under `data`.
    if isinstance(card.get("creatorcomment"), str):
        v2["data"]["creator_notes"] = card["creatorcomment"]
    tags = card.get("tags")
    if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
        v2["data"]["tags"] = list(tags)
    return {**card, "spec": v2["spec"], "spec_version": v2["spec_version"], "data": v2["data"]}


def _v2_data(card: object, file: str) -> dict[str, Any]:
    if not isinstance(card, dict):
        raise ImportRefusedError(file, "is not a Character Card V2: the file is not a JSON object")
    if card.get("spec") not in _SPECS or not isinstance(card.get("data"), dict):
        found = card.get("spec")
        raise ImportRefusedError(
            file,
            f'is not a Character Card V2: spec must be "chara_card_v2" (or "chara_card_v3") with '
            f"a data object (found spec {found!r}), or a V1 card with name, description, "
            "personality, scenario, first_mes and mes_example",
        )
    data: dict[str, Any] = card["data"]
    extensions = data.get("extensions", {})
    if not isinstance(extensions, dict):
        raise ImportRefusedError(
            file, f"data.extensions must be an object; found {type(extensions).__name__}"
        )
    return data


def export_card(
    trackers: Sequence[Tracker],
    card: Mapping[str, Any] | None = None,
    *,
    name: str = "Trackers",
    file: str = "card",
    scene: Scene | None = None,
) -> dict[str, Any]:
    """The card with `trackers` under `data.extensions.trackerkit`; a new card without one.

    Args:
        trackers: the trackers, in the order a scene links them.
        card: a Character Card V2 to carry them; it is not changed, and every key of it other
            than `data.extensions.trackerkit` (whose own unknown keys are kept too) is kept, its
            name and description too. A V1 card is made V2 first (its fields copied into
            `data`, its top-level keys kept).
        name: the new card's name when neither a card nor a scene is given.
        file: the card's file name, for messages.
        scene: the scene the trackers are linked in: a new card takes its char as `data.name`
            and its card text as `data.description`, and any card its id, title, char and user
            under `data.extensions.trackerkit.scene` (with its card text, when a card given keeps
            a description of its own).
    Raises:
        ImportRefusedError: `card` is neither a Character Card V2 nor a V1 card.
    """
    if card is not None:
        out = _upgraded(copy.deepcopy(dict(card)))
    else:
        out = new_card(scene.char if scene is not None else name)
        if scene is not None:
            out["data"]["description"] = scene.card
    data = _v2_data(out, file)
    extensions = data.setdefault("extensions", {})
    mine = extensions.get(CARD_KEY)
    mine = dict(mine) if isinstance(mine, dict) else {}
    mine.update(
        {
            "version": CARD_VERSION,
            "trackers": [encode_tracker(t) for t in trackers],
            "links": [t.id for t in trackers],
        }
    )
    if scene is not None:
        mine["scene"] = {
            "id": scene.id,
            "title": scene.title,
            "char": scene.char,
            "user": scene.user,
        }
        if data.get("description") != scene.card:  # a card given keeps its own description
            mine["scene"]["card"] = scene.card
    extensions[CARD_KEY] = mine
    return out


def card_from_data(card: object, file: str) -> Imported:
    """The trackers a card carries under `data.extensions.trackerkit`, each read by the strict decoder.

    Every tracker maps exactly; the report has one line per tracker, and one per MVU `[InitVar]`
    entry of the card's book, which is not imported with them and says how to import it.

    Raises:
        ImportRefusedError: not a Character Card V2, no trackerkit key, a version this trackerkit
            does not read, or a tracker the decoder refuses (named by its path in the card).
    """
    # A V1 card is read as the V2 card it makes (it then holds no trackers, and says so).
    data = _v2_data(_upgraded(card) if isinstance(card, dict) else card, file)
    mine = data.get("extensions", {}).get(CARD_KEY)
    if not isinstance(mine, dict):
        raise ImportRefusedError(
            file, f"holds no trackers: the card has no {_WHERE} object (export trackers into it)"
        )
    version = mine.get("version")
    if version != CARD_VERSION:
        raise ImportRefusedError(
            file, f"{_WHERE}.version must be {CARD_VERSION}; found {version!r}"
        )
    pieces = mine.get("trackers")
    if not isinstance(pieces, list):
        raise ImportRefusedError(file, f"{_WHERE}.trackers must be a list of tracker pieces")
    trackers: list[Tracker] = []
    for i, piece in enumerate(pieces):
        where = f"{_WHERE}.trackers[{i}]"
        try:
            trackers.append(decode_tracker(piece))
        except TrackerDecodeError as exc:
            reasons = "; ".join(str(p) for p in exc.problems)
            raise ImportRefusedError(file, f"{where} is refused: {reasons}") from None
    ids = [t.id for t in trackers]
    if len(set(ids)) != len(ids):
        raise ImportRefusedError(file, f"{_WHERE}.trackers holds one id twice: {', '.join(ids)}")
    links = mine.get("links", ids)
    if not isinstance(links, list) or not all(link in ids for link in links):
        raise ImportRefusedError(
            file, f"{_WHERE}.links must list ids of the card's trackers; found {links!r}"
        )
    details, identity = _scene_details(data, mine)
    lines = (
        identity
        + tuple(
            ReportLine(
                "exact",
                f"{_WHERE}.trackers[{i}]",
                t.name,
                f"{t.layout}, {len(t.fields)} field{'' if len(t.fields) == 1 else 's'}",
            )
            for i, t in enumerate(trackers)
        )
        + _text_lines(data)
        + _book_lines(data, file)
    )
    title = details.pop("title") if "title" in details else details.get("char") or "Card"
    report = ImportReport(file, "card", lines)
    return Imported(tuple(trackers), tuple(links), report, title, details)


def _characters(count: int) -> str:
    """`1 character`, `1,083 characters`."""
    return f"{count:,} character{'' if count == 1 else 's'}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _as_written(text: str) -> str:
    """`text` quoted for a report line; one that is empty, or not one plain line (outer spaces,
    a line break), escaped and said to be kept so."""
    if not text:
        return '"" (empty)'
    if text == _one_line(text):
        return quoted(text, 40)
    shown = "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text[:40]
    )
    return f'"{shown}{"..." if len(text) > 40 else ""}" (as written)'


def _scene_details(
    data: Mapping[str, Any], mine: Mapping[str, Any]
) -> tuple[dict[str, str], tuple[ReportLine, ...]]:
    """The scene a card implies, by the scene file's keys (with `title`), and a line for each.

    `data.name` is the scene's char and `data.description` its card text; the id, title, char and
    user of a scene exported into the card come from `data.extensions.trackerkit.scene`, its char
    before the card's name (a card given to export into keeps its own name).
    """
    details, lines = _exported(mine.get("scene"))
    char = details.get("char")
    name = data.get("name")
    own = _one_line(name) if isinstance(name, str) and name.strip() else None
    #: The card's own name, when a scene exported into the card plays another char.
    given = own if char is not None and _one_line(char) != own else None
    card: list[ReportLine] = []
    if given is not None and char is not None:
        card.append(
            ReportLine(
                "unmapped",
                "data.name",
                "",
                f"the card's own name {quoted(given, 40)}, not the scene's char: the scene "
                f"exported into this card plays {_as_written(char)} ({_WHERE}.scene.char)",
            )
        )
    elif own is not None:
        details.setdefault("char", own)
        card.append(ReportLine("exact", "data.name", "scene.char", quoted(own, 40)))
    else:
        plays = _as_written(char) if char is not None else '"Assistant"'
        card.append(ReportLine("unmapped", "data.name", "", f"empty, so the scene plays {plays}"))
    description = data.get("description")
    if "card" in details:  # the scene's own card text, kept beside the card's description
        if isinstance(description, str) and description != details["card"]:
            card.append(
                ReportLine(
                    "unmapped",
                    "data.description",
                    "",
                    f"the card's own description ({_characters(len(description))}), not the "
                    f"scene's card text ({_WHERE}.scene.card)",
                )
            )
    elif isinstance(description, str):
        details["card"] = description
        size = _characters(len(description)) if description else "empty"
        if given is not None:
            size += f", the card's own description (written for {quoted(given, 40)})"
        card.append(ReportLine("exact", "data.description", "scene.card", size))
    return details, (*card, *lines)


def _exported(exported: object) -> tuple[dict[str, str], list[ReportLine]]:
    """The id, title, char and user of the scene exported into a card (and its card text, when
    the card kept its own description), and a line for each.

    Each is taken as written, an empty text and outer spaces too (a scene holds them so); the
    report line shows such a value escaped.
    """
    details: dict[str, str] = {}
    lines: list[ReportLine] = []
    where = f"{_WHERE}.scene"
    if exported is None:
        return details, lines
    if not isinstance(exported, dict):
        return details, [ReportLine("unmapped", where, "", "not an object, so not read")]
    for key in ("id", "title", "char", "user", "card"):
        value = exported.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            found = f"not a text (found {describe_value(value)}), so not read"
            lines.append(ReportLine("unmapped", f"{where}.{key}", "", found))
            continue
        if key == "id":
            try:
                check_tracker_id(value)
            except BadRequestError as error:
                lines.append(ReportLine("unmapped", f"{where}.id", "", f"not read: {error}"))
                continue
        details[key] = value
        said = _as_written(value)
        if key == "id":
            said += " (the next free id when a scene file has it)"
        lines.append(ReportLine("exact", f"{where}.{key}", f"scene.{key}", said))
    return details, lines


#: The card's other prompt texts: a scene holds one card text, `data.description`.
_OTHER_TEXTS = (
    "personality",
    "scenario",
    "first_mes",
    "mes_example",
    "system_prompt",
    "post_history_instructions",
)


def _text_lines(data: Mapping[str, Any]) -> tuple[ReportLine, ...]:
    """A line for each other prompt text the card holds, which the scene does not take."""
    return tuple(
        ReportLine(
            "unmapped",
            f"data.{key}",
            "",
            f"{_characters(len(data[key]))}, not kept: a scene's card text is the card's "
            "description alone (copy this into it to keep it)",
        )
        for key in _OTHER_TEXTS
        if isinstance(data.get(key), str) and data[key].strip()
    )


def _book_lines(data: dict[str, Any], file: str) -> tuple[ReportLine, ...]:
    """A line for each MVU `[InitVar]` entry of the card's own book: not imported with the
    card's trackers (they may well be those variables, imported before), and how to get them."""
    book = data.get("character_book")
    entries = book.get("entries") if isinstance(book, dict) else None
    items = (
        list(entries.items())
        if isinstance(entries, dict)
        else list(enumerate(entries))
        if isinstance(entries, list)
        else []
    )
    command = f"trackerkit import {shlex.quote(file)} --from mvu"
    lines: list[ReportLine] = []
    for key, entry in items:
        name = entry_name(entry) if isinstance(entry, dict) else ""
        if not is_init_var_name(name):
            continue
        lines.append(
            ReportLine(
                "unmapped",
                f"data.character_book.entries[{key}] {quoted(name, 40)}",
                "",
                "an MVU [InitVar] entry, not imported: the card's trackerkit trackers were read "
                f"instead; to import the book's MVU variables as trackers, run {command}",
            )
        )
    return tuple(lines)


# --- cards inside PNG images -----------------------------------------------------------------


def card_from_png(png: bytes, file: str) -> object:
    """The card a PNG carries (its `ccv3` chunk when that holds a V3 card, else `chara`), parsed.

    Raises:
        ImportRefusedError: not a PNG, a broken one, no card chunk, or one that is not base64 of
            JSON.
    """
    return png_card(png, file)


def _card_text(card: Mapping[str, Any]) -> bytes:
    return base64.b64encode(json.dumps(card, ensure_ascii=False).encode("utf-8"))


def card_into_png(png: bytes, card: Mapping[str, Any], file: str) -> bytes:
    """The PNG carrying `card`'s trackers in each of its cards; every other chunk (the image) kept.

    A V2 `chara` card and a V3 `ccv3` card (which V3 readers prefer) each get `card`'s
    `data.extensions.trackerkit`, every other key of theirs kept, so a V2 reader still finds a V2
    card and either reader finds the trackers. With no readable `chara` card, `card` itself is
    written there.

    Raises:
        ImportRefusedError: not a PNG, a broken one, or a card chunk that cannot be read.
    """
    data = card.get("data")
    extensions = data.get("extensions") if isinstance(data, dict) else None
    mine = extensions.get(CARD_KEY) if isinstance(extensions, dict) else None
    cards: dict[str, dict[str, Any]] = {}
    for chunk in png_card_chunks(png, file):
        found = parse_card_text(chunk, file)
        wanted = "chara_card_v3" if chunk.keyword == "ccv3" else "chara_card_v2"
        if (
            isinstance(found, dict)
            and found.get("spec") == wanted
            and isinstance(found.get("data"), dict)
        ):
            held = found["data"].get("extensions")
            found["data"]["extensions"] = {
                **(held if isinstance(held, dict) else {}),
                CARD_KEY: mine,
            }
            cards[chunk.keyword] = found
    cards.setdefault("chara", dict(card))
    out = [PNG_SIGNATURE]
    for kind, chunk_data in png_chunks(png, file):
        keyword = chunk_data.split(b"\0", 1)[0] if kind in (b"tEXt", b"iTXt", b"zTXt") else b""
        if keyword.decode("latin-1") in cards:
            continue
        if kind == b"IEND":
            for keyword_text, written in cards.items():
                out.append(png_chunk(b"tEXt", keyword_text.encode() + b"\0" + _card_text(written)))
        out.append(png_chunk(kind, chunk_data))
    return b"".join(out)
