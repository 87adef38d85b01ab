# /// script
# [tool.marimo.opengraph]
# title = "Session simulator"
# description = "Play a scene turn by turn: tool calls, clamps, swipes, cuts, forks and edits, with each reply's changes."
# ///
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · session simulator")

with app.setup(hide_code=True):
    from html import escape

    import marimo as mo

    from trackerkit import load_scene, workspace
    from trackerkit.simulate import (
        Unsent,
        calls_example,
        changes_apart,
        compare_protocols,
        edit_prefill,
        edited_html,
        failure_html,
        link_choices,
        link_trackers,
        outcome_html,
        outdated_html,
        pinned,
        play_page,
        played_marker,
        reply_notes_html,
        scripted_steps_text,
        steps_html,
        unanswered_html,
    )
    from trackerkit.views import (
        bars_over_history,
        changes_html,
        history_frame,
        md_text,
        panel_html,
        safe_fence,
        safe_md,
    )

    TURN_KINDS = ("turn", "reply", "swipe", "regenerate", "continue")
    MESSAGE_KINDS = ("show_version", "cut", "fork", "use")

    def scene_names(place):
        """The scenes in the data folder's scenes/ as it is now, by name (none without a folder)."""
        return tuple(sorted(p.stem for p in place.scenes.glob("*.json"))) if place else ()


@app.cell(hide_code=True)
def _():
    mo.md("""
    # Session simulator

    Pick a scene, step through its scripted turns, or write your own: a user message, the
    reply and the `update_trackers` call the model makes. Swipe, regenerate, continue, cut,
    fork, switch takes, show another version, or edit a value as a person would. Under each
    reply its changes are drawn in the tracker's own style, with any refused batch and any value
    the rules clamped; the panel shows the values at the tip of the take shown. The **protocol**
    picks how the model sends its updates: the `update_trackers` tool, or (for a model without
    tool calling) one fenced JSON block at the end of its reply, which the chat never shows; the
    section at the end compares the two on the same steps.
    """)
    return


@app.cell
def _():
    # --data DIR, else TRACKERKIT_DATA, else the per-user workspace, else the bundled data read in
    # place until a save (linking trackers) copies it to the workspace (trackerkit.workspace says why).
    try:
        _place, place_problem = workspace(mo.cli_args()), None
    except Exception as _exc:
        _place, place_problem = None, failure_html("The data folder", _exc)
    get_place, set_place = mo.state(_place)
    # The scenes the picker lists, read again on a switch of scene and on "Re-read scenes".
    get_scene_names, set_scene_names = mo.state(scene_names(_place))
    # The scene picked, kept across a change of data folder; a counter of saved links.
    get_scene, set_scene = mo.state("fight")
    get_saved, set_saved = mo.state(0)
    # What the last Save links said, with the scene it was for: (scene, sentence).
    get_link_note, set_link_note = mo.state(("", ""))
    # The steps the person adds, by scene, oldest first. Made here, once, so they outlive the
    # scene's cells: switching scenes and back, or the first save moving the bundled data to the
    # workspace (a new data folder), plays them again. Kept for this page only, never on disk.
    get_steps_by_scene, set_steps_by_scene = mo.state({})
    # Where each scene's "Scripted steps played" slider was left, so the steps play after the same
    # scripted ones when the scene is drawn again. A plain dict, not a state: the slider records
    # its moves here, and reading a state would draw the slider (and play the scene) twice a move.
    played_by_scene = {}
    # Whether each of the person's steps was refused when it was first played, by scene
    # (`Playback.refused_when_added`): a refusal the person saw at its control then goes to the
    # list of their steps once the chat moves on, while a step written then and refused on a
    # replay (the slider moved) is said above the chat. A plain dict the playback fills.
    refused_by_scene = {}
    # Where a step the person adds now is made (`Playback.base` of the page drawn last), read
    # when Swipe, Regenerate or Continue is pressed. A plain dict the playback fills: the turn form
    # must not be drawn again on every step, or what was typed in it would go.
    base_now = {}
    # What the person typed in the turn boxes and the edit form and has not sent, by scene, so a
    # switch of scene and back shows it as it was left. Kept as the boxes give it, not a state:
    # reading a state would draw the boxes again on every keystroke.
    unsent = Unsent()
    return (
        base_now,
        get_link_note,
        get_place,
        get_saved,
        get_scene,
        get_scene_names,
        get_steps_by_scene,
        place_problem,
        played_by_scene,
        refused_by_scene,
        set_link_note,
        set_place,
        set_saved,
        set_scene,
        set_scene_names,
        set_steps_by_scene,
        unsent,
    )


