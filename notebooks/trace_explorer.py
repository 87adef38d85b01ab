# /// script
# [tool.marimo.opengraph]
# title = "Trace explorer"
# description = "Read the trace journal's days: events, turns, why a turn failed, a turn's timeline, cost and usage per day."
# ///
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · trace explorer")

with app.setup(hide_code=True):
    from html import escape
    from pathlib import Path

    import marimo as mo

    from trackerkit import NotFoundError, workspace
    from trackerkit.trace import (
        STATUS_AND_FAILURES,
        TURN_FILTERS,
        cost_summary,
        costs_by_day,
        daily_costs,
        daily_usage,
        data_text,
        error_cells,
        failure_reason,
        failures_by_class,
        filter_turns,
        folder_days,
        read_day_turns,
        steps,
        tokens_over_day,
        tool_calls,
        trace_days,
        trace_subfolder_hint,
        turn_durations,
        turn_events,
        turn_failures,
        turn_timeline,
    )
    from trackerkit.views import md_text, safe_md, trouble_html

    # Text from the trace (names, messages, reasons) is escaped before mo.md, which would render
    # the HTML in it: a value by md_text (or html.escape in <code>), a message the package builds
    # by safe_md (its markdown kept). failure_reason escapes its own markdown.


@app.cell(hide_code=True)
def _():
    mo.md("""
    # Trace explorer

    An assistant's trace journal: one JSONL file a day (named by the installation's time zone),
    one event a line, seven fields. Choose a folder and a day; the events load into pandas
    (a broken line is listed by file and line and spoils nothing else), turns are put back
    together by the journal's rules, and each turn can be opened as a timeline, with why it
    failed when it did.
    """)
    return


@app.function(hide_code=True)
def trouble(title, error):
    """A failure as the page shows it: what could not be done, then the error in words."""
    return mo.callout(mo.Html(trouble_html(title, error)), kind="danger")


@app.function(hide_code=True)
def drawn(what, draw):
    """The figure `draw()` makes, or the page's "Could not draw WHAT" callout when it fails.

    Each figure has a cell of its own that calls this: one that fails (or is too large for the
    page) takes only itself down.
    """
    try:
        return draw()
    except Exception as error:
        return trouble(f"Could not draw {what}", error)


@app.function(hide_code=True)
def counted(number, noun, nouns=None):
    """`1 broken line`, `2 broken lines`: the number and its noun, plural (`nouns`, else the
    noun with an s) unless the number is one."""
    return f"{number:,} {noun if number == 1 else nouns or noun + 's'}"


@app.function(hide_code=True)
def titled_by_days(figure, days):
    """The per-day cumulative chart titled by the days it covers: one by its date, several as a span."""
    _days = sorted(days)
    _span = (
        f"on {_days[0]}"
        if len(_days) == 1
        else f"over {len(_days)} days ({_days[0]} to {_days[-1]})"
    )
    # title_text, not title: a new title would drop the subtitle that says the curves are thinned.
    figure.update_layout(title_text=f"Tokens and cost, cumulative within each day, {_span}")
    return figure


