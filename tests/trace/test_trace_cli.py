"""`trackerkit trace days|turns|show`: output on the bundled days, --json, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from cli_run import run_cli as _run

from trackerkit.cli import build_parser, main
from trackerkit.errors import NotFoundError
from trackerkit.trace import assemble_turns, read_trace, resolve_turn
from trackerkit.trace.cli import summary

SAMPLE = Path(__file__).parents[2] / "data" / "trace"
DAYS = Path(__file__).parent / "days"


class TestDays:
    def test_table(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`trace days DIR` lists each day with its lines, events and broken lines."""
        code, out, err = _run(capsys, "trace", "days", str(DAYS / "tc10"))
        assert (code, err) == (0, "")
        assert out.splitlines() == [
            "       day  lines  events  broken         first (UTC)          last (UTC)",
            "2026-03-01      5       5       0 2026-03-01 23:30:00 2026-03-01 23:30:08",
            "2026-03-02      5       5       0 2026-03-02 23:30:00 2026-03-02 23:30:08",
        ]

    def test_json_and_default_dir(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`trace days --dir DIR --json` prints one record per day."""
        code, out, _ = _run(capsys, "trace", "days", "--dir", str(SAMPLE), "--json")
        days = orjson.loads(out)
        assert code == 0
        assert [d["day"] for d in days] == ["2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"]
        assert [d["broken"] for d in days] == [0, 3, 3, 0]


class TestTurns:
    def test_table_and_footer(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`trace turns DAY` prints the turns (durations in seconds, `duration_s`), then counts of
        turns, orphans and broken lines."""
        code, out, _ = _run(capsys, "trace", "turns", "2026-03-01", "--dir", str(DAYS / "tc14"))
        lines = out.splitlines()
        assert code == 0
        assert lines[0].split() == [
            "name", "kind", "source", "start", "duration_s", "events", "steps", "tokens_in", "tokens_out",
            "cost_usd", "steps_without_cost", "tool_calls", "failures", "delivered", "fell_back",
            "status", "error_class", "orphans",
        ]  # fmt: skip
        assert lines[1].split() == [
            "wrun_C/turn_2", "chat", "telegram", "2026-03-01T12:00:00.000Z", "2.2", "5", "0", "0", "0", "0",
            "0", "0", "0", "0", "0", "cancelled", "3",
        ]  # fmt: skip
        assert lines[-2] == "cost: no completed step, so no cost."
        assert lines[-1] == "1 turn, 5 orphan rows, 0 broken lines on 2026-03-01."

    def test_small_costs_are_not_printed_as_zero(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Each turn's cost in six significant digits: $0.0000001 is not 0.0 beside $0.015."""
        lines = []
        for turn, cost in (("turn_0", 1e-07), ("turn_1", 0.005 + 0.01)):
            for second, (name, data) in enumerate(
                [
                    ("turn.started", {"sequence": 0}),
                    ("step.completed", {"sequence": 1, "stepIndex": 0, "usage": {"costUsd": cost}}),
                    ("turn.completed", {"sequence": 2}),
                ]
            ):
                event = {
                    "ts": f"2026-03-01T{10 + int(turn[-1])}:00:0{second}.000Z", "turn": turn,
                    "session": "wrun_S", "source": "telegram", "kind": "eve", "name": name, "data": data,
                }  # fmt: skip
                lines.append(json.dumps(event))
        (tmp_path / "2026-03-01.jsonl").write_text("\n".join(lines) + "\n")
        code, out, _ = _run(capsys, "trace", "turns", "2026-03-01", "--dir", str(tmp_path))
        assert code == 0
        costs = [line.split()[9] for line in out.splitlines()[1:3]]
        assert costs == ["1e-07", "0.015"]
        assert out.splitlines()[-1] == "2 turns, 0 orphan rows, 0 broken lines on 2026-03-01."

    def test_sample_day_json(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`trace turns DAY --json` carries turns, orphans and broken lines of the bundled day."""
        code, out, _ = _run(capsys, "trace", "turns", "2026-11-27", "--json", "--dir", str(SAMPLE))
        report = orjson.loads(out)
        assert code == 0
        assert len(report["turns"]) >= 12
        assert len(report["broken"]) == 3
        assert {t["kind"] for t in report["turns"]} == {"chat", "night", "live"}
        assert all(isinstance(t["duration"], float) for t in report["turns"])

    def test_a_turn_across_midnight_is_whole_on_the_day_it_began(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Found when tried: day by day, a night turn past the installation's midnight showed
        twice (open on one day, part of its cost on the next: 48 turns for the folder's 45).
        Each day lists the turns that began in its file, with all their events (TC-2)."""
        every = assemble_turns(read_trace(SAMPLE)[0])
        reports = {}
        for day in ("2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"):
            code, out, _ = _run(capsys, "trace", "turns", day, "--json", "--dir", str(SAMPLE))
            assert code == 0
            reports[day] = orjson.loads(out)
        listed = [t["name"] for r in reports.values() for t in r["turns"]]
        assert sorted(listed) == sorted(every["name"])
        crossing = reports["2026-11-26"]["running_on"]
        assert crossing == ["wrun_01JS000179D67F/turn_0"]
        turn = next(t for t in reports["2026-11-26"]["turns"] if t["name"] == crossing[0])
        whole = every[every["name"] == crossing[0]].iloc[0]
        assert (turn["status"], turn["steps"]) == (whole["status"], whole["steps"]) != ("open", 1)
        assert [
            b["file"].endswith("2026-11-27.jsonl") for b in reports["2026-11-27"]["broken"]
        ] == [True] * 3  # the day's own broken lines, not its neighbours'
        code, out, _ = _run(capsys, "trace", "turns", "2026-11-26", "--dir", str(SAMPLE))
        assert "1 of these turns runs on into the next day's file" in out

    def test_missing_day_is_one_line(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A day without a file: exit 1 and one line naming it, no traceback."""
        code, out, err = _run(capsys, "trace", "turns", "2030-01-01", "--dir", str(SAMPLE))
        assert (code, out) == (1, "")
        assert err.startswith("trackerkit: ")
        assert "2030-01-01" in err
        assert err.count("\n") == 1

    def test_bad_day_is_a_usage_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A day not written as YYYY-MM-DD is refused by the parser (exit 2)."""
        with pytest.raises(SystemExit) as caught:
            main(["trace", "turns", "tomorrow"])
        assert caught.value.code == 2
        assert "YYYY-MM-DD" in capsys.readouterr().err


class TestShow:
    def test_events_in_order(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`trace show <session>/<turn>` prints the turn's events in ts order, readable (TC-13)."""
        code, out, _ = _run(capsys, "trace", "show", "wrun_C/turn_2", "--dir", str(DAYS / "tc14"))
        lines = out.splitlines()
        assert code == 0
        assert lines[0] == "wrun_C/turn_2  2026-03-01 12:00:00 UTC, 2.200 s, 5 events"
        assert [line.split()[2] for line in lines[1:]] == [
            "bridge.admitted", "turn.bound", "eve.turn.started", "stop.requested", "eve.turn.cancelled",
        ]  # fmt: skip
        assert "updateKey='tg:42:2001'" in lines[2]

    def test_bare_number_means_the_newest(self, capsys: pytest.CaptureFixture[str]) -> None:
        """TC-13: `trace show turn_3` shows the newest turn_3."""
        code, out, _ = _run(
            capsys, "trace", "show", "turn_3", "--json", "--dir", str(DAYS / "tc13")
        )
        shown = orjson.loads(out)
        assert code == 0
        assert shown["name"] == "wrun_NEW/turn_3"
        assert [e["name"] for e in shown["events"]] == ["eve.turn.started", "eve.turn.completed"]

    def test_sample_turn_across_days(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`trace show` reads every day, so a night turn across midnight is shown whole."""
        code, out, _ = _run(capsys, "trace", "show", "turn_2", "--json", "--dir", str(SAMPLE))
        shown = orjson.loads(out)
        assert code == 0
        assert len({e["file"] for e in shown["events"]}) == 2

    def test_a_turn_begun_the_day_before_is_named_where_to_find_it(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Found when tried: `--day` on the file a turn ran on into said "no turn is numbered",
        though the file holds its rows; it says the turn began earlier and how to show it."""
        name = "wrun_01JS000179D67F/turn_0"
        argv = ["trace", "show", name, "--dir", str(SAMPLE), "--day", "2026-11-27"]
        code, out, err = _run(capsys, *argv)
        assert (code, out) == (1, "")
        assert err == (
            f"trackerkit: no turn {name!r} began in 2026-11-27's file, though the file holds its "
            "rows: it began on an earlier day (a turn is listed on the day it began); "
            f"`trace show {name} --dir {SAMPLE}` without --day shows it whole.\n"
        )
        assert _run(capsys, "trace", "show", name, "--dir", str(SAMPLE))[0] == 0

    def test_a_subagent_step_names_the_turn_that_ran_it(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Found when tried: `trace show 'turn_3#planner'` showed the newest turn_3, which ran no
        planner; it shows the newest turn_3 that did, and says when none did."""
        code, out, _ = _run(
            capsys, "trace", "show", "turn_3#planner", "--json", "--dir", str(SAMPLE)
        )
        assert code == 0
        shown = orjson.loads(out)
        assert "turn_3#planner" in {e["turn"] for e in shown["events"]}
        turns = assemble_turns(read_trace(SAMPLE)[0])
        assert (
            resolve_turn(turns, "turn_3#planner") == shown["name"] != resolve_turn(turns, "turn_3")
        )
        code, _, err = _run(capsys, "trace", "show", "turn_3#nobody", "--dir", str(SAMPLE))
        assert code == 1
        assert "no turn ran the subagent step 'turn_3#nobody'" in err
        with pytest.raises(
            NotFoundError, match="no turn numbered 'turn_3' ran the subagent 'nobody'"
        ):
            resolve_turn(turns, "turn_3#nobody")

    def test_a_turn_of_a_day_is_shown_whole(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--day` finds the turn among the day's, then shows it with the next file's events."""
        argv = ["trace", "show", "turn_0", "--json", "--dir", str(SAMPLE), "--day", "2026-11-26"]
        code, out, _ = _run(capsys, *argv)
        shown = orjson.loads(out)
        assert code == 0
        assert shown["name"] == "wrun_01JS000179D67F/turn_0"
        assert len({e["file"] for e in shown["events"]}) == 2

    def test_unknown_turn_is_one_line(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A turn no event names: exit 1 and a one-line message."""
        code, _, err = _run(capsys, "trace", "show", "turn_77", "--dir", str(DAYS / "tc13"))
        assert code == 1
        assert (
            err == "trackerkit: no turn is numbered 'turn_77'; `trace turns DAY` lists the turns.\n"
        )


def test_show_json_writes_data_orjson_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`trace show --json` of data nested 300 levels (the reader keeps it) or holding an integer
    beyond 64 bits (read exactly when 1e999 sends the line to the standard library): nesting
    past 200 levels is `…[deep]` (TC-7), the integer its digits, infinity null."""
    deep = b'{"a":' * 300 + b"1" + b"}" * 300
    (tmp_path / "2026-03-01.jsonl").write_bytes(
        b'{"ts":"2026-03-01T10:00:00.000Z","turn":"turn_0","session":"s","source":"cron",'
        b'"kind":"eve","name":"turn.started","data":{"deep":'
        + deep
        + b',"n":10000000000000000000000,"far":1e999}}\n'
    )
    code, out, err = _run(capsys, "trace", "show", "s/turn_0", "--dir", str(tmp_path), "--json")
    assert (code, err) == (0, "")
    data = orjson.loads(out)["events"][0]["data"]
    assert (data["n"], data["far"]) == ("10000000000000000000000", None)
    level, levels = data["deep"], 0
    while isinstance(level, dict):
        level, levels = level["a"], levels + 1
    assert (level, levels) == ("…[deep]", 196)  # 200 levels of output, 4 above the data


def test_every_trace_command_is_documented() -> None:
    """Each trace command has help text."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    trace = sub.choices["trace"]  # type: ignore[attr-defined]
    commands = next(a for a in trace._actions if a.dest == "trace_command")
    assert set(commands.choices) == {"days", "turns", "show", "export"}
    for action in commands._choices_actions:
        assert action.help


def test_show_summarises_values_as_the_prompt_shows_them() -> None:
    """`trace show`'s one-line summary writes flags and nulls as JSON does and keeps a text inside
    an object on one line (`line_of`, the one display rule); top-level texts stay quoted."""
    data = {
        "ok": True,
        "error": None,
        "result": {"ok": False, "note": "a\nb", "deep": {"x": 1}},
        "calls": [1, 2],
        "name": "x",
    }
    assert summary(data) == "ok=true error=null result={ok=false, note=a b} calls=[1, 2] name='x'"


@pytest.mark.parametrize(
    ("items", "shown"),
    [
        ([23], "[23]"),
        ([], "[]"),
        (["a", "b"], "['a', 'b']"),
        ([True, None], "[true, null]"),
        ([{"x": 1}], "(1 item)"),
        (list(range(30)), "(30 items)"),
    ],
)
def test_trace_show_prints_a_list_as_its_values_or_its_length_in_words(
    items: list[object], shown: str
) -> None:
    """Found when tried: a list printed as its length in brackets (`partChars=[1]` for `[23]`,
    `findings=[0]` for `[]`), which reads as the list itself."""
    assert summary({"k": items}) == f"k={shown}"


class TestWhichFolder:
    """`days`, `turns` and `show` read a folder of day files alike, refusing anything else."""

    @pytest.mark.parametrize(
        "argv",
        [
            ["days", "{path}"],
            ["days", "--dir", "{path}"],
            ["turns", "2026-11-26", "--dir", "{path}"],
            ["show", "turn_1", "--dir", "{path}"],
        ],
    )
    def test_a_day_file_is_not_a_folder(
        self, capsys: pytest.CaptureFixture[str], argv: list[str]
    ) -> None:
        """A day file where the folder goes: the same one line for each command, exit 1."""
        day = SAMPLE / "2026-11-26.jsonl"
        args = [a.replace("{path}", str(day)) for a in argv]
        assert _run(capsys, "trace", *args) == (
            1,
            "",
            f"trackerkit: {day} is a file, not a folder; give the folder that holds the day "
            "files.\n",
        )

    @pytest.mark.parametrize(
        "argv", [["days", "{path}"], ["turns", "2026-11-26", "--dir", "{path}"]]
    )
    def test_a_folder_without_day_files(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
    ) -> None:
        """No day file: said, with what was skipped and why (grouped by reason), exit 1."""
        for name in ("a.json", "b.json", "c.json", "d.json", "notes.txt", "2026-02-30.jsonl"):
            (tmp_path / name).write_text("")
        (tmp_path / "old").mkdir()
        args = [a.replace("{path}", str(tmp_path)) for a in argv]
        assert _run(capsys, "trace", *args) == (
            1,
            "",
            f"trackerkit: no trace day files (YYYY-MM-DD.jsonl) in {tmp_path}; skipped "
            "2026-02-30.jsonl: 2026-02-30 is not a real date; a.json, b.json, c.json and 2 "
            "more: not named YYYY-MM-DD.jsonl; old: a folder, not a day file\n",
        )

    @pytest.mark.parametrize(
        "argv",
        [
            ["days", "{path}"],
            ["turns", "2026-03-01", "--dir", "{path}"],
            ["export", "{path}", "--parquet", "{path}/out"],
        ],
    )
    def test_entries_beside_the_days_are_named_with_why(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
    ) -> None:
        """Found when tried: with one real day present, misnamed files were skipped without a
        word. They are named on standard error (the output stays clean for --json)."""
        (tmp_path / "2026-03-01.jsonl").write_bytes(
            (DAYS / "tc10" / "2026-03-01.jsonl").read_bytes()
        )
        for name in ("2026-11-4.jsonl", "2026-11-05.json", "2026-02-30.jsonl"):
            (tmp_path / name).write_text("")
        args = [a.replace("{path}", str(tmp_path)) for a in argv]
        code, out, err = _run(capsys, "trace", *args)
        assert code == 0
        assert out
        assert err == (
            f"note: not read in {tmp_path}: 2026-02-30.jsonl: 2026-02-30 is not a real date; "
            "2026-11-05.json, 2026-11-4.jsonl: not named YYYY-MM-DD.jsonl\n"
        )

    def test_an_empty_folder(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """An empty folder is not a table of no rows."""
        assert _run(capsys, "trace", "days", str(tmp_path), "--json") == (
            1,
            "",
            f"trackerkit: no trace day files (YYYY-MM-DD.jsonl) in {tmp_path} (it is empty)\n",
        )

    def test_the_default_is_the_data_folders_trace(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With no folder given: `<data folder>/trace`, where simulate writes, not ./data/trace."""
        monkeypatch.setenv("TRACKERKIT_DATA", str(tmp_path))
        monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
        monkeypatch.chdir(SAMPLE.parent.parent)  # ./data/trace holds the samples: not read
        trace = tmp_path / "trace"
        assert _run(capsys, "trace", "turns", "2026-11-26") == (
            1,
            "",
            f"trackerkit: no trace folder at {trace} (the data folder's trace, where simulate "
            "writes); pass --dir DIR, the folder holding the YYYY-MM-DD.jsonl day files\n",
        )
        trace.mkdir()
        (trace / "2026-03-01.jsonl").write_bytes((DAYS / "tc10" / "2026-03-01.jsonl").read_bytes())
        code, out, err = _run(capsys, "trace", "days", "--json")
        assert (code, err) == (0, "")
        assert [d["day"] for d in orjson.loads(out)] == ["2026-03-01"]
        code, out, err = _run(capsys, "trace", "turns", "2026-03-01")
        assert (code, err) == (0, "")
        assert out.splitlines()[-1] == "1 turn, 0 orphan rows, 0 broken lines on 2026-03-01."


class TestExportTarget:
    """An export folder that cannot be made is named with why, never a bare "[Errno 2]"."""

    @pytest.mark.parametrize(
        ("out", "why"),
        [("{tmp}/f/out", "Not a directory"), ("/proc/trackerkit-x", "No such file or directory")],
        ids=["under-a-file", "under-proc"],
    )
    def test_a_folder_that_cannot_be_made(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, out: str, why: str
    ) -> None:
        """Found when tried: `--parquet /proc/x` printed "[Errno 2] No such file or directory: '/proc/x'"."""
        if out.startswith("/proc") and not Path("/proc/self").exists():
            pytest.skip("no /proc here")
        (tmp_path / "f").write_text("")
        target = out.replace("{tmp}", str(tmp_path))
        code, _, err = _run(capsys, "trace", "export", str(DAYS / "tc10"), "--parquet", target)
        assert code == 1
        assert err == (
            f"trackerkit: trace export could not write {target} ({why}); --parquet takes a "
            "folder this user can make and write files into\n"
        )
