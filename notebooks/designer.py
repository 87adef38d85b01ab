# /// script
# [tool.marimo.opengraph]
# title = "Tracker designer"
# description = "Design a tracker: fields, tops and starts, a live verdict, the prompt block and tool with token counts."
# ///
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · tracker designer", css_file="designer.css")

with app.setup(hide_code=True):
    import marimo as mo

    from trackerkit import Draft, Library, design, load_scenes, rail, workspace

    # Names, descriptions, messages and file text are escaped before mo.md or a label (mo.md
    # would render the HTML in them): a value by md_text, a message the package builds by
    # safe_md (its markdown kept), a code block by safe_fence.
    from trackerkit.views import md_text, safe_fence, safe_md


@app.cell(hide_code=True)
def _():
    mo.md("""
    # Tracker designer

    Open a tracker from the library (or start from the blank one), edit what it tracks and its
    fields, and watch what the model will get: the `### Trackers` block at the starting values,
    the plain line it falls back to, its cost in tokens, and its line in the update tool.
    Renames follow the field, not its name; a draft the decoder refuses is not saved.
    The rail also prices each export of the update tool (OpenAI strict, Anthropic, Gemini) and
    says which provider would refuse it; **Import…** at the foot of the page brings in trackers
    made with other tools (MagVarUpdate, SillyTavern-Tracker, WTracker, RPG Companion, Marinara).
    The line under this one says which data folder is read and where a save goes
    (`marimo run notebooks/designer.py -- --data DIR` works on DIR's `trackers/` and `scenes/`).
    """)
    return


@app.cell
def _():
    # --data DIR, else TRACKERKIT_DATA, else the per-user workspace, else the bundled data read in
    # place until the first save copies it to the workspace (trackerkit.workspace says why).
    try:
        get_place, set_place = mo.state(workspace(mo.cli_args()))
        first = next(iter(Library(get_place().trackers).trackers()), None)
    except Exception as _error:
        mo.stop(True, mo.callout(design.readable(_error, "read the data folder"), kind="danger"))
    return first, get_place, set_place


@app.cell
def _(get_place):
    library = Library(get_place().trackers)
    data_dir = get_place().root
    mo.md(safe_md(get_place().describe()))
    return data_dir, library


@app.cell
def _(first):
    get_draft, set_draft = mo.state(
        Draft.open(first) if first else Draft.blank("tracker", "New tracker")
    )
    get_key, set_key = mo.state(get_draft().fields[0].key)
    get_new, set_new = mo.state(first is None)
    get_id_text, set_id_text = mo.state("")
    get_note, set_note = mo.state("")
    get_outcome, set_outcome = mo.state(None)
    # (newer revision,) after a stale save, until a save succeeds, Reload, or another tracker opens.
    get_stale, set_stale = mo.state(None)
    get_refresh, set_refresh = mo.state(0)
    get_problem, set_problem = mo.state("")
    # A count that draws the field's form anew when an edit changed another of its boxes (a fixed
    # top clears the top field and the other way): the edit's own cell, so it must allow it.
    get_form_round, set_form_round = mo.state(0, allow_self_loops=True)

    # The actions live here, beside the state, so no cell reruns just because they are redefined.
    def edit_draft(change):
        design.attempt(lambda: set_draft(change(get_draft())), set_problem, "change the tracker")

    def say(message):
        if get_note() != message:
            set_note(message)

    def change_fields(change, doing):
        # The selection is read now, at click time, never when a cell last ran.
        def run():
            before = get_draft()
            key = design.selected_key(before, get_key())
            after, selected = change(before, key)
            set_draft(after)
            set_key(selected)
            say(" ".join(design.dropped_tops(before, after)))

        design.attempt(run, say, doing)

    def edit_field(key, doing, **parse):
        # Each setting arrives as text; the package parses it for the field's type.
        def run():
            current = get_draft()
            field = current.field(key)
            changed = current.set_field(key, **{name: read(field) for name, read in parse.items()})
            set_draft(changed)
            say("")
            if design.redraws(field, changed.field(key), parse):
                set_form_round(lambda n: n + 1)

        design.attempt(run, say, doing)

    return (
        change_fields,
        edit_draft,
        edit_field,
        get_draft,
        get_form_round,
        get_id_text,
        get_key,
        get_new,
        get_note,
        get_outcome,
        get_problem,
        get_refresh,
        get_stale,
        set_draft,
        set_id_text,
        set_key,
        set_new,
        set_note,
        set_outcome,
        set_stale,
        say,
        set_problem,
        set_refresh,
    )