@app.cell
def _():
    reread_scenes = mo.ui.button(
        label="Re-read scenes",
        tooltip="List the scenes folder again (a scene written since joins the picker); "
        "your steps stay",
    )
    return (reread_scenes,)


@app.cell
def _(get_place, get_scene, get_scene_names, reread_scenes, set_scene_names):
    # The scenes folder is read again on a switch of scene and on Re-read scenes, so a scene written
    # after the page opened (the designer's Import… takes one into the library) joins the picker
    # without a reload, which would drop every chat; the picker is drawn again only when it changed.
    get_scene()
    reread_scenes.value
    _names = scene_names(get_place())
    if _names != get_scene_names():
        set_scene_names(_names)
    return


@app.cell
def _(get_place, get_scene, get_scene_names, set_scene):
    place = get_place()
    _scenes = list(get_scene_names())
    scene_picker = mo.ui.dropdown(
        options=_scenes,
        value=get_scene() if get_scene() in _scenes else next(iter(_scenes), None),
        label="Scene",
        on_change=set_scene,
    )
    return place, scene_picker


@app.cell
def _(get_steps_by_scene, place, place_problem, reread_scenes, scene_picker):
    # Shown here, not where it is made, so the warning beside it follows the steps without making
    # the picker (and every cell after it) again.
    _kept = {scene: len(steps) for scene, steps in get_steps_by_scene().items() if steps}
    _order = sorted(_kept, key=lambda scene: (scene != scene_picker.value, scene))
    _unsaved = ""
    if _kept:
        _counts = ", ".join(
            f"{escape(scene)} {_kept[scene]} step{'s' if _kept[scene] != 1 else ''}"
            for scene in _order
        )
        _unsaved = (
            f'<span class="tk-unsaved-chat">⚠ Your steps ({_counts}) are kept while this page '
            "is open (switching scenes keeps them), but not saved: a reload drops them.</span>"
        )
    mo.vstack(
        [
            # Wrapped, never squeezed: the warning goes under the controls, not into them.
            mo.hstack(
                [scene_picker, reread_scenes, mo.Html(_unsaved)],
                justify="start",
                align="center",
                gap=1,
                wrap=True,
            ),
            mo.md(
                safe_md(place.describe())
                + " On this page only Save links writes there; the chat you write is kept while"
                " the page is open, and is not saved to disk."
            )
            if place is not None
            else mo.Html(place_problem or ""),
        ]
    )
    return


@app.cell
def _(place, scene_picker):
    # The scene's name keys what is kept of it for the session (its steps, its slider).
    scene_name = scene_picker.value
    scene_file = place.scenes / f"{scene_name}.json" if place is not None and scene_name else None
    return scene_file, scene_name


@app.cell
def _(played_by_scene, scene_file, scene_name, set_steps_by_scene):
    try:
        scene_steps = len(load_scene(scene_file).turns) if scene_file is not None else 0
    except Exception:  # the playback cell shows why the scene cannot be read
        scene_steps = 0

    def _leave_slider(value):
        played_by_scene[scene_name] = value

    # A scene without scripted steps keeps the slider at 0 and still: it has nothing to play.
    played = mo.ui.slider(
        0,
        max(scene_steps, 1),
        value=min(played_by_scene.get(scene_name, scene_steps), scene_steps),
        step=1,
        disabled=scene_steps == 0,
        label="Scripted steps played",
        show_value=True,
        on_change=_leave_slider,
    )

    def set_steps(change):
        """Change this scene's steps, `change(steps) -> steps`; the other scenes' stay as they are."""
        set_steps_by_scene(lambda kept: {**kept, scene_name: change(kept.get(scene_name, []))})

    return played, scene_steps, set_steps


