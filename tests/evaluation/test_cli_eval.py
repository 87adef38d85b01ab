"""`trackerkit eval`: end to end on the scripted model and on the loopback noisy server."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trackerkit.cli import main
from trackerkit.evaluation.noisy import Noise, serving_noisy
from trackerkit.evaluation.results import read_results

ROOT = Path(__file__).resolve().parents[2]
FIGHT = str(ROOT / "data" / "scenes" / "fight.json")
QUIET = str(ROOT / "data" / "scenes" / "eval-quiet.json")


def test_scripted_run_writes_results_and_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table on stdout, the Parquet file, and the turns in DATA/trace (never the repo's)."""
    out = tmp_path / "results.parquet"
    before = sorted((ROOT / "data" / "trace").iterdir())
    code = main(
        ["eval", FIGHT, QUIET, "--runs", "2", "--out", str(out), "--data", str(tmp_path / "d")]
    )
    captured = capsys.readouterr()
    assert code == 0
    lines = captured.out.splitlines()
    assert lines[0].split() == ["scripted", "(free)"]
    assert lines[2].split()[:2] == ["joint_accuracy", "1"]
    assert any(line.split()[:2] == ["pass^2", "1"] for line in lines)
    assert f"results written to {out}" in captured.err
    results = read_results(out)
    assert set(results.turns["scenario"]) == {"fight", "eval-quiet"}
    assert results.turns["joint"].all()
    days = list((tmp_path / "d" / "trace").glob("*.jsonl"))
    assert days
    sessions = {json.loads(line)["session"] for line in days[0].read_text().splitlines()}
    assert len(sessions) == 4  # two scenarios, two runs each
    assert sorted((ROOT / "data" / "trace").iterdir()) == before


def test_openai_model_options_and_variants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same model options as simulate, or a variants file: side by side, in forced mode."""
    with serving_noisy([FIGHT], Noise(off_by_one=0.5, seed=2)) as server:
        code = main(
            [
                "eval",
                FIGHT,
                "--model",
                "openai",
                "--base-url",
                server.url,
                "--model-name",
                "noisy",
                "--mode",
                "forced",
                "--no-trace",
            ]
        )
        assert code == 0
        assert capsys.readouterr().out.splitlines()[0].split() == ["noisy", "(forced)"]
        variants = tmp_path / "variants.json"
        variants.write_text(
            json.dumps(
                [
                    {"name": "noisy", "model": "openai", "base_url": server.url, "model_name": "n"},
                    {"name": "scripted"},
                ]
            )
        )
        code = main(
            ["eval", FIGHT, "--variants", str(variants), "--concurrency", "2", "--no-trace"]
        )
    assert code == 0
    assert capsys.readouterr().out.splitlines()[0].split() == [
        "noisy",
        "(free)",
        "scripted",
        "(free)",
    ]


def test_refusals_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No base URL, a bad variants file, a scene without turns: one line each, exit 1."""
    assert main(["eval", FIGHT, "--model", "openai", "--no-trace"]) == 1
    assert "--model openai needs --base-url" in capsys.readouterr().err
    bad = tmp_path / "v.json"
    bad.write_text(json.dumps([{"name": "x", "api_key": "sk-1"}]))
    assert main(["eval", FIGHT, "--variants", str(bad), "--no-trace"]) == 1
    assert "variants[0].api_key: is not a known key" in capsys.readouterr().err
    assert main(["eval", str(ROOT / "data" / "scenes" / "typical.json"), "--no-trace"]) == 1
    assert "typical.json: has no scripted turns to evaluate" in capsys.readouterr().err


