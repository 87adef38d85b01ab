"""A `ts` that is ISO-8601 but names no moment a reader can hold is refused for what it is; a
comma decimal sign is read (TC-4, TC-19).

Found defects (trial atk5, finding 9): `0001-01-01T00:30:00.000+01:00`, which is ISO-8601 and
falls before 0001-01-01 in UTC, was refused as "not an ISO-8601 time"; so was
`2026-11-27T10:00:00,5Z`, whose comma ISO-8601 allows as the decimal sign. The first is now
refused in the writer's words (`format_ts`), the second read as the dot.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import read_trace
from trackerkit.trace.write import format_ts

BEFORE = "falls before 0001-01-01 in UTC, which no trace timestamp can name"
AFTER = "falls after 9999-12-31 in UTC, which no trace timestamp can name"


def _line(ts: str) -> bytes:
    event = {"ts": ts, "turn": "", "session": "", "source": "s", "kind": "k", "name": "n"}
    return json.dumps(event | {"data": {}}).encode("utf-8")


def _read(tmp_path: Path, ts: str, lines: int) -> tuple[pd.DataFrame, list[str]]:
    """`ts` on line 2 of a day file of `lines` lines (3: read line by line; 3000: in blocks)."""
    body = [_line("2026-11-27T09:00:00.000Z")] * lines
    body[1] = _line(ts)
    (tmp_path / "2026-11-27.jsonl").write_bytes(b"\n".join(body) + b"\n")
    events, errors = read_trace(tmp_path)
    return events, [f"{e.line}: {e.reason}" for e in errors]


def _second(events: pd.DataFrame) -> str:
    """The moment read from line 2."""
    [moment] = events.loc[events["line"] == 2, "ts"]
    return str(moment.isoformat())


BLOCKS = pytest.mark.parametrize("lines", [3, 3000], ids=["line-by-line", "in-blocks"])


@BLOCKS
class TestOutsideTheYears:
    @pytest.mark.parametrize(
        ("ts", "why"),
        [
            ("0001-01-01T00:30:00.000+01:00", BEFORE),
            ("0001-01-01T00:00:00+00:01", BEFORE),
            ("9999-12-31T23:30:00.000-01:00", AFTER),
        ],
        ids=["before", "before-by-a-minute", "after"],
    )
    def test_a_moment_outside_utcs_years_is_named(
        self, tmp_path: Path, lines: int, ts: str, why: str
    ) -> None:
        """TC-19: the line is broken, and the reason says where the moment falls, not that it
        is not ISO-8601."""
        events, errors = _read(tmp_path, ts, lines)
        assert errors == [
            f"2: field ts {ts!r} {why} (a ts lies between 0001-01-01 and 9999-12-31 UTC)"
        ]
        assert len(events) == lines - 1

    def test_the_writer_refuses_it_in_the_same_words(self, tmp_path: Path, lines: int) -> None:
        """What the reader says of such a ts, `format_ts` says of the moment."""
        with pytest.raises(BadRequestError, match=BEFORE):
            format_ts(dt.datetime(1, 1, 1, 0, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))))

    def test_the_edges_themselves_are_read(self, tmp_path: Path, lines: int) -> None:
        """The first and last moments UTC holds are read (the offsets bring them inside)."""
        for ts, moment in [
            ("0001-01-01T01:30:00.000+01:00", "0001-01-01T00:30:00+00:00"),
            ("9999-12-31T22:30:00.000-01:00", "9999-12-31T23:30:00+00:00"),
        ]:
            events, errors = _read(tmp_path, ts, lines)
            assert errors == []
            assert _second(events) == moment


@BLOCKS
class TestCommaDecimal:
    @pytest.mark.parametrize(
        ("ts", "moment"),
        [
            ("2026-11-27T10:00:00,5Z", "2026-11-27T10:00:00.500000+00:00"),
            ("2026-11-27T10:00:00,123456+01:00", "2026-11-27T09:00:00.123456+00:00"),
            ("2026-11-27t10:00:00,25z", "2026-11-27T10:00:00.250000+00:00"),
            ("20261127T100000,5Z", "2026-11-27T10:00:00.500000+00:00"),
        ],
        ids=["utc", "offset", "small-t-z", "basic-form"],
    )
    def test_a_comma_before_the_seconds_fraction_reads_as_the_dot(
        self, tmp_path: Path, lines: int, ts: str, moment: str
    ) -> None:
        """ISO-8601 allows `,` as the decimal sign: the moment is the one the dot names."""
        events, errors = _read(tmp_path, ts, lines)
        assert errors == []
        assert _second(events) == moment

    @pytest.mark.parametrize("ts", ["2026-11-27,10:00:00Z", "2026-11-27T10:00:00,Z"])
    def test_another_comma_is_not_a_time(self, tmp_path: Path, lines: int, ts: str) -> None:
        """A comma elsewhere is not a decimal sign: the line stays broken."""
        _, errors = _read(tmp_path, ts, lines)
        assert errors == [f"2: field ts {ts!r} is not an ISO-8601 time"]
