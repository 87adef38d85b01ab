"""Why a turn failed, event by event, and the failed-turns filter (issue 14, item 4)."""

from __future__ import annotations

import doctest
import html
import re
from pathlib import Path

import marimo as mo
import orjson
import pandas as pd
import pytest

from trackerkit.errors import BadRequestError
from trackerkit.line import md_text
from trackerkit.trace import (
    FAILURE_COLUMNS,
    STATUS_AND_FAILURES,
    TURN_FILTERS,
    assemble_turns,
    assign_turns,
    failure_reason,
    filter_turns,
    plain_data,
    read_trace,
    reasons,
    turn_failures,
)

SAMPLE = Path(__file__).parents[2] / "data" / "trace"


@pytest.fixture(scope="module")
def events() -> pd.DataFrame:
    return read_trace(SAMPLE)[0]


@pytest.fixture(scope="module")
def names(events: pd.DataFrame) -> pd.Series:
    return assign_turns(events)


@pytest.fixture(scope="module")
def turns(events: pd.DataFrame, names: pd.Series) -> pd.DataFrame:
    return assemble_turns(events, names)


class TestFilterTurns:
    def test_failed_turns_are_those_whose_status_is_failed(self, turns: pd.DataFrame) -> None:
        """ "failed turns" keeps status failed only, in the turns' order."""
        failed = filter_turns(turns, "failed turns")
        assert len(failed) == (turns["status"] == "failed").sum() > 0
        assert failed.index.is_monotonic_increasing

    def test_turns_with_failures_keep_recovered_ones(self, turns: pd.DataFrame) -> None:
        """A completed turn whose tool failed is a turn with failures, not a failed turn."""
        shown = filter_turns(turns, "turns with failures")
        assert set(filter_turns(turns, "failed turns")["name"]) < set(shown["name"])
        assert ((shown["status"] == "completed") & (shown["failures"] > 0)).any()
        clean = turns[~turns["name"].isin(shown["name"])]
        assert (clean["failures"] == 0).all()
        assert clean["error_class"].isna().all()

    def test_every_turn_is_every_turn(self, turns: pd.DataFrame) -> None:
        assert filter_turns(turns, "every turn") is turns
        assert TURN_FILTERS[0] == "every turn"

    def test_an_unknown_filter_is_refused_with_the_choices(self, turns: pd.DataFrame) -> None:
        with pytest.raises(BadRequestError, match="failed turns"):
            filter_turns(turns, "broken")


class TestTurnFailures:
    def test_the_reason_is_the_turns_error_for_every_turn(
        self, events: pd.DataFrame, names: pd.Series, turns: pd.DataFrame
    ) -> None:
        """The row marked `reason` carries the error_class and error of the turns frame."""
        for turn in turns.itertuples(index=False):
            failures = turn_failures(events, turn.name, names)
            assert list(failures.columns) == [c.name for c in FAILURE_COLUMNS]
            if pd.isna(turn.error_class):
                assert failures.empty
                continue
            reason = failures[failures["is_reason"].astype(bool)]
            assert len(reason) == 1
            assert reason["error_class"].iloc[0] == turn.error_class
            message = reason["error"].iloc[0]
            assert message == turn.error or (pd.isna(message) and pd.isna(turn.error))
            tools = failures[failures["event"] == "eve.action.result"]
            assert len(tools) == turn.failures

    def test_a_model_failure_is_the_reason_over_earlier_tool_failures(
        self, events: pd.DataFrame, names: pd.Series, turns: pd.DataFrame
    ) -> None:
        """A failed turn whose tools failed first is explained by its failed step, with its data."""
        turn = turns[(turns["status"] == "failed") & (turns["failures"] > 0)].iloc[0]
        failures = turn_failures(events, turn["name"], names)
        assert failures["ts"].is_monotonic_increasing
        assert failures["event"].iloc[0] == "eve.action.result"
        reason = failures[failures["is_reason"].astype(bool)].iloc[0]
        assert reason["event"] == "eve.step.failed"
        assert reason["data"]["code"] == reason["error_class"] == turn["error_class"]
        assert reason["file"].endswith(f"{turn['day']}.jsonl")
        assert reason["line"] > 0

    def test_the_same_failures_in_every_data_mode(
        self, names: pd.Series, turns: pd.DataFrame
    ) -> None:
        """Raw JSON text and lazy data give the same rows, with data as plain dicts."""
        name = turns[turns["status"] == "failed"]["name"].iloc[-1]
        frames = [
            turn_failures(read_trace(SAMPLE, data=mode)[0], name, names)
            for mode in ("dict", "raw", "lazy")
        ]
        for frame in frames[1:]:
            pd.testing.assert_frame_equal(frame, frames[0])
        assert all(isinstance(d, dict) for d in frames[1]["data"])


class TestPlainData:
    @pytest.mark.parametrize(
        ("value", "plain"),
        [
            ({"a": 1}, {"a": 1}),
            ('{"a": [1]}', {"a": [1]}),
            (b'{"a": 2}', {"a": 2}),
            ("no json", "no json"),
        ],
        ids=["dict", "text", "bytes", "not json"],
    )
    def test_values(self, value: object, plain: object) -> None:
        assert plain_data(value) == plain