@app.cell
def _(
    get_draft,
    get_new,
    get_refresh,
    library,
    set_draft,
    set_id_text,
    set_key,
    set_new,
    set_note,
    set_outcome,
    set_problem,
    set_stale,
):
    get_refresh()
    unlisted = None
    try:
        # By name, as a person looks for one (by file, `loot-2.json` came before `loot.json`).
        _pieces = {
            f"{t.name} ({t.id})": t.id
            for t in sorted(library.trackers(), key=lambda t: (t.name.casefold(), t.id))
        }
    except Exception as _error:
        _pieces = {}
        unlisted = mo.callout(design.readable(_error, "list the library"), kind="danger")
    _shown = "" if get_new() else get_draft().id
    _label = next((label for label, i in _pieces.items() if i == _shown), "New blank tracker")

    def open_piece(piece_id):
        opened = (
            Draft.open(library.get(piece_id)) if piece_id else Draft.blank("tracker", "New tracker")
        )
        set_draft(opened)
        set_key(opened.fields[0].key)
        set_new(not piece_id)
        for clear in (set_id_text, set_note, set_problem):
            clear("")
        set_outcome(None)
        set_stale(None)

    picker = mo.ui.dropdown(
        options={**_pieces, "New blank tracker": ""},
        value=_label,
        label="Open",
        on_change=lambda v: design.attempt(lambda: open_piece(v), set_problem, "open the tracker"),
    )
    return picker, unlisted


@app.cell
def _(get_draft, get_id_text, get_new, picker, unlisted):
    # Like Reload, opening another tracker drops the draft's edits: say so while there are some.
    # Its own cell: the picker's cell does not rerun when its own choice sets the draft.
    _d = get_draft()
    _unsaved = bool(_d.patch()) or (get_new() and bool(get_id_text()))
    _name = md_text(_d.title if len(_d.title) <= 40 else _d.title[:39] + "…")
    _what = f'the new tracker "{_name}" is' if get_new() else f"unsaved edits to {_name} are"
    _open_row = mo.hstack(
        [picker, mo.md(f"⚠ {_what} dropped when you open another tracker" if _unsaved else "")],
        justify="start",
        align="center",
    )
    mo.vstack([unlisted, _open_row]) if unlisted else _open_row
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Identity & settings
    """)
    return


@app.cell
def _(edit_draft, get_draft):
    _d = get_draft()
    name_box = mo.ui.text(
        value=_d.name, label="Name", on_change=lambda v: edit_draft(lambda d: d.rename_tracker(v))
    )
    description_box = mo.ui.text(
        value=_d.description,
        label="What it tracks",
        full_width=True,
        on_change=lambda v: edit_draft(lambda d: d.set(description=v)),
    )
    note_box = mo.ui.text_area(
        value=_d.note,
        label="How the AI should update it (its line in the update tool)",
        full_width=True,
        on_change=lambda v: edit_draft(lambda d: d.set(note=v)),
    )
    layout_box = mo.ui.dropdown(
        options=["record", "list"],
        value=_d.layout,
        label="Shape",
        on_change=lambda v: edit_draft(lambda d: d.set(layout=v)),
    )
    icon_box = mo.ui.text(
        value=_d.icon or "",
        label="Icon (lucide:… or mdi:…)",
        on_change=lambda v: edit_draft(lambda d: d.set(icon=v or None)),
    )
    changes_box = mo.ui.dropdown(
        options=["chips", "card", "toast", "hidden"],
        value=_d.changes or "chips",
        label="Show changes on replies as",
        on_change=lambda v: edit_draft(lambda d: d.set(changes=v)),
    )
    identity = mo.vstack(
        [
            mo.hstack([name_box, layout_box, icon_box, changes_box], justify="start"),
            description_box,
            note_box,
        ]
    )
    return (identity,)


@app.cell
def _(edit_draft, get_draft):
    # Its own cell: a macro button's insert reruns it, so the box shows the prompt line as it is.
    template_box = mo.ui.text_area(
        value=get_draft().template or "",
        label="Prompt line (macros; empty = the plain line)",
        full_width=True,
        on_change=lambda v: edit_draft(lambda d: d.set(template=v or None)),
    )
    return (template_box,)


@app.cell
def _(edit_draft, get_draft):
    macro_buttons = mo.hstack(
        [
            mo.ui.button(
                label=safe_md(m),
                on_click=lambda _, m=m: edit_draft(
                    lambda d: d.set(template=(d.template or "") + m)
                ),
            )
            for m in design.macro_suggestions(get_draft())
        ]
        + [
            mo.ui.button(
                label="Clear prompt line",
                on_click=lambda _: edit_draft(lambda d: d.set(template=None)),
            )
        ],
        justify="start",
        wrap=True,
    )
    return (macro_buttons,)


@app.cell
def _(get_draft, get_id_text, get_new, library, set_id_text):
    # The box alone: typing in it reruns the cell below (a setter never reruns its own cell).
    id_box = None
    if get_new():
        id_box = mo.ui.text(
            value=get_id_text() or design.suggest_id(get_draft().name, library.ids()),
            label="Id (its file name; suggested from the name)",
            on_change=set_id_text,
        )
    return (id_box,)


@app.cell
def _(get_draft, get_id_text, get_new, id_box, library):
    if get_new():
        new_id = get_id_text() or design.suggest_id(get_draft().name, library.ids())
        _problem = design.id_problem(new_id, library.ids())
        id_view = mo.hstack(
            [id_box, mo.md(safe_md(f"⚠ {_problem}" if _problem else f"saved as `{new_id}.json`"))],
            justify="start",
        )
    else:
        new_id = None
        id_view = mo.md(safe_md(f"Id `{get_draft().id}` · revision {get_draft().revision}"))
    return id_view, new_id


@app.cell
def _(get_problem, id_view, identity, macro_buttons, template_box):
    mo.vstack(
        [id_view, identity, template_box, macro_buttons]
        + ([mo.callout(mo.md(safe_md(get_problem())), kind="danger")] if get_problem() else [])
    )
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Fields
    """)
    return


