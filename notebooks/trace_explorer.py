import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · trace explorer")


@app.cell
def _():
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
    simulated_dir = data_dir() / "trace"
    return (
        Path,
        assemble_turns,
        assign_turns,
        default_dir,
        failures_by_class,
        mo,
        read_trace,
        simulated_dir,
        steps,
        tokens_over_day,
        tool_calls,
        trace_days,
        turn_durations,
        turn_events,
        turn_timeline,
    )


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    # Trace explorer

    An assistant's trace journal: one JSONL file a day (named by the installation's time zone),
    one event a line, seven fields. Choose a folder and a day; the events load into pandas
    (a broken line is listed by file and line and spoils nothing else), turns are put back
    together by the journal's rules, and each turn can be opened as a timeline.
    """)
    return


@app.cell
def _(default_dir, mo, simulated_dir):
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
def _(mo, place):
    folder = mo.ui.text(value=place.value, label="Trace folder", full_width=True)
    folder
    return (folder,)


@app.cell
def _(Path, folder, mo, trace_days):
    mo.stop(
        not Path(folder.value).is_dir(),
        mo.md(f"No trace days in `{folder.value}` yet: `trackerkit simulate SCENE` writes them there."),
    )
    days_table = trace_days(Path(folder.value))
    day_pick = mo.ui.multiselect(
        options=list(days_table["day"]), value=list(days_table["day"]), label="Days"
    )
    mo.vstack(
        [
            day_pick,
            mo.accordion({"Day files": mo.ui.table(days_table.drop(columns="file"), selection=None)}),
        ]
    )
    return day_pick, days_table


@app.cell
def _(Path, assign_turns, day_pick, folder, read_trace):
    events, errors = read_trace(Path(folder.value), days=day_pick.value or None)
    names = assign_turns(events)
    return errors, events, names


@app.cell
def _(errors, events, mo):
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
def _(events, mo):
    source_pick = mo.ui.multiselect(options=sorted(map(str, events["source"].unique())), label="Source")
    kind_pick = mo.ui.multiselect(options=sorted(map(str, events["kind"].unique())), label="Kind")
    name_filter = mo.ui.text(value="", label="Name contains")
    mo.hstack([source_pick, kind_pick, name_filter], justify="start")
    return kind_pick, name_filter, source_pick


@app.cell
def _(events, kind_pick, mo, name_filter, source_pick):
    shown = events
    if source_pick.value:
        shown = shown[shown["source"].astype(str).isin(source_pick.value)]
    if kind_pick.value:
        shown = shown[shown["kind"].astype(str).isin(kind_pick.value)]
    if name_filter.value:
        shown = shown[shown["name"].astype(str).str.contains(name_filter.value, regex=False)]
    mo.ui.table(
        shown[["ts", "turn", "session", "source", "kind", "name", "file", "line"]].astype({"ts": str}),
        selection=None,
        page_size=10,
        label=f"Events ({len(shown):,})",
    )
    return (shown,)


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Turns
    """)
    return


@app.cell
def _(assemble_turns, events, mo, names):
    turns = assemble_turns(events, names)
    _columns = ["name", "kind", "source", "start", "duration", "steps", "tokens_in", "tokens_out", "cost_usd", "tool_calls", "failures", "status"]
    turns_view = mo.ui.table(
        turns[_columns].astype({"start": str, "duration": str}),
        selection="single",
        page_size=8,
        label=f"{len(turns)} turns",
    )
    turns_view
    return turns, turns_view


@app.cell
def _(events, mo, names, turn_events, turn_timeline, turns, turns_view):
    _picked = turns_view.value
    picked_turn = str(_picked["name"].iloc[0]) if len(_picked) else (str(turns["name"].iloc[0]) if len(turns) else None)
    if picked_turn is None:
        _view = mo.md("No turn in these days.")
    else:
        _events = turn_events(events, picked_turn, names)
        _view = mo.vstack(
            [
                mo.md(f"### `{picked_turn}`"),
                mo.ui.plotly(turn_timeline(events, picked_turn, names)),
                mo.ui.table(
                    _events[["ts", "turn", "source", "kind", "name"]].astype({"ts": str}),
                    selection=None,
                    page_size=12,
                    label="Its events in ts order",
                ),
            ]
        )
    _view
    return (picked_turn,)


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Over the day: usage, cost, failures
    """)
    return


@app.cell
def _(events, failures_by_class, mo, names, steps, tokens_over_day, tool_calls, turn_durations, turns):
    step_table = steps(events, names)
    call_table = tool_calls(events, names)
    mo.vstack(
        [
            mo.md(
                f"{len(step_table)} steps · {int(step_table['usage_in'].sum()):,} tokens in · "
                f"{int(step_table['usage_out'].sum()):,} out · ${step_table['cost_usd'].sum():.4f} · "
                f"{len(call_table)} tool calls, {int(call_table['failure'].notna().sum())} failed"
            ),
            mo.ui.plotly(tokens_over_day(events, names)),
            mo.hstack([mo.ui.plotly(failures_by_class(events, names)), mo.ui.plotly(turn_durations(turns))]),
        ]
    )
    return call_table, step_table


if __name__ == "__main__":
    app.run()
