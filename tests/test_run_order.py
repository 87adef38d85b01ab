"""The order the test files are handed to the xdist workers (the root conftest.py): longest first."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _root_conftest() -> Any:
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _items(*files: tuple[str, int]) -> list[Any]:
    return [
        SimpleNamespace(path=ROOT / name, name=f"{name}::{n}")
        for name, count in files
        for n in range(count)
    ]


def test_journeys_then_notebooks_then_the_rest_most_tests_first() -> None:
    items = _items(
        ("tests/test_small.py", 1),
        ("notebooks/01_tracker_model.ipynb", 5),
        ("tests/test_big.py", 30),
        ("tests/browser/test_few_journeys.py", 2),
        ("notebooks/03_reading_a_trace_day.ipynb", 9),
        ("tests/browser/test_many_journeys.py", 7),
    )
    _root_conftest().pytest_collection_modifyitems(items)
    files = list(dict.fromkeys(item.path.relative_to(ROOT).as_posix() for item in items))
    assert files == [
        "tests/browser/test_many_journeys.py",
        "tests/browser/test_few_journeys.py",
        "notebooks/03_reading_a_trace_day.ipynb",
        "notebooks/01_tracker_model.ipynb",
        "tests/test_big.py",
        "tests/test_small.py",
    ]


def test_a_files_tests_keep_their_order() -> None:
    items = _items(("tests/test_small.py", 1), ("notebooks/02_update_tool_and_prompt.ipynb", 12))
    _root_conftest().pytest_collection_modifyitems(items)
    cells = [item.name for item in items if item.path.suffix == ".ipynb"]
    assert cells == [f"notebooks/02_update_tool_and_prompt.ipynb::{n}" for n in range(12)]


def test_the_makefile_hands_out_the_files_in_that_order() -> None:
    """xdist's own reordering (most tests first) would undo it: the Makefile turns it off."""
    xdist = re.search(r"^XDIST\s*:=(.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert xdist is not None
    assert "--dist loadfile" in xdist.group(1)
    assert "--no-loadscope-reorder" in xdist.group(1)
