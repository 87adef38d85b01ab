"""Trial atk6, finding 4: `export --to card --card CARD` replaced the trackers the card already
carried without a word. The replacing stays (`--card` keeps every other key of the card); stderr
names each tracker the card carried that the export drops, and how to keep it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
TRACKERS = ROOT / "data" / "trackers"
VERA = ROOT / "examples" / "vera.json"


def _export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["export", "--to", "card", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _names(card: str) -> list[str]:
    return [t["name"] for t in json.loads(card)["data"]["extensions"]["trackerkit"]["trackers"]]


@pytest.fixture
def carrying(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Vera's card carrying Health and Stamina."""
    code, out, _ = _export(
        capsys, "--card", str(VERA), str(TRACKERS / "health.json"), str(TRACKERS / "stamina.json")
    )
    assert code == 0
    card = tmp_path / "c1.json"
    card.write_text(out)
    return card


class TestDropped:
    """What a card carried and the export leaves out is named on stderr."""

    def test_the_dropped_trackers_are_named(
        self, carrying: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Exporting Pack alone into a card carrying Health and Stamina drops both: said."""
        code, out, err = _export(capsys, "--card", str(carrying), str(TRACKERS / "pack.json"))
        assert code == 0
        assert _names(out) == ["Pack"]  # the replacing stays
        assert err.splitlines()[1] == (
            f'trackerkit: warning: {carrying} carried the trackers "Health" and "Stamina", '
            "which this export drops: --card replaces the trackers a card carries with the ones "
            "exported. To keep them, export them together with these in one command (their "
            "tracker files, or a scene linking them, beside the others)"
        )

    def test_a_tracker_exported_again_is_not_dropped(
        self, carrying: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Health exported again replaces the card's Health; only Stamina is dropped."""
        code, out, err = _export(capsys, "--card", str(carrying), str(TRACKERS / "health.json"))
        assert code == 0
        assert _names(out) == ["Health"]
        assert f'{carrying} carried the tracker "Stamina", which this export drops' in err
        assert "To keep it, export it together with these" in err

    def test_nothing_dropped_nothing_said(
        self, carrying: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """All the carried trackers exported again (and one more): no warning."""
        paths = [str(TRACKERS / f"{n}.json") for n in ("health", "stamina", "pack")]
        code, out, err = _export(capsys, "--card", str(carrying), *paths)
        assert code == 0
        assert _names(out) == ["Health", "Stamina", "Pack"]
        assert err == "trackerkit: 3 trackers under data.extensions.trackerkit\n"

    def test_a_card_without_trackers(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A card that carried none: only the count is said."""
        code, _, err = _export(capsys, "--card", str(VERA), str(TRACKERS / "health.json"))
        assert (code, err) == (0, "trackerkit: 1 tracker under data.extensions.trackerkit\n")
