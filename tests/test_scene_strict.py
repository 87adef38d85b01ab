"""Scene files are read as strictly as tracker files (trial atk6, findings 3, 8 and 9).

A scene's settings are neither coerced nor reworded by pydantic: a boolean is true or false, a
whole number is an int (no text, no boolean, no fraction), each said at its path in the tracker
decoder's words with the value as the file writes it; a UTF-16 file is named as such; and a
reply reserve that leaves nothing of the window is refused when the scene loads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from trackerkit import TrackerkitError, load_scene
from trackerkit.cli import main
from trackerkit.scene import read_scene

FIGHT = REPO / "data" / "scenes" / "fight.json"


def _write(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "fight.json"
    path.write_text(text, encoding=encoding)
    return path


def _fight(tmp_path: Path, **keys: Any) -> Path:
    scene = {**json.loads(FIGHT.read_text()), **keys}
    return _write(tmp_path, json.dumps(scene))


def _refusal(path: Path) -> str:
    with pytest.raises(TrackerkitError) as caught:
        load_scene(path)
    return str(caught.value).removeprefix(f"{path}: ")


class TestSettingsAreStrict:
    """A setting of the wrong kind is refused at its path, never coerced (finding 3)."""

    @pytest.mark.parametrize(
        ("key", "value", "said"),
        [
            ("toolAccess", "no", 'toolAccess: must be true or false; found the text "no"'),
            ("toolAccess", "off", 'toolAccess: must be true or false; found the text "off"'),
            ("toolAccess", "0", 'toolAccess: must be true or false; found the text "0"'),
            ("toolAccess", 0, "toolAccess: must be true or false; found 0"),
            ("window", True, "window: must be a whole number, 1 or more; found true"),
            ("window", "8192", 'window: must be a whole number, 1 or more; found the text "8192"'),
            ("window", 8192.0, "window: must be a whole number, 1 or more; found 8192.0"),
            ("window", 0, "window: must be a whole number, 1 or more; found 0"),
            ("reserve", False, "reserve: must be a whole number, 0 or more; found false"),
            ("reserve", "0", 'reserve: must be a whole number, 0 or more; found the text "0"'),
            ("reserve", -1, "reserve: must be a whole number, 0 or more; found -1"),
            ("deleted", 1, "deleted: must be true or false; found 1"),
        ],
        ids=[
            "tool-access-no",
            "tool-access-off",
            "tool-access-text-0",
            "tool-access-0",
            "window-true",
            "window-text",
            "window-float",
            "window-0",
            "reserve-false",
            "reserve-text",
            "reserve-negative",
            "deleted-1",
        ],
    )
    def test_refused_in_the_tracker_decoders_words(
        self, tmp_path: Path, key: str, value: object, said: str
    ) -> None:
        """The value is refused with its path and the value found, as a tracker file's would be."""
        assert _refusal(_fight(tmp_path, **{key: value})) == said

    @pytest.mark.parametrize(
        ("value", "said"), [(0, "0"), ("false", 'the text "false"')], ids=["zero", "text"]
    )
    def test_the_changes_switch_is_a_boolean(
        self, tmp_path: Path, value: object, said: str
    ) -> None:
        """`trackerChanges: 0` no longer reads as false (TR-24 keeps only false)."""
        path = _fight(tmp_path, prompting={"trackers": [], "trackerChanges": value})
        assert _refusal(path) == f"prompting.trackerChanges: must be true or false; found {said}"

    def test_the_bundled_scenes_still_load(self) -> None:
        """Every scene shipped in data/scenes reads without a problem."""
        scenes = sorted(REPO.glob("data/scenes/*.json"))
        assert scenes
        assert [(p.name, read_scene(p).problems) for p in scenes if read_scene(p).problems] == []


class TestNumbersAsWritten:
    """A whole number is said in the tracker decoder's words, shown as the file writes it (finding 8)."""

    def test_a_fraction(self, tmp_path: Path) -> None:
        """8192.5 is not 'a number with a fractional part' in pydantic's words."""
        said = _refusal(_fight(tmp_path, window=8192.5))
        assert said == "window: must be a whole number, 1 or more; found 8192.5"

    def test_a_whole_number_past_64_bits_is_not_shown_as_a_float(self, tmp_path: Path) -> None:
        """10**30 was shown as 1e+30 after pydantic's 'exceeded maximum size'."""
        said = _refusal(_fight(tmp_path, window=10**30))
        assert said == (
            "window: is unusually large: a whole number of 31 digits passes the ceiling of 2^53-1"
        )

    def test_a_whole_number_past_the_safe_range(self, tmp_path: Path) -> None:
        """A reserve past 2^53-1 is refused as a tracker's number would be (TR-11's ceiling)."""
        said = _refusal(_fight(tmp_path, reserve=2**53))
        assert said.startswith(
            "reserve: is unusually large: 9007199254740992 passes the ceiling of 2^53-1"
        )

    def test_the_cli_says_it_in_one_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`trackerkit prompt` prints the same words, no traceback."""
        path = _fight(tmp_path, window=10**30)
        assert main(["prompt", str(path)]) == 1
        assert capsys.readouterr().err == (
            f"trackerkit: {path}: window: is unusually large: a whole number of 31 digits passes "
            "the ceiling of 2^53-1\n"
        )


class TestUtf16:
    """A UTF-16 scene file is named as such, as `check` names a UTF-16 tracker file (finding 8)."""

    @pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
    def test_said_with_the_fix(self, tmp_path: Path, encoding: str) -> None:
        """Not orjson's 'surrogates not allowed'."""
        path = _write(tmp_path, FIGHT.read_text(), encoding)
        assert _refusal(path) == (
            "is UTF-16 text, not UTF-8; save it as UTF-8 (JSON files are UTF-8, RFC 8259)"
        )

    def test_other_bad_json_keeps_its_words(self, tmp_path: Path) -> None:
        """A plain syntax error is still said as orjson finds it."""
        assert _refusal(_write(tmp_path, "{")).startswith("not valid JSON (")


class TestReserveWithinWindow:
    """A reply reserve that leaves nothing of the window is refused when the scene loads (finding 9)."""

    @pytest.mark.parametrize("reserve", [8192, 9000], ids=["equal", "over"])
    def test_refused_at_its_path(self, tmp_path: Path, reserve: int) -> None:
        """Every simulate turn failed on it before; now the scene does not load."""
        said = _refusal(_fight(tmp_path, window=8192, reserve=reserve))
        assert said == (
            f"reserve: must be less than the window (8192 tokens), which it is taken from; "
            f"found {reserve}"
        )

    def test_just_under_loads(self, tmp_path: Path) -> None:
        """A reserve one less than the window is the edge that still loads."""
        assert load_scene(_fight(tmp_path, window=8192, reserve=8191)).reserve == 8191

    def test_a_bad_window_does_not_add_a_reserve_problem(self, tmp_path: Path) -> None:
        """Only the window is named when the window itself is refused."""
        assert _refusal(_fight(tmp_path, window="8192", reserve=9000)) == (
            'window: must be a whole number, 1 or more; found the text "8192"'
        )

    def test_prompt_refuses_it(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`trackerkit prompt` had exited 0 on it."""
        path = _fight(tmp_path, reserve=9000)
        assert main(["prompt", str(path)]) == 1
        assert "reserve: must be less than the window (8192 tokens)" in capsys.readouterr().err
