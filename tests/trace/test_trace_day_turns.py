"""`read_day_turns`: the turns begun in chosen day files, whole (TC-2).

Found when tried: read day by day, a night turn past the installation's midnight was counted
twice, open with one step on its first day and with the rest of its cost on the next (48 turns
for the folder's 45).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trackerkit.errors import NotFoundError
from trackerkit.trace import assemble_turns, read_day_turns, read_trace, steps

SAMPLE = Path(__file__).parents[2] / "data" / "trace"
DAYS = ["2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"]
CROSSING = "wrun_01JS000179D67F/turn_0"  # begins before midnight in 2026-11-26's file


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Categories as their values (each read has its own category set)."""
    return frame.astype({c: str for c in frame.columns if frame[c].dtype == "category"})


@pytest.fixture(scope="module")
def every() -> pd.DataFrame:
    return assemble_turns(read_trace(SAMPLE)[0])


def test_the_days_turns_add_up_to_the_folders(every: pd.DataFrame) -> None:
    """Each turn is listed on exactly one day, the day of its first event, with every column as
    the whole folder gives it."""
    by_day = [read_day_turns(SAMPLE, day).turns for day in DAYS]
    listed = pd.concat(by_day).sort_values("name").reset_index(drop=True)
    expected = every.sort_values("name").reset_index(drop=True)
    pd.testing.assert_frame_equal(_plain(listed), _plain(expected))


def test_a_turn_past_midnight_is_whole_on_its_first_day(every: pd.DataFrame) -> None:
    """The crossing turn: on 2026-11-26 with the next file's events, said to run on; not on 27."""
    first = read_day_turns(SAMPLE, "2026-11-26")
    turn = first.turns.set_index("name").loc[CROSSING]
    whole = every.set_index("name").loc[CROSSING]
    assert (turn["status"], turn["steps"], turn["events"]) == (
        whole["status"],
        whole["steps"],
        whole["events"],
    )
    assert turn["status"] != "open"
    assert first.running_on == [CROSSING]
    assert set(first.turn_events["day"]) == {"2026-11-26", "2026-11-27"}
    assert CROSSING not in set(read_day_turns(SAMPLE, "2026-11-27").turns["name"])
    assert len(steps(first.turn_events, first.names)) > 0


def test_the_events_and_errors_are_the_chosen_files(every: pd.DataFrame) -> None:
    """`events` and `errors` are what `read_trace(days=...)` gives for the chosen files."""
    read = read_day_turns(SAMPLE, ["2026-11-27", "2026-11-28"])
    events, errors = read_trace(SAMPLE, days=["2026-11-27", "2026-11-28"])
    pd.testing.assert_frame_equal(read.events, events)
    assert read.errors == errors
    assert set(read.orphans["file"].map(lambda f: Path(f).stem)) <= {"2026-11-27", "2026-11-28"}
    assert set(read.turns["day"]) == {"2026-11-27", "2026-11-28"}


def test_a_missing_day_is_refused() -> None:
    with pytest.raises(NotFoundError, match="2030-01-01"):
        read_day_turns(SAMPLE, "2030-01-01")


@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31"])
def test_the_calendars_first_and_last_days_read(tmp_path: Path, day: str) -> None:
    """An attack trial: `trace turns 9999-12-31` raised OverflowError looking for the next file."""
    from trackerkit.cli import main

    (tmp_path / f"{day}.jsonl").write_bytes(
        b'{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_0","session":"wrun_A","source":"http",'
        b'"kind":"eve","name":"turn.started","data":{"sequence":0}}\n'
    )
    read = read_day_turns(tmp_path, day)
    assert len(read.events) == 1
    assert main(["trace", "turns", day, "--dir", str(tmp_path)]) == 0


def test_a_turn_begun_before_the_days_read_says_it_was_not_started(every: pd.DataFrame) -> None:
    """Found when tried: `read_trace(days=...)` then `assemble_turns` listed the tail of a turn
    begun the day before as a turn of the day, completed and without the failure it had before
    midnight, with nothing to tell it from a whole turn. `started` says whether its own
    eve.turn.started was read."""
    assert every["started"].all()
    cut = assemble_turns(read_trace(SAMPLE, days="2026-11-27")[0]).set_index("name")
    assert not cut.loc[CROSSING, "started"]
    assert cut.drop(index=CROSSING)["started"].all()
    assert read_day_turns(SAMPLE, "2026-11-26").turns["started"].all()


def test_a_subagents_start_does_not_start_its_turn(tmp_path: Path) -> None:
    rows = [
        ("10:00:01", "turn_0#planner", "turn.started"),
        ("10:00:02", "turn_0#planner", "turn.completed"),
        ("10:00:03", "turn_0", "turn.completed"),
    ]
    (tmp_path / "2026-10-08.jsonl").write_text(
        "".join(
            f'{{"ts":"2026-10-08T{t}Z","turn":"{turn}","session":"s","source":"http",'
            f'"kind":"eve","name":"{name}","data":{{}}}}\n'
            for t, turn, name in rows
        ),
        encoding="utf-8",
    )
    turns = assemble_turns(read_trace(tmp_path)[0])
    assert turns["started"].tolist() == [False]
