"""The README's `trackerkit check`, `import` and `export` examples run as written, from the
repository's root, on files the repository holds, and print what the README shows (a trial: they
named `broken.json`, `lorebook.json`, `wtracker.json` and `vera.json`, which were nowhere, so each
copied command failed with "is not there").

Each command runs through `trackerkit.cli.main` in a fresh copy of `data/` and `examples/`. A
command's shown lines must appear in its output in the same order; without a `...` line they must
be the whole output. Its exit code is the one a following `$ echo $?` shows, else 0. With `> FILE`
the shown lines are stderr and stdout is the JSON document the file would get.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from trackerkit.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
RUN = ("check", "import", "export")


@dataclass(frozen=True)
class Example:
    """One `$ trackerkit ...` line of a console block, what it shows and the exit code it shows."""

    line: str
    argv: list[str]
    redirect: str | None
    shown: list[str]
    code: int

    @property
    def whole(self) -> bool:
        """Whether the shown lines are the whole output (no `...` line leaves some out)."""
        return all(line.strip() != "..." for line in self.shown)


def _examples() -> list[Example]:
    found = []
    for block in re.findall(r"^```console\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL):
        runs: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                runs.append((line[2:], []))
            elif runs:
                runs[-1][1].append(line)
        for index, (command, shown) in enumerate(runs):
            words = shlex.split(command, comments=True)
            if words[:1] != ["trackerkit"] or len(words) < 2 or words[1] not in RUN:
                continue
            redirect = None
            if ">" in words:
                at = words.index(">")
                redirect, words = words[at + 1], words[:at]
            after = runs[index + 1] if index + 1 < len(runs) else None
            code = int(after[1][0]) if after and after[0] == "echo $?" else 0
            found.append(Example(command, words[1:], redirect, shown, code))
    return found


EXAMPLES = _examples()


def test_the_readme_shows_these_commands() -> None:
    """The examples the trial copied are all here, each naming a file the repository holds."""
    commands = [e.line for e in EXAMPLES]
    for wanted in (
        "trackerkit check examples/broken.json",
        "trackerkit import examples/lorebook.json --into mydata",
        "trackerkit import examples/wtracker.json --into mydata --dry-run",
        "trackerkit export --to card --card examples/vera.json",
    ):
        assert any(c.startswith(wanted) for c in commands), wanted
    for example in EXAMPLES:
        for word in example.argv:
            if word.startswith(("examples/", "data/")):
                assert (ROOT / word).exists(), f"{example.line}: {word} is not in the repository"


def _in_order(shown: list[str], lines: list[str]) -> bool:
    """Whether `shown` is a subsequence of `lines`."""
    rest = iter(lines)
    return all(any(line == want for line in rest) for want in shown)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.line for e in EXAMPLES])
def test_the_example_prints_what_the_readme_shows(
    example: Example,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for folder in ("data", "examples"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    code = main(example.argv)
    out, err = capsys.readouterr()
    assert code == example.code
    shown = [line for line in example.shown if line.strip() != "..."]
    if example.redirect is not None:
        json.loads(out)  # the document the file gets
        streams = [err.splitlines()]
    else:
        streams = [out.splitlines(), err.splitlines()]
    printed = [line for stream in streams for line in stream]
    missing = [line for line in shown if line not in printed]
    assert missing == []
    for stream in streams:
        assert _in_order([line for line in shown if line in stream], stream)
    if example.whole:
        assert sorted(shown) == sorted(printed)