@app.cell
def _():
    # How the model sends its updates: the update tool, or the fenced block at the end of its reply.
    protocol_pick = mo.ui.radio(
        options={"tools (update_trackers)": "tools", "text (a fenced block)": "text"},
        value="tools (update_trackers)",
        label="Protocol",
        inline=True,
    )
    return (protocol_pick,)


@app.cell
def _(
    base_now,
    get_saved,
    get_steps_by_scene,
    place,
    played,
    protocol_pick,
    refused_by_scene,
    scene_file,
    scene_name,
):
    # The session is played again from the scene on every change: the scripted steps up to the
    # slider, then the steps added here. A step that is refused is kept as an outcome, never raised.
    get_saved()  # links saved: play again on the scene as it now is
    try:
        if scene_file is None:
            raise FileNotFoundError(
                f"no scene to play in {place.scenes if place is not None else 'the data folder'}"
            )
        playback = play_page(
            scene_file,
            get_steps_by_scene().get(scene_name, []),
            scripted=played.value,
            trackers=place.trackers,
            protocol=protocol_pick.value,
        )
        scene_problem = None
    except Exception as _exc:
        playback, scene_problem = None, failure_html("The scene", _exc)
    session = playback.session if playback is not None else None
    base_now.clear()
    base_now.update(playback.base() if playback is not None else {})
    if playback is not None:
        refused_by_scene[scene_name] = playback.refused_when_added(
            refused_by_scene.get(scene_name, [])
        )
    return playback, scene_problem, session