@app.cell
def _():
    # Any failure below is shown in its own section as a message, never as a blank page.
    # The data folder's trace, by the rule every app and command follows (trackerkit.workspace):
    # --data DIR, else TRACKERKIT_DATA, else ASSISTANT_DATA_DIR, else your workspace.
    try:
        _chosen = workspace(mo.cli_args())
    except Exception as _error:
        mo.stop(True, trouble("Could not find your data folder's trace", _error))
    simulated_dir = _chosen.trace
    _yours = f"Your data folder's trace ({simulated_dir})"
    place = mo.ui.dropdown(
        # The sample days are under the bundled data the other apps read, not by this notebook.
        options={"Bundled sample days": str(_chosen.sample_days), _yours: str(simulated_dir)},
        # A folder named (--data, or the environment) is the one to open; else the samples.
        value=_yours if _chosen.origin in ("option", "environment") else "Bundled sample days",
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
def _(folder, place):
    # An empty box is no folder (Path("") would read the server's working folder).
    mo.stop(
        not folder.value.strip(),
        mo.callout(
            mo.md(
                "**No folder given**: type the folder that holds the day files "
                "(`YYYY-MM-DD.jsonl`) in Trace folder."
            ),
            kind="info",
        ),
    )
    try:
        _files, skipped = folder_days(Path(folder.value))
    except NotFoundError as _error:
        mo.stop(
            True,
            mo.callout(
                # The error names the folder and what is wrong with it: said once, not twice.
                mo.md(
                    f"**Missing folder**: {escape(str(_error))} "
                    "`trackerkit simulate SCENE` writes trace days to your data folder's trace."
                ),
                kind="warn",
            ),
        )
    except Exception as _error:
        mo.stop(True, trouble("Could not read the trace folder", _error))
    skipped_note = (
        mo.callout(
            mo.md(
                f"**Skipped {len(skipped)} {'entry' if len(skipped) == 1 else 'entries'}** that "
                "are not day files (only `YYYY-MM-DD.jsonl` files with a real date are read):\n\n"
                + "\n".join(f"- <code>{escape(s.name)}</code>: {escape(s.reason)}" for s in skipped)
            ),
            kind="info",
        )
        if skipped
        else mo.md("")
    )
    mo.stop(
        not _files and not skipped,
        mo.callout(
            mo.md(
                f"**Empty folder**: <code>{escape(folder.value)}</code> is empty: no day file "
                "(`YYYY-MM-DD.jsonl`) to read."
            ),
            kind="warn",
        ),
    )
    mo.stop(
        not _files,
        mo.vstack(
            [
                mo.md(
                    f"<code>{escape(folder.value)}</code> holds no day file (`YYYY-MM-DD.jsonl`)"
                    + (
                        f"; {escape(_inner)}"
                        if (_inner := trace_subfolder_hint(folder.value))
                        else "."
                    )
                ),
                skipped_note,
            ]
        ),
    )
    try:
        days_table = trace_days(Path(folder.value))
    except Exception as _error:
        mo.stop(True, trouble("Could not read the trace folder", _error))
    day_pick = mo.ui.multiselect(
        options=list(days_table["day"]), value=list(days_table["day"]), label="Days"
    )
    day_table = mo.ui.table(days_table.drop(columns="file"), selection=None, label="Day files")
    # The folder read, said in words: a typed folder is not one of the Trace days choices.
    _listed = {str(Path(v)) for v in place.options.values()}
    _which = (
        f" ({escape(place.selected_key)})"
        if str(Path(folder.value)) == str(Path(place.value))
        else " (typed in Trace folder, not one of the Trace days choices)"
        if str(Path(folder.value)) not in _listed
        else ""
    )
    _count = f"{len(days_table)} day {'file' if len(days_table) == 1 else 'files'}"
    reading = mo.Html(
        f'<div class="tk-reading">Found {_count} in <code>{escape(folder.value)}</code>{_which}; '
        "Days picks the ones read.</div>"
    )
    mo.vstack([reading, day_pick, mo.accordion({"Day files": day_table}), skipped_note])
    return (day_pick,)


@app.cell
def _(day_pick, folder):
    mo.stop(not day_pick.value, mo.md("Pick at least one day."))
    try:
        # The picked files' events, and the turns begun in them whole: a turn past midnight goes
        # on in the next day's file, which is read for it even when it is not picked (TC-2).
        _read = read_day_turns(Path(folder.value), day_pick.value)
    except Exception as _error:
        mo.stop(True, trouble("Could not read the picked days", _error))
    events, errors, turn_rows, names = _read.events, _read.errors, _read.turn_events, _read.names
    day_turns = _read.turns
    return day_turns, errors, events, names, turn_rows


@app.cell
def _(day_pick, errors, events, turn_rows):
    # Turns past midnight take rows from the next day's file even when it is not picked.
    _beyond = int((~turn_rows["day"].astype(str).isin(day_pick.value)).sum())
    mo.md(
        f"**{counted(len(events), 'event')}** loaded"
        + (
            f" (and {_beyond:,} from a day not picked, of turns that run on past midnight: "
            "in the turns, steps and figures, not in the events table)"
            if _beyond
            else ""
        )
        + "; "
        + (
            f"{counted(len(errors), 'broken line')}: "
            + "; ".join(
                safe_md(f"`{e.file.split('/')[-1]}:{e.line}` {e.reason}") for e in errors[:8]
            )
            if errors
            else "no broken line"
        )
    )
    return


@app.cell
def _(events):
    source_pick = mo.ui.multiselect(
        options=sorted(map(str, events["source"].unique())), label="Source"
    )
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
        # A filtered frame keeps its row labels; marimo would show them as an Index0 column.
        _rows = (
            shown[["ts", "turn", "session", "source", "kind", "name", "file", "line"]]
            .astype({"ts": str})
            .reset_index(drop=True)
        )
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
def _(day_turns):
    turns = day_turns
    turn_show = mo.ui.radio(
        options=list(TURN_FILTERS), value="every turn", inline=True, label="Show"
    )
    turn_show
    return turn_show, turns


@app.cell
def _(turn_show, turns):
    try:
        shown_turns = filter_turns(turns, turn_show.value)
        _columns = [
            "name",
            "day",
            "status",
            "failures",
            "error_class",
            "error",
            "kind",
            "source",
            "start",
            "duration",
            "steps",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "steps_without_cost",
            "tool_calls",
        ]
        _rows = error_cells(shown_turns[_columns]).astype({"start": str, "duration": str})
        _rows = _rows.reset_index(drop=True)
    except Exception as _error:
        mo.stop(True, trouble("Could not filter the turns", _error))
    # The filters' names are plural ("failed turns", "turns with failures"): one is said singular.
    _one = {"failed turns": "failed turn", "turns with failures": "turn with failures"}
    _label = (
        counted(len(turns), "turn")
        if turn_show.value == "every turn"
        else f"{counted(len(shown_turns), _one[turn_show.value], turn_show.value)} "
        f"(of {len(turns)})"
    )
    turns_view = mo.ui.table(
        _rows, selection="single", page_size=8, label=_label, format_mapping={"cost_usd": "{:.6g}"}
    )
    turns_view
    return shown_turns, turns_view


@app.cell
def _(names, shown_turns, turn_rows, turn_show, turns_view):
    _picked = turns_view.value
    picked_turn = (
        str(_picked["name"].iloc[0])
        if len(_picked)
        else (str(shown_turns["name"].iloc[0]) if len(shown_turns) else None)
    )
    mo.stop(picked_turn is None, mo.md(f"No {turn_show.value} in these days."))
    try:
        _events = turn_events(turn_rows, picked_turn, names)
        _timeline = turn_timeline(turn_rows, picked_turn, names)
        _failures = turn_failures(turn_rows, picked_turn, names)
        _rows = (
            _events[["ts", "turn", "source", "kind", "name"]]
            .astype({"ts": str})
            .reset_index(drop=True)
        )
        _rows["data"] = [data_text(d) for d in _events["data"]]
    except Exception as _error:
        mo.stop(True, trouble(f"Could not open the turn {picked_turn}", _error))
    _turn = shown_turns[shown_turns["name"] == picked_turn]
    _status = str(_turn["status"].iloc[0]) if len(_turn) else "?"
    _count = int(_turn["failures"].iloc[0]) if len(_turn) else 0
    _explained = mo.callout(
        mo.md("**Status and failures**: " + STATUS_AND_FAILURES), kind="neutral"
    )
    _why = mo.md(failure_reason(_failures, _status, _count))
    if _failures.empty:
        error_pane = mo.vstack([_why, _explained])
    else:
        # A turn's own failure may name no step: an empty cell, not None. `turn` tells the
        # turn's own failures (turn_2) from a subagent's (turn_2#planner).
        _columns = ["ts", "event", "turn", "step", "error_class", "error", "is_reason"]
        failure_table = mo.ui.table(
            error_cells(_failures[_columns])
            .astype({"ts": str, "step": object, "turn": object})
            .fillna({"step": "", "turn": ""}),
            selection=None,
            label=f"Every failure in this turn ({len(_failures)})",
        )
        _data = _failures.loc[_failures["is_reason"].astype(bool), "data"].iloc[0]
        _heading = mo.md(f"**Why this turn {'failed' if _status == 'failed' else 'had failures'}**")
        error_pane = mo.callout(
            mo.vstack(
                [
                    _heading,
                    _why,
                    mo.json(data_text(_data), label="The failing event's data"),
                    failure_table,
                    _explained,
                ]
            ),
            kind="danger" if _status == "failed" else "warn",
        )
    turn_table = mo.ui.table(_rows, selection=None, page_size=12, label="Its events in ts order")
    mo.vstack(
        [mo.md(f"### <code>{md_text(picked_turn)}</code>"), error_pane, _timeline, turn_table]
    )
    return (picked_turn,)


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Per day and over the days: cost, usage, failures
    """)
    return


@app.cell
def _(day_pick, names, turn_rows, turns):
    # The counts, the cost and the table per day come first, each figure after in a cell of its
    # own (drawn). Every day picked has its row, 0 turns where none began (its file may hold
    # only the end of the day before's turns, or Watch, Brief and Insight sends).
    try:
        step_table = steps(turn_rows, names)
        call_table = tool_calls(turn_rows, names)
        per_day = costs_by_day(turns, day_pick.value)
    except Exception as _error:
        mo.stop(True, trouble("Could not sum up the days", _error))
    # Each turn counts on the day file of its first event (where it began), events after
    # midnight included: the per-day figures are turns' figures, not the files' lines.
    day_costs_table = mo.ui.table(
        # The turns' `steps` are completed steps (the cost's), not the failed ones: say so.
        per_day.rename(columns={"steps": "completed_steps"}),
        selection=None,
        label="Cost and usage per day, each turn on the day it began",
        format_mapping={"cost_usd": "{:.6g}", "unknown_share": "{:.1%}"},
    )
    mo.vstack(
        [
            mo.md(
                # The turns' `steps` (and the cost below) count completed steps: say both.
                f"{counted(len(step_table), 'step')} "
                f"({int((step_table['outcome'] == 'completed').sum())} completed, "
                f"{int((step_table['outcome'] == 'failed').sum())} failed) · "
                f"{counted(int(step_table['usage_in'].sum()), 'token')} in · "
                f"{int(step_table['usage_out'].sum()):,} out · "
                f"{counted(len(call_table), 'tool call')}, "
                f"{int(call_table['failure'].notna().sum())} failed"
            ),
            mo.callout(
                mo.md(f"**Cost:** {safe_md(cost_summary(turns))}"),
                kind="warn" if int(turns["steps_without_cost"].sum()) else "info",
            ),
            day_costs_table,
        ]
    )
    return call_table, step_table


@app.cell
def _(day_pick, turns):
    drawn("the cost per day", lambda: daily_costs(turns, day_pick.value))
    return


@app.cell
def _(day_pick, turns):
    drawn("the tokens per day", lambda: daily_usage(turns, day_pick.value))
    return


@app.cell
def _(day_pick, names, step_table, turn_rows, turns):
    # A busy day's curves are thinned to a few thousand points (the figure's subtitle says so):
    # drawn through every step, a day of 70,000 steps was past the page's output limit. The
    # steps and tool calls made for the summary above are given, not made again (seconds each).
    drawn(
        "the tokens and cost over each day",
        lambda: titled_by_days(
            tokens_over_day(turn_rows, names, turns, step_table=step_table), day_pick.value
        ),
    )
    return


@app.cell
def _(call_table, names, turn_rows):
    drawn("the failed tool calls", lambda: failures_by_class(turn_rows, names, calls=call_table))
    return


@app.cell
def _(turns):
    drawn("the turn durations", lambda: turn_durations(turns))
    return


if __name__ == "__main__":
    app.run()
