"""The layout rule (issue 15, item 1), read from the code's own imports with `ast`.

The core (every module directly in `trackerkit/`, and `trackerkit/trace/`) knows nothing of the
apps: it imports none of `trackerkit.design`, `.simulate`, `.views`, `.evaluate` or `.formats`.
Two modules are the edges that put the apps together and may: the package's `__init__` (it
re-exports the public names of every part) and `cli.py` (its subcommands run the simulator, the
importers and exporters, and the evaluation). Nothing else needs to: `workspace.py`, which the
apps share, reads only folders and arguments.

And nothing imports a notebook: the apps under `notebooks/` are leaves that import the package,
never each other, and the package, the scripts and the benchmarks never import them. (The tests
load a notebook from its file to run it; that is running the leaf, not building on it.)
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "trackerkit"

#: The apps' sub-packages, which the core may not import.
APPS = ("design", "simulate", "views", "evaluate", "formats")

#: The core modules that put the apps together, and so may import them.
EDGES = {"trackerkit/__init__.py", "trackerkit/cli.py"}

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def _core_modules() -> list[Path]:
    flat = sorted(PACKAGE.glob("*.py"))
    trace = sorted((PACKAGE / "trace").rglob("*.py"))
    return [p for p in flat + trace if p.relative_to(ROOT).as_posix() not in EDGES]


def _package_of(path: Path) -> str:
    """`trackerkit.trace` for `trackerkit/trace/read.py`: where a relative import starts."""
    return ".".join(path.relative_to(ROOT).parent.parts)


def imported(path: Path, package: str | None = None) -> Iterator[tuple[int, str]]:
    """Every module `path` imports (with its line), relative imports made absolute from `package`
    (by default the file's own), at any depth of the file (a function's own import counts too)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = (package or _package_of(path)).split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            yield node.lineno, base
            # `from trackerkit import views` imports a sub-package by its name.
            yield from ((node.lineno, f"{base}.{alias.name}") for alias in node.names)


def _is_app(module: str) -> bool:
    return any(
        module == f"trackerkit.{app}" or module.startswith(f"trackerkit.{app}.") for app in APPS
    )


def test_the_core_is_found() -> None:
    """The walk sees the core: the flat modules and the trace package, without the edges."""
    names = {p.relative_to(ROOT).as_posix() for p in _core_modules()}
    assert {"trackerkit/tracker.py", "trackerkit/state.py", "trackerkit/trace/read.py"} <= names
    assert not names & EDGES
    assert not any(n.startswith(tuple(f"trackerkit/{app}/" for app in APPS)) for n in names)


@pytest.mark.parametrize("path", _core_modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_core_imports_no_app(path: Path) -> None:
    """A core module imports none of the apps' sub-packages."""
    found = [f"line {line}: {module}" for line, module in imported(path) if _is_app(module)]
    assert found == [], f"{path.relative_to(ROOT)} imports an app: {found}"


def test_the_edges_are_the_only_ones() -> None:
    """The two edges do import the apps (so the list of edges is no larger than it must be)."""
    for edge in sorted(EDGES):
        assert any(_is_app(m) for _, m in imported(ROOT / edge)), edge


def test_the_rule_catches_an_import(tmp_path: Path) -> None:
    """The reader sees plain, `from`, relative and function-level imports of an app."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import trackerkit.views.html\n"
        "from trackerkit import simulate\n"
        "from ..design import draft\n"
        "def f():\n"
        "    from trackerkit.formats.card import export_card\n"
    )
    apps = {m for _, m in imported(probe, "trackerkit.trace") if _is_app(m)}
    assert {
        "trackerkit.views.html",
        "trackerkit.simulate",
        "trackerkit.design.draft",
        "trackerkit.formats.card",
    } <= apps


def _notebook_names() -> set[str]:
    """What an import of a notebook starts with: the folder, or a notebook's own name."""
    return {"notebooks"} | {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize(
    "path",
    sorted(PACKAGE.rglob("*.py"))
    + sorted((ROOT / "scripts").glob("*.py"))
    + sorted((ROOT / "benchmarks").glob("*.py"))
    + NOTEBOOKS,
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_nothing_imports_a_notebook(path: Path) -> None:
    """No module of the package, script, benchmark or notebook imports a notebook."""
    names = _notebook_names()
    found = [
        f"line {line}: {module}"
        for line, module in imported(path)
        if module.split(".")[0] in names and not module.startswith("trackerkit")
    ]
    assert found == [], f"{path.relative_to(ROOT)} imports a notebook: {found}"


#: Where a notebook may import from: the package, the trace package and the apps' package roots
#: (each with its own `__all__`), never a module inside them (issue 15, item 6).
NOTEBOOK_SOURCES = ("trackerkit", "trackerkit.trace", *(f"trackerkit.{app}" for app in APPS))


def notebook_imports(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """Each trackerkit import of a notebook: its line, the module and the name taken (if any)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "trackerkit":
                    yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "trackerkit":
            for alias in node.names:
                yield node.lineno, node.module or "", alias.name


def _wrong_imports(path: Path) -> list[str]:
    """The imports of `path` from outside the declared surface, or of names it does not declare."""
    wrong = []
    for line, module, name in notebook_imports(path):
        if module not in NOTEBOOK_SOURCES:
            wrong.append(f"line {line}: {module} is not one of {', '.join(NOTEBOOK_SOURCES)}")
            continue
        if name is None:
            continue
        exported = set(importlib.import_module(module).__all__)
        if module == "trackerkit":
            exported |= {"trace", *APPS}
        if name not in exported:
            wrong.append(f"line {line}: {name} is not in {module}.__all__")
    return wrong


def test_the_notebooks_are_found() -> None:
    """The five marimo apps are walked."""
    assert {"designer", "simulator", "library", "trace_explorer", "evaluate"} <= {
        p.stem for p in NOTEBOOKS
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_import_the_surface_only(path: Path) -> None:
    """A notebook imports from `trackerkit`, `trackerkit.trace` or an app's package root, and only
    names that package declares in `__all__`."""
    assert _wrong_imports(path) == [], path.relative_to(ROOT)


def test_the_surface_rule_catches_a_module(tmp_path: Path) -> None:
    """A module inside a package, a plain import of one, and an undeclared name are all caught."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from trackerkit.simulate.page import outcome_html\n"
        "import trackerkit.views.html\n"
        "from trackerkit import fits\n"
        "from trackerkit.views import _STYLE\n"
        "from trackerkit import design, Draft\n"
        "from trackerkit.trace import read_trace\n"
    )
    wrong = _wrong_imports(probe)
    assert [w.split(":")[0] for w in wrong] == ["line 1", "line 2", "line 3", "line 4"]
