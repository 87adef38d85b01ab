"""PNG character cards: a V2 card in `chara`, a V3 card in `ccv3` (tEXt, iTXt or zTXt), imported.

Every PNG here is written by the test (a 1x1 image and its text chunks); nothing is copied.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit import decode_tracker
from trackerkit.cli import main
from trackerkit.errors import ImportRefusedError
from trackerkit.formats import detect_format, import_file
from trackerkit.formats.card import card_from_png, card_into_png, export_card, new_card
from trackerkit.formats.detect import png_card
from trackerkit.formats.png import png_card_chunks, png_chunks

DATA = Path(__file__).resolve().parents[2] / "data" / "trackers"
BUNDLED = [decode_tracker(json.loads(p.read_text())) for p in sorted(DATA.glob("*.json"))]


def chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(*extra: bytes) -> bytes:
    """A 1x1 grey PNG with the chunks `extra` before IEND."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x80"))
    return b"\x89PNG\r\n\x1a\n" + body + b"".join(extra) + chunk(b"IEND", b"")


def b64(card: object) -> bytes:
    """The card as card editors store it: base64 of its UTF-8 JSON."""
    return base64.b64encode(json.dumps(card, ensure_ascii=False).encode())


def text_chunk(keyword: str, card: object) -> bytes:
    """A tEXt chunk holding `card`."""
    return chunk(b"tEXt", keyword.encode() + b"\0" + b64(card))


def itxt_chunk(keyword: str, card: object, *, compressed: bool) -> bytes:
    """An iTXt chunk holding `card`, zlib-compressed or not."""
    text = zlib.compress(b64(card)) if compressed else b64(card)
    flag = b"\x01\x00" if compressed else b"\x00\x00"
    return chunk(b"iTXt", keyword.encode() + b"\0" + flag + b"en\0\0" + text)


def v3(card: dict[str, Any]) -> dict[str, Any]:
    """The V2 card as a V3 card (the spec and version changed, the rest kept)."""
    return {**card, "spec": "chara_card_v3", "spec_version": "3.0"}


def mvu_card() -> dict[str, Any]:
    """A card whose character book holds an [InitVar] entry, as MVU cards are shipped."""
    card = new_card("雾港")
    card["data"]["character_book"] = {
        "entries": [
            {"comment": "世界观", "content": "雾港是一座港口小镇。", "keys": ["雾港"]},
            {
                "comment": "[InitVar] 初始变量",
                "content": "林:\n  好感度: [0, '[-30,100] 林对主角的好感']\n  位置: [教堂, 林在哪里]\n",
                "keys": [],
            },
        ]
    }
    return card


class TestRead:
    """The card chunk read from tEXt, iTXt and zTXt; V3 preferred."""

    def test_v2_card_in_text_chunk(self) -> None:
        """An exported card in a chara tEXt chunk imports to equal trackers."""
        image = png(text_chunk("chara", export_card(BUNDLED[:2], name="Vera")))
        assert list(import_file_bytes(image, "vera.png").trackers) == BUNDLED[:2]

    @pytest.mark.parametrize("compressed", [False, True], ids=["itxt", "itxt-zlib"])
    def test_v3_preferred_over_a_stale_v2(self, compressed: bool) -> None:
        """A ccv3 card holding a V3 card wins over the chara copy beside it, as V3 readers do."""
        stale = export_card(BUNDLED[:1], name="Vera")
        fresh = v3(export_card(BUNDLED[1:3], name="Vera"))
        image = png(text_chunk("chara", stale), itxt_chunk("ccv3", fresh, compressed=compressed))
        assert png_card(image, "vera.png") == fresh
        assert list(import_file_bytes(image, "vera.png").trackers) == BUNDLED[1:3]

    def test_ztxt(self) -> None:
        """A zTXt chunk (method 0) is unpacked."""
        card = export_card(BUNDLED[:1], name="Vera")
        image = png(chunk(b"zTXt", b"chara\0\0" + zlib.compress(b64(card))))
        assert card_from_png(image, "vera.png") == card

    def test_junk_ccv3_falls_back_to_chara(self) -> None:
        """A ccv3 chunk that holds no V3 card does not hide the V2 card."""
        card = export_card(BUNDLED[:1], name="Vera")
        image = png(text_chunk("chara", card), text_chunk("ccv3", {}))
        assert png_card(image, "vera.png") == card

    def test_other_text_chunks_ignored(self) -> None:
        """Other keywords (a comment, software) are not cards."""
        card = export_card([], name="Vera")
        image = png(chunk(b"tEXt", b"Comment\0hello"), text_chunk("chara", card))
        assert [c.keyword for c in png_card_chunks(image, "vera.png")] == ["chara"]

    def test_mvu_card(self) -> None:
        """A PNG card carrying [InitVar] entries in its book is told as MVU and imported."""
        path_free = png(text_chunk("chara", mvu_card()))
        imported = import_file_bytes(path_free, "雾港.png")
        assert imported.report.format == "mvu"
        assert [t.name for t in imported.trackers] == ["林"]
        assert [f.name for f in imported.trackers[0].fields] == ["hao_gan_du", "wei_zhi"]