@app.cell
def _(
    playback,
    played,
    protocol_pick,
    refused_by_scene,
    scene_name,
    scene_problem,
    scene_steps,
    session,
):
    if session is None:
        _status = mo.Html(scene_problem or "")
    else:
        _status = mo.md(
            f"**{md_text(session.scene.title)}** · {scripted_steps_text(played.value, scene_steps)} · "
            f"protocol {session.protocol} · "
            f"{len(session.chat.messages)} live messages · take <code>{md_text(session.chat.current)}</code> · "
            + (
                "all expectations met"
                if not session.mismatches
                else f"{len(session.mismatches)} expectations not met"
            )
        )
    # A step the chat refuses that no control shows is said here: a scripted one (a cut of a
    # message that is gone), or one of the person's that a replay refused (the slider moved). One
    # refused when it was added was said at its control then, and stays in the list of steps.
    _refused = (
        playback.refusals(refused_by_scene.get(scene_name, [])) if playback is not None else []
    )
    _mine = playback.page_outcomes if playback is not None else []
    _refused_mine = sum(o.refused is not None for o in _mine)
    _steps_view = (
        [
            mo.accordion(
                {f"Your steps: {len(_mine)} ({_refused_mine} refused)": mo.Html(steps_html(_mine))}
            )
        ]
        if _mine
        else []
    )
    # The slider and the protocol share a row, the status has its own: three in one row squeezed
    # the slider's label onto three lines and the protocol's options onto two each.
    _row = (
        mo.vstack([mo.hstack([played, protocol_pick], justify="start", gap=2, wrap=True), _status])
        if session is not None
        else mo.vstack([played, protocol_pick, _status])
    )
    _unmet = "".join(
        f"<li>{escape(m)}</li>" for m in (session.mismatches if session is not None else [])
    )
    _unmet_view = [mo.Html(f'<ul class="tk-unmet">{_unmet}</ul>')] if _unmet else []
    # The scene's own steps naming a field renamed or deleted in the designer since: they are
    # played as written (the scene says no revision), so say which, why, and what to edit.
    _outdated = outdated_html(playback.outdated) if playback is not None else ""
    _outdated_view = [mo.Html(_outdated)] if _outdated else []
    mo.vstack(
        [
            _row,
            *_outdated_view,
            *[mo.Html(outcome_html(o)) for o in _refused],
            *_unmet_view,
            *_steps_view,
        ]
    )
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## The chat and the Trackers panel
    """)
    return


@app.cell
def _(playback, session):
    if session is None:
        _chat_view = mo.md("No scene is playing; the message above says why.")
    else:
        try:
            _take = session.chat.take
            # A message's reply writes and a person's edits on it, apart: the net change (TR-43)
            # would hide a reply's hp change an edit brought back, or show an edit as the reply's.
            _by_message = changes_apart(session.chat)
            _items = []
            for _number, _m in enumerate(_take.messages, start=1):
                _versions = (
                    f" · version {_m.shown + 1} of {len(_m.versions)}"
                    if len(_m.versions) > 1
                    else ""
                )
                _entry = _by_message.get(_m.id)
                _on = session.scene.changes_on
                _drawn = (
                    changes_html(_entry.reply, changes_on=_on) if _entry and _entry.reply else ""
                )
                _edited = edited_html(
                    "".join(
                        changes_html(_tracker, changes_on=_on) for _tracker in _entry.edit.trackers
                    )
                    if _entry and _entry.edit
                    else "",
                    _m.id,
                )
                _notes = reply_notes_html(playback.reply_outcome(_m.id, _m.shown))
                _parts = [
                    mo.md(f"{_number} · **{md_text(_m.role)}**{_versions}: {md_text(_m.text)}")
                ]
                _parts += [mo.Html(_html) for _html in (_drawn, _edited, _notes) if _html]
                _items.append(mo.vstack(_parts, gap=0.25))
            _unanswered = unanswered_html(session.chat)
            _items += [mo.Html(_unanswered)] if _unanswered else []
            _chat_view = mo.hstack(
                [mo.vstack(_items, gap=0.5), mo.Html(panel_html(session.chat))],
                widths=[2, 1],
                align="start",
            )
        except Exception as _exc:
            _chat_view = mo.Html(failure_html("The chat and the Trackers panel", _exc))
    _chat_view
    return


@app.cell
def _(get_place, get_saved, place, scene_file, scene_picker, set_link_note, set_place, set_saved):
    # A check per library tracker; Save links writes the scene's prompting.trackers in the workspace.
    get_saved()  # drawn again from the file after a save
    try:
        _choices = link_choices(place.trackers, scene_file) if scene_file is not None else []
        links_problem = ""
    except Exception as _exc:
        _choices, links_problem = [], failure_html("The links", _exc)
    link_checks = mo.ui.array(
        [mo.ui.checkbox(value=c.linked, label=md_text(c.label)) for c in _choices]
    )

    def _save(_):
        # The checks are read when the button is pressed.
        _chosen = [c.id for c, on in zip(_choices, link_checks.value, strict=True) if on]
        try:
            _done = link_trackers(get_place(), scene_picker.value, _chosen)
        except Exception as _failure:
            set_link_note((scene_picker.value, f"Not saved: {_failure}"))
            return
        if _done.place != get_place():
            set_place(_done.place)
        set_link_note((scene_picker.value, _done.sentence()))
        set_saved(lambda n: n + 1)

    save_links = mo.ui.button(label="Save links", on_click=_save)
    return link_checks, links_problem, save_links


@app.cell
def _(get_link_note, link_checks, links_problem, save_links, scene_picker):
    # Said only under the scene it was for: another scene's checks were not saved by it.
    _for, _note = get_link_note()
    _note = _note if _for == scene_picker.value else ""
    mo.vstack(
        [
            mo.md("**Link trackers into this scene** (a check per library tracker)"),
            mo.Html(links_problem)
            if links_problem
            else mo.hstack(list(link_checks.elements), wrap=True, justify="start"),
            mo.hstack(
                [save_links, mo.Html(f'<span class="tk-link-note">{escape(_note)}</span>')],
                justify="start",
                align="center",
            ),
        ]
    )
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Your turn
    """)
    return


