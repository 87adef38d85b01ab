"""Trial "conn", finding 8: OpenAI's 1,024-character description limit is a warning, said as one.

OpenAI refused tool descriptions over 1,024 characters (`string_above_max_length`, 2025); newer
models are reported to take them (llama_index PR #18784). So `export` says the tool *may* be
refused and exits 0, and exits 1 only when a documented rule refuses it; the designer's rail
gives the same verdict in the same words (`checkers.tool_verdict`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit import Draft, Library, encode_tracker
from trackerkit.cli import build_parser, main
from trackerkit.design import export_rows
from trackerkit.formats.checkers import (
    MAY_REFUSE,
    check_openai,
    is_warning,
    problem_lines,
    tool_verdict,
)
from trackerkit.formats.providers import openai_tool

ROOT = Path(__file__).resolve().parents[2]
TRACKERS = ROOT / "data" / "trackers"
LONG_SCENE = ROOT / "data" / "scenes" / "eval-flags.json"  # its strict description: 1,339

WORDS = (
    "function.description: is 1,339 characters; OpenAI has refused tool descriptions over 1,024 "
    "characters (string_above_max_length); newer models may take it (to be safe, link fewer "
    "trackers or shorten their field meanings)"
)


def _health() -> Draft:
    return Draft.open(Library(TRACKERS).get("health"))


def _many_choices() -> Draft:
    """1,001 choices: past strict mode's 1,000 enum values (a refusal) and a description that
    lists them past 1,024 characters (a warning)."""
    draft = _health()
    return draft.set_field(draft.key("mood"), choices=[f"c{i}" for i in range(1001)], default="c0")


def _long_description() -> Draft:
    """A note long enough to take the description past 1,024 characters, and no other rule."""
    return _health().set(note="Lower hp when she is hurt; raise it when she rests. " * 25)


class TestTheCheck:
    def test_an_over_long_description_is_a_warning_worded_truthfully(self) -> None:
        """The check is kept, its words say OpenAI has refused it and newer models may take it."""
        tool = openai_tool([Library(TRACKERS).get("health")])
        tool["function"]["description"] = "x" * 1025
        [problem] = check_openai(tool)
        assert problem.code == MAY_REFUSE
        assert is_warning(problem)
        assert problem.message.startswith(
            "is 1,025 characters; OpenAI has refused tool descriptions over 1,024 characters "
            "(string_above_max_length); newer models may take it"
        )
        assert problem_lines("OpenAI", [problem]) == [
            f"warning: OpenAI may refuse this tool: {problem}"
        ]

    @pytest.mark.parametrize(
        ("refusals", "warnings", "said"),
        [
            (0, 0, "OpenAI takes it"),
            (0, 1, "OpenAI may refuse it (1 warning)"),
            (2, 0, "OpenAI would refuse it (2 problems)"),
            (1, 1, "OpenAI would refuse it (1 problem, 1 warning)"),
        ],
        ids=["none", "warning", "refusals", "both"],
    )
    def test_the_verdict_in_words(self, refusals: int, warnings: int, said: str) -> None:
        assert tool_verdict("OpenAI", refusals, warnings) == said


class TestExport:
    def test_a_warning_exits_0_and_says_it_is_a_warning(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The trial's case: a scene's strict description past 1,024 characters."""
        assert main(["export", "--to", "openai", str(LONG_SCENE)]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out)[0]["function"]["strict"] is True
        assert err.splitlines()[0] == f"trackerkit: warning: OpenAI may refuse this tool: {WORDS}"
        assert "would refuse" not in err

    def test_a_documented_refusal_exits_1_with_the_document_written(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """1,001 choices break strict mode's 1,000 enum values: exit 1, each rule named, the
        description's length a warning beside it, and the tool still printed to look at."""
        path = tmp_path / "health.json"
        path.write_text(json.dumps(encode_tracker(_many_choices().tracker())))
        assert main(["export", "--to", "openai", str(path)]) == 1
        out, err = capsys.readouterr()
        assert json.loads(out)[0]["function"]["name"] == "update_trackers"
        lines = [line for line in err.splitlines() if line.startswith("trackerkit: ")]
        assert lines[0].startswith("trackerkit: warning: OpenAI may refuse this tool: ")
        assert lines[1] == (
            "trackerkit: OpenAI would refuse this tool: function.parameters: has 1,003 enum "
            "values; strict mode allows 1,000"
        )
        assert lines[2] == (
            "trackerkit: the tool was written, but the provider's documented rules refuse it "
            "(each rule broken is named above); exit 1"
        )

    def test_the_help_documents_the_exit_status(self) -> None:
        sub = next(a for a in build_parser()._actions if a.dest == "command")
        text = " ".join(sub.choices["export"].description.split())  # type: ignore[attr-defined]
        assert "Exit status: 1 when a provider's documented rules refuse the tool" in text
        assert "0 when the only finding is a warning (a line starting 'warning:')" in text


class TestTheRailAgrees:
    def test_a_long_description_alone_is_a_warning_on_the_rail_too(self) -> None:
        """The rail and `export` give one tracker the same verdict, in the same words."""
        rows = {r.key: r for r in export_rows(_long_description())}
        openai = rows["openai"]
        assert not openai.refused
        assert openai.verdict() == "OpenAI (strict) may refuse it (1 warning)"
        assert openai.problems == ()
        [warning] = openai.warnings
        assert "OpenAI has refused tool descriptions over 1,024 characters" in warning

    def test_a_refusal_beside_a_warning(self) -> None:
        rows = {r.key: r for r in export_rows(_many_choices())}
        assert rows["openai"].refused
        assert rows["openai"].verdict() == "OpenAI (strict) would refuse it (1 problem, 1 warning)"
