"""A `ts` that is not a datetime is refused in a sentence, and `path_for` keeps its docstring.

Found defects (trial atk5, findings 7 and 8): `format_ts` and `path_for` raised AttributeError
("'datetime.date' object has no attribute 'tzinfo'") for a `date` or a string, and `write`
logged that; `write(ts=0)` stamped the current time (any falsy ts counted as none); and
`path_for` named a day file for a moment `format_ts` refuses when the writer's zone is the
moment's own (then `astimezone` converts nothing and nothing overflowed).
"""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from pathlib import Path
from typing import Any

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import TraceWriter
from trackerkit.trace.write import format_ts

NOT_DATETIMES = [
    pytest.param(dt.date(2026, 11, 27), "the date 2026-11-27", id="date"),
    pytest.param("2026-11-27T10:00:00Z", "the str '2026-11-27T10:00:00Z'", id="str"),
    pytest.param(0, "the int 0", id="zero"),
    pytest.param(False, "the bool False", id="false"),
    pytest.param(1_764_237_600.0, "the float 1764237600.0", id="epoch-seconds"),
]
MUST = "the event's ts must be a datetime (aware, or naive and taken as UTC)"
ADDIS = zoneinfo.ZoneInfo("Africa/Addis_Ababa")  # UTC+2:35 in year 1 (local mean time)


class TestRefused:
    @pytest.mark.parametrize(("ts", "found"), NOT_DATETIMES)
    def test_format_ts_raises_the_sentence(self, ts: Any, found: str) -> None:
        """`format_ts` of a value that is not a datetime raises a BadRequestError naming it."""
        with pytest.raises(BadRequestError) as raised:
            format_ts(ts)
        assert str(raised.value).startswith(f"{MUST}; found {found}")

    @pytest.mark.parametrize(("ts", "found"), NOT_DATETIMES)
    def test_path_for_raises_the_sentence(self, tmp_path: Path, ts: Any, found: str) -> None:
        """`path_for` refuses it alike."""
        writer = TraceWriter(tmp_path, timezone="America/New_York", keep_days=None)
        with pytest.raises(BadRequestError) as raised:
            writer.path_for(ts)
        assert str(raised.value).startswith(f"{MUST}; found {found}")

    @pytest.mark.parametrize(("ts", "found"), NOT_DATETIMES)
    def test_write_logs_the_sentence_and_writes_nothing(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture, ts: Any, found: str
    ) -> None:
        """TC-20: `write` returns False and logs the sentence; `ts=0` is not "no ts" (no stamp
        of the current time), and nothing is written."""
        writer = TraceWriter(tmp_path, timezone="America/New_York", keep_days=None)
        with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
            assert writer.write(kind="eve", name="turn.started", ts=ts) is False
        writer.close()
        assert not (tmp_path / "trace").exists()
        [record] = caplog.records
        assert record.getMessage().startswith(f"trace write failed: {MUST}; found {found}")

    def test_a_clock_that_gives_no_datetime_is_refused_alike(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A clock that returns a date is logged in the same sentence, not as Python internals."""
        writer = TraceWriter(tmp_path, clock=lambda: dt.date(2026, 11, 27), keep_days=None)  # type: ignore[arg-type, return-value]
        with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
            assert writer.write(kind="eve", name="turn.started") is False
        assert "has no attribute" not in caplog.records[0].getMessage()
        assert MUST in caplog.records[0].getMessage()

    def test_a_datetime_is_still_written(self, tmp_path: Path) -> None:
        """A pandas Timestamp is a datetime: written as one."""
        pd = pytest.importorskip("pandas")
        writer = TraceWriter(tmp_path, keep_days=None)
        assert writer.write(kind="eve", name="x", ts=pd.Timestamp("2026-11-27T10:00Z")) is True
        writer.close()
        line = (tmp_path / "trace" / "2026-11-27.jsonl").read_text(encoding="utf-8")
        assert line.startswith('{"ts":"2026-11-27T10:00:00.000Z"')


class TestPathForKeepsItsDocstring:
    @pytest.mark.parametrize(
        "ts",
        [
            dt.datetime(1, 1, 1, tzinfo=ADDIS),
            dt.datetime(1, 1, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=5))),
        ],
        ids=["iana-zone", "fixed-offset"],
    )
    def test_path_for_refuses_what_format_ts_refuses(self, tmp_path: Path, ts: dt.datetime) -> None:
        """A moment before year 1 in UTC has no day file, even in a writer of its own zone
        (where converting it changes nothing): `path_for` raises `format_ts`'s sentence."""
        assert ts.tzinfo is not None
        writer = TraceWriter(tmp_path, timezone=ts.tzinfo, keep_days=None)
        with pytest.raises(BadRequestError, match=r"falls before 0001-01-01 in UTC") as raised:
            writer.path_for(ts)
        with pytest.raises(BadRequestError) as formatted:
            format_ts(ts)
        assert str(raised.value) == str(formatted.value)

    def test_the_day_is_the_stamped_moments(self, tmp_path: Path) -> None:
        """TC-2: the day file is the day, in the writer's zone, of the moment the ts stamps."""
        moscow = zoneinfo.ZoneInfo("Europe/Moscow")
        writer = TraceWriter(tmp_path, timezone=moscow, keep_days=None)
        late = dt.datetime(2026, 11, 27, 23, 30, tzinfo=moscow)
        assert writer.path_for(late).name == "2026-11-27.jsonl"
        assert writer.path_for(late.astimezone(dt.UTC)).name == "2026-11-27.jsonl"