@app.cell
def _(base_now, place, scene_file, scene_name, set_steps, unsent):
    # The example call is made from the scene's own trackers, as the scene's steps leave them.
    try:
        _example = calls_example(play_page(scene_file, [], trackers=place.trackers).session.chat)
    except Exception:  # the scene's own message says why it cannot be played
        _example = "[]"

    def _keeper(box):
        # What the person leaves in a box is kept for this scene; a switch back draws it again.
        def _keep(text):
            unsent.keep(scene_name, box, text)

        return _keep

    user_text = mo.ui.text(
        value=unsent.text(scene_name, "user", "I check my wounds."),
        label="User message",
        full_width=True,
        on_change=_keeper("user"),
    )
    reply_text = mo.ui.text(
        value=unsent.text(scene_name, "reply", "You bind the cut on your arm."),
        label="Reply",
        full_width=True,
        on_change=_keeper("reply"),
    )
    # Continue extends the reply shown with new text of its own (TR-33: no tool is offered on a
    # Continue, so it takes no calls); pasting the Reply box again would repeat the reply.
    continue_text = mo.ui.text(
        value=unsent.text(scene_name, "continue", "You pull the knot tight."),
        label="Continue with (added to the last reply)",
        full_width=True,
        on_change=_keeper("continue"),
    )
    calls_json = mo.ui.text_area(
        value=unsent.text(scene_name, "calls", _example),
        label="The model's tool calls (JSON list)",
        full_width=True,
        rows=3,
        on_change=_keeper("calls"),
    )

    def _add(step):
        # Pinned as it is added: its calls keep writing the trackers they named now, even after
        # one of them is renamed in the library (a replay sends them under the name it has then).
        _step = pinned(step, scene_file, place.trackers) if scene_file is not None else step
        set_steps(lambda steps: [*steps, _step])

    def _add_on_reply(step):
        # Made on the reply shown: a replay plays it there, or refuses it when "Scripted steps
        # played" leaves that reply out or passes it, never on another reply.
        _add({**step, **base_now})

    # Each button reads the texts when it is pressed (and this cell does not read the steps, so
    # what was typed stays after a press); the calls are read (and refused) by the playback.
    send = mo.ui.button(
        label="Send turn",
        on_click=lambda _: _add(
            {"user": user_text.value, "callsText": calls_json.value, "reply": reply_text.value}
        ),
    )
    swipe = mo.ui.button(
        label="Swipe",
        on_click=lambda _: _add_on_reply(
            {"action": "swipe", "callsText": calls_json.value, "reply": reply_text.value}
        ),
    )
    # Answers the person's last message when a cut left it unanswered (Send turn would add
    # another): a turn that writes the reply after it, with the Reply and the calls above.
    reply_to = mo.ui.button(
        label="Reply to last message",
        tooltip="Answer your last message (a cut can leave it unanswered) with the Reply and "
        "the tool calls; no new message is added",
        on_click=lambda _: _add_on_reply(
            {"action": "reply", "callsText": calls_json.value, "reply": reply_text.value}
        ),
    )
    regenerate = mo.ui.button(
        label="Regenerate",
        on_click=lambda _: _add_on_reply(
            {"action": "regenerate", "callsText": calls_json.value, "reply": reply_text.value}
        ),
    )
    continue_ = mo.ui.button(
        label="Continue",
        on_click=lambda _: _add_on_reply(
            {"action": "continue", "reply": " " + continue_text.value.strip()}
        ),
    )
    undo = mo.ui.button(label="Undo last", on_click=lambda _: set_steps(lambda steps: steps[:-1]))
    mo.vstack(
        [
            user_text,
            reply_text,
            calls_json,
            mo.hstack([send, reply_to, swipe, regenerate, undo], justify="start", wrap=True),
            mo.hstack([continue_text, continue_], justify="start", align="end", widths=[6, 1]),
        ]
    )
    return


