"""The data folder: where the apps and the command line read and write (issue 13, item 14).

One rule, for every app (designer, simulator, library, trace explorer, evaluate) and every command
(`simulate`, `eval`, `import`, `trace`):

1. `--data DIR` (an app's `marimo run notebooks/designer.py -- --data DIR`, read from
   `mo.cli_args()`; a command's `--data DIR`, `import`'s `--into DIR`), else the
   `TRACKERKIT_DATA` variable: the person's own folder, read and written in place. Pointing at a
   folder is a choice to work on it, and the only way to edit the bundled library itself
   (`--data data`).
2. For the trace only, `ASSISTANT_DATA_DIR` next: the assistant's own variable for its data
   directory (TC-1), so a simulated session lands where the assistant's journal is.
3. Otherwise the per-user folder (`platformdirs.user_data_dir("trackerkit")/workspace`, such as
   `~/.local/share/trackerkit/workspace`).

The data folder holds `trackers/`, `scenes/` and `trace/` (the day files, `<data folder>/trace`),
laid out as the bundled `data/` is. The bundled `data/` is never written unless named with
`--data`, and its trace never (`trackerkit.simulate.check_data_dir`): with no option and no
variable, until the per-user folder holds a library (its `trackers/`), the apps read the bundled
trackers and scenes in place, and the first save copies them into the per-user folder
(`Workspace.for_writing`) and writes there; from then on the apps read the per-user folder. The
trace meanwhile goes straight to the per-user folder's `trace/`, whose existence alone does not
make it the library.

A command given a file reads that file where it is, and a scene's trackers beside it (or
`--trackers`): `trackerkit prompt data/scenes/typical.json` reads the bundled data even once the
workspace is there, and says so on stderr (`unread_workspace`, `in_bundled`).

Why copy the whole library on the first save rather than keep the bundled folder and an overlay
of saved files: a tracker and the scenes that link it must be read together (the designer's
"where linked", the simulator's Trackers panel), and one folder holding both is what the person
sees on disk, with no file of one place silently hiding another's. Why not copy at start: just
looking must not create files, and until the first save the bundled data is what there is to
show. The bundled sample days are not copied: retention (TC-3) would delete them a month on.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import platformdirs

from trackerkit.errors import BadRequestError

__all__ = [
    "ASSISTANT_ENV",
    "BUNDLED",
    "DATA_ENV",
    "AppArgs",
    "Workspace",
    "check_trace_root",
    "in_bundled",
    "trace_root",
    "unread_workspace",
    "user_workspace",
    "workspace",
]

#: The variable naming the data folder when the app is given no `--data` option.
DATA_ENV = "TRACKERKIT_DATA"
#: The assistant's variable for its data directory (TC-1): names the trace's folder only, after
#: `--data` and `TRACKERKIT_DATA`.
ASSISTANT_ENV = "ASSISTANT_DATA_DIR"
#: The repository's bundled data (`trackers/`, `scenes/`, and `trace/`: the sample days the trace
#: explorer offers); absent in an installed wheel.
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
        assistant: the folder `ASSISTANT_DATA_DIR` names, when it chose the trace's folder (no
            `--data`, no `TRACKERKIT_DATA`).
    """

    root: Path
    origin: Origin
    copy_to: Path | None = None
    assistant: Path | None = None

    @property
    def trackers(self) -> Path:
        """The tracker library folder (`<root>/trackers`)."""
        return self.root / "trackers"

    @property
    def scenes(self) -> Path:
        """The scenes folder (`<root>/scenes`)."""
        return self.root / "scenes"

    @property
    def trace_root(self) -> Path:
        """The data directory the trace is written under (`TraceWriter`'s): its `trace/` holds
        the day files. The data folder, else `ASSISTANT_DATA_DIR`'s, else for the bundled data
        the per-user workspace: the bundled sample days are never the trace's."""
        if self.origin in ("option", "environment"):
            return self.root
        if self.assistant is not None:
            return self.assistant
        if self.origin == "bundled":
            return self.copy_to if self.copy_to is not None else user_workspace()
        return self.root

    @property
    def trace(self) -> Path:
        """The trace folder: `<trace_root>/trace`, one `YYYY-MM-DD.jsonl` file a day."""
        return self.trace_root / "trace"

    @property
    def sample_days(self) -> Path:
        """The bundled sample days the trace explorer offers (`<bundled data>/trace`): found
        through the installed package, as the bundled trackers and scenes are, so every app names
        one bundled folder. Never written: the trace is `trace`."""
        return BUNDLED / "trace"

    @property
    def source(self) -> str:
        """Why this data folder, in a few words: the option, the variable, or the workspace."""
        if self.origin == "option":
            return "the --data option"
        if self.origin == "environment":
            return DATA_ENV
        if self.origin == "workspace":
            return "your workspace"
        return "your workspace, made from the bundled data on the first save"

    @property
    def trace_source(self) -> str:
        """Why this trace folder, in a few words (`source`, or `ASSISTANT_DATA_DIR`)."""
        if self.origin not in ("option", "environment") and self.assistant is not None:
            return ASSISTANT_ENV
        return self.source if self.origin != "bundled" else "your workspace"

    def describe_trace(self) -> str:
        """One line for the page: the trace folder, and why that one."""
        return f"Trace folder `{self.trace}` ({self.trace_source})."

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
            f"workspace `{self.copy_to}` and saves there (the designer and the simulator save; pass "
            "--data DIR to use another folder)."
        )

    def for_writing(self) -> Workspace:
        """The workspace a save writes into: this one, or for the bundled data a fresh copy.

        The copy holds the bundled `trackers/` and `scenes/`; it is made in a temporary sibling
        folder and renamed into place, so a half-made copy is never read as the workspace, and
        when another app made it first, that one is used. When the folder is there already
        holding no library (only the trace a simulated session wrote), the copied `scenes/`
        then `trackers/` are renamed into it, `trackers/` last: its presence is what makes the
        folder the workspace (`workspace`).

        Raises:
            BadRequestError: the workspace folder cannot be made (the message names it).
        """
        if self.writable:
            return self
        target = self.copy_to if self.copy_to is not None else user_workspace()
        if not _holds_library(target):
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                scratch = Path(tempfile.mkdtemp(prefix=".workspace-", dir=target.parent))
                try:
                    for name in _COPIED:
                        if (self.root / name).is_dir():
                            shutil.copytree(self.root / name, scratch / name)
                        else:
                            (scratch / name).mkdir()
                    _move_in(scratch, target)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
            except OSError as error:
                raise BadRequestError(
                    f"cannot make the workspace {target}: {error.strerror or error}; pass --data "
                    f"DIR or set {DATA_ENV} to a folder you can write"
                ) from None
        return Workspace(target, "workspace", assistant=self.assistant)


