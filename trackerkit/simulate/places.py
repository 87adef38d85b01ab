"""Where the simulator writes its trace (TC-1) and which time zone names the day file (TC-2).

The journal's contract puts a day's events in `<data dir>/trace/YYYY-MM-DD.jsonl`, the data
directory being `ASSISTANT_DATA_DIR`, and names the file by the installation's time zone,
`ASSISTANT_TIMEZONE`. The simulator is not the assistant, so with neither an option nor the
variable it writes to a per-user data directory (the platform's convention, such as
`~/.local/share/trackerkit`), never `./data`: run from a checkout, that is the repository's
bundled sample days, which retention (TC-3) would start deleting a month after their date.
"""

from __future__ import annotations

import os
import zoneinfo
from collections.abc import Mapping
from pathlib import Path

import platformdirs

from trackerkit.errors import BadRequestError

__all__ = [
    "BUNDLED_DATA",
    "DATA_DIR_ENV",
    "TIMEZONE_ENV",
    "check_data_dir",
    "data_dir",
    "time_zone",
]

#: The variable naming the data directory (TC-1).
DATA_DIR_ENV = "ASSISTANT_DATA_DIR"
#: The variable naming the installation's time zone (TC-2).
TIMEZONE_ENV = "ASSISTANT_TIMEZONE"
#: The repository's bundled data (`data/trace` holds the sample days); absent in an installed wheel.
BUNDLED_DATA = Path(__file__).resolve().parents[2] / "data"


def data_dir(
    given: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The simulator's data directory: `given`, else `ASSISTANT_DATA_DIR`, else the per-user one.

    Args:
        given: the `--data` option, when there is one.
        environ: the environment to read (the process's when None).
    Returns:
        The directory whose `trace/` folder receives the day files (it may not exist yet).
    """
    env = os.environ if environ is None else environ
    if given is not None and str(given):
        return Path(given)
    if env.get(DATA_DIR_ENV):
        return Path(env[DATA_DIR_ENV])
    return Path(platformdirs.user_data_dir("trackerkit", appauthor=False))


def check_data_dir(path: Path) -> Path:
    """Return `path` unless it is the repository's bundled data, whose sample days must stay.

    Raises:
        BadRequestError: `path` is the bundled `data/` folder (its `trace/` holds the samples).
    """
    if path.resolve() == BUNDLED_DATA and (BUNDLED_DATA / "trace").is_dir():
        raise BadRequestError(
            f"{path} is the repository's bundled data, whose trace/ holds the sample days; the "
            f"simulator never writes there. Pass --data DIR or set {DATA_DIR_ENV} to another "
            "folder"
        )
    return path


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
