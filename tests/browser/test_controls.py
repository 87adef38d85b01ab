"""Every control of every marimo app is touched by a journey (issue 13; STYLE habit 11).

The inventory is read from each app's source (`notebooks/*.py` holding `app = marimo.App`):
every `mo.ui.KIND(...)` call is a control. One assigned straight to a name (`picked =
mo.ui.dropdown(...)`) is known by that name; any other (built in a loop or a comprehension,
inside `mo.ui.array`/`mo.ui.dictionary`, or passed inline) is known by its kind, as
`mo.ui.KIND`. Each journey module (`tests/browser/test_*.py`) declares what it touches in a
module-level literal:

    TOUCHES = {"library": {"verdict_table", "picked", "field_table"}}

A control no journey touches fails its app's test, and so does a declared control the app does
not have (a rename the journey did not follow). Every app, and any app added later, must be
fully covered.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
JOURNEYS = Path(__file__).resolve().parent


def _marimo_aliases(tree: ast.Module) -> set[str]:
    """The names `marimo` is imported as (`import marimo as mo` gives `mo`)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "marimo"
    }


def _ui_kind(call: ast.Call, aliases: set[str]) -> str | None:
    """`KIND` when `call` is `mo.ui.KIND(...)`, else None."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "ui"
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id in aliases
    ):
        return func.attr
    return None


def is_app(path: Path) -> bool:
    """Whether the file is a marimo app (it makes `app = marimo.App(...)`)."""
    return "marimo.App(" in path.read_text(encoding="utf-8")


def inventory(source: str) -> set[str]:
    """The controls of an app's source: assigned names, and `mo.ui.KIND` for the others."""
    tree = ast.parse(source)
    aliases = _marimo_aliases(tree)
    named: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                named[id(node.value)] = targets[0].id
    controls: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (kind := _ui_kind(node, aliases)) is not None:
            controls.add(named.get(id(node), f"mo.ui.{kind}"))
    return controls


def declared_touches(path: Path) -> dict[str, set[str]]:
    """A journey module's `TOUCHES` literal (app name to controls), read without importing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "TOUCHES":
            found = ast.literal_eval(value)
            assert isinstance(found, dict), f"{path.name}: TOUCHES must map an app name to a set"
            return {str(app): set(controls) for app, controls in found.items()}
    return {}


def touched() -> dict[str, set[str]]:
    """Every journey's declarations, merged by app."""
    merged: dict[str, set[str]] = {}
    for path in sorted(JOURNEYS.glob("test_*.py")):
        for app, controls in declared_touches(path).items():
            merged.setdefault(app, set()).update(controls)
    return merged


APPS = sorted(p.stem for p in NOTEBOOKS.glob("*.py") if is_app(p))
INVENTORY = {app: inventory((NOTEBOOKS / f"{app}.py").read_text(encoding="utf-8")) for app in APPS}
TOUCHED = touched()


@pytest.mark.parametrize("app", APPS)
def test_every_control_is_touched_by_a_journey(app: str) -> None:
    """Each control of the app is declared touched by some journey in tests/browser/."""
    untouched = sorted(INVENTORY[app] - TOUCHED.get(app, set()))
    assert not untouched, f"{app}.py has controls no journey touches: {', '.join(untouched)}"


@pytest.mark.parametrize("app", APPS)
def test_every_touched_control_exists(app: str) -> None:
    """A journey names only controls the app has (a renamed control is followed)."""
    stale = sorted(TOUCHED.get(app, set()) - INVENTORY[app])
    assert not stale, (
        f"journeys declare {app} controls that {app}.py does not have: {', '.join(stale)}"
    )


def test_journeys_name_only_apps_that_exist() -> None:
    """Every app a journey declares is a notebook app."""
    assert set(TOUCHED) <= set(APPS), sorted(set(TOUCHED) - set(APPS))


def test_the_inventory_reads_names_and_kinds() -> None:
    """Assigned controls by name; looped, wrapped or inline ones by kind; other calls ignored."""
    source = """
import marimo as mo
picked = mo.ui.dropdown(options=["a"])
board: object = mo.ui.text()
buttons = mo.ui.array([mo.ui.button(label=x) for x in "ab"])
mo.vstack([mo.ui.table([])])
first, second = mo.ui.slider(1, 2), mo.ui.number()
mo.md("not a control")
other.ui.button()
"""
    assert inventory(source) == {
        "picked",
        "board",
        "buttons",
        "mo.ui.button",
        "mo.ui.table",
        "mo.ui.slider",
        "mo.ui.number",
    }


def test_the_library_and_trace_explorer_are_known_apps() -> None:
    """The inventory sees the apps this issue covers, with the controls they have."""
    assert {"designer", "library", "simulator", "trace_explorer"} <= set(APPS)
    assert INVENTORY["library"] == {"verdict_table", "picked", "field_table"}
    assert "day_pick" in INVENTORY["trace_explorer"]
