"""The simulator's sub-package: where a simulated session writes its trace, and on which day.

Today it holds the simulator's places (`data_dir`, `time_zone`); the session, its trace events,
scenarios and model clients move here as DESIGN.md lays out.
"""

from trackerkit.simulate.places import (
    BUNDLED_DATA,
    DATA_DIR_ENV,
    TIMEZONE_ENV,
    check_data_dir,
    data_dir,
    time_zone,
)

__all__ = [
    "BUNDLED_DATA",
    "DATA_DIR_ENV",
    "TIMEZONE_ENV",
    "check_data_dir",
    "data_dir",
    "time_zone",
]
