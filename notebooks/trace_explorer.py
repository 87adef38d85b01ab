import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · trace explorer")

with app.setup:
    from html import escape
    from pathlib import Path

    import marimo as mo

    from trackerkit.simulate import data_dir
    from trackerkit.trace import (
        assemble_turns,
        assign_turns,
        failures_by_class,
        read_trace,
        steps,
        tokens_over_day,
        tool_calls,
        trace_days,
        turn_durations,
        turn_events,
        turn_timeline,
    )

    default_dir = Path(__file__).resolve().parent.parent / "data" / "trace"


@app.function
def trouble(title, error):
    """A failure as the page shows it: what could not be done, then the error in words."""
    _words = escape(f"{type(error).__name__}: {error}")
    return mo.callout(mo.Html(f'<p style="overflow-wrap: anywhere">{_words}</p>'), kind="danger", title=title)


@app.cell(hide_code=True)
def _():
    mo.md("""
    # Trace explorer

    An assistant's trace journal: one JSONL file a day (named by the installation's time zone),
    one event a line, seven fields. Choose a folder and a day; the events load into pandas
    (a broken line is listed by file and line and spoils nothing else), turns are put back
    together by the journal's rules, and each turn can be opened as a timeline.
    """)
    return


@app.cell
def _():
    # Any failure below is shown in its own section as a message, never as a blank page.
    try:
        simulated_dir = data_dir() / "trace"
    except Exception as _error:
        mo.stop(True, trouble("Could not find your simulated sessions", _error))
    place = mo.ui.dropdown(
        options={
            "Bundled sample days": str(default_dir),
            f"Your simulated sessions ({simulated_dir})": str(simulated_dir),
        },
        value="Bundled sample days",
        label="Trace days",
    )
    place
    return (place,)


@app.cell
def _(place):
    folder = mo.ui.text(value=place.value, label="Trace folder", full_width=True)
    folder
    return (folder,)


@app.cell
def _(folder):
    try:
        _there = Path(folder.value).is_dir()
        days_table = trace_days(Path(folder.value)) if _there else None
    except Exception as _error:
        mo.stop(True, trouble("Could not read the trace folder", _error))
    mo.stop(
        days_table is None,
        mo.md(f"No trace days in `{folder.value}` yet: `trackerkit simulate SCENE` writes them there."),
    )
    mo.stop(len(days_table) == 0, mo.md(f"`{folder.value}` holds no day file (`YYYY-MM-DD.jsonl`)."))
    day_pick = mo.ui.multiselect(
        options=list(days_table["day"]), value=list(days_table["day"]), label="Days"
    )
    day_table = mo.ui.table(days_table.drop(columns="file"), selection=None, label="Day files")
    mo.vstack([day_pick, mo.accordion({"Day files": day_table})])
    return (day_pick,)


@app.cell
def _(day_pick, folder):
    mo.stop(not day_pick.value, mo.md("Pick at least one day."))
    try:
        events, errors = read_trace(Path(folder.value), days=day_pick.value)
        names = assign_turns(events)
    except Exception as _error:
        mo.stop(True, trouble("Could not read the picked days", _error))
    return errors, events, names


@app.cell
def _(errors, events):
    mo.md(
        f"**{len(events):,} events** loaded; "
        + (
            f"{len(errors)} broken lines: " + "; ".join(f"`{e.file.split('/')[-1]}:{e.line}` {e.reason}" for e in errors[:8])
            if errors
            else "no broken line"
        )
    )
    return


@app.cell
def _(events):
    source_pick = mo.ui.multiselect(options=sorted(map(str, events["source"].unique())), label="Source")
    kind_pick = mo.ui.multiselect(options=sorted(map(str, events["kind"].unique())), label="Kind")
    name_filter = mo.ui.text(value="", label="Name contains")
    mo.hstack([source_pick, kind_pick, name_filter], justify="start")
    return kind_pick, name_filter, source_pick


@app.cell
def _(events, kind_pick, name_filter, source_pick):
    try:
        shown = events
        if source_pick.value:
            shown = shown[shown["source"].astype(str).isin(source_pick.value)]
        if kind_pick.value:
            shown = shown[shown["kind"].astype(str).isin(kind_pick.value)]
        if name_filter.value:
            shown = shown[shown["name"].astype(str).str.contains(name_filter.value, regex=False)]
        _rows = shown[["ts", "turn", "session", "source", "kind", "name", "file", "line"]].astype({"ts": str})
    except Exception as _error:
        mo.stop(True, trouble("Could not filter the events", _error))
    event_table = mo.ui.table(_rows, selection=None, page_size=10, label=f"Events ({len(shown):,})")
    event_table
    return (shown,)


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Turns
    """)
    return


@app.cell
def _(events, names):
    try:
        turns = assemble_turns(events, names)
        _columns = ["name", "kind", "source", "start", "duration", "steps", "tokens_in", "tokens_out", "cost_usd", "tool_calls", "failures", "status"]
        _rows = turns[_columns].astype({"start": str, "duration": str})
    except Exception as _error:
        mo.stop(True, trouble("Could not put the turns together", _error))
    turns_view = mo.ui.table(_rows, selection="single", page_size=8, label=f"{len(turns)} turns")
    turns_view
    return turns, turns_view


@app.cell
def _(events, names, turns, turns_view):
    _picked = turns_view.value
    picked_turn = str(_picked["name"].iloc[0]) if len(_picked) else (str(turns["name"].iloc[0]) if len(turns) else None)
    mo.stop(picked_turn is None, mo.md("No turn in these days."))
    try:
        _events = turn_events(events, picked_turn, names)
        _timeline = turn_timeline(events, picked_turn, names)
        _rows = _events[["ts", "turn", "source", "kind", "name"]].astype({"ts": str})
    except Exception as _error:
        mo.stop(True, trouble(f"Could not open the turn {picked_turn}", _error))
    turn_table = mo.ui.table(_rows, selection=None, page_size=12, label="Its events in ts order")
    mo.vstack([mo.md(f"### `{picked_turn}`"), _timeline, turn_table])
    return (picked_turn,)


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Over the day: usage, cost, failures
    """)
    return


@app.cell
def _(events, names, turns):
    try:
        step_table = steps(events, names)
        call_table = tool_calls(events, names)
        _figures = [tokens_over_day(events, names), failures_by_class(events, names), turn_durations(turns)]
    except Exception as _error:
        mo.stop(True, trouble("Could not sum up the day", _error))
    mo.vstack(
        [
            mo.md(
                f"{len(step_table)} steps · {int(step_table['usage_in'].sum()):,} tokens in · "
                f"{int(step_table['usage_out'].sum()):,} out · ${step_table['cost_usd'].sum():.4f} · "
                f"{len(call_table)} tool calls, {int(call_table['failure'].notna().sum())} failed"
            ),
            _figures[0],
            mo.hstack(_figures[1:]),
        ]
    )
    return call_table, step_table


if __name__ == "__main__":
    app.run()