def test_a_variant_without_its_trackers_is_refused_not_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An attack trial: a variant whose tracker folder did not exist scored 1 on everything
    and exited 0. A missing folder, or a folder without a linked piece, is refused."""
    variants = tmp_path / "v.json"
    variants.write_text(json.dumps([{"name": "a", "trackers": str(tmp_path / "nowhere")}]))
    assert main(["eval", FIGHT, "--variants", str(variants), "--no-trace"]) == 1
    err = capsys.readouterr().err
    # A new-user trial: the message did not say which variant named the folder.
    assert f"variants[0].trackers: the tracker folder {tmp_path / 'nowhere'} does not exist" in err
    assert "Traceback" not in err
    half = tmp_path / "half"
    half.mkdir()
    (half / "health.json").write_bytes((ROOT / "data" / "trackers" / "health.json").read_bytes())
    variants.write_text(json.dumps([{"name": "a", "trackers": str(half)}]))
    assert main(["eval", FIGHT, "--variants", str(variants), "--no-trace"]) == 1
    assert f"scene fight links stamina, but {half} holds no stamina.json" in capsys.readouterr().err


def test_the_text_protocol_shares_simulate_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval --protocol text` scores the scripted model on the text protocol: a quiet scene, all right."""
    code = main(["eval", QUIET, "--protocol", "text", "--no-trace"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = captured.out.splitlines()
    assert lines[2].split()[:2] == ["joint_accuracy", "1"]
    from trackerkit.cli import build_parser

    sub = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    options = {
        name: {a.dest: (a.default, a.choices) for a in sub[name]._actions}
        for name in ("simulate", "eval")
    }
    for dest in ("model", "base_url", "api_key_env", "protocol"):
        assert options["simulate"][dest] == options["eval"][dest]
    # eval has no default model name: it is the results' column (see test_eval3_metrics_cli).
    assert options["eval"]["model_name"] == (None, None)


def test_the_trace_goes_to_the_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data folder's rule (trackerkit.workspace): TRACKERKIT_DATA before ASSISTANT_DATA_DIR,
    --data before both, else the per-user workspace; the folder is named on stderr each time."""
    from trackerkit.workspace import user_workspace

    def trace_of(*argv: str) -> Path:
        assert main(["eval", QUIET, *argv]) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "trace written" in line]
        assert len(said) == 1
        return Path(said[0].removeprefix("trackerkit: trace written to ")).parent

    assert trace_of() == user_workspace() / "trace"
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path / "assistant"))
    assert trace_of() == tmp_path / "assistant" / "trace"
    monkeypatch.setenv("TRACKERKIT_DATA", str(tmp_path / "mine"))
    assert trace_of() == tmp_path / "mine" / "trace"
    assert trace_of("--data", str(tmp_path / "given")) == tmp_path / "given" / "trace"
    for folder in ("assistant", "mine", "given"):
        assert list((tmp_path / folder / "trace").glob("*.jsonl")), folder
    assert not (user_workspace() / "trackers").exists(), "the trace alone makes no workspace"


def test_the_help_says_percent_once(capsys: pytest.CaptureFixture[str]) -> None:
    """`eval --help`: "95% interval", argparse's %% escape not shown doubled."""
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "each with a 95% interval" in text
    assert "%%" not in text


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("folder", "--out {tmp} is a folder; give a file name, such as {tmp}/results.parquet"),
        ("missing", "--out {tmp}/no/r.parquet: the folder {tmp}/no does not exist"),
        ("file_parent", "--out {tmp}/f/r.parquet: the folder {tmp}/f is not a folder"),
        # Found when tried: a device was refused only after every run had played.
        (
            "device",
            "/dev/full is a character device, not a regular file; nothing was written to it",
        ),
        (
            "fifo",
            "{tmp}/pipe is a FIFO, not a regular file; nothing was written to it",
        ),
    ],
)
def test_out_is_checked_before_any_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    message: str,
) -> None:
    """An --out that cannot be written is refused up front: no run is played to be lost."""
    import trackerkit.evaluation.harness as harness

    def played(*args: object, **kwargs: object) -> None:
        raise AssertionError("a run was played")

    monkeypatch.setattr(harness, "evaluate", played)
    (tmp_path / "f").write_text("")
    out = {
        "folder": tmp_path,
        "missing": tmp_path / "no" / "r.parquet",
        "file_parent": tmp_path / "f" / "r.parquet",
        "device": Path("/dev/full"),
        "fifo": tmp_path / "pipe",
    }[name]
    os.mkfifo(tmp_path / "pipe")
    code = main(["eval", FIGHT, "--no-trace", "--out", str(out)])
    assert code == 1
    assert capsys.readouterr() == ("", f"trackerkit: {message.format(tmp=tmp_path)}\n")


