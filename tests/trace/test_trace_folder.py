"""A trace folder says what it holds: its day files, and every other entry with why it is skipped
(issue 14, "Found when tried" 6; TC-3)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from trackerkit.errors import NotFoundError
from trackerkit.trace import folder, folder_days, read_trace

SAMPLE = Path(__file__).parents[2] / "data" / "trace"


class TestFolderDays:
    def test_the_sample_folder_holds_only_day_files(self) -> None:
        """The bundled folder's day files come oldest first, and nothing is skipped."""
        days, skipped = folder_days(SAMPLE)
        assert [p.name for p in days] == sorted(p.name for p in SAMPLE.glob("*.jsonl"))
        assert skipped == []

    def test_every_other_entry_is_skipped_with_why(self, tmp_path: Path) -> None:
        """A wrong name, a date that is no date, and folders are each listed with their reason."""
        names = ("2026-11-29.jsonl", "2026-11-28.jsonl", "notes.txt", "2026-02-30.jsonl")
        for name in (*names, "2026-11-28.jsonl.bak", "2026-1-5.jsonl"):
            (tmp_path / name).write_text("")
        (tmp_path / "2026-11-30.jsonl").mkdir()
        (tmp_path / "archive").mkdir()
        days, skipped = folder_days(tmp_path)
        assert [p.name for p in days] == ["2026-11-28.jsonl", "2026-11-29.jsonl"]
        assert [(s.name, s.reason) for s in skipped] == [
            ("2026-02-30.jsonl", "2026-02-30 is not a real date"),
            ("2026-1-5.jsonl", "not named YYYY-MM-DD.jsonl"),
            ("2026-11-28.jsonl.bak", "not named YYYY-MM-DD.jsonl"),
            ("2026-11-30.jsonl", "a folder, not a day file"),
            ("archive", "a folder, not a day file"),
            ("notes.txt", "not named YYYY-MM-DD.jsonl"),
        ]
        assert skipped[0].path == tmp_path / "2026-02-30.jsonl"

    def test_the_days_are_the_ones_a_folder_read_takes(self, tmp_path: Path) -> None:
        """folder_days lists exactly the files read_trace reads (and skips what it skips)."""
        (tmp_path / "2026-11-28.jsonl").write_bytes((SAMPLE / "2026-11-28.jsonl").read_bytes())
        (tmp_path / "2026-02-30.jsonl").write_bytes((SAMPLE / "2026-11-29.jsonl").read_bytes())
        events, _ = read_trace(tmp_path)
        days, _ = folder_days(tmp_path)
        assert sorted(events["file"].astype(str).unique()) == [str(p) for p in days]

    def test_an_empty_folder_has_nothing(self, tmp_path: Path) -> None:
        """No day file and nothing skipped: the explorer calls it empty."""
        assert folder_days(tmp_path) == ([], [])

    @pytest.mark.parametrize(
        ("name", "is_file", "words"),
        [("absent", False, "does not exist"), ("a.jsonl", True, "is a file, not a folder")],
        ids=["missing", "a file"],
    )
    def test_a_path_that_is_no_folder_is_named(
        self, tmp_path: Path, name: str, is_file: bool, words: str
    ) -> None:
        """The error names the path and what it is."""
        path = tmp_path / name
        if is_file:
            path.write_text("")
        with pytest.raises(NotFoundError, match=words) as caught:
            folder_days(path)
        assert str(path) in str(caught.value)

    def test_the_docstring_example_runs(self) -> None:
        """The module's example is true."""
        assert doctest.testmod(folder, raise_on_error=True).failed == 0
