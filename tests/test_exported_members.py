"""The public surface is declared once (issue 15, item 6), in the manner of httpx's
`tests/test_exported_members.py`: each package's `__all__` is exactly the public names it holds,
sorted, so a name imported into a package and not declared (or declared and not there) fails here.

Sub-modules bound on the package by importing them are not members, nor is `annotations` from
`from __future__ import annotations`. The order is ruff's (RUF022): CONSTANTS, then Classes, then
functions, each alphabetical.
"""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import trackerkit

#: The type of `annotations`, bound in a module by `from __future__ import annotations`.
_FEATURE = type(annotations)


def _packages() -> list[str]:
    found = ["trackerkit"]
    found += [
        info.name
        for info in pkgutil.walk_packages(trackerkit.__path__, "trackerkit.")
        if info.ispkg
    ]
    return sorted(found)


def _ruff_order(name: str) -> tuple[int, str]:
    """RUF022's order: SCREAMING_CASE, then CamelCase, then the rest."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name


def public_members(module: types.ModuleType) -> list[str]:
    """The names a module holds that do not start with `_`, less sub-modules and future features."""
    return sorted(
        (
            name
            for name, value in vars(module).items()
            if not name.startswith("_") and not isinstance(value, types.ModuleType | _FEATURE)
        ),
        key=_ruff_order,
    )


def test_the_packages_are_found() -> None:
    """The walk sees the package and its parts."""
    assert {"trackerkit", "trackerkit.trace", "trackerkit.design", "trackerkit.views"} <= set(
        _packages()
    )


@pytest.mark.parametrize("name", _packages())
def test_all_imports_are_exported(name: str) -> None:
    """`__all__` is exactly the package's public members, in ruff's order."""
    module = importlib.import_module(name)
    assert module.__all__ == public_members(module)


def test_an_undeclared_name_is_caught() -> None:
    """A public name imported into a package without being declared breaks the equality."""
    module = types.ModuleType("probe")
    module.__dict__.update(
        declared=1, undeclared=2, _private=3, json=importlib.import_module("json")
    )
    module.__all__ = ["declared"]  # type: ignore[attr-defined]
    assert public_members(module) == ["declared", "undeclared"]
    assert module.__all__ != public_members(module)  # type: ignore[attr-defined]


def test_one_name_one_thing() -> None:
    """A name two packages export is the same object in both (a sub-package's name never means
    something else than the package's), so `from trackerkit.simulate import X` and
    `from trackerkit import X` cannot disagree."""
    meanings: dict[str, dict[int, str]] = {}
    for name in _packages():
        module = importlib.import_module(name)
        for member in module.__all__:
            meanings.setdefault(member, {}).setdefault(id(getattr(module, member)), name)
    clashes = {
        member: sorted(where.values()) for member, where in meanings.items() if len(where) > 1
    }
    assert clashes == {}
