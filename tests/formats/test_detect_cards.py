"""A character card is told as a card before any guess at MVU variables (testers' finding).

`trackerkit import examples/vera.json` (a plain Character Card V2, no trackers) said the card had
"the shape of MagVarUpdate variables" and to add --from mvu, which imported its text as junk
trackers. A card is now told first: its trackerkit trackers, else its book's [InitVar] entries,
else it is refused as holding no trackers.
"""

from __future__ import annotations

import base64
import copy
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from trackerkit.cli import main
from trackerkit.errors import ImportRefusedError
from trackerkit.formats import detect_format, import_file
from trackerkit.formats.detect import is_character_card, sniff

VERA = Path(__file__).resolve().parents[2] / "examples" / "vera.json"
CARD: dict[str, Any] = json.loads(VERA.read_text())
NO_TRACKERS = (
    "holds no trackers: it is a character card with no data.extensions.trackerkit object and "
    "no MagVarUpdate [InitVar] entry in its book, so there is nothing to import"
)


def _png(card: object) -> bytes:
    """A 1x1 PNG carrying `card` in a `chara` tEXt chunk, as card editors write it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    text = b"chara\x00" + base64.b64encode(json.dumps(card).encode())
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x80"))
        + chunk(b"tEXt", text)
        + chunk(b"IEND", b"")
    )


def _variant(**changes: object) -> dict[str, Any]:
    card = copy.deepcopy(CARD)
    card.update(changes)
    return card


class TestPlainCards:
    """A card with neither kind of tracker is refused as such, never guessed to be MVU."""

    def test_the_example_card(self) -> None:
        """examples/vera.json: the refusal says it is a card holding no trackers, and how to
        put trackers in it; not MVU, not --from mvu."""
        with pytest.raises(ImportRefusedError) as caught:
            import_file(VERA)
        message = str(caught.value)
        assert message == (
            f"{VERA}: {NO_TRACKERS} (to put trackers in it, run trackerkit export --to card "
            f"--card {VERA} TRACKER.json ...)"
        )
        assert "--from mvu" not in message
        assert sniff(CARD) == "card"

    def test_the_example_card_as_png(self, tmp_path: Path) -> None:
        """The same card in a PNG: the same refusal, with the --out a PNG export needs."""
        image = tmp_path / "vera.png"
        image.write_bytes(_png(CARD))
        with pytest.raises(ImportRefusedError) as caught:
            detect_format(image)
        assert str(caught.value) == (
            f"{image}: {NO_TRACKERS} (to put trackers in it, run trackerkit export --to card "
            f"--card {image} --out NEW.png TRACKER.json ...)"
        )

    def test_the_command_writes_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`trackerkit import` on the card fails with that line and writes no tracker."""
        assert main(["import", str(VERA), "--into", str(tmp_path)]) != 0
        err = capsys.readouterr().err
        assert NO_TRACKERS in err
        assert not (tmp_path / "trackers").exists() or not any((tmp_path / "trackers").iterdir())

    @pytest.mark.parametrize(
        "card",
        [
            {
                "spec": "chara_card_v3",
                "spec_version": "3.0",
                "data": {"name": "V", "extensions": {}},
            },
            {"spec": "chara_card_v2", "data": {"name": "V", "extensions": None}},
            {"spec": "chara_card_v2", "data": {"name": "V", "extensions": {"trackerkit": []}}},
            {"spec": "chara_card_v2", "data": {"name": "V", "tags": ["a", "b"], "extensions": {}}},
            {"name": "V", "description": "x", "first_mes": "hi"},
            {"name": "V", "first_mes": "hi", "stats": {"hp": 5}, "tags": ["a", "b"]},
        ],
        ids=["v3", "extensions-null", "trackerkit-list", "two-tags", "v1", "v1-with-objects"],
    )
    def test_every_kind_of_card(self, card: dict[str, Any]) -> None:
        """V2, V3 and V1 cards alike; two tags (which look like an MVU [value, meaning] pair) or
        an object of values do not make a card MVU."""
        assert is_character_card(card)
        with pytest.raises(
            ImportRefusedError, match=r"^c\.json: holds no trackers: it is a character card"
        ):
            detect_format("c.json", json.dumps(card))


class TestCardsWithTrackers:
    """A card that does carry trackers is imported as before."""

    def test_a_book_of_init_var_entries_is_mvu(self) -> None:
        """A plain card whose book holds an [InitVar] entry is MagVarUpdate's, in V2 and V1."""
        entry = {"comment": "[InitVar] stats", "content": '{"Vera": {"hp": [10, "hit points"]}}'}
        book = {"entries": [entry]}
        v2 = _variant(data={**CARD["data"], "character_book": book})
        assert detect_format("c.json", json.dumps(v2)) == "mvu"
        assert import_file("c.json", None, json.dumps(v2)).trackers[0].name == "Vera"
        v1 = {"name": "V", "first_mes": "hi", "character_book": book}
        assert detect_format("c.json", json.dumps(v1)) == "mvu"

    def test_trackerkit_trackers_win_over_the_book(self, tmp_path: Path) -> None:
        """A card with trackerkit trackers is a card, whatever its book holds."""
        out = tmp_path / "tracked.json"
        data = Path(__file__).resolve().parents[2] / "data" / "trackers" / "health.json"
        assert (
            main(["export", "--to", "card", "--card", str(VERA), "--out", str(out), str(data)]) == 0
        )
        assert detect_format(out) == "card"
        assert [t.name for t in import_file(out).trackers] == ["Health"]

    def test_a_broken_trackerkit_object_is_named(self) -> None:
        """A trackerkit object the importer cannot read is the importer's refusal, not 'no trackers'."""
        card = _variant(data={**CARD["data"], "extensions": {"trackerkit": {}}})
        with pytest.raises(ImportRefusedError, match=r"trackerkit\.version must be 1"):
            import_file("c.json", None, json.dumps(card))


@pytest.mark.parametrize(
    "data",
    [
        {"name": "V", "description": "x"},
        {"Li": {"hp": 5}, "name": "x"},
        {"spec": "something_else", "data": {}},
        ["chara_card_v2"],
    ],
    ids=["no-greeting", "variables", "other-spec", "list"],
)
def test_what_is_not_a_card(data: object) -> None:
    """Without a card's spec or a V1 card's name and greeting, nothing is called a card."""
    assert not is_character_card(data)
    assert sniff(data) != "card"


def test_a_v1_card_given_as_a_card_says_it_holds_no_trackers(tmp_path: Path) -> None:
    """`--from card` on a V1 card (the six text fields at the top, no `data`) said it was "not a
    Character Card V2 … or a V1 card with name, description, …", which it is: it is read as the
    V2 card it makes, and holds no trackers."""
    fields = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
    v1 = dict.fromkeys(fields, "x")
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(v1), encoding="utf-8")
    with pytest.raises(ImportRefusedError, match=r"holds no trackers: the card has no data\."):
        import_file(path, "card")
