"""The trace journal: read it into pandas, put turns back together, write it, draw it.

The contract is `shared/spec/trace-rules.md` (TC-1..TC-22). Reading:

    >>> from trackerkit.trace import read_trace, assemble_turns  # doctest: +SKIP
    >>> events, errors = read_trace("data/trace")                # doctest: +SKIP
    >>> turns = assemble_turns(events)                           # doctest: +SKIP

`data` holds plain dicts; `read_trace(..., data="raw")` keeps the JSON text (an Arrow-backed
column), `data="lazy"` a `LazyData` mapping (not a dict), and `columns=[...]` extracts paths
of `data` into typed columns. `read_day_turns(folder, days)` gives the turns begun in chosen
day files whole (a turn past the installation's midnight goes on in the next file). `costs_by_day(turns)` gives cost per day file with the share of
steps without a cost; `export_parquet` and `events_to_arrow` write days out for other tools.

`trackerkit.trace.dask.read_trace_dask` reads past one machine; it needs the `dask` extra
and is not imported here.
"""

from trackerkit.errors import TraceLineError
from trackerkit.trace._columns import ColumnSpec
from trackerkit.trace._lazy import LazyData
from trackerkit.trace.costs import COST_COLUMNS, cost_summary, costs_by_day
from trackerkit.trace.days import DayTurns, read_day_turns
from trackerkit.trace.event_data import data_text, plain_data
from trackerkit.trace.export import EXPORT_FIELDS, events_to_arrow, export_parquet
from trackerkit.trace.failure import FAILURE_CLASSES, error_of, failure_class, failure_of
from trackerkit.trace.folder import SkippedFile, folder_days
from trackerkit.trace.frames import (
    DELIVERY_COLUMNS,
    GATE_COLUMNS,
    MARKER_COLUMNS,
    STEP_COLUMNS,
    TOOL_CALL_COLUMNS,
    deliveries,
    gates,
    markers,
    steps,
    tool_calls,
)
from trackerkit.trace.plots import (
    daily_costs,
    daily_usage,
    failures_by_class,
    tokens_over_day,
    turn_durations,
    turn_timeline,
)
from trackerkit.trace.read import (
    EVENT_COLUMNS,
    FIELDS,
    day_files,
    day_of,
    read_trace,
    trace_days,
    trace_subfolder_hint,
)
from trackerkit.trace.reasons import (
    FAILURE_COLUMNS,
    STATUS_AND_FAILURES,
    TURN_FILTERS,
    error_cells,
    failure_reason,
    filter_turns,
    turn_failures,
)
from trackerkit.trace.sample import write_days
from trackerkit.trace.turns import (
    ORPHAN_COLUMNS,
    TURN_COLUMNS,
    assemble_turns,
    assign_turns,
    orphans,
    resolve_turn,
    turn_events,
)
from trackerkit.trace.write import (
    CONTENT_FIELDS,
    TraceWriter,
    capture_content_setting,
    encode_event,
)

__all__ = [
    "CONTENT_FIELDS",
    "COST_COLUMNS",
    "DELIVERY_COLUMNS",
    "EVENT_COLUMNS",
    "EXPORT_FIELDS",
    "FAILURE_CLASSES",
    "FAILURE_COLUMNS",
    "FIELDS",
    "GATE_COLUMNS",
    "MARKER_COLUMNS",
    "ORPHAN_COLUMNS",
    "STATUS_AND_FAILURES",
    "STEP_COLUMNS",
    "TOOL_CALL_COLUMNS",
    "TURN_COLUMNS",
    "TURN_FILTERS",
    "ColumnSpec",
    "DayTurns",
    "LazyData",
    "SkippedFile",
    "TraceLineError",
    "TraceWriter",
    "assemble_turns",
    "assign_turns",
    "capture_content_setting",
    "cost_summary",
    "costs_by_day",
    "daily_costs",
    "daily_usage",
    "data_text",
    "day_files",
    "day_of",
    "deliveries",
    "encode_event",
    "error_cells",
    "error_of",
    "events_to_arrow",
    "export_parquet",
    "failure_class",
    "failure_of",
    "failure_reason",
    "failures_by_class",
    "filter_turns",
    "folder_days",
    "gates",
    "markers",
    "orphans",
    "plain_data",
    "read_day_turns",
    "read_trace",
    "resolve_turn",
    "steps",
    "tokens_over_day",
    "tool_calls",
    "trace_days",
    "trace_subfolder_hint",
    "turn_durations",
    "turn_events",
    "turn_failures",
    "turn_timeline",
    "write_days",
]
