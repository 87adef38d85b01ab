"""What the importers and exporters say to a user names no spec rule (a trial: an import report
said "a list starts with no rows (TR-19)" and the export cost table "(TR-36)"; the spec is not
shipped, so a user cannot look those up). Docstrings and comments may cite rules; text that
reaches a report, a message or an error may not."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import trackerkit.formats
from trackerkit import decode_tracker
from trackerkit.cli import main
from trackerkit.formats import export_costs, export_wtracker, import_file

RULE = re.compile(r"\bT[RC]-\d")
FORMATS = Path(trackerkit.formats.__file__).parent
FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parents[2] / "data"


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and its functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


@pytest.mark.parametrize("module", sorted(p.name for p in FORMATS.glob("*.py")))
def test_no_string_of_the_code_cites_a_rule(module: str) -> None:
    """Every string literal of trackerkit/formats but the docstrings is free of rule ids."""
    tree = ast.parse((FORMATS / module).read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    cited = [
        f"{module}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and RULE.search(node.value)
    ]
    assert cited == []


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir()))
def test_no_report_line_cites_a_rule(fixture: str) -> None:
    """Each fixture's import report, line by line."""
    report = import_file(FIXTURES / fixture).report
    assert [line for line in report.to_text().splitlines() if RULE.search(line)] == []


def test_no_export_message_cites_a_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """The cost table's labels, what a WTracker export leaves behind, and the CLI's stderr."""
    trackers = [
        decode_tracker(json.loads(p.read_text(encoding="utf-8")))
        for p in sorted((DATA / "trackers").glob("*.json"))
    ]
    assert [c.label for c in export_costs(trackers) if RULE.search(c.label)] == []
    assert [m for m in export_wtracker(trackers).left_behind if RULE.search(m)] == []
    for target in ("openai", "anthropic", "gemini", "wtracker", "card"):
        assert main(["export", "--to", target, str(DATA / "trackers")]) == 0
        assert not RULE.search(capsys.readouterr().err)