@app.cell
def _(get_draft, get_key, set_key):
    _d = get_draft()
    _labels = design.field_labels(_d.fields)
    _selected = design.selected_key(_d, get_key())
    field_pick = mo.ui.radio(
        options=_labels,
        value=next(label for label, key in _labels.items() if key == _selected),
        label="Fields",
        on_change=set_key,
    )
    return (field_pick,)


@app.cell
def _(change_fields):
    def add(d, key):
        added = d.add_field(type="number")
        return added, added.fields[-1].key

    def delete(d, key):
        if len(d.fields) == 1:
            return d, key
        remaining = d.delete_field(key)
        return remaining, remaining.fields[0].key

    field_controls = mo.hstack(
        [
            mo.ui.button(label="Add field", on_click=lambda _: change_fields(add, "add a field")),
            mo.ui.button(
                label="Move up",
                on_click=lambda _: change_fields(
                    lambda d, k: (design.move_field(d, k, -1), k), "move the field"
                ),
            ),
            mo.ui.button(
                label="Move down",
                on_click=lambda _: change_fields(
                    lambda d, k: (design.move_field(d, k, 1), k), "move the field"
                ),
            ),
            mo.ui.button(
                label="Delete", on_click=lambda _: change_fields(delete, "delete the field")
            ),
        ],
        justify="start",
    )
    return (field_controls,)


@app.cell
def _(change_fields, get_draft, get_key):
    _f = get_draft().field(design.selected_key(get_draft(), get_key()))
    type_box = mo.ui.dropdown(
        options=["text", "number", "boolean", "choice"],
        value=_f.type,
        label="Type",
        on_change=lambda v: change_fields(lambda d, k: (d.set_type(k, v), k), "change the type"),
    )
    return (type_box,)


@app.cell
def _(edit_field, get_draft, get_form_round, get_key, say, set_draft):
    get_form_round()
    _d = get_draft()
    _f = _d.field(design.selected_key(_d, get_key()))
    _widgets = [
        mo.ui.text(
            value=_f.name,
            label="Name",
            debounce=False,
            on_change=lambda v, k=_f.key: design.attempt(
                lambda: set_draft(get_draft().rename_field(k, v)), say, "rename the field"
            ),
        ),
        mo.ui.text(
            value=_f.description,
            label="What it means",
            full_width=True,
            on_change=lambda v, k=_f.key: edit_field(
                k, "change the description", description=lambda f: v
            ),
        ),
        mo.ui.text(
            value=_f.icon or "",
            label="Icon",
            on_change=lambda v, k=_f.key: edit_field(
                k, "change the icon", icon=lambda f: v or None
            ),
        ),
    ]
    if _f.type == "number":
        _tops = design.top_labels(_d, _f.key)
        _top = next((label for label, k in _tops.items() if k == _f.top), "none")
        _widgets += [
            mo.ui.text(
                value="" if _f.min is None else str(_f.min),
                label="From",
                on_change=lambda v, k=_f.key: edit_field(
                    k, "set From", min=lambda f: design.parse_number(v)
                ),
            ),
            mo.ui.text(
                value="" if _f.max is None else str(_f.max),
                label="To (a number)",
                on_change=lambda v, k=_f.key: edit_field(
                    k, "set To", max=lambda f: design.parse_number(v)
                ),
            ),
            mo.ui.dropdown(
                options={"none": "", **_tops},
                value=_top,
                label="To (another field)",
                on_change=lambda v, k=_f.key: edit_field(
                    k, "set the top", max_field=lambda f: v or None
                ),
            ),
        ]
    if _f.type == "choice":
        _widgets.append(
            mo.ui.text(
                value=", ".join(_f.choices),
                label="Choices (comma-separated)",
                full_width=True,
                on_change=lambda v, k=_f.key: edit_field(
                    k,
                    "set the choices",
                    choices=lambda f: [c.strip() for c in v.split(",") if c.strip()],
                ),
            )
        )
    _widgets.append(
        mo.ui.text(
            value=design.start_text(_f),
            label="Starts at",
            placeholder=design.start_placeholder(_f),
            on_change=lambda v, k=_f.key: edit_field(
                k, "set the start", default=lambda f: design.parse_start(f, v)
            ),
        )
    )
    field_page = mo.vstack(_widgets)
    return (field_page,)


