"""Every package the code imports is declared in pyproject.toml, and every declared one is locked.

`make setup` installs requirements.lock (`make lock` writes it), so a package that is imported but
not declared, or declared but not pinned with hashes, works here by accident and breaks on the
next fresh machine or for a library user. These tests catch that drift.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = (ROOT / "requirements.lock").read_text(encoding="utf-8")
# The code whose imports must be declared: the package and the notebooks `make run` opens.
SOURCES = sorted([*(ROOT / "trackerkit").rglob("*.py"), *(ROOT / "notebooks").glob("*.py")])
# Imported directly but installed (and pinned to one exact version) by the named declared
# dependency: pydantic requires its own pydantic-core release, so declaring it would only repeat
# (and could contradict) that pin.
PROVIDED_BY = {"pydantic-core": "pydantic"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, Requirement]:
    """The runtime dependencies, every extra and the build backend, by normalised name."""
    texts = [
        *PYPROJECT["project"]["dependencies"],
        *(r for extra in PYPROJECT["project"]["optional-dependencies"].values() for r in extra),
        *PYPROJECT["build-system"]["requires"],
    ]
    return {_norm(req.name): req for req in map(Requirement, texts)}


def _locked() -> dict[str, tuple[str, list[str]]]:
    """Each pin of the lock: normalised name -> (version, its sha256 hashes)."""
    pins = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", LOCK):
        head = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", block)
        if head:
            pins[_norm(head[1])] = (head[2], re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
    return pins


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level modules imported by SOURCES that are neither the stdlib nor trackerkit -> files."""
    found: dict[str, set[str]] = {}
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in {"__future__", "trackerkit"}:
                    continue
                found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_imported_package_is_declared() -> None:
    """Each third-party module the code imports comes from a dependency pyproject.toml declares."""
    declared = _declared()
    distributions = importlib.metadata.packages_distributions()
    undeclared = {}
    for module, files in sorted(_third_party_imports().items()):
        dists = {_norm(d) for d in distributions.get(module, [module])}
        dists = {PROVIDED_BY.get(d, d) for d in dists}
        if not dists & declared.keys():
            undeclared[module] = sorted(files)
    assert undeclared == {}, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_import_scan_sees_the_known_imports() -> None:
    """The scan itself works: it finds imports the code is known to have, and no stdlib module."""
    found = _third_party_imports()
    assert {"numpy", "pandas", "pydantic", "orjson", "msgspec", "marimo"} <= found.keys()
    assert not {"json", "os", "typing", "trackerkit"} & found.keys()


def test_every_declared_dependency_is_locked_with_hashes() -> None:
    """Each declared dependency (runtime, every extra, the build backend) is pinned in the lock,
    at a version its range allows, with at least one sha256 hash."""
    locked = _locked()
    problems = []
    for name, req in sorted(_declared().items()):
        if name not in locked:
            problems.append(f"{name}: not in requirements.lock (run `make lock`)")
            continue
        version, hashes = locked[name]
        if not req.specifier.contains(Version(version), prereleases=True):
            problems.append(f"{name}=={version}: outside pyproject's {req.specifier}")
        if not hashes:
            problems.append(f"{name}=={version}: no hash")
    assert problems == []


def test_every_pin_of_the_lock_has_a_hash() -> None:
    """`pip install --require-hashes` needs a hash for every package, transitive ones too."""
    pins = _locked()
    assert len(pins) > 50
    assert sorted(name for name, (_, hashes) in pins.items() if not hashes) == []
    assert "-e " not in LOCK  # nothing local: it installs anywhere
    assert "file:" not in LOCK
