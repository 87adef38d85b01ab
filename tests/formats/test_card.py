"""Trackers in a Character Card V2 under data.extensions.trackerkit, and back."""

from __future__ import annotations

import base64
import copy
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import json_values, trackers

from trackerkit import Tracker, decode_tracker, encode_tracker
from trackerkit.errors import ImportRefusedError
from trackerkit.formats.card import (
    CARD_KEY,
    card_from_data,
    card_from_png,
    card_into_png,
    export_card,
    new_card,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "trackers"
BUNDLED = [decode_tracker(json.loads(p.read_text())) for p in sorted(DATA.glob("*.json"))]

_keys = st.text(min_size=1, max_size=8)
#: A V2 card with unknown keys at every level, its own extensions included.
cards = st.builds(
    lambda top, data, ext, mine: {
        **top,
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {**data, "name": "Vera", "extensions": {**ext, CARD_KEY: mine}},
    },
    st.dictionaries(_keys.filter(lambda k: k not in {"spec", "spec_version", "data"}), json_values, max_size=3),
    st.dictionaries(_keys.filter(lambda k: k not in {"name", "extensions"}), json_values, max_size=3),
    st.dictionaries(_keys.filter(lambda k: k != CARD_KEY), json_values, max_size=3),
    st.dictionaries(_keys.filter(lambda k: k not in {"version", "trackers", "links"}), json_values, max_size=2),
)  # fmt: skip


def _through_a_file(card: dict[str, Any]) -> Any:
    return json.loads(json.dumps(card, ensure_ascii=False))


class TestRoundTrip:
    """Exporting into a card and importing it gives back equal trackers; nothing else moves."""

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.lists(trackers(), max_size=4, unique_by=lambda t: t.id),
        st.none() | cards,
    )
    def test_export_then_import_gives_equal_trackers(
        self, exported: list[Tracker], card: dict[str, Any] | None
    ) -> None:
        """Card export -> import gives the same trackers in the same link order, whatever else the card holds."""
        before = copy.deepcopy(card)
        out = _through_a_file(export_card(exported, card, file="vera.json"))
        imported = card_from_data(out, "vera.json")
        assert list(imported.trackers) == exported
        assert list(imported.scene_links) == [t.id for t in exported]
        assert card == before  # the card given is not changed
        if card is not None:
            kept = copy.deepcopy(out)
            mine = kept["data"]["extensions"][CARD_KEY]
            for key in ("version", "trackers", "links"):
                del mine[key]
            original = copy.deepcopy(card)
            for key in ("version", "trackers", "links"):
                original["data"]["extensions"][CARD_KEY].pop(key, None)
            assert kept == _through_a_file(original)

    def test_a_new_card_is_a_whole_v2_card(self) -> None:
        """Without a card, the export is a new V2 card with every spec field, named as asked."""
        out = export_card(BUNDLED[:2], name="Vera")
        data = out["data"]
        assert out["spec"] == "chara_card_v2"
        assert out["spec_version"] == "2.0"
        assert set(data) == set(new_card("x")["data"])
        assert data["name"] == "Vera"
        assert data["extensions"][CARD_KEY] == {
            "version": 1,
            "trackers": [encode_tracker(t) for t in BUNDLED[:2]],
            "links": ["health", "inventory"],
        }
        assert card_from_data(out, "c.json").report.to_text() == (
            'exact: data.name -> scene.char: "Vera"\n'
            "exact: data.description -> scene.card: empty\n"
            f"exact: data.extensions.{CARD_KEY}.trackers[0] -> Health: record, 3 fields\n"
            f"exact: data.extensions.{CARD_KEY}.trackers[1] -> Inventory: list, 4 fields"
        )

    def test_bundled_trackers_round_trip(self) -> None:
        """Every bundled tracker comes back equal."""
        out = _through_a_file(export_card(BUNDLED))
        assert list(card_from_data(out, "c.json").trackers) == BUNDLED


class TestRefused:
    """What is not a card carrying trackers is refused with the file and the place."""

    @pytest.mark.parametrize(
        ("card", "reason"),
        [
            ([], "is not a Character Card V2: the file is not a JSON object"),
            ({"name": "Vera", "description": ""}, "or a V1 card with name, description, personality"),
            ({"spec": "chara_card_v2", "data": {"extensions": 3}}, "data.extensions must be an object"),
            ({"spec": "chara_card_v2", "data": {"name": "Vera"}}, "holds no trackers: the card has no data.extensions.trackerkit object"),
            ({"spec": "chara_card_v2", "data": {"extensions": {CARD_KEY: {"version": 2}}}}, "data.extensions.trackerkit.version must be 1; found 2"),
            ({"spec": "chara_card_v2", "data": {"extensions": {CARD_KEY: {"version": 1, "trackers": {}}}}}, "trackers must be a list"),
            ({"spec": "chara_card_v2", "data": {"extensions": {CARD_KEY: {"version": 1, "trackers": [{"id": "x"}]}}}}, "data.extensions.trackerkit.trackers[0] is refused: "),
        ],
        ids=["not-object", "v1", "bad-extensions", "no-trackers", "version", "not-list", "bad-tracker"],
    )  # fmt: skip
    def test_refusals(self, card: object, reason: str) -> None:
        """Each names the file and says what is wrong."""
        with pytest.raises(ImportRefusedError) as caught:
            card_from_data(card, "vera.json")
        assert str(caught.value).startswith("vera.json: ")
        assert reason in str(caught.value)

    def test_links_must_name_the_cards_trackers(self) -> None:
        """A link to a tracker the card does not carry is refused."""
        out = export_card(BUNDLED[:1])
        out["data"]["extensions"][CARD_KEY]["links"] = ["health", "ghost"]
        with pytest.raises(ImportRefusedError, match="links must list ids of the card's trackers"):
            card_from_data(out, "c.json")

    def test_export_into_something_not_a_card_is_refused(self) -> None:
        """Exporting into something that is neither a V2 nor a V1 card names the file."""
        with pytest.raises(ImportRefusedError, match=r"^old\.json: is not a Character Card V2"):
            export_card(BUNDLED[:1], {"name": "Vera"}, file="old.json")


