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


def _cost_rank(path: Path, tests: int) -> tuple[int, int]:
    """Where a file goes in the run (lower first): journeys, notebooks, the rest; most tests first."""
    if BROWSER in path.parents:
        return (0, -tests)
    if path.suffix == ".ipynb":
        return (1, -tests)
    return (2, -tests)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files in the order the workers should take them (the module's docstring)."""
    paths = [Path(str(item.fspath)) for item in items]
    tests = Counter(paths)
    order = {path: (_cost_rank(path, tests[path]), str(path)) for path in tests}
    ranked = sorted(zip(paths, items, strict=True), key=lambda pair: order[pair[0]])
    items[:] = [item for _, item in ranked]
