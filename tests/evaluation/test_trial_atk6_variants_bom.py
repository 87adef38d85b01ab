"""Trial atk6, finding 7: a --variants file opening with a UTF-8 byte order mark was refused as
not JSON, while scenes, trackers and cards with one load; one is skipped as they skip it."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.variants import read_variants


def test_one_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "variants.json"
    path.write_bytes(b'\xef\xbb\xbf[{"name": "scripted"}]')
    assert [v.name for v in read_variants(path)] == ["scripted"]


def test_a_second_one_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "variants.json"
    path.write_bytes(b'\xef\xbb\xbf\xef\xbb\xbf[{"name": "scripted"}]')
    with pytest.raises(BadRequestError, match="not valid JSON"):
        read_variants(path)
