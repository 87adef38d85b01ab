"""Where the simulator writes its trace (TC-1) and which time zone names the day file (TC-2).

The journal's contract puts a day's events in `<data dir>/trace/YYYY-MM-DD.jsonl`, the data
directory being `ASSISTANT_DATA_DIR`, and names the file by the installation's time zone,
`ASSISTANT_TIMEZONE`. The simulator's data directory is the data folder every app and command
uses (`trackerkit.workspace`, where the rule is written once): `--data`, else `TRACKERKIT_DATA`,
else `ASSISTANT_DATA_DIR`, else the per-user workspace (such as
`~/.local/share/trackerkit/workspace`), never `./data`: run from a checkout, that is the
repository's bundled sample days, which retention (TC-3) would start deleting a month after
their date.
"""

from __future__ import annotations

import os
import zoneinfo
from collections.abc import Mapping
from pathlib import Path

from trackerkit.errors import BadRequestError
from trackerkit.workspace import ASSISTANT_ENV, BUNDLED, check_trace_root, trace_root

__all__ = [
    "BUNDLED_DATA",
    "DATA_DIR_ENV",
    "TIMEZONE_ENV",
    "check_data_dir",
    "data_dir",
    "time_zone",
]

#: The assistant's variable naming its data directory (TC-1).
DATA_DIR_ENV = ASSISTANT_ENV
#: The variable naming the installation's time zone (TC-2).
TIMEZONE_ENV = "ASSISTANT_TIMEZONE"
#: The repository's bundled data (`data/trace` holds the sample days); absent in an installed wheel.
BUNDLED_DATA = BUNDLED


def data_dir(
    given: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The data directory the trace goes under: the data folder's rule (`trackerkit.workspace`).

    `given`, else `TRACKERKIT_DATA`, else `ASSISTANT_DATA_DIR`, else the per-user workspace.

    Args:
        given: the `--data` option, when there is one (an empty one counts as none).
        environ: the environment to read (the process's when None).
    Returns:
        The directory whose `trace/` folder receives the day files (it may not exist yet).
    Raises:
        BadRequestError: the folder, a folder above it or its `trace/` is a file (the message
            names it and where the folder came from).
    """
    option = {"data": os.fspath(given)} if given is not None and os.fspath(given) else None
    return trace_root(option, environ)


def check_data_dir(path: Path) -> Path:
    """Return `path` unless it is the repository's bundled data, whose sample days must stay.

    The commands' wording of `trackerkit.workspace.check_trace_root`, which `TraceWriter` runs too.

    Raises:
        BadRequestError: `path` is the bundled `data/` folder (its `trace/` holds the samples), or
            a symbolic link that loops (no trace could be written under it).
    """
    return check_trace_root(path, "Pass --data DIR or set TRACKERKIT_DATA to another folder")


def time_zone(
    given: str | None = None, environ: Mapping[str, str] | None = None
) -> zoneinfo.ZoneInfo:
    """The time zone naming the day files: `given`, else `ASSISTANT_TIMEZONE`, else UTC (TC-2).

    Raises:
        BadRequestError: the name is not an IANA time zone this machine knows (the message names
            where it came from).
    """
    env = os.environ if environ is None else environ
    if given:
        name, source = given, "--timezone"
    elif env.get(TIMEZONE_ENV):
        name, source = env[TIMEZONE_ENV], TIMEZONE_ENV
    else:
        return zoneinfo.ZoneInfo("UTC")
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        shown = repr(name[:60]) + ("…" if len(name) > 60 else "")
        raise BadRequestError(
            f"{source}: {shown} is not a time zone this machine knows; use an IANA name such "
            "as Europe/Moscow or UTC"
        ) from None