@app.cell
def _(field_controls, field_page, field_pick, get_draft, get_key, get_note, type_box, verdict):
    # What the verdict says about the field on show, beside it (TR-49), then the last edit's note.
    _said = verdict.by_field.get(design.selected_key(get_draft(), get_key()), ()) if verdict else ()
    _beside = (
        [mo.callout(mo.md("**This field:** " + safe_md("; ".join(_said))), kind="danger")]
        if _said
        else []
    )
    if get_note():
        _beside.append(mo.callout(mo.md(safe_md(get_note())), kind="warn"))
    mo.hstack(
        [
            mo.vstack([field_pick, field_controls]),
            mo.vstack([type_box, field_page, *_beside]),
        ],
        widths=[1, 2],
        align="start",
    )
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Verdict, the rail and where it is linked
    """)
    return


@app.cell
def _(data_dir, get_draft, get_new, library):
    draft = get_draft()
    try:
        _held = list(library.trackers())
        verdict = draft.verdict([t.name for t in _held if t.id != draft.id])
        # Another tracker of this name: a scene linking both leaves one out. A warning, never a refusal.
        _clash = draft.name_clash(_held, new=get_new())
        scenes = load_scenes(data_dir / "scenes")
        links = draft.linked(scenes)
        _where = f"{links}" + (
            ": " + ", ".join(f"{title or sid} (`{sid}`)" for sid, title in links.scenes)
            if len(links)
            else ""
        )
        _view = mo.callout(
            mo.md(
                f"**{md_text(draft.title)}** · revision {draft.revision} · {safe_md(_where)}\n\n"
                + (
                    "The draft decodes and may be saved."
                    if verdict.ok
                    else "\n".join(f"- {safe_md(line)}" for line in verdict.lines())
                )
            ),
            kind="success" if verdict.ok else "danger",
        )
        if verdict.warnings:
            # What will not read as meant (a list row a chat may lack, a start held to its top, an
            # old field name in the tracker's words): said, never a refusal.
            _warned = "\n".join(f"- {safe_md(line)}" for line in verdict.warning_lines())
            _view = mo.vstack(
                [
                    _view,
                    mo.callout(
                        mo.md(f"⚠ **Warnings** (it still saves):\n\n{_warned}"), kind="warn"
                    ),
                ]
            )
        if _clash:
            _view = mo.vstack(
                [
                    _view,
                    mo.callout(
                        mo.md("⚠ " + safe_md(_clash) + " (A warning: it still saves.)"), kind="warn"
                    ),
                ]
            )
    except Exception as _error:
        verdict = links = None
        scenes = []
        _view = mo.callout(design.readable(_error, "judge the draft"), kind="danger")
    _view
    return links, scenes, verdict


@app.cell
def _(verdict):
    try:
        the_rail = (
            rail(verdict.tracker) if verdict is not None and verdict.tracker is not None else None
        )
    except Exception as _error:
        the_rail = None
        _view = mo.callout(design.readable(_error, "draw the rail"), kind="danger")
    else:
        if the_rail is None:
            _view = mo.md("_The rail shows once the draft decodes._")
        else:
            _view = mo.vstack(
                [
                    mo.md(the_rail.prompt_heading()),
                    mo.md(safe_fence(the_rail.block)),
                    *(
                        [mo.md(the_rail.empty_heading())]
                        + (
                            [mo.md(safe_fence(the_rail.empty_block))]
                            if the_rail.empty_block
                            else []
                        )
                        if the_rail.sample
                        else []
                    ),
                    mo.md(the_rail.plain_heading()),
                    mo.md(safe_fence(the_rail.plain)),
                    mo.md("**Update tool**"),
                    mo.md(safe_fence(the_rail.tool_line)),
                ]
            )
    _view
    return (the_rail,)


@app.cell
def _(verdict):
    # Each export of the update tool for this draft: its cost, and which provider would refuse it.
    if verdict is None or verdict.tracker is None:
        _view = mo.md("")
    else:
        try:
            _rows = design.export_rows(verdict.tracker)
        except Exception as _error:
            _view = mo.callout(design.readable(_error, "price the exports"), kind="danger")
        else:
            _view = mo.vstack(
                [
                    mo.md(
                        "**Exports of the update tool** · tokens in OpenAI's encodings "
                        "(for Anthropic and Gemini, estimates, not their own counts)"
                    ),
                    mo.Html(design.exports_html(_rows)),
                ]
            )
    _view
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Save
    """)
    return


