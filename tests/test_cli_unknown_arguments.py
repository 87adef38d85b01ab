"""Trial finding: an unknown option after a sub-command showed the top level's usage
(`usage: trackerkit [-h] COMMAND ...`, `trackerkit: error: ...`). The command it was given to
refuses it, with its own usage; what comes before any command stays the top level's."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit.cli import main

ROOT = Path(__file__).resolve().parents[1]
QUIET = str(ROOT / "data" / "scenes" / "eval-quiet.json")


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err.splitlines()


class TestTheCommandRefuses:
    """Exit 2; the usage and the error line name the deepest command chosen."""

    @pytest.mark.parametrize(
        ("argv", "command", "extra"),
        [
            (["check", "--bogus", "x"], "check", "--bogus"),
            (["prompt", "a", "b"], "prompt", "b"),
            (["eval", QUIET, "--json"], "eval", "--json"),
            (["trace", "days", "--bogus"], "trace days", "--bogus"),
        ],
        ids=["check", "prompt", "eval", "trace-days"],
    )
    def test_its_own_usage(
        self, argv: list[str], command: str, extra: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        err = _refused(argv, capsys)
        assert err[0].startswith(f"usage: trackerkit {command} [-h]")
        assert err[-1] == f"trackerkit {command}: error: unrecognized arguments: {extra}"


class TestTheTopLevelRefuses:
    """Before a command, an unknown option is the top level's."""

    def test_no_command(self, capsys: pytest.CaptureFixture[str]) -> None:
        err = _refused(["--bogus"], capsys)
        assert err[0] == "usage: trackerkit [-h] COMMAND ..."
        assert err[-1].startswith("trackerkit: error: ")

    def test_before_the_command(self, capsys: pytest.CaptureFixture[str]) -> None:
        err = _refused(["--bogus", "check", str(ROOT / "data" / "trackers")], capsys)
        assert err == [
            "usage: trackerkit [-h] COMMAND ...",
            "trackerkit: error: unrecognized arguments: --bogus",
        ]
