"""Retention (TC-3) never deletes a real journal for a simulated or generated day.

Today is the real clock's (`wall_clock`), never the clock that stamps events; the clean-up runs
only when the writer opens the real today's file; it never deletes a file this writer wrote or
one newer than the window; `keep_days=None` turns it off; every removal is logged and listed.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import TraceWriter

REAL = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
"""The real now in these tests (the wall clock)."""

JOURNAL = ["2026-10-01.jsonl", "2026-11-20.jsonl", "2026-12-01.jsonl", "2026-12-02.jsonl"]
"""An assistant's real day files."""


def _journal(data: Path) -> Path:
    folder = data / "trace"
    folder.mkdir(parents=True)
    for name in JOURNAL:
        (folder / name).write_text('{"real": true}\n', encoding="utf-8")
    return folder


def test_a_simulated_clock_ahead_deletes_nothing(tmp_path: Path) -> None:
    """TC-3: events stamped 2027-01-15 by a simulated clock leave the real days in place."""
    folder = _journal(tmp_path)
    ahead = dt.datetime(2027, 1, 15, 12, 0, tzinfo=dt.UTC)
    with TraceWriter(tmp_path, clock=lambda: ahead, wall_clock=lambda: REAL) as writer:
        assert writer.write(kind="eve", name="x")
        assert writer.write(kind="eve", name="x", ts=ahead + dt.timedelta(days=3))
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([*JOURNAL, "2027-01-15.jsonl", "2027-01-18.jsonl"])
    assert writer.removed == []


def test_a_back_dated_day_deletes_nothing(tmp_path: Path) -> None:
    """TC-3: writing a past day (generated days) is not writing live: nothing is deleted."""
    folder = _journal(tmp_path)
    past = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
    with TraceWriter(tmp_path, wall_clock=lambda: REAL) as writer:
        assert writer.write(kind="eve", name="x", ts=past)
    assert (folder / "2026-10-01.jsonl").exists()


def test_writing_live_removes_old_days_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """TC-3: the real today's file cleans up by the real clock; each removal is logged."""
    folder = _journal(tmp_path)
    writer = TraceWriter(tmp_path, clock=lambda: REAL, wall_clock=lambda: REAL)
    with caplog.at_level(logging.WARNING, logger="trackerkit.trace"), writer:
        assert writer.write(kind="eve", name="x")
    assert sorted(p.name for p in folder.iterdir()) == JOURNAL[1:]
    assert writer.removed == [folder / "2026-10-01.jsonl"]
    message = caplog.records[-1].getMessage()
    assert str(folder / "2026-10-01.jsonl") in message
    assert "older than the 30 days kept (today, 2026-12-02, and the 29 before" in message


def test_a_day_this_writer_wrote_is_never_deleted(tmp_path: Path) -> None:
    """TC-3: generated days older than the window, then today's: the writer's own days stay."""
    old = dt.datetime(2026, 9, 1, 12, 0, tzinfo=dt.UTC)
    with TraceWriter(tmp_path, wall_clock=lambda: REAL) as writer:
        assert writer.write(kind="eve", name="x", ts=old)
        assert writer.write(kind="eve", name="x", ts=REAL)
    names = sorted(p.name for p in (tmp_path / "trace").iterdir())
    assert names == ["2026-09-01.jsonl", "2026-12-02.jsonl"]


def test_keep_days_none_never_deletes(tmp_path: Path) -> None:
    """keep_days=None: a generator's writer leaves every other file alone, even writing today."""
    folder = _journal(tmp_path)
    with TraceWriter(tmp_path, keep_days=None, wall_clock=lambda: REAL) as writer:
        assert writer.write(kind="eve", name="x", ts=REAL)
    assert sorted(p.name for p in folder.iterdir()) == JOURNAL


@pytest.mark.parametrize("keep", [0, -3, True, 2.5, "30"])
def test_keep_days_below_one_is_refused(tmp_path: Path, keep: int) -> None:
    with pytest.raises(
        BadRequestError, match=r"keep_days must be a whole number of days, 1 or more"
    ):
        TraceWriter(tmp_path, keep_days=keep)


def test_the_real_today_follows_the_time_zone(tmp_path: Path) -> None:
    """TC-2, TC-3: 22:30 UTC on 1 December is 2 December in Moscow: that file is the live one."""
    folder = _journal(tmp_path)
    late = dt.datetime(2026, 12, 1, 22, 30, tzinfo=dt.UTC)
    writer = TraceWriter(tmp_path, timezone="Europe/Moscow", wall_clock=lambda: late)
    assert writer.real_today() == dt.date(2026, 12, 2)
    with writer:
        assert writer.write(kind="eve", name="x", ts=late)
    assert not (folder / "2026-10-01.jsonl").exists()
