"""Source keys to TR-1 field names and piece ids (issue 16 item 1)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trackerkit.formats.names import FieldNames, piece_id

TR1 = re.compile(r"[a-z][a-z0-9_]{0,63}")
ID = re.compile(r"[a-z0-9][a-z0-9-]{0,127}")


class TestFieldNames:
    """A readable slug or transliteration, unique within a tracker (TR-1)."""

    @pytest.mark.parametrize(
        ("key", "name"),
        [
            ("StateOfDress", "state_of_dress"),
            ("当前位置", "dang_qian_wei_zhi"),
            ("角色", "jue_se"),
            ("银行", "yin_hang"),
            ("音乐", "yin_yue"),
            ("ひらがな", "hi_ra_ga_na"),
            ("好感度HP", "hao_gan_du_hp"),
            ("HP (max)", "hp_max"),
            ("Ça va?", "ca_va"),
            ("Привет", "privet"),
            ("123", "f_123"),
            ("", "field"),
            ("***", "field"),
        ],
        ids=[
            "camel",
            "chinese",
            "chinese-by-word-jue",
            "chinese-by-word-hang",
            "chinese-by-word-yue",
            "kana",
            "chinese-then-latin",
            "punctuation",
            "accents",
            "cyrillic",
            "digits",
            "empty",
            "symbols",
        ],
    )
    def test_slug(self, key: str, name: str) -> None:
        """Each key reads as lowercase ASCII words joined by `_`."""
        assert FieldNames().name(key) == name

    def test_unique_and_reserved(self) -> None:
        """A name taken or reserved (a list's `name`, TR-19) gets `_2`, `_3`, ..."""
        names = FieldNames(reserved=("name",))
        assert [names.name(k) for k in ("Name", "HP", "hp", "Hp")] == [
            "name_2",
            "hp",
            "hp_2",
            "hp_3",
        ]

    @given(st.lists(st.text(max_size=80), max_size=30))
    def test_law_every_name_is_tr1_and_unique(self, keys: list[str]) -> None:
        """TR-1 law: whatever the keys, every name matches the rule and none repeats."""
        names = FieldNames(reserved=("name",))
        given_names = [names.name(k) for k in keys]
        assert all(TR1.fullmatch(n) for n in given_names)
        assert len(set(given_names)) == len(given_names)
        assert "name" not in given_names


class TestPieceId:
    """A tracker's id from its name, unique among the ids taken."""

    def test_id(self) -> None:
        """Words joined by `-`; a taken id gets `-2`."""
        taken: set[str] = set()
        assert [piece_id(n, taken) for n in ("主角 背包", "Li", "li", "")] == [
            "zhu-jue-bei-bao",
            "li",
            "li-2",
            "tracker",
        ]

    @given(st.lists(st.text(max_size=200), max_size=20))
    def test_law_ids_are_valid_and_unique(self, names: list[str]) -> None:
        """Every id can name a piece file, and none repeats."""
        taken: set[str] = set()
        ids = [piece_id(n, taken) for n in names]
        assert all(ID.fullmatch(i) for i in ids)
        assert len(set(ids)) == len(ids)