class TestFailureReason:
    def test_the_reason_names_class_message_status_and_place(
        self, events: pd.DataFrame, names: pd.Series, turns: pd.DataFrame
    ) -> None:
        turn = turns[turns["status"] == "failed"].iloc[-1]
        failures = turn_failures(events, turn["name"], names)
        text = failure_reason(failures, turn["status"], int(turn["failures"]))
        assert f"**<code>{md_text(turn['error_class'])}</code>**: {md_text(turn['error'])}" in text
        assert "status **failed**" in text
        reason = failures[failures["is_reason"].astype(bool)].iloc[0]
        assert f"<code>{md_text(Path(reason['file']).name)}:{reason['line']}</code>" in text

    def test_the_reasons_time_reads_as_the_tables_do(
        self, events: pd.DataFrame, names: pd.Series, turns: pd.DataFrame
    ) -> None:
        """To the millisecond (the explorer showed `00:36:43.905000+00:00` beside a table's
        `00:36:42.862+00:00`); a finer time keeps its digits."""
        turn = turns[turns["status"] == "failed"].iloc[-1]
        failures = turn_failures(events, turn["name"], names)
        ts = failures[failures["is_reason"].astype(bool)].iloc[0]["ts"]
        text = failure_reason(failures, turn["status"], int(turn["failures"]))
        shown = f"{ts:%Y-%m-%d %H:%M:%S}.{ts.microsecond // 1000:03d}+00:00"
        assert f" at {md_text(shown)} in " in text
        finer = failures.assign(ts=failures["ts"] + pd.Timedelta(microseconds=7))
        text = failure_reason(finer, turn["status"], int(turn["failures"]))
        assert f" at {md_text(shown[:23] + '007+00:00')} in " in text

    def test_html_in_the_trace_is_escaped(self) -> None:
        """A model server writes the message: its HTML reads as text, never as live elements."""
        payload = '<h1>INJ</h1><img src=x onerror=window.__pwned=1><iframe srcdoc="<script>">'
        failures = pd.DataFrame(
            [
                {
                    "ts": pd.Timestamp("2026-01-01T00:00:00Z"),
                    "event": "eve.step.failed",
                    "step": 0,
                    "error_class": "E_<b>MODEL</b>",
                    "error": f"400 {payload}",
                    "is_reason": True,
                    "file": "/t/2026-01-01<i>.jsonl",
                    "line": 3,
                    "data": {},
                }
            ]
        )
        text = failure_reason(failures, "<s>failed</s>", 0)
        assert "<" not in text.replace("<code>", "").replace("</code>", "")
        assert f"400 {md_text(payload)}" in text
        assert f"**<code>{md_text('E_<b>MODEL</b>')}</code>**" in text
        assert f"<code>{md_text('2026-01-01<i>.jsonl')}:3</code>" in text
        rendered = mo.md(text).text
        for tag in ("<img", "<iframe", "<h1", "<b>", "<s>", "<script"):
            assert tag not in rendered
        # What the page shows, its tags dropped: the message as written.
        shown = html.unescape(re.sub(r"<[^>]*>", "", rendered))
        assert f"400 {payload}" in shown
        assert "E_<b>MODEL</b>" in shown

    def test_a_missing_message_is_said(
        self, events: pd.DataFrame, names: pd.Series, turns: pd.DataFrame
    ) -> None:
        turn = turns[turns["error_class"].notna() & turns["error"].isna()].iloc[0]
        text = failure_reason(turn_failures(events, turn["name"], names), turn["status"], 1)
        assert md_text("(no message)") in text

    def test_status_and_failures_are_explained(self) -> None:
        """The explanation covers both disagreements the issue found."""
        assert "completed** turn may have failures" in STATUS_AND_FAILURES
        assert "**failed** turn may have none" in STATUS_AND_FAILURES

    def test_the_docstring_example_runs(self) -> None:
        assert doctest.testmod(reasons, raise_on_error=True).failed == 0


class TestErrorCells:
    """What the explorer's failures and turns tables show: text, never NaN."""

    def test_a_tool_failure_without_a_message_reads_no_message(self, tmp_path: Path) -> None:
        """A timed-out tool whose data carries no message shows "(no message)", not NaN."""
        lines = [
            {"name": "turn.started", "data": {"sequence": 0}},
            {
                "name": "action.result",
                "data": {
                    "sequence": 1,
                    "stepIndex": 0,
                    "status": "timeout",
                    "callId": "c1",
                    "toolName": "search",
                    "failure": "timeout",
                },
            },
            {"name": "turn.completed", "data": {"sequence": 2}},
        ]
        day = tmp_path / "2026-11-30.jsonl"
        day.write_bytes(
            b"".join(
                orjson.dumps(
                    {
                        "ts": f"2026-11-30T10:00:0{i}Z",
                        "turn": "turn_0",
                        "session": "s1",
                        "source": "telegram",
                        "kind": "eve",
                        **line,
                    }
                )
                + b"\n"
                for i, line in enumerate(lines)
            )
        )
        events, _ = read_trace(tmp_path)
        failures = turn_failures(events, "s1/turn_0")
        assert failures["error"].isna().all()  # the frame keeps the message as written: none
        shown = reasons.error_cells(failures)
        assert shown[["error_class", "error"]].values.tolist() == [["timeout", "(no message)"]]

    def test_a_row_without_a_failure_has_empty_cells(self, turns: pd.DataFrame) -> None:
        """Turns that did not fail show empty error cells; written messages stay as written."""
        shown = reasons.error_cells(turns)
        clean = turns["error_class"].isna()
        assert (shown.loc[clean, ["error_class", "error"]] == "").all().all()
        written = turns["error"].notna()
        assert shown.loc[written, "error"].tolist() == turns.loc[written, "error"].tolist()
        assert not shown[["error_class", "error"]].isna().any().any()


def test_the_words_the_explorer_shows_name_no_rule_id() -> None:
    """Found when a newcomer opened a turn: the page said "a failure class, TC-16", an id of the
    project's rule list a user cannot look up."""
    assert re.search(r"\bT[RC]-\d+", STATUS_AND_FAILURES) is None