def _holds_library(folder: Path) -> bool:
    """Whether the per-user folder is the workspace: it holds a tracker library (`trackers/`)."""
    return (folder / "trackers").is_dir()


def _move_in(scratch: Path, target: Path) -> None:
    """Put the copy made in `scratch` at `target`: renamed whole, or its folders moved into it.

    A folder another app moved in first is kept (theirs is the same copy).
    """
    try:
        scratch.rename(target)
        return
    except OSError:
        if not target.is_dir():
            if target.exists():
                raise
            target.mkdir(parents=True, exist_ok=True)
    for name in ("scenes", "trackers"):  # trackers/ last: it marks the workspace
        try:
            (scratch / name).rename(target / name)
        except OSError:
            if not (target / name).is_dir():
                raise


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
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, str | int | float)
        or not str(value).strip()
    ):
        raise BadRequestError("--data needs a folder: --data DIR")
    return str(value)  # marimo reads `--data 2027` as a number


def workspace(
    cli_args: AppArgs | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    bundled: Path = BUNDLED,
) -> Workspace:
    """Choose the data folder: `--data`, else TRACKERKIT_DATA, else the per-user workspace.

    The one place the rule is written (the module says it whole); the trace's folder is the
    result's `trace` (after TRACKERKIT_DATA, `ASSISTANT_DATA_DIR` names it).

    Args:
        cli_args: the app's arguments as `mo.cli_args()` gives them (`{"data": "DIR"}`), or a
            command's (`{"data": args.data}`); a path counts as its text.
        environ: the environment to read (the process's when None).
        bundled: the bundled data folder read in place when nothing else is there.
    Returns:
        The `Workspace`: the person's folder, the per-user workspace once it holds a library, or
        the bundled data (whose `for_writing()` makes the workspace on the first save).
    Raises:
        BadRequestError: `--data` has no folder, or names something that is not a folder.
    """
    chosen = _choose(cli_args, environ, bundled)
    if (
        chosen.origin in ("option", "environment")
        and chosen.root.exists()
        and not chosen.root.is_dir()
    ):
        source = "--data" if chosen.origin == "option" else DATA_ENV
        raise BadRequestError(f"{source}: {chosen.root} is not a folder")
    return chosen


