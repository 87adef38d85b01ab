"""Shared fixtures: plain tracker documents as they are stored, and a scratch library folder."""

from __future__ import annotations

import copy
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import floor_examples
import pytest
from hypothesis import settings

from trackerkit import Library

# No hypothesis deadline: timings are not asserted in tests (the machines are shared and noisy,
# and a first example pays one-time loads such as tiktoken's or pypinyin's tables, which
# hypothesis then reports as a flaky deadline). Speed is measured in benchmarks/.
settings.register_profile("trackerkit", deadline=None)
# On CI (`.ci/run` sets TRACKERKIT_FIXED_EXAMPLES=1) the examples are the same every run: a red
# CI then means a change broke something, and `bash .ci/run` on a fresh clone shows what CI will
# see. A developer's runs draw new examples each time and keep what fails in .hypothesis/.
settings.register_profile("trackerkit-fixed", deadline=None, derandomize=True)
fixed = os.environ.get("TRACKERKIT_FIXED_EXAMPLES") == "1"
settings.load_profile("trackerkit-fixed" if fixed else "trackerkit")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On the floors (`make floors`), each property test draws at most a few examples."""
    if floor_examples.ON:
        floor_examples.cap(items)


#: The `health` piece exactly as issue 2 gives it: a record with hp out of hp_max, and a mood.
HEALTH: dict[str, Any] = {
    "kind": "tracker",
    "id": "health",
    "revision": 0,
    "name": "Health",
    "description": "Vera's condition",
    "body": {
        "layout": "record",
        "fields": [
            {
                "name": "hp",
                "description": "Hit points.",
                "type": "number",
                "min": 0,
                "maxField": "hp_max",
                "icon": "lucide:heart",
            },
            {
                "name": "hp_max",
                "description": "Most hit points.",
                "type": "number",
                "min": 1,
                "default": 30,
            },
            {
                "name": "mood",
                "description": "How she feels.",
                "type": "choice",
                "choices": ["calm", "tense"],
            },
        ],
        "note": "Lower hp when Vera is hurt.",
        "template": None,
        "icon": None,
        "changes": "chips",
    },
}

#: A small list tracker: rows keyed by name, each with a count and a flag.
BAG: dict[str, Any] = {
    "id": "bag",
    "name": "Bag",
    "description": "What is in the bag.",
    "body": {
        "layout": "list",
        "fields": [
            {"name": "qty", "description": "How many.", "type": "number", "min": 0},
            {"name": "equipped", "description": "In hand.", "type": "boolean"},
        ],
        "note": "Add a row per item.",
    },
}

REPO = Path(__file__).resolve().parent.parent
DATA_TRACKERS = REPO / "data" / "trackers"


@pytest.fixture(autouse=True)
def _no_real_user_data(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test, nor a notebook or server it starts, reads or writes the person's own data folders."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
    for name in ("TRACKERKIT_DATA", "ASSISTANT_DATA_DIR", "ASSISTANT_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def library(tmp_path: Path) -> Library:
    """A writable copy of the bundled trackers (data/trackers) in the test's own folder."""
    shutil.copytree(DATA_TRACKERS, tmp_path / "trackers")
    return Library(tmp_path / "trackers")


@pytest.fixture
def health() -> dict[str, Any]:
    """A fresh copy of the `health` document, free to mutate."""
    return copy.deepcopy(HEALTH)


@pytest.fixture
def bag() -> dict[str, Any]:
    """A fresh copy of the `bag` list document, free to mutate."""
    return copy.deepcopy(BAG)


@pytest.fixture
def edit_health() -> Callable[[Callable[[dict[str, Any]], object]], dict[str, Any]]:
    """Return a copy of `health` after `change(doc)` edits it in place."""

    def make(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
        doc = copy.deepcopy(HEALTH)
        change(doc)
        return doc

    return make
