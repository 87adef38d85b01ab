import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · session simulator")


@app.cell
def _():
    import json
    from pathlib import Path

    import marimo as mo

    from trackerkit.changes import tracker_changes_between
    from trackerkit.frames import history_frame
    from trackerkit.session import Session
    from trackerkit.tokens import count_tool_tokens
    from trackerkit.views import bars_over_history, changes_html, panel_html

    root = Path(__file__).resolve().parent.parent
    scenes_dir = root / "data" / "scenes"
    return (
        Session,
        bars_over_history,
        changes_html,
        count_tool_tokens,
        history_frame,
        json,
        mo,
        panel_html,
        scenes_dir,
        tracker_changes_between,
    )


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    # Session simulator

    Pick a scene, step through its scripted turns, or write your own: a user message, the
    reply and the `update_trackers` call the model makes. Swipe, regenerate, continue, cut,
    fork, show another version, or edit a value as a person would. Under each reply its
    changes are drawn in the tracker's own style; the panel shows the values at the tip.
    """)
    return


@app.cell
def _(mo, scenes_dir):
    scene_picker = mo.ui.dropdown(
        options={p.stem: str(p) for p in sorted(scenes_dir.glob("*.json"))},
        value="fight",
        label="Scene",
    )
    scene_picker
    return (scene_picker,)


@app.cell
def _(Session, mo, scene_picker):
    scene_steps = len(Session.from_scene(scene_picker.value).steps)
    played = mo.ui.slider(
        0, max(scene_steps, 1), value=scene_steps, step=1, label="Scripted steps played", show_value=True
    )
    get_extra, set_extra = mo.state([])
    return get_extra, played, scene_steps, set_extra


@app.cell
def _(Session, get_extra, played, scene_picker):
    # The session is rebuilt from the scene on every change: the scripted steps up to the
    # slider, then the steps added here. Rebuilding keeps the notebook reactive and replayable.
    session = Session.from_scene(scene_picker.value)
    for _step in session.steps[: played.value]:
        session.play(_step)
    session.step_index = played.value
    for _step in get_extra():
        session.play(_step)
    return (session,)


@app.cell
def _(mo, played, scene_steps, session):
    mo.hstack(
        [
            played,
            mo.md(
                f"**{session.scene.title}** · {played.value} of {scene_steps} scripted steps · "
                f"{len(session.chat.messages)} live messages · take `{session.chat.current}` · "
                + ("all expectations met" if not session.mismatches else f"{len(session.mismatches)} expectations not met")
            ),
        ],
        justify="start",
        gap=2,
    )
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## The chat and the Trackers panel
    """)
    return