def import_file_bytes(image: bytes, name: str) -> Any:
    """`import_file` on the image written to a temporary file of that name."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(image)
        assert detect_format(path) in ("card", "mvu")
        return import_file(path)


class TestWrite:
    """Export into a PNG card updates the V3 chunk too, so either reader finds the trackers."""

    def test_ccv3_updated(self) -> None:
        """The ccv3 card gets the trackers under data.extensions.trackerkit, its other keys kept."""
        base = new_card("Vera")
        base["data"]["extensions"]["depth_prompt"] = {"depth": 4}
        image = png(text_chunk("chara", base), itxt_chunk("ccv3", v3(base), compressed=True))
        out = card_into_png(image, export_card(BUNDLED[:2], base), "vera.png")
        chunks = png_card_chunks(out, "vera.png")
        assert sorted(c.keyword for c in chunks) == ["ccv3", "chara"]
        read = png_card(out, "vera.png")
        assert isinstance(read, dict)
        assert read["spec"] == "chara_card_v3"
        assert read["data"]["extensions"]["depth_prompt"] == {"depth": 4}
        v2 = next(c for c in chunks if c.keyword == "chara")
        assert json.loads(v2.text)["spec"] == "chara_card_v2"
        assert json.loads(v2.text)["data"]["extensions"]["trackerkit"]["links"] == [
            t.id for t in BUNDLED[:2]
        ]
        assert list(import_file_bytes(out, "vera.png").trackers) == BUNDLED[:2]
        assert [k for k, _ in png_chunks(out, "vera.png")][:2] == [b"IHDR", b"IDAT"]


GOOD = png(text_chunk("chara", export_card(BUNDLED[:1], name="Vera")))


class TestRefused:
    """A broken PNG is refused naming the file."""

    @pytest.mark.parametrize(
        ("image", "reason"),
        [
            (GOOD[:-20], "is a broken PNG: chunk b'tEXt' at byte 55 runs past the end"),
            (GOOD[:-12], "is a broken PNG: it has no IEND chunk"),
            (GOOD[:-12] + b"\0\0\0", "is a broken PNG: a chunk is cut short at byte"),
            (png(), "is a PNG with no character card in it (no chara or ccv3 text chunk)"),
            (
                png(chunk(b"iTXt", b"ccv3\0\x01\x00en\0\0not zlib")),
                "holds a iTXt chunk 'ccv3' whose text cannot be unpacked",
            ),
            (
                png(chunk(b"iTXt", b"ccv3\0\x02\x00en\0\0x")),
                "holds a iTXt chunk 'ccv3' with an unknown compression method",
            ),
            (
                png(chunk(b"iTXt", b"ccv3\0\x00\x00en")),
                "holds a iTXt chunk 'ccv3' without its language and translated keyword",
            ),
            (
                png(chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"abc")[:-3])),
                "holds a zTXt chunk 'chara' whose compressed text is cut short",
            ),
            (
                png(chunk(b"tEXt", b"chara\0" + base64.b64encode(b"\xff\xfe"))),
                "holds a tEXt chunk 'chara' that is not base64 of UTF-8 JSON",
            ),
            (
                png(chunk(b"tEXt", b"chara\0" + base64.b64encode(b"[1,"))),
                "holds a tEXt chunk 'chara' whose card is not JSON (unexpected end of data at line 1, column 4)",
            ),
            (
                png(chunk(b"tEXt", b"chara\0" + base64.b64encode(b"a: 1"))),
                "holds a tEXt chunk 'chara' whose card is not JSON (",
            ),
            (
                png(chunk(b"tEXt", b"chara\0" + base64.b64encode(b"3"))),
                "holds a tEXt chunk 'chara' whose card is no JSON object or list",
            ),
        ],
        ids=[
            "past-end",
            "no-iend",
            "cut-short",
            "no-card",
            "bad-zlib",
            "bad-method",
            "itxt-short",
            "ztxt-cut",
            "not-utf8",
            "not-json",
            "yaml-is-not-a-card",
            "a-number",
        ],
    )
    def test_refused(self, image: bytes, reason: str, tmp_path: Path) -> None:
        """`import_file` and `detect_format` both refuse, naming the file."""
        path = tmp_path / "vera.png"
        path.write_bytes(image)
        for read in (import_file, detect_format):
            with pytest.raises(
                ImportRefusedError, match=rf"^{re.escape(str(path))}: {re.escape(reason)}"
            ):
                read(path)

    def test_bad_crc(self, tmp_path: Path) -> None:
        """A flipped byte in the card's chunk fails its CRC."""
        broken = bytearray(GOOD)
        broken[70] ^= 0xFF
        path = tmp_path / "vera.png"
        path.write_bytes(bytes(broken))
        with pytest.raises(
            ImportRefusedError,
            match=r"vera\.png: is a broken PNG: chunk b'tEXt' at byte 55 fails its CRC",
        ):
            import_file(path)

    def test_cli(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """The CLI prints the one-line refusal and writes nothing."""
        path = tmp_path / "vera.png"
        path.write_bytes(GOOD[:-12])
        data = tmp_path / "data"
        assert main(["import", str(path), "--into", str(data)]) == 1
        assert capsys.readouterr().err == (
            f"trackerkit: {path}: is a broken PNG: it has no IEND chunk\n"
        )
        assert not data.exists()


def _ztxt(keyword: str, text: bytes) -> bytes:
    """A zTXt chunk whose text is `text` (already base64), compressed."""
    return chunk(b"zTXt", keyword.encode() + b"\0\0" + zlib.compress(text, 9))


def _json_b64(size: int) -> bytes:
    """Base64 of a JSON object about `size` bytes long that is no card."""
    return base64.b64encode(b'{"a":"' + b"x" * size + b'"}')


class TestBounded:
    """A card PNG unpacks at most 32 MiB of text in all, and only the chunks readers use."""

    def test_only_the_last_chunk_of_a_keyword_is_unpacked(self) -> None:
        """Found when tried: every chara chunk was unpacked (60 of them took 1.7 GB); earlier ones are not read."""
        card = export_card(BUNDLED[:1], name="Vera")
        broken = chunk(b"zTXt", b"chara\0\0not zlib at all")
        image = png(*[broken] * 50, text_chunk("chara", card))
        assert png_card(image, "vera.png") == card
        assert [c.keyword for c in png_card_chunks(image, "vera.png")] == ["chara"]

    def test_chara_is_not_unpacked_when_ccv3_is_a_v3_card(self) -> None:
        """The V2 copy is left packed when the V3 card is the one read."""
        card = v3(export_card(BUNDLED[:1], name="Vera"))
        image = png(chunk(b"zTXt", b"chara\0\0not zlib"), text_chunk("ccv3", card))
        assert png_card(image, "vera.png") == card

    def test_the_cap_is_for_all_chunks_together(self) -> None:
        """Two chunks of 20 MiB each pass one by one, but not together: refused in words."""
        image = png(_ztxt("ccv3", _json_b64(15 * 2**20)), _ztxt("chara", _json_b64(15 * 2**20)))
        past = (
            "holds a zTXt chunk 'chara' whose text unpacks past what is left of the 32 MiB a "
            "PNG's card chunks may hold in all (a card is kilobytes)"
        )
        for read in (png_card, png_card_chunks):
            with pytest.raises(ImportRefusedError, match=re.escape(f"vera.png: {past}")):
                read(image, "vera.png")

    def test_one_chunk_past_the_cap(self) -> None:
        """A chunk unpacking past 32 MiB is refused, never unpacked whole."""
        image = png(_ztxt("chara", b"QUFB" * (8 * 2**20 + 1)))
        with pytest.raises(
            ImportRefusedError, match="whose text unpacks past what is left of the 32 MiB"
        ):
            png_card(image, "vera.png")

    def test_long_text_that_is_not_json_is_refused_as_json(self, tmp_path: Path) -> None:
        """Found when tried: 24 MB of base64 text that is no JSON went through YAML and JSON5 (10-37 s); now one JSON read refuses it."""
        path = tmp_path / "vera.png"
        path.write_bytes(png(_ztxt("chara", b"QUFB" * (2 * 2**20))))
        with pytest.raises(
            ImportRefusedError,
            match=re.escape(f"{path}: holds a zTXt chunk 'chara' whose card is not JSON ("),
        ):
            import_file(path)

    def test_export_into_a_card_reads_the_same_chunks(self) -> None:
        """Writing trackers into a PNG reads only the last chunk of each keyword too."""
        card = export_card(BUNDLED[:1], name="Vera")
        image = png(*[chunk(b"zTXt", b"chara\0\0not zlib")] * 20, text_chunk("chara", card))
        out = card_into_png(image, export_card(BUNDLED[:2], card), "vera.png")
        assert list(import_file_bytes(out, "vera.png").trackers) == BUNDLED[:2]


class TestCli:
    """`trackerkit import vera.png` tells the card by content."""

    def test_import(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """The card's trackers are written under their own ids."""
        path = tmp_path / "vera.png"
        path.write_bytes(png(text_chunk("chara", export_card(BUNDLED[:1], name="Vera"))))
        data = tmp_path / "data"
        assert main(["import", str(path), "--into", str(data)]) == 0
        out = capsys.readouterr().out
        assert out.startswith(
            f"{path}: Character Card V2 with trackerkit trackers, 1 tracker (3 exact, 0 guessed, "
            "0 unmapped)\n"
        )
        assert (data / "trackers" / f"{BUNDLED[0].id}.json").is_file()


#: Mutations of a good card PNG: a byte changed, a slice cut, bytes inserted.
_mutated = st.tuples(
    st.integers(0, len(GOOD) - 1), st.integers(0, 255), st.sampled_from(["set", "cut", "insert"])
).map(
    lambda m: (
        GOOD[: m[0]] + bytes([m[1]]) + GOOD[m[0] + 1 :]
        if m[2] == "set"
        else GOOD[: m[0]]
        if m[2] == "cut"
        else GOOD[: m[0]] + bytes([m[1]]) * 4 + GOOD[m[0] :]
    )
)
#: PNGs whose text chunks carry random keywords and payloads, CRCs right.
_random_chunks = st.lists(
    st.tuples(
        st.sampled_from([b"tEXt", b"iTXt", b"zTXt", b"IDAT", b"IEND"]),
        st.sampled_from([b"chara\0", b"ccv3\0", b"x\0", b""]),
        st.binary(max_size=60)
        | st.sampled_from(
            [
                b"\x00\x00en\0\0" + b64({"spec": "chara_card_v3"}),
                b"\x01\x00en\0\0" + zlib.compress(b64({"a": 1})),
                b"\0" + zlib.compress(b"e30="),
                b64([1, 2]),
            ]
        ),
    ),
    max_size=5,
).map(lambda parts: png(*(chunk(kind, key + body) for kind, key, body in parts)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_mutated, _random_chunks, st.binary(max_size=80).map(lambda b: GOOD[:8] + b)))
def test_fuzz_only_documented_errors(image: bytes) -> None:
    """Random and damaged PNGs: a card (any JSON) or an ImportRefusedError naming the file."""
    refused: ImportRefusedError | None = None
    try:
        png_card(image, "fuzz.png")
    except ImportRefusedError as error:
        refused = error
    if refused is not None:
        assert refused.file == "fuzz.png"
        assert str(refused).startswith("fuzz.png: ")
