"""Where an app reads and writes its trackers and scenes: the workspace (issue 13, item 14).

The designer saves trackers and the simulator links them into scenes. Run from a checkout, the
obvious folder is the repository's bundled `data/`, and writing there changes committed files.
So an app finds its data folder this way:

1. `--data DIR`, passed to the app (`marimo run notebooks/designer.py -- --data DIR`, read from
   `mo.cli_args()`), else the `TRACKERKIT_DATA` variable: the person's own folder, read and
   written in place. Pointing at a folder is a choice to work on it, and the only way to edit
   the bundled library itself (`--data data`).
2. Otherwise the per-user workspace (`platformdirs.user_data_dir("trackerkit")/workspace`, such as
   `~/.local/share/trackerkit/workspace`) once it exists: everything saved before is there.
3. Otherwise the bundled `data/`, read in place. The first save copies its `trackers/` and
   `scenes/` into the per-user workspace (`Workspace.for_writing`) and writes there; from then on
   the apps read the workspace (2).

Why copy the whole library on the first save rather than keep the bundled folder and an overlay
of saved files: a tracker and the scenes that link it must be read together (the designer's
"where linked", the simulator's Trackers panel), and one folder holding both is what the person
sees on disk, with no file of one place silently hiding another's. Why not copy at start: just
looking must not create files, and until the first save the bundled data is what there is to
show. The trace (sample days) is not copied; the simulator's trace has its own place (TC-1).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import platformdirs

from trackerkit.errors import BadRequestError

__all__ = ["BUNDLED", "DATA_ENV", "AppArgs", "Workspace", "user_workspace", "workspace"]

#: The variable naming the data folder when the app is given no `--data` option.
DATA_ENV = "TRACKERKIT_DATA"
#: The repository's bundled data (`trackers/`, `scenes/`); absent in an installed wheel.
BUNDLED = Path(__file__).resolve().parents[1] / "data"
#: The folders a workspace holds, copied from the bundled data on the first save.
_COPIED = ("trackers", "scenes")

Origin = Literal["option", "environment", "workspace", "bundled"]


def user_workspace() -> Path:
    """The per-user workspace folder: `<user data dir>/trackerkit/workspace` (may not exist yet).

    The user data directory is the platform's (`$XDG_DATA_HOME` or `~/.local/share` on Linux).
    """
    return Path(platformdirs.user_data_dir("trackerkit", appauthor=False)) / "workspace"


@dataclass(frozen=True)
class Workspace:
    """The data folder an app reads, and where its saves go.

    Attributes:
        root: the folder holding `trackers/` and `scenes/` (either may not exist yet).
        origin: how it was chosen: the `--data` option, the `TRACKERKIT_DATA` variable, the
            per-user workspace, or the bundled data read in place.
        copy_to: for the bundled data, the per-user workspace the first save copies it into.
    """

    root: Path
    origin: Origin
    copy_to: Path | None = None

    @property
    def trackers(self) -> Path:
        """The tracker library folder (`<root>/trackers`)."""
        return self.root / "trackers"

    @property
    def scenes(self) -> Path:
        """The scenes folder (`<root>/scenes`)."""
        return self.root / "scenes"

    @property
    def writable(self) -> bool:
        """Whether saves go to `root` itself (everything but the bundled data read in place)."""
        return self.origin != "bundled"

    def describe(self) -> str:
        """One line for the page: which folder is read, why, and where a save goes."""
        if self.origin == "option":
            return f"Data folder `{self.root}` (the --data option): read and saved in place."
        if self.origin == "environment":
            return f"Data folder `{self.root}` ({DATA_ENV}): read and saved in place."
        if self.origin == "workspace":
            return f"Your workspace `{self.root}`: read and saved in place."
        return (
            f"The bundled data `{self.root}`, read in place; the first save copies it to your "
            f"workspace `{self.copy_to}` and saves there (pass --data DIR to use another folder)."
        )

    def for_writing(self) -> Workspace:
        """The workspace a save writes into: this one, or for the bundled data a fresh copy.

        The copy holds the bundled `trackers/` and `scenes/`; it is made in a temporary sibling
        folder and renamed into place, so a half-made copy is never read as the workspace, and
        when another app made it first, that one is used.

        Raises:
            BadRequestError: the workspace folder cannot be made (the message names it).
        """
        if self.writable:
            return self
        target = self.copy_to if self.copy_to is not None else user_workspace()
        if not target.exists():
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                scratch = Path(tempfile.mkdtemp(prefix=".workspace-", dir=target.parent))
                for name in _COPIED:
                    if (self.root / name).is_dir():
                        shutil.copytree(self.root / name, scratch / name)
                    else:
                        (scratch / name).mkdir()
                try:
                    scratch.rename(target)
                except OSError:
                    shutil.rmtree(scratch, ignore_errors=True)
                    if not target.is_dir():
                        raise
            except OSError as error:
                raise BadRequestError(
                    f"cannot make the workspace {target}: {error.strerror or error}; pass --data "
                    f"DIR or set {DATA_ENV} to a folder you can write"
                ) from None
        return Workspace(target, "workspace")


class AppArgs(Protocol):
    """The app's arguments: `mo.cli_args()` (marimo's `CLIArgs`) or a plain dict."""

    def get(self, key: str, /) -> object:
        """The value given for `--key`, a list when given twice, None when not given."""


def _option(cli_args: AppArgs | None) -> str | None:
    """The `--data` value among the app's arguments (the last one when given twice)."""
    value = cli_args.get("data") if cli_args is not None else None
    if value is None:
        return None
    if isinstance(value, list | tuple):
        value = value[-1] if value else ""
    if isinstance(value, bool) or not isinstance(value, str | int | float) or not str(value).strip():
        raise BadRequestError("--data needs a folder: --data DIR")
    return str(value)  # marimo reads `--data 2027` as a number


def workspace(
    cli_args: AppArgs | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    bundled: Path = BUNDLED,
) -> Workspace:
    """Choose the data folder an app reads: `--data`, else TRACKERKIT_DATA, else the workspace.

    Args:
        cli_args: the app's arguments as `mo.cli_args()` gives them (`{"data": "DIR"}`).
        environ: the environment to read (the process's when None).
        bundled: the bundled data folder read in place when nothing else is there.
    Returns:
        The `Workspace`: the person's folder, the per-user workspace once it exists, or the
        bundled data (whose `for_writing()` makes the workspace on the first save).
    Raises:
        BadRequestError: `--data` has no folder, or names something that is not a folder.
    """
    env = os.environ if environ is None else environ
    given = _option(cli_args)
    if given is not None:
        chosen: Workspace = Workspace(Path(given).expanduser(), "option")
    elif env.get(DATA_ENV):
        chosen = Workspace(Path(env[DATA_ENV]).expanduser(), "environment")
    else:
        home = user_workspace()
        if home.is_dir() or not bundled.is_dir():
            return Workspace(home, "workspace")
        return Workspace(bundled, "bundled", copy_to=home)
    if chosen.root.exists() and not chosen.root.is_dir():
        source = "--data" if chosen.origin == "option" else DATA_ENV
        raise BadRequestError(f"{source}: {chosen.root} is not a folder")
    return chosen