@app.cell
def _(playback):
    _last = playback.page_outcomes[-1] if playback is not None and playback.page_outcomes else None
    mo.Html(outcome_html(_last if _last is not None and _last.kind in TURN_KINDS else None))
    return


@app.cell
def _(playback, set_steps):
    _messages = playback.message_labels() if playback is not None else {}
    _labels = {label: message_id for message_id, label in _messages.items()}
    message_pick = mo.ui.dropdown(
        options=_labels, value=next(reversed(_labels), None), label="Message"
    )
    # A text box, not mo.ui.number: marimo's number box takes its label's HTML as its aria-label,
    # so a screen reader read markup; a text box is named by its label's text.
    version_pick = mo.ui.text(value="1", label="Version (from 1)")
    _takes = playback.take_labels() if playback is not None else {}
    take_pick = mo.ui.dropdown(
        options={label: take_id for take_id, label in _takes.items()},
        value=_takes.get(playback.session.chat.current) if playback is not None else None,
        label="Take",
    )

    def _add(step):
        set_steps(lambda steps: [*steps, step])

    def _picked():
        # The message picked, and who made it: the ids of the person's messages move with the
        # scripted slider, so the step names the step that made it (`Playback.origin`).
        _id = message_pick.value
        return {"message": _id, **(playback.origin(_id) if playback is not None else {})}

    def _version(typed):
        # A whole number as typed; anything else is sent as typed, and its step says why not.
        try:
            return int(typed)
        except ValueError:
            return typed.strip() or None

    # The pickers' values are read when a button is pressed, so a button acts on what is selected.
    show = mo.ui.button(
        label="Show version",
        on_click=lambda _: _add(
            {
                "action": "show_version",
                **_picked(),
                "version": _version(version_pick.value),
            }
        ),
    )
    # A cut drops the message picked and every one after it; a fork keeps the one picked.
    cut = mo.ui.button(
        label="Cut from here",
        tooltip="Drop the message picked and every message after it",
        on_click=lambda _: _add({"action": "cut", **_picked()}),
    )
    fork = mo.ui.button(
        label="Fork here",
        tooltip="A new take sharing the history up to and including the message picked",
        on_click=lambda _: _add({"action": "fork", **_picked()}),
    )
    use_take = mo.ui.button(
        label="Show take", on_click=lambda _: _add({"action": "use", "take": take_pick.value})
    )
    return cut, fork, message_pick, show, take_pick, use_take, version_pick


@app.cell
def _(cut, fork, message_pick, playback, show, take_pick, use_take, version_pick):
    _last = playback.page_outcomes[-1] if playback is not None and playback.page_outcomes else None
    mo.vstack(
        [
            # One row per control and its buttons, each kept at its own width (wrap, never
            # squeeze), so no button label or field label breaks onto a second line.
            mo.hstack([message_pick, cut, fork], justify="start", align="center", wrap=True),
            mo.hstack([version_pick, show], justify="start", align="center", wrap=True),
            mo.hstack([take_pick, use_take], justify="start", align="center", wrap=True),
            mo.Html(
                outcome_html(_last if _last is not None and _last.kind in MESSAGE_KINDS else None)
            ),
            mo.Html(played_marker(len(playback.outcomes) if playback is not None else 0)),
        ]
    )
    return


@app.cell
def _(scene_name, session, unsent):
    _names = [e.tracker.name for e in session.chat.panel()] if session is not None else []
    _picked = unsent.text(scene_name, "edit tracker", "")

    def _keep_pick(name):
        # Kept for this scene, so steps that draw the form again (or a switch back) keep it.
        unsent.keep(scene_name, "edit tracker", name or "")

    edit_tracker = mo.ui.dropdown(
        options=_names,
        value=_picked if _picked in _names else next(iter(_names), None),
        label="Edit tracker",
        on_change=_keep_pick,
    )
    return (edit_tracker,)


