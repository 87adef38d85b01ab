"""The README documents every command and opens with the two commands a fresh machine needs."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from trackerkit.cli import build_parser

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands(parser: argparse.ArgumentParser, prefix: str = "trackerkit") -> list[str]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append(f"{prefix} {name}")
                found += _commands(sub, f"{prefix} {name}")
    return found


def test_every_command_is_in_the_readme() -> None:
    """Each `trackerkit` command and sub-command appears in the README."""
    missing = [c for c in _commands(build_parser()) if c not in README]
    assert missing == []


def test_the_two_commands_come_first() -> None:
    """The first code block of the README is `make run` and `make test`."""
    first_block = README.split("```")[1]
    assert "make run" in first_block
    assert "make test" in first_block


def test_every_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ```python block of the README runs as written, from the repository's root."""
    blocks = re.findall(r"^```python\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) >= 3
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