@app.cell
def _(changes_html, mo, panel_html, session, tracker_changes_between):
    _take = session.chat.take
    _changes = (
        tracker_changes_between(session.chat, None, _take.messages[0].id)["messages"] if _take.messages else []
    )
    by_message = {entry["messageId"]: entry for entry in _changes}
    _items = []
    for _m in _take.messages:
        _versions = f" · version {_m.shown + 1} of {len(_m.versions)}" if len(_m.versions) > 1 else ""
        _entry = by_message.get(_m.id)
        _drawn = changes_html(_entry, changes_on=session.scene.changes_on) if _entry else ""
        _items.append(
            mo.vstack([mo.md(f"**{_m.role}**{_versions}: {_m.text}"), mo.Html(_drawn)] if _drawn else [mo.md(f"**{_m.role}**{_versions}: {_m.text}")])
        )
    mo.hstack(
        [mo.vstack(_items, gap=0.5), mo.Html(panel_html(session.chat))],
        widths=[2, 1],
        align="start",
    )
    return (by_message,)


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Your turn
    """)
    return


@app.cell
def _(mo):
    user_text = mo.ui.text(value="I check my wounds.", label="User message", full_width=True)
    reply_text = mo.ui.text(value="You bind the cut on your arm.", label="Reply", full_width=True)
    calls_json = mo.ui.code_editor(
        value='[{"name": "update_trackers", "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 20}}]}}]',
        language="json",
        label="The model's tool calls (JSON list)",
    )
    return calls_json, reply_text, user_text


@app.cell
def _(calls_json, get_extra, json, mo, reply_text, set_extra, user_text):
    def _calls():
        try:
            value = json.loads(calls_json.value or "[]")
        except json.JSONDecodeError:
            return []
        return value if isinstance(value, list) else []

    def _add(step):
        set_extra([*get_extra(), step])

    send = mo.ui.button(
        label="Send turn",
        on_click=lambda _: _add({"user": user_text.value, "calls": _calls(), "reply": reply_text.value}),
    )
    swipe = mo.ui.button(
        label="Swipe", on_click=lambda _: _add({"action": "swipe", "calls": _calls(), "reply": reply_text.value})
    )
    regenerate = mo.ui.button(
        label="Regenerate",
        on_click=lambda _: _add({"action": "regenerate", "calls": _calls(), "reply": reply_text.value}),
    )
    continue_ = mo.ui.button(
        label="Continue", on_click=lambda _: _add({"action": "continue", "reply": " " + reply_text.value})
    )
    undo = mo.ui.button(label="Undo last", on_click=lambda _: set_extra(get_extra()[:-1]))
    mo.vstack([user_text, reply_text, calls_json, mo.hstack([send, swipe, regenerate, continue_, undo], justify="start")])
    return


@app.cell
def _(get_extra, mo, session, set_extra):
    _labels = {f"{i}: {m.role} · {m.text[:40]}": i for i, m in enumerate(session.chat.messages)}
    message_pick = mo.ui.dropdown(options=_labels, value=next(reversed(_labels), None), label="Message")
    version_pick = mo.ui.number(start=0, stop=20, value=0, label="Version")

    def _add(step):
        set_extra([*get_extra(), step])

    cut = mo.ui.button(label="Cut here", on_click=lambda _: _add({"action": "cut", "message": message_pick.value}))
    fork = mo.ui.button(label="Fork here", on_click=lambda _: _add({"action": "fork", "message": message_pick.value}))
    show = mo.ui.button(
        label="Show version",
        on_click=lambda _: _add({"action": "show_version", "message": message_pick.value, "version": version_pick.value}),
    )
    return cut, fork, message_pick, show, version_pick


@app.cell
def _(cut, fork, message_pick, mo, show, version_pick):
    mo.hstack([message_pick, version_pick, show, cut, fork], justify="start")
    return


@app.cell
def _(get_extra, json, mo, session, set_extra):
    _names = [e.tracker.name for e in session.chat.panel()]
    edit_tracker = mo.ui.dropdown(options=_names, value=_names[0] if _names else None, label="Edit tracker")
    edit_row = mo.ui.text(value="", label="Row (lists)")
    edit_set = mo.ui.text(value='{"hp": 25}', label="Set (JSON)")

    def _edit(_):
        try:
            values = json.loads(edit_set.value or "{}")
        except json.JSONDecodeError:
            return
        step = {"action": "edit", "tracker": edit_tracker.value, "set": values}
        if edit_row.value:
            step["row"] = edit_row.value
        set_extra([*get_extra(), step])

    edit_button = mo.ui.button(label="Edit value", on_click=_edit)
    mo.hstack([edit_tracker, edit_row, edit_set, edit_button], justify="start")
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## The last turn: what the model saw and did
    """)
    return


@app.cell
def _(count_tool_tokens, mo, session):
    last = session.reports[-1] if session.reports else None
    if last is None:
        _view = mo.md("No turn yet.")
    else:
        _parts = last.request.parts if last.request else {}
        _rows = [{"part": k, "tokens": v} for k, v in _parts.items()]
        _calls = [
            {"round": c.round, "tool": c.name, "arguments": c.arguments, "ok": c.ok, "answer": c.answer}
            for c in last.calls
        ]
        _tool = ""
        if last.tool_description:
            _tokens = _parts.get("tool", 0)
            _tool = f"**Tool** `{last.tool_name}` · {_tokens} tokens (cl100k_base)\n\n```\n{last.tool_description}\n```"
        _view = mo.vstack(
            [
                mo.md(f"Turn {last.index} ({last.kind})" + (f" · **failed**: {last.failed}" if last.failed else "")),
                mo.ui.table(_rows, selection=None, label="Request by part (tokens, cl100k_base)"),
                mo.md(f"```\n{last.block or '(no ### Trackers block)'}\n```"),
                mo.md(_tool),
                mo.ui.table(_calls, selection=None, label="Tool calls and answers") if _calls else mo.md("No tool call."),
            ]
        )
    _view
    return (last,)


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Bar-style values over the history
    """)
    return


@app.cell
def _(history_frame, mo, session):
    frame = history_frame(session.chat)
    _numbers = frame[frame["number"].notna()] if len(frame) else frame
    _pairs = sorted({(t, f) for t, f in zip(_numbers["tracker"], _numbers["field"], strict=True)}) if len(frame) else []
    series_pick = mo.ui.dropdown(
        options={f"{t} · {f}": (t, f) for t, f in _pairs},
        value=next(iter(f"{t} · {f}" for t, f in _pairs), None),
        label="Number",
    )
    series_pick
    return frame, series_pick


@app.cell
def _(bars_over_history, frame, mo, series_pick):
    figure = bars_over_history(frame, *series_pick.value) if series_pick.value else None
    mo.ui.plotly(figure) if figure is not None else mo.md("No number to plot.")
    return (figure,)


if __name__ == "__main__":
    app.run()
