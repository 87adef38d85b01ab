"""pytest's hooks for the whole repository: the notebooks' nbval options, wherever pytest runs,
and the order the test files are handed to the workers.

`pyproject.toml` passes `--nbval-sanitize-with=notebooks/sanitize.cfg`, a path relative to the
repository; nbval opens it relative to the working folder, so `cd notebooks && pytest X.ipynb`
failed every cell on a missing file. It is read from the repository root instead.

Order. `make test` runs the files on two workers (pytest-xdist, a file to a worker, in the
order collected: `--no-loadscope-reorder`). The longest files go first, so the run does not end
with one worker on a five-minute browser journey file while the other has nothing left: the
browser journeys (a marimo server and a page each; the most journeys first), then the
documentation notebooks (nbval, a kernel each), then the rest, the files of most tests first.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
BROWSER = ROOT / "tests" / "browser"


@pytest.hookimpl(trylast=True)  # after nbval's own, which copies the option it reads
def pytest_configure(config: pytest.Config) -> None:
    option = config.option
    sanitize = getattr(option, "nbval_sanitize_with", None)
    if sanitize and not Path(sanitize).is_absolute():
        option.nbval_sanitize_with = str(config.rootpath / sanitize)


def _kind_rank(path: Path) -> int:
    """Which kind of file goes first (lower first): browser journeys, notebooks, the rest."""
    if BROWSER in path.parents:
        return 0
    return 1 if path.suffix == ".ipynb" else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files in the order the workers should take them (the module's docstring): by kind,
    then the files of most tests first; a file's own tests keep their order (a stable sort)."""
    tests = Counter(item.path for item in items)
    items.sort(key=lambda item: (_kind_rank(item.path), -tests[item.path], str(item.path)))
