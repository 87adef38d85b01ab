"""`write_days`: generated days an analyst can ask questions of (issue 14, item 7)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import assemble_turns, costs_by_day, read_trace
from trackerkit.trace.sample import write_days


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("days")
    write_days(root)
    return root / "trace"


@pytest.fixture(scope="module")
def turns(folder: Path) -> pd.DataFrame:
    events, errors = read_trace(folder)
    assert errors == []
    return assemble_turns(events)


def test_the_same_seed_writes_the_same_bytes(folder: Path, tmp_path: Path) -> None:
    again = write_days(tmp_path)
    assert [p.name for p in again] == sorted(p.name for p in folder.glob("*.jsonl"))
    for path in again:
        assert path.read_bytes() == (folder / path.name).read_bytes()


def test_sessions_have_several_turns(turns: pd.DataFrame) -> None:
    per_session = turns.groupby("session").size()
    assert per_session.max() >= 5
    assert (per_session >= 2).mean() >= 0.5


def test_one_session_has_the_most_failed_turns(turns: pd.DataFrame) -> None:
    """ "Which session had the most failed turns?" has one answer, and it says why."""
    failed = turns[turns["status"] == "failed"]
    counts = failed.groupby("session").size().sort_values(ascending=False)
    assert counts.iloc[0] > counts.iloc[1] >= 1
    assert set(failed["error_class"]) == {"E_MODEL"}


def test_failures_and_costs_vary_by_day(turns: pd.DataFrame) -> None:
    table = costs_by_day(turns)
    assert len(table) == 4
    assert table["failed_turns"].nunique() > 1
    assert table["cost_usd"].round(4).nunique() == len(table)
    assert (table["steps_without_cost"] > 0).all()


def test_no_days_is_a_bad_request(tmp_path: Path) -> None:
    with pytest.raises(BadRequestError, match="at least one day"):
        write_days(tmp_path, days=0)
