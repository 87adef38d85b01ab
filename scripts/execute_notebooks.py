"""Execute the documentation notebooks in place, so their committed outputs are the documentation.

Run `make notebooks` (or `python scripts/execute_notebooks.py [NOTEBOOK ...]`) after changing a
notebook or the code it shows; `pytest --nbval` then checks that the outputs still match.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path) -> None:
    """Run every cell of one notebook with its folder as the working directory and save it."""
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps only: they would make every run a diff
    nbformat.write(notebook, path)
    print(f"executed {path.relative_to(ROOT)}")


def main(argv: list[str]) -> None:
    paths = [Path(a).resolve() for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
