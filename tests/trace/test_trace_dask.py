"""The Dask path: one partition per installation folder, the same rows and turns as pandas."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from trackerkit.errors import NotFoundError
from trackerkit.trace import assemble_turns, read_trace

dask_trace = pytest.importorskip("trackerkit.trace.dask")

SAMPLE = Path(__file__).parents[2] / "data" / "trace"
DAYS = Path(__file__).parent / "days"


@pytest.fixture
def installs(tmp_path: Path) -> Path:
    """Two installations side by side: the sample days and the night-turn days of TC-10."""
    shutil.copytree(SAMPLE, tmp_path / "a")
    shutil.copytree(DAYS / "tc10", tmp_path / "b")
    return tmp_path


def _sorted(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    return frame.sort_values(by, kind="stable").reset_index(drop=True)


def test_same_events_as_pandas(installs: Path) -> None:
    """read_trace_dask on a glob gives one partition per folder and the rows read_trace gives."""
    frame = dask_trace.read_trace_dask(str(installs / "*"))
    assert frame.npartitions == 2
    got = frame.compute(scheduler="threads", num_workers=2)
    expected, _ = read_trace([installs / "a", installs / "b"])
    columns = ["file", "line"]
    got, expected = _sorted(got, columns), _sorted(expected, columns)
    for column in ("ts", "turn", "session", "name", "line"):
        assert got[column].astype(str).tolist() == expected[column].astype(str).tolist()
    assert got["data"].tolist() == expected["data"].tolist()


def test_turns_per_partition_match_pandas(installs: Path) -> None:
    """assemble_turns via map_partitions equals assemble_turns of each folder in pandas."""
    turns = dask_trace.assemble_turns_dask(
        dask_trace.read_trace_dask([installs / "a", installs / "b"])
    )
    got = turns.compute(scheduler="threads", num_workers=2)
    expected = pd.concat([assemble_turns(read_trace(installs / x)[0]) for x in ("a", "b")])
    pd.testing.assert_frame_equal(_sorted(got, ["name"]), _sorted(expected, ["name"]))
    crossing = got[got["name"].str.endswith("/turn_0") & (got["kind"] == "night")]
    assert len(crossing) > 0  # the night turns across midnight are whole in their partition


def test_nothing_to_read_is_named(tmp_path: Path) -> None:
    """A glob that matches no day file is a NotFoundError."""
    with pytest.raises(NotFoundError):
        dask_trace.read_trace_dask(str(tmp_path / "*"))


def test_one_folder_named_two_ways_is_read_once(installs: Path) -> None:
    """A folder given twice (by `..` and by a link) and one of its files given alone: one
    partition, each file read once (it gave three partitions and the events three times)."""
    (installs / "link").symlink_to(installs / "a")
    one_file = sorted((installs / "a").glob("*.jsonl"))[0]
    frame = dask_trace.read_trace_dask(
        [installs / "a", installs / "b" / ".." / "a", installs / "link", one_file]
    )
    assert frame.npartitions == 1
    expected, _ = read_trace(installs / "a")
    assert len(frame.compute(scheduler="sync")) == len(expected)
