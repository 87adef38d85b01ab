# /// script
# [tool.marimo.opengraph]
# title = "Evaluate"
# description = "Will my trackers hold on my model? Play a scene's scripted turns k times and read each metric with its interval."
# ///
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="trackerkit · evaluate")

with app.setup(hide_code=True):
    import marimo as mo

    from trackerkit import Variant, evaluate, load_scene, workspace
    from trackerkit.evaluation import (
        TOOL_STYLES,
        Noise,
        NumberBox,
        RunGuard,
        accuracy_figure,
        count_turns,
        drift_figure,
        endpoint_name_clash,
        field_heatmap,
        play_with_progress,
        read_scenarios,
        serving_noisy,
        settings_key,
        variations,
    )
    from trackerkit.simulate import check_data_dir
    from trackerkit.trace import TraceWriter
    from trackerkit.views import md_text, safe_md, trouble_html

    # Paths and scene names go through safe_md before mo.md (mo.md would render the HTML in
    # them); failure messages and model names (a model server writes them) through md_text,
    # which escapes markdown and `$` too, so `**m**` and `$x^2$` read as written.

    # A press of Run made during a run arrives when it ends: told apart, not played again.
    GUARD = RunGuard()
    #: The last run's results, shown again for such a press.
    LAST = {}

    # Ollama's OpenAI-compatible API root, as the text above gives it.
    DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1"

    # The numbers are typed in text boxes, not mo.ui.number: marimo's number box takes its
    # label's HTML as its aria-label, so a screen reader read markup; a text box is named by its
    # label's text. Each is read with these bounds and steps when Run is pressed.
    RUNS = NumberBox("Runs (k)", 1, 10, 2)
    CONCURRENCY = NumberBox("Concurrency", 1, 16, 4)
    # The CLI's --tolerance: numbers this near the expected value count as within tolerance (a
    # field with min and max is held to a tenth of its range when that is less).
    TOLERANCE = NumberBox("Tolerance (±)", 0, 1000, 1, step=0.01)
    # The CLI's defaults: a call may take a minute, retries and their waits included.
    TIMEOUT = NumberBox("endpoint: timeout (s)", 1, 600, 60)
    RETRIES = NumberBox("endpoint: retries after a 429 or 5xx", 0, 10, 4)


@app.cell(hide_code=True)
def _():
    mo.md("""
    # Will my trackers hold on my model?

    Pick scenarios (scenes whose steps carry the whole expected state) and the variants to
    compare, then run: every turn is scored against the expected values, and each metric is
    shown with its 95% interval. **noisy loopback** is a test model on this machine that
    answers the scenario's own calls, spoiled at the error rate below (a missed update, a number
    off by one, a write that should not happen, malformed arguments, no call, a 429); **endpoint**
    is any OpenAI-compatible server (Ollama's `http://127.0.0.1:11434/v1`, llama.cpp's
    `http://127.0.0.1:8080/v1`), its key read from `OPENAI_API_KEY`. `marimo run
    notebooks/evaluate.py -- --data DIR` reads DIR's scenes and trackers.
    """)
    return


@app.function(hide_code=True)
def trouble(title, error):
    """A failure as the page shows it: what could not be done, then the error in words."""
    return mo.callout(mo.Html(trouble_html(title, error)), kind="danger")


@app.cell
def _():
    try:
        place = workspace(mo.cli_args())
        _found = read_scenarios(place.scenes)
    except Exception as _error:
        mo.stop(True, trouble("Could not read the scenarios", _error))
    scenes = _found.scenes
    # A file that does not read is listed with why, as the library page lists a refused piece;
    # the good scenarios stay offered.
    _refused = (
        [
            mo.callout(
                mo.md(
                    f"**{len(_found.refused)} scene {'file was' if len(_found.refused) == 1 else 'files were'} refused:**\n\n"
                    + "\n".join(
                        f"- <code>{md_text(_path.name)}</code>: {md_text(_why)}"
                        for _path, _why in _found.refused
                    )
                ),
                kind="warn",
            )
        ]
        if _found.refused
        else []
    )
    mo.stop(
        not scenes,
        mo.vstack([mo.md(safe_md(f"No scene in `{place.scenes}` has scripted turns.")), *_refused]),
    )
    mo.vstack(
        [
            mo.md(
                f"{safe_md(place.describe())} {safe_md(place.describe_trace())} **{len(scenes)} scenarios** with scripted turns."
            ),
            *_refused,
        ]
    )
    return place, scenes


