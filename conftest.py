"""pytest's hooks for the whole repository: the notebooks' nbval options, wherever pytest runs.

`pyproject.toml` passes `--nbval-sanitize-with=notebooks/sanitize.cfg`, a path relative to the
repository; nbval opens it relative to the working folder, so `cd notebooks && pytest X.ipynb`
failed every cell on a missing file. It is read from the repository root instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.hookimpl(trylast=True)  # after nbval's own, which copies the option it reads
def pytest_configure(config: pytest.Config) -> None:
    option = config.option
    sanitize = getattr(option, "nbval_sanitize_with", None)
    if sanitize and not Path(sanitize).is_absolute():
        option.nbval_sanitize_with = str(config.rootpath / sanitize)
