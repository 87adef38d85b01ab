"""`eval --help` says each option's default, as `simulate --help` does."""

from __future__ import annotations

import pytest
from cli_run import run_cli


class TestEvalHelpSaysTheDefaults:
    """Trial finding: `eval --help` gave no default for --mode, and none for --timezone where
    `simulate --help` gives one."""

    @pytest.mark.parametrize(
        "words",
        [
            "forced: each turn starts from the expected state (default: free)",
            "the IANA time zone naming the trace day file (default: $ASSISTANT_TIMEZONE, else UTC)",
        ],
        ids=["mode", "timezone"],
    )
    def test_said(self, words: str, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            run_cli(capsys, "eval", "--help")
        assert words in " ".join(capsys.readouterr().out.split())

    def test_as_simulate_says_the_time_zone(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            run_cli(capsys, "simulate", "--help")
        text = " ".join(capsys.readouterr().out.split())
        assert "day file (default: $ASSISTANT_TIMEZONE, else UTC)" in text
