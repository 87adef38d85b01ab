"""The `simulate` and `changes` commands: tables, JSON, the trace file, the OpenAI-compatible model."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import platformdirs
import pytest
from cli_run import run_cli as _run
from conftest import REPO
from loopback import LoopbackServer, completion, serving

from trackerkit.cli import main

FIGHT = str(REPO / "data" / "scenes" / "fight.json")
SHOP = str(REPO / "data" / "scenes" / "shop.json")
TRACKERS = str(REPO / "data" / "trackers")
FIGHT_HEADER = (
    "step  kind   user                              calls   changes"
    "                                                    card  trackers  tool  history"
)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1."""
    with serving() as running:
        yield running


class TestSimulate:
    """`trackerkit simulate SCENE` plays the scenario and prints a row per turn."""

    def test_the_table(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The header is exact, one row per turn follows, then the values at the tip; exit 0."""
        code, out, err = _run(capsys, "simulate", FIGHT, "--no-trace")
        assert (code, err) == (0, "")
        lines = out.splitlines()
        assert lines[0] == FIGHT_HEADER
        assert re.fullmatch(r"[- ]+", lines[1])
        rows = lines[2 : lines.index("")]
        assert [row.split()[:2] for row in rows] == [[str(i), "reply"] for i in range(1, 7)]
        assert "1/2 ok" in rows[2]
        assert "Health: hp 12→10, hp_max 30→10" in rows[3]
        assert lines[-1] == (
            'values at the tip: {"Health":{"hp":40,"hp_max":40,"mood":"calm"},'
            '"Stamina":{"stamina":20,"stamina_max":20,"winded":false}}'
        )

    def test_json(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--json` prints the turn reports as one JSON list."""
        code, out, _ = _run(capsys, "simulate", FIGHT, "--no-trace", "--json")
        assert code == 0
        reports = json.loads(out)
        assert [r["index"] for r in reports] == list(range(6))
        assert {"parts", "rounds", "calls", "reply", "values", "changes", "failed"} <= set(
            reports[0]
        )
        assert reports[-1]["values"]["Health"] == {"hp": 40, "hp_max": 40, "mood": "calm"}
        assert [c["ok"] for c in reports[2]["calls"]] == [False, True]
        assert set(reports[0]["parts"]) == {"card", "trackers", "tool", "history"}

    @pytest.mark.usefixtures("user_home")
    def test_the_trace_file(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """With `--data DIR` the turns are written to one day file under `DIR/trace/` (TC-1)."""
        code, _, _ = _run(capsys, "simulate", FIGHT, "--data", str(tmp_path), "--json")
        assert code == 0
        (day,) = (tmp_path / "trace").iterdir()
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.jsonl", day.name)
        events = [json.loads(line) for line in day.read_text("utf-8").splitlines()]
        assert [(e["kind"], e["name"]) for e in events].count(("eve", "turn.completed")) == 6

    def test_openai_needs_a_base_url(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--model openai` without `--base-url` exits 1 with one line on stderr."""
        code, out, err = _run(
            capsys, "simulate", FIGHT, "--no-trace", "--model", "openai", "--model-name", "m"
        )
        assert (code, out) == (1, "")
        assert err == (
            "trackerkit: --model openai needs --base-url "
            "(the API root, such as http://127.0.0.1:11434/v1)\n"
        )

    def test_against_a_loopback_server(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, server: LoopbackServer
    ) -> None:
        """The command runs a scene through an OpenAI-compatible server on 127.0.0.1."""
        scene = {
            "id": "duel",
            "title": "A duel",
            "card": "You narrate.",
            "prompting": {"trackers": ["health"]},
            "turns": [{"user": "I duel."}, {"user": "I rest."}],
        }
        path = tmp_path / "duel.json"
        path.write_text(json.dumps(scene), "utf-8")
        hit = {"updates": [{"tracker": "Health", "set": {"hp": 7}}]}
        server.script(
            completion(None, [("c1", "update_trackers", hit)]),
            completion("A scratch."),
            completion("You sleep."),
        )
        code, out, err = _run(
            capsys,
            "simulate",
            str(path),
            "--trackers",
            TRACKERS,
            "--no-trace",
            "--json",
            "--model",
            "openai",
            "--base-url",
            f"{server.url}/v1",
            "--model-name",
            "loop",
        )
        assert (code, err) == (0, "")
        reports = json.loads(out)
        assert [r["reply"] for r in reports] == ["A scratch.", "You sleep."]
        assert reports[-1]["values"]["Health"]["hp"] == 7
        assert [s.body["model"] for s in server.seen] == ["loop"] * 3


def _check_change(change: dict[str, Any]) -> None:
    if "field" in change:
        assert set(change) == {"field", "before", "after"}
        return
    assert (
        {"row", "before", "after"} <= set(change) <= {"row", "before", "after", "added", "removed"}
    )
    assert isinstance(change["row"], str)
    for side in ("before", "after"):
        assert change[side] is None or isinstance(change[side], dict)


class TestChanges:
    """`trackerkit changes SCENE` prints what each reply changed (TR-42)."""

    def test_json_shape(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--json` prints `{messages: [{messageId, trackers: [...]}]}` with each change's exact shape."""
        code, out, _ = _run(capsys, "changes", SHOP, "--json")
        assert code == 0
        result = json.loads(out)
        assert list(result) == ["messages"]
        assert len(result["messages"]) == 4  # the muddled batch changed nothing
        for message in result["messages"]:
            assert set(message) == {"messageId", "trackers"}
            for tracker in message["trackers"]:
                assert {"trackerId", "name", "style", "changes"} <= set(tracker)
                assert set(tracker) <= {
                    "trackerId",
                    "name",
                    "style",
                    "icon",
                    "fieldIcons",
                    "bars",
                    "changes",
                }
                assert tracker["changes"]
                for change in tracker["changes"]:
                    _check_change(change)
        last = result["messages"][-1]["trackers"][0]["changes"]
        assert sorted((c["row"], c.get("added"), c.get("removed")) for c in last) == [
            ("Lantern", True, None),
            ("Rope", None, True),
        ]

    def test_text(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Without `--json` there is one line per message and tracker, with its style."""
        code, out, _ = _run(capsys, "changes", SHOP)
        assert code == 0
        lines = out.splitlines()
        assert len(lines) == 6
        assert all(line.endswith(("[card]", "[chips]", "[toast]", "[hidden]")) for line in lines)


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and XDG_DATA_HOME in a scratch folder; no ASSISTANT_* variable set."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ASSISTANT_DATA_DIR", raising=False)
    monkeypatch.delenv("ASSISTANT_TIMEZONE", raising=False)
    return tmp_path


def _user_trace() -> Path:
    """The per-user workspace's trace: the data folder when nothing names one."""
    return Path(platformdirs.user_data_dir("trackerkit", appauthor=False)) / "workspace" / "trace"


def _completed(day: Path) -> int:
    events = [json.loads(line) for line in day.read_text("utf-8").splitlines()]
    return [(e["kind"], e["name"]) for e in events].count(("eve", "turn.completed"))


class TestTracePlace:
    """TC-1, TC-2: the trace goes to the data folder's trace/ (--data, else TRACKERKIT_DATA, else
    ASSISTANT_DATA_DIR, else the per-user workspace), printed on every run; never into the
    repository's bundled sample days."""

    def test_past_the_sample_dates_the_samples_stay(
        self, capsys: pytest.CaptureFixture[str], user_home: Path
    ) -> None:
        """TC-1, TC-3: a bundled scene simulated a month past the samples leaves data/ as committed."""
        samples = REPO / "data" / "trace"
        before = {p.name: p.read_bytes() for p in samples.iterdir()}
        code, _, err = _run(capsys, "simulate", FIGHT, "--now", "2027-01-05T12:00:00Z")
        assert code == 0
        day = _user_trace() / "2027-01-05.jsonl"
        assert day.is_relative_to(user_home / "xdg")
        assert err == f"trackerkit: trace written to {day}\n"
        assert _completed(day) == 6
        assert {p.name: p.read_bytes() for p in samples.iterdir()} == before
        if shutil.which("git") and (REPO / ".git").exists():
            status = subprocess.run(
                ["git", "status", "--porcelain", "--", "data/"],
                cwd=REPO,
                capture_output=True,
                text=True,
                check=True,
            )
            assert status.stdout == ""

    def test_the_environment_names_the_data_dir(
        self,
        capsys: pytest.CaptureFixture[str],
        user_home: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """TC-1: ASSISTANT_DATA_DIR is used when --data is not given; --data wins over it."""
        monkeypatch.setenv("ASSISTANT_DATA_DIR", str(user_home / "assistant"))
        now = "2027-01-05T12:00:00+00:00"
        assert _run(capsys, "simulate", FIGHT, "--json", "--now", now)[0] == 0
        assert _completed(user_home / "assistant" / "trace" / "2027-01-05.jsonl") == 6
        code, _, err = _run(
            capsys, "simulate", FIGHT, "--data", str(user_home / "given"), "--now", now
        )
        assert code == 0
        assert (
            err
            == f"trackerkit: trace written to {user_home / 'given' / 'trace' / '2027-01-05.jsonl'}\n"
        )
        assert not _user_trace().exists()

    def test_trackerkit_data_names_the_data_folder(
        self,
        capsys: pytest.CaptureFixture[str],
        user_home: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """TRACKERKIT_DATA, the apps' data folder, receives the trace too, before
        ASSISTANT_DATA_DIR; --data wins over both; the per-user folder stays untouched."""
        monkeypatch.setenv("TRACKERKIT_DATA", str(user_home / "mine"))
        monkeypatch.setenv("ASSISTANT_DATA_DIR", str(user_home / "assistant"))
        now = "2027-01-05T12:00:00+00:00"
        code, _, err = _run(capsys, "simulate", FIGHT, "--json", "--now", now)
        day = user_home / "mine" / "trace" / "2027-01-05.jsonl"
        assert (code, err) == (0, f"trackerkit: trace written to {day}\n")
        assert _completed(day) == 6
        given = user_home / "given"
        assert _run(capsys, "simulate", FIGHT, "--data", str(given), "--now", now)[0] == 0
        assert _completed(given / "trace" / "2027-01-05.jsonl") == 6
        assert _completed(day) == 6, "the second run went to --data only"
        assert not (user_home / "assistant").exists()
        assert not _user_trace().exists()

    @pytest.mark.parametrize(
        ("option", "variable", "day"),
        [
            ([], None, "2027-01-05"),
            ([], "Europe/Moscow", "2027-01-06"),
            (["--timezone", "UTC"], "Europe/Moscow", "2027-01-05"),
            (["--timezone", "Asia/Tokyo"], None, "2027-01-06"),
        ],
        ids=["utc-by-default", "environment", "option-wins", "option"],
    )
    def test_the_day_follows_the_time_zone(
        self,
        capsys: pytest.CaptureFixture[str],
        user_home: Path,
        monkeypatch: pytest.MonkeyPatch,
        option: list[str],
        variable: str | None,
        day: str,
    ) -> None:
        """TC-2: the day file is named in --timezone, else ASSISTANT_TIMEZONE, else UTC."""
        if variable is not None:
            monkeypatch.setenv("ASSISTANT_TIMEZONE", variable)
        code, _, _ = _run(capsys, "simulate", FIGHT, "--now", "2027-01-05T22:30:00Z", *option)
        assert code == 0
        assert [p.name for p in _user_trace().iterdir()] == [f"{day}.jsonl"]

    def test_the_bundled_data_is_refused(
        self, capsys: pytest.CaptureFixture[str], user_home: Path
    ) -> None:
        """--data naming the repository's data/ is refused in one line; nothing is written."""
        before = {p.name: p.read_bytes() for p in (REPO / "data" / "trace").iterdir()}
        code, out, err = _run(capsys, "simulate", FIGHT, "--data", str(REPO / "data"))
        assert (code, out) == (1, "")
        assert err.startswith(f"trackerkit: {REPO / 'data'} is the repository's bundled data")
        assert err.count("\n") == 1
        assert {p.name: p.read_bytes() for p in (REPO / "data" / "trace").iterdir()} == before


def test_a_trace_that_cannot_be_written_is_told(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """TC-20: a day file that cannot be written (a folder in its place) breaks no turn; the run
    says, with the reason, that nothing was written, and exits 1: the trace asked for is missing.
    (A data dir that is a file is refused before any turn: tests/test_cli_data_is_file.py.)"""
    blocked = tmp_path / "data"
    day = blocked / "trace" / "2027-01-05.jsonl"
    day.mkdir(parents=True)
    code, out, err = _run(
        capsys, "simulate", FIGHT, "--data", str(blocked), "--now", "2027-01-05T12:00:00Z"
    )
    assert code == 1
    assert out.splitlines()[-1].startswith("values at the tip: ")
    assert err == (
        f"trackerkit: no trace could be written to {day}: the trace day file {day} is a folder, "
        "not a regular file; nothing is written to it (move it away and the next write makes "
        "the file)\n"
    )


def test_the_text_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    """--protocol text: no tool part in the request, the block's calls in the report, no block in a reply."""
    code, out, err = _run(capsys, "simulate", SHOP, "--no-trace", "--json", "--protocol", "text")
    assert code == 0, err
    reports = json.loads(out)
    assert {r["protocol"] for r in reports} == {"text"}
    assert all("tool" not in r["parts"] and "protocol" in r["parts"] for r in reports)
    assert all("```" not in (r["reply"] or "") for r in reports)
    assert any(c["name"] == "update_trackers" for r in reports for c in r["calls"])


def test_the_text_protocol_meets_a_retried_batch_only_on_the_next_turn(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fight's step 3 retries a refused batch in a second round: under text it is refused, and said."""
    code, _, err = _run(capsys, "simulate", FIGHT, "--no-trace", "--protocol", "text")
    assert code == 1
    assert "expectation not met: step 3: Health.hp: expected 12, found 22" in err


def test_a_protocol_is_one_of_two(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", SHOP, "--protocol", "smoke"])
    assert "invalid choice: 'smoke'" in capsys.readouterr().err


def test_the_trace_commands_read_the_data_folders_trace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`trackerkit trace days` with no folder reads where `simulate` wrote: the data folder's trace,
    by the same rule (TRACKERKIT_DATA here)."""
    monkeypatch.setenv("TRACKERKIT_DATA", str(tmp_path / "mine"))
    assert _run(capsys, "simulate", FIGHT, "--now", "2027-01-05T12:00:00Z")[0] == 0
    code, out, err = _run(capsys, "trace", "days", "--json")
    assert (code, err) == (0, "")
    assert [d["day"] for d in json.loads(out)] == ["2027-01-05"]
    assert json.loads(out)[0]["file"] == str(tmp_path / "mine" / "trace" / "2027-01-05.jsonl")


@pytest.mark.parametrize(
    "now", ["9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"]
)
def test_a_now_at_the_calendars_edge_is_refused_in_words(
    capsys: pytest.CaptureFixture[str], now: str
) -> None:
    """Found when tried: these printed "unexpected OverflowError (a bug in trackerkit…)"."""
    with pytest.raises(SystemExit) as exited:
        main(["simulate", FIGHT, "--no-trace", "--now", now])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert (
        "too near the calendar's edge; give a time between 0001-01-03 and 9999-12-29 (UTC)" in err
    )
    assert "bug" not in err


def test_a_trace_whose_writes_failed_is_not_said_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found when tried: on a full disk the run said "trace written to" an empty day file. An
    empty file is no trace; a partial one is said to miss events."""
    import os as os_module

    from trackerkit.trace import write as writer

    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer.os, "write", full)
    data = tmp_path / "data"
    code, _, err = _run(
        capsys, "simulate", FIGHT, "--data", str(data), "--now", "2027-01-05T12:00:00Z"
    )
    monkeypatch.setattr(writer.os, "write", os_module.write)
    assert code == 1
    day = data / "trace" / "2027-01-05.jsonl"
    assert (
        f"trackerkit: no trace could be written to {day}: [Errno 28] No space left on device\n"
        in err
    )
    assert "trace written to" not in err.replace("no trace could be written to", "")
