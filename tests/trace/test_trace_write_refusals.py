"""An integrator's report: `TraceWriter("data")` wrote into the bundled sample days (and its
retention would have deleted them), and an unknown time zone raised `ZoneInfoNotFoundError`
instead of the library's `BadRequestError`."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import TraceWriter
from trackerkit.workspace import BUNDLED

REPO = Path(__file__).resolve().parents[2]
LATE = dt.datetime(2027, 3, 1, 12, 0, tzinfo=dt.UTC)
"""A real now when every bundled sample day is past the 30 days retention keeps."""


def _samples() -> dict[str, int]:
    return {p.name: p.stat().st_size for p in (REPO / "data" / "trace").iterdir()}


class TestBundledData:
    """A writer with retention on refuses the repository's bundled data folder, as the commands do."""

    @pytest.mark.parametrize(
        "spelling",
        [REPO / "data", REPO / "data" / "trace" / "..", "data"],
        ids=["absolute", "dotted", "relative-from-the-root"],
    )
    def test_it_is_refused_and_nothing_is_deleted(
        self, spelling: Path | str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Making the writer raises BadRequestError naming the folder; the sample days stay."""
        monkeypatch.chdir(REPO)
        assert BUNDLED == REPO / "data"
        before = _samples()
        with pytest.raises(BadRequestError) as refused:
            TraceWriter(spelling, wall_clock=lambda: LATE)
        assert str(refused.value).startswith(
            f"{spelling} is the repository's bundled data, whose trace/ holds the sample days"
        )
        assert "trackerkit.workspace.trace_root()" in str(refused.value)
        assert _samples() == before

    def test_a_writer_of_generated_days_may_write_there(self) -> None:
        """`keep_days=None` (how the samples are regenerated) is made; it deletes nothing."""
        writer = TraceWriter(REPO / "data", keep_days=None)
        assert writer.directory == REPO / "data" / "trace"

    def test_a_link_that_loops_is_refused(self, tmp_path: Path) -> None:
        """A data folder that is a looping symbolic link is refused when the writer is made."""
        os.symlink("loop", tmp_path / "loop")
        with pytest.raises(BadRequestError, match="is a symbolic link that loops"):
            TraceWriter(tmp_path / "loop")

    def test_another_folder_is_written(self, tmp_path: Path) -> None:
        """Any other folder takes events as before."""
        with TraceWriter(tmp_path) as writer:
            assert writer.write(kind="eve", name="x")


class TestTimeZone:
    """A time zone name is checked when the writer is made."""

    @pytest.mark.parametrize(
        "name", ["Mars/Olympus", "", "../etc/passwd"], ids=["unknown", "empty", "a-path"]
    )
    def test_an_unknown_name_is_a_bad_request(self, name: str, tmp_path: Path) -> None:
        """BadRequestError names the zone and where to find valid names, not ZoneInfoNotFoundError."""
        with pytest.raises(BadRequestError) as refused:
            TraceWriter(tmp_path, timezone=name)
        assert str(refused.value) == (
            f"timezone {name!r} is not a time zone this machine knows; use an IANA name such as "
            "Europe/Moscow or UTC (zoneinfo.available_timezones() lists them all)"
        )

    def test_a_known_name_is_its_zone(self, tmp_path: Path) -> None:
        """`Europe/Moscow` names the day files by Moscow's date."""
        writer = TraceWriter(tmp_path, timezone="Europe/Moscow")
        late = dt.datetime(2026, 11, 26, 22, 0, tzinfo=dt.UTC)
        assert writer.path_for(late).name == "2026-11-27.jsonl"