@app.cell
def _(
    get_draft,
    get_new,
    get_place,
    library,
    new_id,
    set_draft,
    set_id_text,
    set_key,
    set_new,
    set_outcome,
    set_place,
    set_refresh,
    set_stale,
):
    def saved_as(outcome):
        set_outcome(outcome)
        if outcome.kind == "stale":
            set_stale((outcome.newer,))
        if outcome.ok:
            set_stale(None)
            set_draft(outcome.draft)
            set_new(False)
            set_id_text("")
            set_refresh(lambda n: n + 1)

    def report(message):
        set_outcome(design.SaveOutcome("refused", message, get_draft()))

    def save_now(as_id, name=None):
        def run():
            # The bundled data is read in place; the first save copies it to the workspace.
            target = get_place().for_writing()
            saved_as(design.save(get_draft(), Library(target.trackers), as_id, name=name))
            if target != get_place():
                set_place(target)

        design.attempt(run, report, "save")

    def reload_newer():
        opened = Draft.open(library.get(get_draft().id))
        set_draft(opened)
        set_key(opened.fields[0].key)
        set_outcome(None)
        set_stale(None)

    save_button = mo.ui.button(
        label="Save", kind="success", on_click=lambda _: save_now(new_id if get_new() else None)
    )
    reload_button = mo.ui.button(
        label="Reload the newer revision (drops your edits)",
        on_click=lambda _: design.attempt(reload_newer, report, "reload"),
    )
    return reload_button, save_now, save_button


@app.cell
def _():
    # What is typed in "New id" and "New name", kept while the draft is edited; and a count that
    # reruns the boxes' own cell after its button saves (a setter never reruns its own cell,
    # unless it allows it).
    get_copy_text, set_copy_text = mo.state("")
    get_copy_name, set_copy_name = mo.state("")
    get_copy_round, set_copy_round = mo.state(0, allow_self_loops=True)
    return (
        get_copy_name,
        get_copy_round,
        get_copy_text,
        set_copy_name,
        set_copy_round,
        set_copy_text,
    )


@app.cell
def _(
    get_copy_name,
    get_copy_round,
    get_copy_text,
    get_draft,
    get_outcome,
    library,
    save_now,
    set_copy_name,
    set_copy_round,
    set_copy_text,
):
    # Save as new: a copy of any tracker opened (or of a stale draft) under a new id and a name of
    # its own, both suggested free from its name (a held name is refused: a scene linking two
    # trackers of one name leaves one out); the boxes and the button share a cell, so typing
    # reruns nothing.
    get_copy_round()

    def save_copy(typed_id, typed_name):
        save_now(typed_id.strip(), typed_name)
        if get_outcome() is not None and get_outcome().ok:
            set_copy_text("")
            set_copy_name("")
            set_copy_round(lambda n: n + 1)

    try:
        _named = design.suggest_name(get_draft().name, library.trackers())
        _suggested = design.suggest_id(_named or get_draft().name, library.ids())
    except Exception:
        _suggested = _named = ""
    save_as_box = mo.ui.text(
        value=get_copy_text() or _suggested,
        label="New id",
        placeholder="another-id",
        on_change=set_copy_text,
    )
    save_as_name = mo.ui.text(
        value=get_copy_name() or _named,
        label="New name",
        placeholder="Another name",
        on_change=set_copy_name,
    )
    save_as_button = mo.ui.button(
        label="Save the draft as a new tracker",
        on_click=lambda _: save_copy(save_as_box.value, save_as_name.value),
    )
    return save_as_box, save_as_button, save_as_name


