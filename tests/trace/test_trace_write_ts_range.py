"""A `ts` whose day no day file can name is refused in a sentence (TC-2, TC-20).

A found defect: `TraceWriter.write(ts=datetime(1, 1, 1, 4))` with the writer in New York (the
local date is in year 0) returned False and logged only "date value out of range". The write
still never raises (TC-20), but the log now says which `ts` it was, in which zone, and why no
day file can hold it; `path_for` and `format_ts` raise `BadRequestError` with that sentence.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import TraceWriter
from trackerkit.trace.write import format_ts

EARLY = dt.datetime(1, 1, 1, 4)  # 0001-01-01 04:00 UTC: 0000-12-31 23:03:58 in New York (LMT)
LATE = dt.datetime(9999, 12, 31, 20, tzinfo=dt.UTC)  # already year 10000 in Tokyo
PLUS_FIVE = dt.timezone(dt.timedelta(hours=5))


def _failed_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, zone: str, ts: dt.datetime
) -> str:
    """The one warning a refused write logs (it returns False, raises nothing, writes nothing)."""
    writer = TraceWriter(tmp_path, timezone=zone, keep_days=None)
    with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
        assert writer.write(kind="eve", name="turn.started", ts=ts) is False
    writer.close()
    assert writer.failures == 1
    assert not (tmp_path / "trace").exists() or list((tmp_path / "trace").iterdir()) == []
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert "out of range" not in message
    return message


class TestWrite:
    @pytest.mark.parametrize("ts", [EARLY, EARLY.replace(tzinfo=dt.UTC)], ids=["naive", "aware"])
    def test_a_day_before_year_one_is_named_in_the_log(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture, ts: dt.datetime
    ) -> None:
        """TC-2, TC-20: a ts whose local day is before 0001-01-01 is logged with ts, zone and why."""
        message = _failed_write(tmp_path, caplog, "America/New_York", ts)
        assert message == (
            "trace write failed: the event's ts 0001-01-01T04:00:00.000Z falls before 0001-01-01 "
            "in the writer's time zone (America/New_York), so no day file (YYYY-MM-DD.jsonl) can "
            "name its day and the event is not written; give a ts between 0001-01-01 and "
            "9999-12-31 in that zone"
        )

    def test_a_day_after_year_9999_is_named_in_the_log(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """TC-2: a ts whose local day is after 9999-12-31 (east of UTC) is refused alike."""
        message = _failed_write(tmp_path, caplog, "Asia/Tokyo", LATE)
        assert "9999-12-31T20:00:00.000Z falls after 9999-12-31" in message
        assert "(Asia/Tokyo)" in message

    def test_a_moment_utc_cannot_hold_is_named_in_the_log(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """An aware ts that is before year 1 in UTC (its stamp) is refused in a sentence too."""
        message = _failed_write(tmp_path, caplog, "UTC", dt.datetime(1, 1, 1, tzinfo=PLUS_FIVE))
        assert message == (
            "trace write failed: the event's ts 0001-01-01T00:00:00+05:00 falls before "
            "0001-01-01 in UTC, which no trace timestamp can name, and the event is not written; "
            "give a ts between 0001-01-01 and 9999-12-31 UTC"
        )

    def test_the_first_day_is_written_where_it_exists(self, tmp_path: Path) -> None:
        """TC-2: the same ts in UTC has a day file (0001-01-01), so it is written."""
        writer = TraceWriter(tmp_path, timezone="UTC", keep_days=None)
        assert writer.write(kind="eve", name="turn.started", ts=EARLY) is True
        writer.close()
        line = (tmp_path / "trace" / "0001-01-01.jsonl").read_text(encoding="utf-8")
        assert line.startswith('{"ts":"0001-01-01T04:00:00.000Z"')


class TestRaised:
    def test_path_for_raises_the_sentence(self, tmp_path: Path) -> None:
        """`path_for`, which names the day file, raises a BadRequestError saying why."""
        writer = TraceWriter(tmp_path, timezone="America/New_York")
        with pytest.raises(BadRequestError, match=r"falls before 0001-01-01 in the writer's"):
            writer.path_for(EARLY)

    @pytest.mark.parametrize(
        ("ts", "side"),
        [
            (dt.datetime(1, 1, 1, tzinfo=PLUS_FIVE), "before 0001-01-01"),
            (dt.datetime(9999, 12, 31, 23, tzinfo=dt.timezone(-dt.timedelta(hours=5))), "after"),
        ],
        ids=["before", "after"],
    )
    def test_format_ts_raises_the_sentence(self, ts: dt.datetime, side: str) -> None:
        """`format_ts` of a moment outside UTC's years 1 to 9999 raises a BadRequestError."""
        with pytest.raises(BadRequestError, match=f"falls {side}.* in UTC"):
            format_ts(ts)
