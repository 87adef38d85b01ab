"""A guard for tests of files that must never be opened (a FIFO, /dev/zero, a file outside).

Opening a FIFO for reading blocks until a writer comes, and reading /dev/zero never ends, so a
regression would hang the run or eat the memory instead of failing. `never_opened` makes any
`open` of the named paths (or of what they link to) fail the test at once instead.
"""

from __future__ import annotations

import builtins
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


@contextmanager
def never_opened(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> Iterator[None]:
    """Within the block, opening any of `paths` (by name or through a link) fails the test."""
    guarded = {os.path.abspath(p) for p in paths}
    guarded |= {os.path.realpath(p) for p in paths}
    real_os_open, real_io_open = os.open, io.open

    def check(target: Any) -> None:
        if not isinstance(target, str | bytes | os.PathLike):
            return  # a file descriptor
        name = os.fsdecode(os.fspath(target))
        try:
            seen = {os.path.abspath(name), os.path.realpath(name)}
        except ValueError:  # a NUL in the name: the real open refuses it anyway
            return
        if seen & guarded:
            pytest.fail(f"{name} was opened; it must be refused unopened")

    def guarded_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        check(path)
        return real_os_open(path, *args, **kwargs)

    def guarded_io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        check(file)
        return real_io_open(file, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(os, "open", guarded_os_open)
        patched.setattr(io, "open", guarded_io_open)
        patched.setattr(builtins, "open", guarded_io_open)
        yield