class TestV1:
    """A V1 card is made V2 on export: its fields go into data, its top-level keys stay."""

    V1 = {  # noqa: RUF012 - read-only test data
        "name": "Vera",
        "description": "A sellsword.",
        "personality": "Terse.",
        "scenario": "A drowned chapel.",
        "first_mes": "You hear a bell.",
        "mes_example": "",
        "avatar": "none",
    }

    def test_upgraded_and_read_back(self) -> None:
        """The V2 data holds the V1 fields; the trackers read back equal."""
        out = export_card(BUNDLED[:2], self.V1)
        assert out["spec"] == "chara_card_v2"
        assert out["avatar"] == "none"
        assert out["name"] == "Vera"
        assert {k: out["data"][k] for k in self.V1 if k != "avatar"} == {
            k: v for k, v in self.V1.items() if k != "avatar"
        }
        assert out["data"]["extensions"][CARD_KEY]["links"] == ["health", "inventory"]
        assert list(card_from_data(out, "v.json").trackers) == BUNDLED[:2]

    def test_sillytaverns_notes_and_tags_go_into_data(self) -> None:
        """Found when tried: a SillyTavern V1 card's `creatorcomment` and `tags` stayed at the
        top while `data.creator_notes` and `data.tags`, where a V2 reader looks, were empty."""
        card = {**self.V1, "creatorcomment": "Made for the causeway.", "tags": ["fantasy", "x"]}
        out = export_card(BUNDLED[:1], card)
        assert out["data"]["creator_notes"] == "Made for the causeway."
        assert out["data"]["tags"] == ["fantasy", "x"]
        assert (out["creatorcomment"], out["tags"]) == ("Made for the causeway.", ["fantasy", "x"])
        odd = export_card(BUNDLED[:1], {**self.V1, "creatorcomment": 3, "tags": ["a", 1]})
        assert (odd["data"]["creator_notes"], odd["data"]["tags"]) == ("", [])


def _png(*extra: tuple[bytes, bytes]) -> bytes:
    """A 1x1 grey PNG with `extra` chunks before IEND."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    body = [chunk(b"IHDR", header), chunk(b"IDAT", zlib.compress(b"\x00\x80"))]
    body += [chunk(kind, data) for kind, data in extra]
    return b"\x89PNG\r\n\x1a\n" + b"".join(body) + chunk(b"IEND", b"")


def _chara(card: dict[str, Any]) -> tuple[bytes, bytes]:
    return b"tEXt", b"chara\0" + base64.b64encode(json.dumps(card).encode())


class TestPng:
    """A PNG card carries the card as base64 JSON in its chara text chunk."""

    CARD = export_card([], name="Vera")

    def test_png_round_trip(self) -> None:
        """Trackers written into a PNG card read back equal; the image and other chunks stay."""
        png = _png(_chara(self.CARD), (b"tEXt", b"ccv3\0e30="))
        card = card_from_png(png, "vera.png")
        assert card == self.CARD
        assert isinstance(card, dict)
        written = card_into_png(png, export_card(BUNDLED[:2], card), "vera.png")
        back = card_from_png(written, "vera.png")
        assert list(card_from_data(back, "vera.png").trackers) == BUNDLED[:2]
        assert written.count(b"chara\0") == 1
        assert b"ccv3\0e30=" in written
        assert written[: written.index(b"tEXt") - 4] == png[: png.index(b"tEXt") - 4]

    @pytest.mark.parametrize(
        ("png", "reason"),
        [
            (b"GIF89a", "is not a PNG image"),
            (_png()[:-6], "is a broken PNG: a chunk is cut short"),
            (_png(), "is a PNG with no character card in it (no chara or ccv3 text chunk)"),
            (
                _png((b"tEXt", b"chara\0not base64!")),
                "holds a tEXt chunk 'chara' that is not base64 of UTF-8 JSON",
            ),
        ],
        ids=["not-png", "cut-short", "no-card", "not-base64"],
    )
    def test_refused(self, png: bytes, reason: str) -> None:
        """Each names the file."""
        with pytest.raises(ImportRefusedError, match=rf"^vera\.png: {re.escape(reason)}"):
            card_from_png(png, "vera.png")

    def test_a_bad_crc_is_refused(self) -> None:
        """A chunk whose CRC does not match is named."""
        png = bytearray(_png(_chara(self.CARD)))
        png[-20] ^= 0xFF
        with pytest.raises(ImportRefusedError, match="fails its CRC"):
            card_from_png(bytes(png), "vera.png")