@app.cell
def _(scenes):
    _first = [s for s in scenes if s.startswith("eval-")][:2] or list(scenes)[:2]
    picked_scenes = mo.ui.multiselect(options=list(scenes), value=_first, label="Scenarios")
    picked_variants = mo.ui.multiselect(
        options=["scripted", "noisy loopback", "endpoint"],
        value=["scripted", "noisy loopback"],
        label="Variants",
    )
    # How each variant's model sends its updates: the update tool, or one fenced block at the end
    # of its reply (for a model without tool calling); both picked compare the two.
    picked_protocols = mo.ui.multiselect(
        options=["tools", "text"], value=["tools"], label="Protocols (tools / text)"
    )
    # The update tool offered under "tools", as `trackerkit eval --variants` names it: one line
    # per tracker, anyOf, or the strict export of `export --to openai` / `--to gemini`. Each
    # style picked is a column of its own, named `… · strict` (unless "lines" is the only one).
    picked_tool_styles = mo.ui.multiselect(
        options=list(TOOL_STYLES), value=["lines"], label="Tool styles (under tools)"
    )
    noise_rate = mo.ui.slider(
        0.0, 0.5, step=0.05, value=0.2, label="noisy loopback: rate of each error", show_value=True
    )
    base_url = mo.ui.text(
        value=DEFAULT_BASE_URL,
        label="endpoint: base URL (OpenAI-compatible, ending in /v1)",
        full_width=True,
    )
    model_name = mo.ui.text(value="qwen2.5:7b", label="endpoint: model name")
    runs = mo.ui.text(value=RUNS.shown, label=RUNS.label)
    mode = mo.ui.dropdown(options=["free", "forced"], value="free", label="Mode")
    concurrency = mo.ui.text(value=CONCURRENCY.shown, label=CONCURRENCY.label)
    tolerance = mo.ui.text(value=TOLERANCE.shown, label=TOLERANCE.label)
    timeout = mo.ui.text(value=TIMEOUT.shown, label=TIMEOUT.label)
    retries = mo.ui.text(value=RETRIES.shown, label=RETRIES.label)
    run_button = mo.ui.run_button(label="Run the evaluation")
    mo.vstack(
        [
            mo.hstack(
                [picked_scenes, picked_variants, picked_protocols, picked_tool_styles],
                justify="start",
                wrap=True,
            ),
            noise_rate,
            # The URL on a row of its own, wide enough to show it whole (its /v1 too).
            base_url,
            mo.hstack([model_name, timeout, retries], justify="start", wrap=True),
            mo.hstack([runs, mode, concurrency, tolerance], justify="start"),
            run_button,
        ]
    )
    return (
        base_url,
        concurrency,
        mode,
        model_name,
        noise_rate,
        picked_protocols,
        picked_scenes,
        picked_tool_styles,
        picked_variants,
        retries,
        run_button,
        runs,
        timeout,
        tolerance,
    )