def trace_root(cli_args: AppArgs | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """The data directory the trace goes under, by the same rule (`Workspace.trace_root`).

    The commands' (`simulate`, `eval`, `trace`): a data folder under which no `trace/` folder can
    be made is refused here, before any turn runs, rather than played with no trace written.
    The apps' `Workspace.trace_root` refuses nothing: there the trace writer tells that it could
    not write, and no turn breaks (TC-20).

    Raises:
        BadRequestError: `--data` has no folder; the data folder, a folder above it or its
            `trace/` is a file (the message names it, and where the folder came from).
    """
    chosen = _choose(cli_args, environ, BUNDLED)
    _check_trace_folder(chosen)
    return chosen.trace_root


def check_trace_root(path: Path, fix: str, *, bundled: Path = BUNDLED) -> Path:
    """Return `path` unless no trace may go under it: the bundled data, or a link that loops.

    The one check, run by the commands (`trackerkit.simulate.check_data_dir`) and by the library's
    `TraceWriter`: the bundled `trace/` holds the sample days, which retention (TC-3) would
    start deleting a month after their date.

    Args:
        path: the data directory whose `trace/` folder would receive the day files.
        fix: the sentence that ends a refusal: how the caller names another folder.
        bundled: the bundled data folder.
    Raises:
        BadRequestError: `path` is the bundled data folder (by any spelling that resolves to it)
            while its `trace/` is there, or a symbolic link that loops.
    """
    try:
        where = path.resolve()
    except RuntimeError:  # Python 3.11 and 3.12 raise it for a loop; 3.13 resolves it as is
        where = None
    if where is None or _loops(path):
        raise BadRequestError(
            f"{path} is a symbolic link that loops (it leads back to itself), so no trace can be "
            f"written under it. {fix}"
        )
    if where == bundled.resolve() and (bundled / "trace").is_dir():
        raise BadRequestError(
            f"{path} is the repository's bundled data, whose trace/ holds the sample days; no "
            f"trace is written there (retention would delete them). {fix}"
        )
    return path


def _loops(path: Path) -> bool:
    """Whether `path` (or a link on the way to it) is a symbolic link that loops."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def unread_workspace(
    environ: Mapping[str, str] | None = None, *, bundled: Path = BUNDLED
) -> Path | None:
    """The per-user workspace, when the rule has the apps read it instead of the bundled data.

    A command given a file reads that file, and a scene's trackers beside it: given the bundled
    library's files (`trackerkit prompt data/scenes/typical.json`), it does not read the
    workspace a save made, which is what the apps show. The commands say so (one line on
    stderr) when this is not None.

    Args:
        environ: the environment to read (the process's when None).
        bundled: the bundled data folder.
    Returns:
        The workspace folder; None when `TRACKERKIT_DATA` names the data folder, when no save
        has made the workspace yet (the apps read the bundled data too), or when there is no
        bundled data.
    """
    chosen = _choose(None, environ, bundled)
    if chosen.origin != "workspace" or not bundled.is_dir() or not _holds_library(chosen.root):
        return None
    return chosen.root


def in_bundled(path: str | os.PathLike[str], bundled: Path = BUNDLED) -> Path | None:
    """Where `path` lies in the bundled library (`trackers/health.json`, `scenes`), or None.

    Only the library a save copies (`trackers/`, `scenes/`) counts; the sample days are never
    the workspace's. The path is resolved first, so `./data/..` or a link finds the same place.
    """
    try:
        where = Path(path).resolve()
        root = bundled.resolve()
    except (OSError, RuntimeError):  # a link that loops (RuntimeError on Python 3.11, 3.12)
        return None
    for name in _COPIED:
        if where.is_relative_to(root / name):
            return where.relative_to(root)
    return None


def _check_trace_folder(chosen: Workspace) -> None:
    """Refuse a trace root that is a file, lies under one, or whose `trace/` is one."""
    root = chosen.trace_root
    named = {"option": "--data", "environment": DATA_ENV}.get(chosen.origin)
    if named is None:
        named = ASSISTANT_ENV if chosen.assistant is not None else "your workspace"
    trace = root / "trace"
    if trace.exists() and not trace.is_dir():
        raise BadRequestError(
            f"{named} {root}: its trace folder {trace} is a file, not a folder, so no trace can "
            "be written there; move that file away or give another data folder"
        )
    above = next((folder for folder in (root, *root.parents) if folder.exists()), None)
    if above is not None and not above.is_dir():
        where = f"{named} {root}" if above == root else f"{named} {root}: {above}"
        raise BadRequestError(
            f"{where} is a file, not a folder, so no trace can be written under it; give a data "
            "folder (its trace/ receives the day files)"
        )


def _choose(
    cli_args: AppArgs | None, environ: Mapping[str, str] | None, bundled: Path
) -> Workspace:
    env = os.environ if environ is None else environ
    given = _option(cli_args)
    if given is not None:
        return Workspace(Path(given).expanduser(), "option")
    if env.get(DATA_ENV):
        return Workspace(Path(env[DATA_ENV]).expanduser(), "environment")
    home = user_workspace()
    assistant = Path(env[ASSISTANT_ENV]).expanduser() if env.get(ASSISTANT_ENV) else None
    if _holds_library(home) or not bundled.is_dir():
        return Workspace(home, "workspace", assistant=assistant)
    return Workspace(bundled, "bundled", copy_to=home, assistant=assistant)
