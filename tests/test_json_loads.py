"""`trackerkit._json.loads`: the JSON reading the trace reader and the chat client share.

A found defect: `simulate/completion.py` read bodies with the trace reader's private
`trackerkit.trace._lazy.loads`, an app reaching into a private module of another package. The
reading now lives in the package's shared `_json` module (as `_pieces` and `_arguments` serve
every part), and the trace reader takes it from there: one function, read alike by both.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from trackerkit._json import loads
from trackerkit.trace import _lazy

PACKAGE = Path(__file__).resolve().parents[1] / "trackerkit"


def _private_trace_imports(path: Path) -> list[str]:
    """Each import of a private module of `trackerkit.trace` (`trackerkit.trace._lazy`)."""
    package = ["trackerkit", *path.relative_to(PACKAGE).parent.parts]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] if node.level else [])
            module = ".".join(p for p in (base, node.module or "") if p)
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        found += [
            f"line {node.lineno}: {name}" for name in names if name.startswith("trackerkit.trace._")
        ]
    return found


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if "trace" not in p.relative_to(PACKAGE).parts],
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_no_module_outside_the_trace_package_imports_its_private_modules(path: Path) -> None:
    """Outside `trackerkit/trace/`, no module imports `trackerkit.trace._*`."""
    assert _private_trace_imports(path) == []


def test_the_trace_reader_reads_with_the_shared_function() -> None:
    """The trace reader's `loads` is the shared one: the reader and the client read alike."""
    assert _lazy.loads is loads


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"a": 1, "a": 2}', {"a": 2}),
        (b'"\\ud83d!"', "\ufffd!"),
        (b'{"\\udc00": [1]}', {"\ufffd": [1]}),
        (b"18446744073709551616", 18446744073709551616),
    ],
    ids=["repeated-key-last-wins", "lone-surrogate", "lone-surrogate-key", "past-64-bits"],
)
def test_values_read_as_pythons_json_reads_them(raw: bytes, expected: object) -> None:
    """Python's `json` values; a lone surrogate escape reads as U+FFFD."""
    assert loads(raw) == expected


@pytest.mark.parametrize(
    "raw", [b"1e999", b"-" + b"9" * 5000], ids=["past-the-double-range", "past-4300-digits"]
)
def test_numbers_no_python_value_holds_read_as_infinity(raw: bytes) -> None:
    """A number past a double's range, or an integer longer than Python converts, is ±inf."""
    value = loads(raw)
    assert isinstance(value, float)
    assert math.isinf(value)
    assert (value < 0) == raw.startswith(b"-")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"NaN", "NaN is not a JSON value"),
        (b"{", "Expecting property name"),
        (b"\xff", "can't decode byte 0xff"),
    ],
    ids=["nan", "broken", "not-utf8"],
)
def test_what_is_not_json_is_refused(raw: bytes, reason: str) -> None:
    """NaN, broken syntax and bytes that are not UTF-8 raise ValueError."""
    with pytest.raises(ValueError, match=reason):
        loads(raw)