@app.cell
def _(
    base_url,
    concurrency,
    mode,
    model_name,
    noise_rate,
    picked_protocols,
    picked_scenes,
    picked_tool_styles,
    picked_variants,
    place,
    retries,
    run_button,
    runs,
    scenes,
    timeout,
    tolerance,
):
    mo.stop(not run_button.value, mo.md("Press **Run the evaluation** to play the scenarios."))
    mo.stop(not picked_scenes.value, mo.md("Pick at least one scenario."))
    mo.stop(not picked_variants.value, mo.md("Pick at least one variant."))
    mo.stop(not picked_protocols.value, mo.md("Pick at least one protocol (tools or text)."))
    mo.stop(
        "tools" in picked_protocols.value and not picked_tool_styles.value,
        mo.md(
            "Pick at least one tool style (lines, anyOf, strict or gemini) for the tools protocol."
        ),
    )
    _clash = endpoint_name_clash(picked_variants.value, model_name.value)
    mo.stop(_clash is not None, mo.callout(mo.md(md_text(_clash)), kind="danger"))
    try:
        _runs, _concurrency, _tolerance, _timeout, _retries = (
            _box.read(_typed.value)
            for _box, _typed in (
                (RUNS, runs),
                (CONCURRENCY, concurrency),
                (TOLERANCE, tolerance),
                (TIMEOUT, timeout),
                (RETRIES, retries),
            )
        )
    except Exception as _error:
        mo.stop(True, trouble("The evaluation could not run", _error))
    _paths = [scenes[s] for s in picked_scenes.value]
    _settings = settings_key(
        [
            _paths,
            picked_variants.value,
            picked_protocols.value,
            picked_tool_styles.value,
            noise_rate.value,
            base_url.value,
            model_name.value,
            _timeout,
            _retries,
            _runs,
            mode.value,
            _concurrency,
            _tolerance,
        ]
    )
    _echo = GUARD.is_echo(_settings) and "results" in LAST
    _rate = float(noise_rate.value)
    _noise = Noise(
        **dict.fromkeys(
            ("no_call", "malformed", "miss", "off_by_one", "extra_write", "rate_limit"), _rate
        ),
        seed=1,
    )
    try:
        if _echo:
            # Run was pressed again while this run played: show it, do not play it all again.
            results, _trace_dir = LAST["results"], LAST["trace_dir"]
        else:
            _trace_dir = check_data_dir(place.trace_root)
            _writer = TraceWriter(_trace_dir)
            _turns = sum(count_turns(load_scene(_p)) for _p in _paths) * _runs
            try:
                with serving_noisy(_paths, _noise, place.trackers) as _server:
                    # Only the picked variants are made: a bad endpoint URL is refused here,
                    # before any turn is played, and only when the endpoint is picked.
                    _make = {
                        "scripted": lambda: Variant(name="scripted", trackers=place.trackers),
                        "noisy loopback": lambda: Variant(
                            name="noisy loopback",
                            model="openai",
                            base_url=_server.url,
                            model_name="noisy",
                            trackers=place.trackers,
                        ),
                        "endpoint": lambda: Variant(
                            name=model_name.value or "endpoint",
                            model="openai",
                            base_url=base_url.value or DEFAULT_BASE_URL,
                            model_name=model_name.value or "model",
                            trackers=place.trackers,
                            timeout=_timeout,
                            max_retries=_retries,
                        ),
                    }
                    _made = {_name: _make[_name]() for _name in picked_variants.value}
                    _variants = variations(
                        [_made[v] for v in picked_variants.value],
                        picked_protocols.value,
                        picked_tool_styles.value,
                    )
                    _total = _turns * len(_variants)
                    with mo.status.progress_bar(
                        total=max(_total, 1),
                        title="Playing the scenarios…",
                        subtitle="A press of Run now is not played again: this run's results show when it ends.",
                        remove_on_exit=True,
                    ) as _bar:

                        def _moved(done, _total):
                            _bar.update(
                                increment=done - _bar.current,
                                subtitle=f"{done} of {_total} turns played",
                            )

                        results = play_with_progress(
                            lambda progress: evaluate(
                                _paths,
                                _variants,
                                runs=_runs,
                                mode=mode.value,
                                concurrency=_concurrency,
                                tolerance=_tolerance,
                                trace=_writer,
                                progress=progress,
                            ),
                            _moved,
                        )
            finally:
                _writer.close()
                GUARD.ended(_settings)
            LAST.update(results=results, trace_dir=_trace_dir)
    except Exception as _error:
        mo.stop(True, trouble("The evaluation could not run", _error))
    _failed = int((results.turns["failed"] != "").sum())
    _metrics = results.table().reset_index()
    mo.vstack(
        [
            mo.md(
                f"**{len(results.turns) - _failed} turns** scored; every run's turns went to the "
                f"trace in {safe_md('`' + str(_trace_dir / 'trace') + '`')}. A number counts as "
                f"within tolerance within ±{results.tolerance:g} of the expected value (a tenth "
                "of its field's range if less, for a field with a min and a max)."
            ),
            # A field the scenarios' steps name by a name a designer save took from it: said
            # as the simulator says it (trackerkit.simulate.outdated).
            *[mo.callout(mo.md(md_text(_note)), kind="warn") for _note in results.notes],
            *(
                [
                    mo.callout(
                        mo.md(
                            "**Failed turns are not scored** (they are not the model's answers):\n\n"
                            + "\n".join(f"- {md_text(_line)}" for _line in results.failure_lines())
                        ),
                        kind="warn",
                    )
                ]
                if _failed
                else []
            ),
            # Every metric on one page (pass^k is the last of them), never paged.
            mo.ui.table(
                _metrics,
                selection=None,
                page_size=max(len(_metrics), 1),
                label="Metrics per variant (95% intervals)",
            ),
        ]
    )
    return (results,)


@app.cell
def _(results):
    mo.vstack([accuracy_figure(results), field_heatmap(results)])
    return


@app.cell
def _(results):
    _ids = list(dict.fromkeys(results.turns["scenario"]))
    drift_scene = mo.ui.dropdown(options=_ids, value=_ids[-1], label="Drift over the turns of")
    drift_scene
    return (drift_scene,)


@app.cell
def _(drift_scene, results):
    drift_figure(results, drift_scene.value)
    return


if __name__ == "__main__":
    app.run()