@app.cell
def _(edit_tracker, place, playback, scene_file, scene_name, session, set_steps, unsent):
    # The form starts from the picked tracker's own values; a refused edit keeps what was typed,
    # and what was typed and not sent stays (for this scene and tracker, across a switch too).
    _last = playback.page_outcomes[-1] if playback is not None and playback.page_outcomes else None
    edit_outcome = _last if _last is not None and _last.kind == "edit" else None
    _row, _values = (
        edit_prefill(session.chat, edit_tracker.value) if session is not None else ("", "{}")
    )
    if (
        edit_outcome is not None
        and edit_outcome.refused
        and edit_outcome.typed.get("tracker") == edit_tracker.value
    ):
        _row, _values = (
            str(edit_outcome.typed.get("row") or ""),
            str(edit_outcome.typed.get("setText", _values)),
        )
    _row_box, _set_box = Unsent.edit_boxes(edit_tracker.value)
    _row = unsent.text(scene_name, _row_box, _row)
    _values = unsent.text(scene_name, _set_box, _values)
    # Where the form was read: after this many of the person's steps, on this reply. Every replay
    # reads the take's version there, so the edit keeps its message when the scripted slider
    # moves, is refused when the slider leaves out or passes the scripted reply it was made on,
    # and when a step added after the form was read came first (TR-27).
    edit_base = playback.base() if playback is not None else {"baseStep": 0}
    edit_row = mo.ui.text(
        value=_row,
        label="Row (lists)",
        on_change=lambda v: unsent.keep(scene_name, _row_box, v),
    )
    edit_set = mo.ui.text(
        value=_values,
        label="Set (JSON)",
        on_change=lambda v: unsent.keep(scene_name, _set_box, v),
    )

    def _send_edit(_):
        _step = {
            "action": "edit",
            "tracker": edit_tracker.value,
            "setText": edit_set.value,
            "row": edit_row.value,
            **edit_base,
        }
        # Pinned as it is added, as a turn is: a later rename of the tracker keeps the edit.
        _step = pinned(_step, scene_file, place.trackers) if scene_file is not None else _step
        unsent.drop(scene_name, _row_box, _set_box)
        set_steps(lambda steps: [*steps, _step])

    edit_button = mo.ui.button(label="Edit value", on_click=_send_edit)
    return edit_base, edit_button, edit_outcome, edit_row, edit_set


@app.cell
def _(edit_button, edit_outcome, edit_row, edit_set, edit_tracker, playback):
    if playback is None:
        _edit_view = mo.md("No scene is playing, so there is no value to edit.")
    elif edit_tracker.value is None:
        _edit_view = mo.md("This scene links no tracker, so there is no value to edit.")
    else:
        _edit_view = mo.vstack(
            [
                mo.hstack([edit_tracker, edit_row, edit_set, edit_button], justify="start"),
                # TR-21, TR-27: an edit is a message-level delta, and a list's delta is a whole row.
                mo.md(
                    "An edit is written on the last message and stays over every version of it "
                    "(a swipe or a regenerate keeps it). On a list it writes the **whole row** as "
                    "it stands: the row's other fields stay with the edit, even when the reply "
                    "version that wrote them is replaced."
                ),
                mo.Html(outcome_html(edit_outcome)),
                mo.Html(played_marker(len(playback.outcomes))),
            ]
        )
    _edit_view
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## The last turn: what the model saw and did
    """)
    return


@app.cell
def _(playback):
    last = playback.last_turn() if playback is not None else None
    try:
        if last is None:
            _view = mo.md("No turn yet on this take.")
        else:
            _parts = last.request.parts if last.request else {}
            _rows = [{"part": k, "tokens": v} for k, v in _parts.items()]
            _calls = [
                {
                    "round": c.round + 1,
                    "tool": c.name,
                    "arguments": c.arguments,
                    "ok": c.ok,
                    "answer": c.answer,
                }
                for c in last.calls
            ]
            # Numbered as the steps are, with the ids and the failure (a model's or server's
            # words) escaped.
            _heading = playback.last_turn_heading()
            _tool = ""
            if last.tool_description:
                _tool = (
                    f"**Tool** <code>{md_text(last.tool_name)}</code> · {_parts.get('tool', 0)} tokens (cl100k_base)\n\n"
                    + safe_fence(last.tool_description)
                )
            elif last.protocol == "text":
                _tool = (
                    f"**Text protocol**: no tool offered; its instructions (and the last block's answer) "
                    f"follow the block in the system message · {_parts.get('protocol', 0)} tokens (cl100k_base)"
                )
            _view = mo.vstack(
                [
                    # Numbered as the steps are, so it matches the step's own outcome line.
                    mo.md(_heading),
                    mo.ui.table(
                        _rows, selection=None, label="Request by part (tokens, cl100k_base)"
                    ),
                    mo.md(safe_fence(last.block or "(no ### Trackers block)")),
                    mo.md(_tool),
                    mo.ui.table(
                        _calls,
                        selection=None,
                        label="Tool calls and answers"
                        if last.protocol == "tools"
                        else "The update block and its answer",
                    )
                    if _calls
                    else mo.md("No tool call." if last.protocol == "tools" else "No update block."),
                ]
            )
    except Exception as _exc:
        _view = mo.Html(failure_html("The last turn", _exc))
    _view
    return (last,)


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Bar-style values over the history
    """)
    return


