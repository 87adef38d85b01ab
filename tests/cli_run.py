"""The command line run in-process for tests: `run_cli(capsys, *argv)` gives the exit code,
then what it wrote to stdout and to stderr."""

from __future__ import annotations

import pytest

from trackerkit.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `trackerkit ARGV...` as the console script would; (code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