@app.cell
def _(
    get_draft,
    get_new,
    get_outcome,
    get_stale,
    library,
    reload_button,
    save_as_box,
    save_as_button,
    save_as_name,
    save_button,
    scenes,
    verdict,
):
    _outcome = get_outcome()
    if _outcome is not None and _outcome.ok and design.edit_lines(get_draft()):
        _outcome = None  # "Saved …" would sit beside Save over edits it did not save
    _kind = "neutral" if _outcome is None else "success" if _outcome.ok else "danger"
    _said = (
        mo.md("") if _outcome is None else mo.callout(mo.md(safe_md(_outcome.message)), kind=_kind)
    )
    _parts = [mo.hstack([save_button, _said], justify="start", align="center")]
    # What Save would break in the linked scenes: said before saving, never a refusal.
    # Renames and deletes are found by name; any other change by playing the scenes' scripts.
    _breaks = [] if get_new() else design.scene_breaks(get_draft(), scenes, library.trackers())
    if _breaks:
        _parts.append(
            mo.callout(
                mo.md(
                    "**Saving breaks linked scenes** (their scripted calls and expectations; "
                    + (
                        "a warning: it still saves"
                        if verdict is not None and verdict.ok
                        else "the draft is held back for the reasons above; this is what saving it would break"
                    )
                    + "):\n\n"
                    + "\n".join(f"- {safe_md(line)}" for line in _breaks)
                ),
                kind="warn",
            )
        )
    # A refused "save as new" keeps the newer revision's choices on show, so a retry is one click.
    _stale = get_stale()
    if _stale is not None:
        _newer = _stale[0]
        _holds = mo.md(
            "**The newer revision holds:**\n\n"
            + (
                "\n".join(f"- {safe_md(line)}" for line in design.holds(_newer))
                if _newer is not None
                else "- (the newer revision cannot be read)"
            )
        )
        _parts.append(
            mo.vstack(
                [
                    mo.Html(f"<div>{_holds.text}</div>"),  # one block, as What Save sends below
                    mo.hstack(
                        [reload_button, save_as_box, save_as_name, save_as_button],
                        justify="start",
                        align="end",
                    ),
                ]
            )
        )
    elif not get_new():
        _parts.append(
            mo.vstack(
                [
                    mo.md(
                        "**Save as new…** a copy of the draft under a new id and a name no other "
                        "tracker bears; the tracker opened stays as it is."
                    ),
                    mo.hstack(
                        [save_as_box, save_as_name, save_as_button], justify="start", align="end"
                    ),
                ]
            )
        )
    # What Save sends, in words; the patch itself as JSON, folded, for whoever wants the data.
    _d = get_draft()
    _edits = design.edit_lines(_d)
    if _edits:
        _heading = (
            "**Edits on the tracker it started from** (Save writes the new tracker whole):"
            if get_new()
            else f"**What Save sends**, the edits on revision {_d.revision}:"
        )
        _listed = "\n".join(f"- {md_text(line)}" for line in _edits)
        # In a block of its own: in a stack, a markdown's line and list are laid out as two of the
        # stack's items (its span is `display: contents`), their margins added to the stack's gap
        # instead of collapsing, which left a gap under the line as if something were missing.
        _sends = mo.md(f"{_heading}\n\n{_listed}")
        _parts.append(mo.Html(f"<div>{_sends.text}</div>"))
        _parts.append(mo.accordion({"The patch as JSON": mo.md(safe_fence(design.patch_text(_d)))}))
    elif not get_new():
        _parts.append(mo.md(f"**What Save sends:** nothing, no edit since revision {_d.revision}."))
    mo.vstack(_parts)
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Import…

    Trackers made with another tool: a MagVarUpdate `[InitVar]` entry or world book, a
    SillyTavern-Tracker preset, a WTracker schema preset, an RPG Companion config, a Marinara
    Engine game state, or a character card carrying trackers (JSON, YAML or a PNG card). The
    report says what became of every key of the file: mapped exactly, guessed (and from what
    text), or left behind (and why). Take the trackers into the library, or open one in the
    draft above to edit it before saving.
    """)
    return


@app.cell
def _():
    get_import_source, set_import_source = mo.state(None)
    get_import_note, set_import_note = mo.state(None)
    # The choice to take pieces named like ones already there (the CLI's --allow-duplicates):
    # made for one file and one "Which", and spent by a take.
    get_take_anyway, set_take_anyway = mo.state(False)
    # What this file's takes wrote (the import's id to the id saved under): not offered again.
    get_took, set_took = mo.state({})

    def import_from(source):
        set_import_note(None)
        set_take_anyway(False)
        set_took({})
        set_import_source(source)

    def take_anyway_chosen():
        # Read at click time; the take button's cell must not rerun (and reset Which) on a tick.
        return get_take_anyway()

    def took_so_far():
        # Read at click time, for the same reason.
        return get_took()

    import_upload = mo.ui.file(
        label="Upload a tracker file",
        on_change=lambda files: (
            import_from(("upload", files[0].name, files[0].contents)) if files else None
        ),
    )
    import_path = mo.ui.text(
        value="",
        label="…or its path on this machine",
        placeholder="/path/to/preset.json",
        full_width=True,
        on_change=lambda v: import_from(("path", v)),
    )
    import_format = mo.ui.dropdown(
        options=design.format_options(),
        value=next(iter(design.format_options())),
        label="Read as",
    )
    mo.vstack(
        [mo.hstack([import_upload, import_format], justify="start", align="center"), import_path]
    )
    return (
        get_import_note,
        get_import_source,
        get_take_anyway,
        get_took,
        import_format,
        set_import_note,
        set_take_anyway,
        set_took,
        take_anyway_chosen,
        took_so_far,
    )


@app.cell
def _(get_import_source, import_format):
    # Reading never raises: a file that cannot be read is a view whose problem says why.
    _source = get_import_source()
    if _source is None:
        import_view = None
    elif _source[0] == "upload":
        import_view = design.read_upload(_source[1], _source[2], import_format.value or None)
    else:
        import_view = design.read_path(_source[1], import_format.value or None)
    return (import_view,)


@app.cell
def _(
    get_place,
    import_view,
    set_draft,
    set_id_text,
    set_import_note,
    set_key,
    set_new,
    set_note,
    set_outcome,
    set_place,
    set_problem,
    set_refresh,
    set_stale,
    set_take_anyway,
    set_took,
    take_anyway_chosen,
    took_so_far,
):
    import_choice = take_button = open_button = None
    if import_view is not None and import_view.trackers:
        _choices = import_view.choices()
        import_choice = mo.ui.dropdown(
            options=_choices,
            value=next(iter(_choices)),
            label="Which",
            on_change=lambda _: set_take_anyway(False),
        )

        def take_imported():
            # Through the designer's own save; the bundled data is copied to the workspace first.
            # Pieces named like ones already there are refused unless taken anyway (as the CLI);
            # what this file's takes wrote is never written again as copies.
            _before = design.taken_before(import_view.imported, import_choice.value, took_so_far())
            if _before:
                set_import_note(("warn", _before))
                return
            target = get_place().for_writing()
            taken = design.take_imported(
                import_view.imported,
                Library(target.trackers),
                import_choice.value,
                target.scenes,
                allow_duplicates=take_anyway_chosen(),
            )
            set_take_anyway(False)
            if taken.saved:
                set_took(lambda took: {**took, **taken.took})
            if target != get_place():
                set_place(target)
            set_refresh(lambda n: n + 1)
            set_import_note(("success" if taken.ok else "danger", taken.message()))

        def open_imported():
            opened, new_id = design.open_imported(
                import_view.imported, import_choice.value, Library(get_place().trackers).ids()
            )
            set_draft(opened)
            set_key(opened.fields[0].key)
            set_new(True)
            set_id_text(new_id)
            for clear in (set_note, set_problem):
                clear("")
            set_outcome(None)
            set_stale(None)
            set_import_note(
                (
                    "info",
                    f'Opened "{opened.name}" in the draft above as a new tracker; Save writes it as `{new_id}.json`.',
                )
            )

        def failed(message):
            set_import_note(("danger", message))

        take_button = mo.ui.button(
            label="Take into the library",
            kind="success",
            on_click=lambda _: design.attempt(
                take_imported, failed, "take the trackers into the library"
            ),
        )
        open_button = mo.ui.button(
            label="Open in the draft",
            on_click=lambda _: design.attempt(open_imported, failed, "open the tracker"),
        )
    return import_choice, open_button, take_button


@app.cell
def _(
    get_import_note,
    get_place,
    get_refresh,
    get_take_anyway,
    get_took,
    import_choice,
    import_view,
    open_button,
    set_take_anyway,
    take_button,
):
    get_refresh()  # a take or a save changes which names the library holds
    take_anyway = mo.ui.checkbox(
        label=design.TAKE_ANYWAY, value=get_take_anyway(), on_change=set_take_anyway
    )
    if import_view is None:
        _view = mo.md("_Upload a file or type its path (then Enter) to see what it holds._")
    else:
        _parts = [mo.md(safe_md(import_view.summary()))]
        if import_view.problem:
            _parts.append(mo.callout(mo.md(safe_md(import_view.problem)), kind="danger"))
        _before = (
            design.taken_before(import_view.imported, import_choice.value, get_took())
            if take_button is not None
            else None
        )
        if _before:
            # Taken already: the take is not offered again, and why is said instead.
            _parts.append(mo.hstack([import_choice, open_button], justify="start", align="end"))
            _parts.append(mo.callout(mo.md(safe_md(_before)), kind="info"))
        elif take_button is not None:
            # Said before the button, as `trackerkit import` refuses such a file before writing.
            _clashes = design.duplicates(
                import_view.imported,
                Library(get_place().trackers),
                import_choice.value,
                get_place().scenes,
            )
            _row = [import_choice, take_button, open_button]
            if _clashes:
                _listed = "\n".join(f"- {safe_md(line)}" for line in _clashes)
                _parts.append(
                    mo.callout(
                        mo.md(
                            "⚠ **Named like ones already there.** Taking them is refused, as "
                            "`trackerkit import` refuses them, unless you tick "
                            f"“{design.TAKE_ANYWAY}”: a scene that links two trackers of one "
                            f"name leaves one of them out of every turn.\n\n{_listed}"
                        ),
                        kind="warn",
                    )
                )
                _row.append(take_anyway)
            _parts.append(mo.hstack(_row, justify="start", align="end"))
        if get_import_note() is not None:
            _kind, _said = get_import_note()
            _parts.append(mo.callout(mo.md(safe_md(_said)), kind=_kind))
        if import_view.imported is not None:
            _parts.append(mo.Html(design.report_html(import_view.imported.report)))
        _view = mo.vstack(_parts)
    _view
    return


@app.cell(hide_code=True)
def _():
    mo.md("""
    ## Files the decoder refuses
    """)
    return


@app.cell
def _(get_refresh, library):
    get_refresh()
    try:
        refused = design.refused_files(library)
        _error = None
    except Exception as _caught:
        refused, _error = [], design.readable(_caught, "read the library")
    raw_pick = mo.ui.dropdown(options=[v.id for v in refused], label="Open as raw JSON to fix")
    if _error:
        _view = mo.callout(_error, kind="danger")
    elif not refused:
        _view = mo.md("Every file in the library decodes.")
    else:
        _view = mo.vstack(
            [
                mo.md(
                    "\n".join(
                        "- " + safe_md(f"`{v.id}.json`: " + "; ".join(str(p) for p in v.problems))
                        for v in refused
                    )
                ),
                raw_pick,
            ]
        )
    _view
    return (raw_pick,)


@app.cell
def _(library, raw_pick, set_refresh):
    _text, _unread = "", ""
    if raw_pick.value:
        try:
            _text = design.raw_text(library, raw_pick.value)
        except Exception as _caught:
            _unread = design.readable(_caught, "open the file")
    get_raw_note, set_raw_note = mo.state(_unread)

    def save_fixed(piece_id, text):
        repaired = design.save_raw(library, piece_id, text)
        lines = "\n".join(f"- {p}" for p in repaired.problems)
        set_raw_note(f"{repaired.message}\n\n{lines}".strip())
        if repaired.tracker is not None:
            set_refresh(lambda n: n + 1)

    def check_fixed(piece_id, text):
        checked = design.check_raw(piece_id, text)
        lines = "\n".join(f"- {p}" for p in checked.problems)
        set_raw_note(f"{checked.message}\n\n{lines}".strip())

    raw_box = mo.ui.text_area(
        value=_text,
        label=safe_md(f"{raw_pick.value}.json"),
        rows=16,
        full_width=True,
        on_change=lambda v: design.attempt(
            lambda: check_fixed(raw_pick.value, v), set_raw_note, "check the text"
        ),
    )
    raw_save = mo.ui.button(
        label="Save the fixed file",
        on_click=lambda _: design.attempt(
            lambda: save_fixed(raw_pick.value, raw_box.value), set_raw_note, "save the file"
        ),
    )
    return get_raw_note, raw_box, raw_save


@app.cell
def _(get_raw_note, raw_box, raw_pick, raw_save):
    if raw_pick.value:
        _note = get_raw_note()
        _view = mo.vstack(
            [raw_box, raw_save]
            + ([mo.callout(mo.md(safe_md(_note)), kind="info")] if _note else [])
        )
    else:
        _view = mo.md("")
    _view
    return


if __name__ == "__main__":
    app.run()