@app.cell
def _(session):
    try:
        frame, _problem = (history_frame(session.chat) if session is not None else None), ""
    except Exception as _exc:
        frame, _problem = None, failure_html("The history", _exc)
    _pairs = []
    if frame is not None and len(frame):
        _numbers = frame[frame["number"].notna()]
        _pairs = sorted(
            {(t, f) for t, f in zip(_numbers["tracker"], _numbers["field"], strict=True)}
        )
    series_pick = mo.ui.dropdown(
        options={f"{t} · {f}": (t, f) for t, f in _pairs},
        value=next(iter(f"{t} · {f}" for t, f in _pairs), None),
        label="Number",
    )
    mo.Html(_problem) if _problem else series_pick
    return frame, series_pick


@app.cell
def _(frame, series_pick):
    try:
        figure = bars_over_history(frame, *series_pick.value) if series_pick.value else None
        _plot = mo.ui.plotly(figure) if figure is not None else mo.md("No number to plot.")
    except Exception as _exc:
        figure, _plot = None, mo.Html(failure_html("The bars", _exc))
    _plot
    return (figure,)


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## The two protocols side by side

    The same steps played under the tool path and under the text protocol, each as a chat would
    (a difference carries on). A batch the tool path sends again in a second round is answered
    only on the next turn under the text protocol, so it is where they part.
    """)
    return


@app.cell
def _(get_saved, get_steps_by_scene, place, played, scene_file, scene_name):
    get_saved()
    try:
        if scene_file is None:
            raise FileNotFoundError("no scene to compare")
        _comparison = compare_protocols(
            scene_file,
            get_steps_by_scene().get(scene_name, []),
            scripted=played.value,
            trackers=place.trackers,
        )
        if _comparison.same:
            _compared = mo.md(
                f'<p class="tk-protocols-same">Both protocols reach the same values at every step '
                f"({len(_comparison.steps)} turns compared).</p>"
            )
        else:
            _compared = mo.vstack(
                [
                    mo.md(
                        f'<p class="tk-protocols-differ">{len(_comparison.rows())} values differ: '
                        + md_text(_comparison.mismatches()[0])
                        + (" …" if len(_comparison.rows()) > 1 else "")
                        + "</p>"
                    ),
                    mo.ui.table(
                        _comparison.rows(),
                        selection=None,
                        label="Values that differ (tools vs text)",
                    ),
                ]
            )
    except Exception as _exc:
        _compared = mo.Html(failure_html("The protocol comparison", _exc))
    _compared
    return


if __name__ == "__main__":
    app.run()
