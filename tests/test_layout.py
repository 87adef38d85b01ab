"""The layout rule (issue 15, item 1), read from the code's own imports with `ast`.

The core (every module directly in `trackerkit/`, and `trackerkit/trace/`) knows nothing of the
apps: it imports none of `trackerkit.design`, `.simulate`, `.views`, `.evaluation` or `.formats`.
Two modules are the edges that put the apps together and may: the package's `__init__` (it
re-exports the public names of every part) and `cli.py` with its `trackerkit/commands/` (the
subcommands run the simulator, the importers and exporters, and the evaluation). Nothing else
needs to: `workspace.py`, which the
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
APPS = ("design", "simulate", "views", "evaluation", "formats")

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


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a `from ... import` reads, a relative one resolved from `package`."""
    base = node.module or ""
    if not node.level:
        return base
    parts = package.split(".")
    parent = ".".join(parts[: len(parts) - node.level + 1])
    return f"{parent}.{base}" if base else parent


def imported(path: Path, package: str | None = None) -> Iterator[tuple[int, str]]:
    """Every module `path` imports (with its line), relative imports made absolute from `package`
    (by default the file's own), at any depth of the file (a function's own import counts too)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _from_module(node, package or _package_of(path))
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
    return wrong + _wrong_attributes(path)


def _wrong_attributes(path: Path) -> list[str]:
    """Uses of a package taken whole (`from trackerkit import design`, then `design.X`) where X
    is not in that package's `__all__` (such as `design.draft.Draft`, a module inside it)."""
    bound = {
        alias.asname or alias.name: f"trackerkit.{alias.name}"
        for alias in _from_trackerkit(path)
        if alias.name in {"trace", *APPS}
    }
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        f"line {node.lineno}: {node.value.id}.{node.attr} is not in {bound[node.value.id]}.__all__"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in bound
        and node.attr not in importlib.import_module(bound[node.value.id]).__all__
    ]


def _from_trackerkit(path: Path) -> Iterator[ast.alias]:
    """Each name a notebook takes from `trackerkit` itself (`from trackerkit import ...`)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module == "trackerkit" and not node.level:
            yield from node.names


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
        "design.save(None)\n"
        "design.draft.Draft\n"
    )
    wrong = _wrong_imports(probe)
    assert [w.split(":")[0] for w in wrong] == ["line 1", "line 2", "line 3", "line 4", "line 8"]


def _module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package under `root` by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / "trackerkit").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _top_level_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when loaded, and those it makes for type checking only: every
    import outside a function (inside `if`, `try` too). Both count, so no cycle hides behind
    `TYPE_CHECKING` either."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            yield from _top_level_imports(node.body)
            yield from _top_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level_imports(node.body)
            for handler in node.handlers:
                yield from _top_level_imports(handler.body)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Which package modules each module imports when loaded, with the sub-packages an import
    passes through (`trackerkit.simulate.page` loads `trackerkit.simulate` first). The package
    root is left out: it re-exports every part, and every part passes through it by design."""
    modules = _module_names(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _top_level_imports(tree.body):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            else:
                base = _from_module(node, package)
                wanted = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for target in wanted:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                chain = target.split(".")
                for end in range(2, len(chain) + 1):
                    step = ".".join(chain[:end])
                    if step != name and not name.startswith(f"{step}."):
                        targets.add(step)
        graph[name] = targets
    graph["trackerkit"] = set()
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph.get(target, ())))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return found


def test_no_import_cycle() -> None:
    """No module imports itself back through others, at load time or for type checking."""
    graph = import_graph()
    assert {"trackerkit.design.draft", "trackerkit.simulate.session"} <= set(graph)
    assert cycles(graph) == []


def test_a_cycle_is_caught(tmp_path: Path) -> None:
    """A cycle through a type-checking import, and one through a sub-package's `__init__`, show."""
    package = tmp_path / "trackerkit"
    (package / "apps").mkdir(parents=True)
    (package / "__init__.py").write_text("from trackerkit.a import A\n")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from trackerkit.b import B\n"
    )
    (package / "b.py").write_text("from trackerkit import a\n")
    (package / "apps" / "__init__.py").write_text("from .page import p\n")
    (package / "apps" / "page.py").write_text("from trackerkit.c import c\n")
    (package / "c.py").write_text(
        "def c():\n    import trackerkit.a\nfrom trackerkit.apps import p\n"
    )
    assert cycles(import_graph(tmp_path)) == [
        ["trackerkit.a", "trackerkit.b"],
        ["trackerkit.apps", "trackerkit.apps.page", "trackerkit.c"],
    ]


def test_no_exported_name_hides_a_sub_package() -> None:
    """`import trackerkit.X.Y` binds through the attribute `trackerkit.X`: a function exported under
    a sub-package's name (as `evaluate` once was) breaks every such import."""
    import trackerkit

    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages.isdisjoint(trackerkit.__all__)
    for name in packages:
        module = importlib.import_module(f"trackerkit.{name}")
        assert getattr(trackerkit, name) is module


def _flat_modules() -> tuple[list[str], list[str]]:
    """The core's flat modules by name: the public ones and the private helpers (`_x`)."""
    names = [p.stem for p in sorted(PACKAGE.glob("*.py")) if p.stem != "__init__"]
    return [n for n in names if not n.startswith("_")], [n for n in names if n.startswith("_")]


@pytest.mark.parametrize(
    ("where", "text"),
    [
        ("trackerkit/__init__.py", importlib.import_module("trackerkit").__doc__ or ""),
        (
            "README.md's Layout",
            (ROOT / "README.md").read_text(encoding="utf-8").split("## Layout")[1],
        ),
    ],
)
def test_the_layout_names_every_module(where: str, text: str) -> None:
    """The package's docstring and the README's Layout name every core module, helpers too."""
    public, private = _flat_modules()
    missing = [n for n in public + private if f"`{n}`" not in text and f"    {n} " not in text]
    assert not missing, f"{where} does not name {missing}: add them where the others are listed"
