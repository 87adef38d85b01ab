"""The turn and table helpers read `data` in every mode `read_trace` gives it.

Found when tried: with `data="raw"` the helpers silently gave wrong numbers (`steps` cost 0.0,
`tool_calls` no failures, `orphans` hundreds of rows) and `assemble_turns` raised
AttributeError; with `data="none"` or `columns=` alone they raised a bare KeyError.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trackerkit.errors import BadRequestError
from trackerkit.trace import (
    assemble_turns,
    assign_turns,
    data_text,
    deliveries,
    failures_by_class,
    gates,
    markers,
    orphans,
    plain_data,
    read_trace,
    steps,
    tool_calls,
    turn_failures,
    turn_timeline,
    write_days,
)

SAMPLE = Path(__file__).parents[2] / "data" / "trace"

TABLES: dict[str, Callable[[pd.DataFrame], Any]] = {
    "assign_turns": assign_turns,
    "orphans": orphans,
    "assemble_turns": assemble_turns,
    "steps": steps,
    "tool_calls": tool_calls,
    "deliveries": deliveries,
    "gates": gates,
    "markers": markers,
}


@pytest.fixture(scope="module", params=["sample", "generated"])
def folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled days, and four generated days (sessions of several turns, bound chats)."""
    if request.param == "sample":
        return SAMPLE
    out = tmp_path_factory.mktemp("days")
    write_days(out, days=4, seed=5)
    return out / "trace"


def _plain(value: Any) -> Any:
    """A table or series with any `data` cells as plain dicts (LazyData compares as a mapping)."""
    if isinstance(value, pd.DataFrame) and "data" in value.columns:
        return value.assign(data=[plain_data(d) for d in value["data"]])
    return value


def _same(got: Any, expected: Any) -> None:
    if isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got, expected)
    else:
        pd.testing.assert_frame_equal(_plain(got), _plain(expected))


@pytest.mark.parametrize("mode", ["raw", "lazy"])
@pytest.mark.parametrize("table", list(TABLES))
def test_each_table_is_the_same_in_every_data_mode(folder: Path, mode: str, table: str) -> None:
    """Raw JSON text and LazyData give the tables that dicts give, row for row."""
    expected = TABLES[table](read_trace(folder)[0])
    got = TABLES[table](read_trace(folder, data=mode)[0])
    if table in {"assign_turns", "assemble_turns", "steps", "tool_calls"}:
        assert len(expected)  # not a comparison of two empty tables
    _same(got, expected)


def test_the_numbers_the_trial_found_wrong_are_right_from_raw_text(folder: Path) -> None:
    """The figures that came out wrong from `data="raw"`: cost, failures, orphans."""
    events, raw = read_trace(folder)[0], read_trace(folder, data="raw")[0]
    assert steps(raw)["cost_usd"].sum() == pytest.approx(steps(events)["cost_usd"].sum())
    assert steps(raw)["cost_usd"].sum() > 0
    assert tool_calls(raw)["failure"].notna().sum() == tool_calls(events)["failure"].notna().sum()
    assert len(orphans(raw)) == len(orphans(events))
    turns = assemble_turns(raw)
    assert turns["cost_usd"].sum() == pytest.approx(assemble_turns(events)["cost_usd"].sum())


def test_the_failure_views_read_raw_text(folder: Path) -> None:
    """The explorer's failure pane and figures work from raw text as from dicts."""
    events, raw = read_trace(folder)[0], read_trace(folder, data="raw")[0]
    turns = assemble_turns(events)
    name = turns[turns["status"] == "failed"]["name"].iloc[-1]
    _same(turn_failures(raw, name), turn_failures(events, name))
    assert len(failures_by_class(raw).data) == len(failures_by_class(events).data)
    assert len(turn_timeline(raw, name).data) == len(turn_timeline(events, name).data)


@pytest.mark.parametrize(
    "read", [{"data": "none"}, {"columns": ["usage.in"]}], ids=["none", "columns"]
)
@pytest.mark.parametrize("table", list(TABLES))
def test_events_without_data_are_refused_with_what_to_do(table: str, read: dict[str, Any]) -> None:
    """No `data` column: a clear error that names the helper and the read that keeps data."""
    events = read_trace(SAMPLE, **read)[0]
    with pytest.raises(BadRequestError, match=f"{table} reads each event's data") as caught:
        TABLES[table](events)
    assert "read_trace(path)" in str(caught.value)


def test_plain_data_reads_numbers_as_the_reader_does(tmp_path: Path) -> None:
    """Raw text is decoded as `read_trace` decodes it: an integer past 64 bits stays exact."""
    line = (
        '{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_0","session":"s","source":"web",'
        '"kind":"eve","name":"step.completed","data":{"n":1180591620717411303424}}\n'
    )
    (tmp_path / "2026-03-01.jsonl").write_text(line)
    text = read_trace(tmp_path, data="raw")[0]["data"].iloc[0]
    assert plain_data(text) == read_trace(tmp_path)[0]["data"].iloc[0] == {"n": 2**70}


@pytest.mark.parametrize("mode", ["dict", "raw", "lazy"])
def test_data_text_is_json_in_every_mode(tmp_path: Path, mode: str) -> None:
    """What a page shows of an event's data is JSON (false, null), not Python's repr, and
    reads back as the data (an integer past 64 bits exact)."""
    line = (
        '{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_0","session":"s","source":"web",'
        '"kind":"eve","name":"step.failed","data":{"isError":false,"n":null,"big":1180591620717411303424,'
        '"text":"\\u0445од"}}\n'
    )
    (tmp_path / "2026-03-01.jsonl").write_text(line)
    data = read_trace(tmp_path, data=mode)[0]["data"].iloc[0]  # type: ignore[call-overload]
    text = data_text(data)
    assert text == '{"isError":false,"n":null,"big":1180591620717411303424,"text":"ход"}'
    assert plain_data(text) == plain_data(data)


@pytest.mark.parametrize("mode", ["dict", "raw", "lazy"])
def test_data_text_writes_a_number_past_the_double_range_as_a_number(
    tmp_path: Path, mode: str
) -> None:
    """Trial nu3: `{"n":1e400}` read as ±inf was written `{"n":null}`, a value turned into no
    value (in raw mode too, whose column says 1e400). It is written as a number past the
    double range, which reads back as the same ±inf."""
    line = (
        '{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_0","session":"s","source":"web",'
        '"kind":"eve","name":"step.failed","data":{"n":1e400,"m":[-1e400,1],"big":'
        "1180591620717411303424}}\n"
    )
    (tmp_path / "2026-03-01.jsonl").write_text(line)
    data = read_trace(tmp_path, data=mode)[0]["data"].iloc[0]  # type: ignore[call-overload]
    text = data_text(data)
    assert text == '{"n":1e999,"m":[-1e999,1],"big":1180591620717411303424}'
    assert plain_data(text) == plain_data(data)


def test_data_text_writes_nan_as_null_and_keeps_a_text_that_looks_like_a_mark() -> None:
    """NaN is not JSON (null, as before); a string shaped like the internal mark of ±inf is
    written as that string, never as a number."""
    assert data_text({"x": float("nan"), "y": float("inf")}) == '{"x":null,"y":1e999}'
    odd = {"s": "\x00+inf\x00", "n": None}
    assert json.loads(data_text(odd)) == odd