@pytest.mark.parametrize(
    ("option", "value", "why"),
    [
        ("--timeout", "0", "out of range; give a number above 0"),
        ("--timeout", "nan", "not a finite number; give a number above 0"),
        ("--tolerance", "-1", "out of range; give a number of 0 or more"),
        ("--runs", "0", "out of range; give 1 or more"),
        ("--concurrency", "x", "not a whole number; give 1 or more"),
    ],
)
def test_numbers_out_of_range_are_refused(
    capsys: pytest.CaptureFixture[str], option: str, value: str, why: str
) -> None:
    """`--timeout 0`, `--tolerance -1`: a usage error naming the option, exit 2."""
    with pytest.raises(SystemExit) as exited:
        main(["eval", FIGHT, "--no-trace", option, value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f"trackerkit eval: error: argument {option}: {value!r} is {why}"
    )


def test_a_tracker_given_for_a_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    """A tracker file among the scenarios: said in one line before anything runs."""
    health = str(ROOT / "data" / "trackers" / "health.json")
    assert main(["eval", health, "--no-trace"]) == 1
    assert capsys.readouterr().err == (
        f"trackerkit: {health}: is a tracker, not a scene; eval reads a scene file, which "
        "links trackers (such as data/scenes/fight.json)\n"
    )


def test_an_out_this_user_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder this user cannot write into: refused up front (os.access stands in, as root
    may write anywhere)."""
    import trackerkit.cli

    monkeypatch.setattr(trackerkit.cli.os, "access", lambda path, mode: False)
    out = tmp_path / "r.parquet"
    assert main(["eval", FIGHT, "--no-trace", "--out", str(out)]) == 1
    assert capsys.readouterr() == ("", f"trackerkit: --out {out}: this user cannot write there\n")


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_endpoint_never_reached_is_not_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found when tried: a variant whose server was down got slot accuracy 0.46 and a green
    heat map, as if a model had changed nothing. Its failed turns are not answers: every metric
    is n/a, failed_turn_rate is 1, and the reason (the URL, connection refused) is said."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    variants = [
        {"name": "down", "model": "openai", "base_url": url, "model_name": "m", "max_retries": 0},
        {"name": "scripted"},
    ]
    path = tmp_path / "variants.json"
    path.write_text(json.dumps(variants))
    code = main(["eval", QUIET, "--variants", str(path), "--no-trace"])
    captured = capsys.readouterr()
    assert code == 1  # a variant with no scores is no pass for a script (found when tried)
    table = {line.split()[0]: line.split()[1:] for line in captured.out.splitlines()[2:]}
    assert table["joint_accuracy"][0] == "n/a"
    assert table["slot_accuracy"][0] == "n/a"
    assert table["slot_accuracy"][1] == "1"  # the scripted variant is scored as before
    assert table["failed_turn_rate"][0] == "1"  # all of them, with their interval
    assert "trackerkit: down (free): " in captured.err
    assert "turns failed and are not scored (so it has no scores)" in captured.err
    assert url in captured.err


def test_a_trace_that_could_not_be_written_is_not_said_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found when tried: with the trace unwritable, eval logged the failure, then said "trace
    written to". It says no trace could be written; the scores still print (TC-20), and it
    exits 1: the trace asked for is missing. The day file is a folder here: a trace folder that
    is a file is refused before any run (tests/test_cli_data_is_file.py)."""
    monkeypatch.delenv("ASSISTANT_TIMEZONE", raising=False)
    data = tmp_path / "d"
    today = datetime.now(UTC).date()
    for day in (today - timedelta(days=1), today, today + timedelta(days=1)):
        (data / "trace" / f"{day.isoformat()}.jsonl").mkdir(parents=True)
    code = main(["eval", QUIET, "--data", str(data)])
    captured = capsys.readouterr()
    assert code == 1
    assert f"trackerkit: no trace could be written to {data / 'trace'}{os.sep}" in captured.err
    assert "is a folder, not a regular file" in captured.err
    assert "trace written to" not in captured.err.replace("no trace could be written to", "")
    assert captured.out.splitlines()[0].split() == ["scripted", "(free)"]
