"""The trace writer refuses a day file that is no regular file, at once and without blocking.

A found defect: `simulate` hung forever when the day file was a named pipe (FIFO): the writer
opened it for writing, which waits for a reader. Now the file is opened without blocking and
checked on the open descriptor; a FIFO, folder or socket is a failed write (TC-20: logged, never
raised), named in a clear sentence, and nothing is written into it.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from trackerkit.cli import main
from trackerkit.trace import TraceWriter

NOW = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)
FIGHT = str(Path(__file__).resolve().parents[2] / "data" / "scenes" / "fight.json")


def _day(tmp_path: Path) -> Path:
    (tmp_path / "trace").mkdir()
    return tmp_path / "trace" / "2026-12-02.jsonl"


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A FIFO day file with a reader open on it (so the old writer would not block, but write)."""
    day = _day(tmp_path)
    os.mkfifo(day)
    fd = os.open(day, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield day, fd
    finally:
        os.close(fd)


def test_a_fifo_with_a_reader_takes_nothing(
    reader: tuple[Path, int], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    day, fd = reader
    writer = TraceWriter(tmp_path, clock=lambda: NOW)
    with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
        assert writer.write(kind="eve", name="turn.started") is False
    writer.close()
    assert writer.failures == 1
    assert os.read(fd, 100) == b""  # nothing was written into the pipe (no writer holds it)
    assert f"the trace day file {day} is a named pipe (FIFO), not a regular file" in caplog.text


def test_a_fifo_without_a_reader_fails_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    day = _day(tmp_path)
    os.mkfifo(day)
    writer = TraceWriter(tmp_path, clock=lambda: NOW)
    with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
        assert writer.write(kind="eve", name="turn.started") is False
    assert "is a named pipe (FIFO), not a regular file" in caplog.text


def test_a_folder_and_a_socket_are_named(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    day = _day(tmp_path)
    day.mkdir()
    with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
        assert TraceWriter(tmp_path, clock=lambda: NOW).write(kind="eve", name="x") is False
    assert "is a folder, not a regular file" in caplog.text
    day.rmdir()
    caplog.clear()
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.bind(str(day))
        except OSError:  # a path too long for a socket address
            pytest.skip("the scratch path is too long for a Unix socket")
        with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
            assert TraceWriter(tmp_path, clock=lambda: NOW).write(kind="eve", name="x") is False
    assert "is a socket, not a regular file" in caplog.text


def test_a_regular_file_still_takes_events(tmp_path: Path) -> None:
    day = _day(tmp_path)
    day.write_text("", encoding="utf-8")
    with TraceWriter(tmp_path, clock=lambda: NOW) as writer:
        assert writer.write(kind="eve", name="turn.started") is True
        assert writer.write(kind="eve", name="turn.completed") is True
    assert len(day.read_text(encoding="utf-8").splitlines()) == 2


def test_simulate_finishes_and_says_no_trace_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command plays every turn and says the day file took no trace (it hung before); the
    trace asked for is missing, so it exits 1."""
    day = _day(tmp_path)
    os.mkfifo(day)
    now = "2026-12-02T12:00:00Z"
    code = main(["simulate", FIGHT, "--data", str(tmp_path), "--now", now, "--json"])
    out, err = capsys.readouterr()
    assert code == 1
    assert len(json.loads(out)) == 6
    assert f"no trace could be written to {day}" in err
