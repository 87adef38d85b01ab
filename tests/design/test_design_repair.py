"""Refused files listed with their problems, opened as raw JSON and saved once they decode; errors in words."""

from __future__ import annotations

import json

import pytest
from conftest import HEALTH

from trackerkit import Library
from trackerkit.design import attempt, check_raw, raw_text, readable, refused_files, save_raw
from trackerkit.errors import NotFoundError, TrackerkitError

#: Health whose hp names a top that is no field: the decoder refuses it.
BROKEN = {
    **HEALTH,
    "id": "broken",
    "body": {
        **HEALTH["body"],
        "fields": [
            {**HEALTH["body"]["fields"][0], "maxField": "hp_top"},
            *HEALTH["body"]["fields"][1:],
        ],
    },
}


@pytest.fixture
def library(library: Library) -> Library:
    """The bundled trackers and a refused one."""
    (library.path / "broken.json").write_text(json.dumps(BROKEN, indent=2))
    return library


class TestRefused:
    def test_listed_with_problems(self, library: Library) -> None:
        """Only the refused file is listed, with the decoder's problem."""
        [verdict] = refused_files(library)
        assert verdict.id == "broken"
        assert any("hp_top" in str(p) for p in verdict.problems)

    def test_raw_text_is_the_file(self, library: Library) -> None:
        """The raw text is the file's text."""
        assert json.loads(raw_text(library, "broken")) == BROKEN

    def test_raw_text_of_a_missing_file(self, library: Library) -> None:
        """A file that is not there is an error in words."""
        with pytest.raises(TrackerkitError, match=r"nope\.json is not there"):
            raw_text(library, "nope")

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            ("{", "not valid JSON"),
            (json.dumps(BROKEN), "Still refused: 1 problem."),
            (json.dumps({**HEALTH, "id": "broken2"}), "Still refused"),
        ],
        ids=["not json", "still broken", "id not the file's"],
    )
    def test_still_refused_text_is_not_written(
        self, library: Library, text: str, words: str
    ) -> None:
        """Text that does not decode (or names another id) is refused and the file kept."""
        before = (library.path / "broken.json").read_bytes()
        repair = save_raw(library, "broken", text)
        assert words in repair.message
        assert repair.tracker is None
        assert (library.path / "broken.json").read_bytes() == before

    def test_fixed_text_is_saved_and_opens(self, library: Library) -> None:
        """Fixed text is written at the next revision; the file leaves the refused list."""
        fixed = raw_text(library, "broken").replace('"hp_top"', '"hp_max"')
        assert check_raw("broken", fixed).ok
        repair = save_raw(library, "broken", fixed)
        assert repair.message == "Saved broken.json at revision 1; it now opens."
        assert library.get("broken").revision == 1
        assert refused_files(library) == []


class TestReadable:
    def test_our_errors_are_their_message(self) -> None:
        """A trackerkit error reads as its own sentence."""
        assert readable(NotFoundError("no tracker 'x'"), "open") == "Could not open: no tracker 'x'"

    def test_other_errors_are_named(self) -> None:
        """Anything else is named by its type as a fault of the app."""
        assert (
            readable(KeyError("#4")) == "KeyError: '#4' (a fault of the app, not of what you typed)"
        )

    def test_attempt_hands_the_words_on(self) -> None:
        """attempt returns the result, or None after handing the error's words on."""
        said: list[str] = []
        assert attempt(lambda: 2, said.append) == 2
        assert attempt(lambda: 1 // 0, said.append, "divide") is None
        assert said == [
            "Could not divide: ZeroDivisionError: integer division or modulo by zero (a fault of the app, not of what you typed)"
        ]
