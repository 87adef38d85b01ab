"""Findings of a new user's trial of `trackerkit import` (and export's reading of a file)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cli_run import run_cli as _run

from trackerkit import ImportRefusedError
from trackerkit.formats import import_file

EXAMPLES = Path(__file__).parents[2] / "examples"


def _lines(data: object, tmp_path: Path, name: str = "vars.json") -> list[str]:
    """The report lines of `data` imported as MVU."""
    path = tmp_path / name
    path.write_bytes(orjson.dumps(data))
    return [str(line) for line in import_file(path, "mvu").report.lines]


class TestFromAnotherFormat:
    """`--from mvu` on a file content detection tells is another known format."""

    def test_wtracker_file_as_mvu_is_refused(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A WTracker file read as MVU names what it looks like and how to import it."""
        wtracker = EXAMPLES / "wtracker.json"
        data = tmp_path / "data"
        assert _run(capsys, "import", str(wtracker), "--from", "mvu", "--into", str(data)) == (
            1,
            "",
            f"trackerkit: {wtracker}: looks like a WTracker file, not MVU; import it with "
            "--from wtracker, or without --from\n",
        )
        assert not data.exists()

    @pytest.mark.parametrize(
        ("data", "reason"),
        [
            (
                {"trackerDef": {"field-0": {"name": "Time", "type": "STRING"}}},
                "looks like a SillyTavern-Tracker file, not MVU; import it with --from "
                "sillytavern-tracker, or without --from",
            ),
            (
                {"trackerConfig": {"userStats": {}}},
                "looks like an RPG Companion file, not MVU; import it with --from rpg-companion, "
                "or without --from",
            ),
            (
                {"kind": "tracker", "id": "li", "body": {}},
                "is already a trackerkit tracker: it needs no import; copy it into the trackers "
                "folder of your data folder (trackerkit check reads trackers)",
            ),
        ],
        ids=["sillytavern-tracker", "rpg-companion", "own-tracker"],
    )
    def test_other_formats_as_mvu_are_refused(
        self, tmp_path: Path, data: object, reason: str
    ) -> None:
        """Each importer refuses a file of another kind; MVU, which reads any object, too."""
        path = tmp_path / "other.json"
        path.write_bytes(orjson.dumps(data))
        with pytest.raises(ImportRefusedError) as caught:
            import_file(path, "mvu")
        assert caught.value.reason == reason

    def test_plain_variables_still_import(self, tmp_path: Path) -> None:
        """Variables no format claims (plain values only) are what --from mvu is for."""
        assert _lines({"Li": {"hp": 5}}, tmp_path) == ["exact: Li.hp -> Li.hp: number"]

    def test_flattened_field_is_guessed(self, tmp_path: Path) -> None:
        """A nested object flattened into a dotted name is read from a shape: guessed."""
        assert _lines({"Li": {"hp": 5, "mood": {"now": "calm"}}}, tmp_path) == [
            "exact: Li.hp -> Li.hp: number",
            'guessed: Li.mood.now -> Li.mood_now: text; flattened from 2 levels as "mood.now"',
        ]
