import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full", app_title="trackerkit · tracker designer")


@app.cell
def _():
    from pathlib import Path

    import marimo as mo

    from trackerkit import (
        Draft,
        Library,
        StaleRevisionError,
        TrackerDecodeError,
        TrackerkitError,
        load_scenes,
        rail,
        save_draft,
    )

    data_dir = Path(__file__).resolve().parent.parent / "data"
    library = Library(data_dir / "trackers")
    return (
        Draft,
        StaleRevisionError,
        TrackerDecodeError,
        TrackerkitError,
        data_dir,
        library,
        load_scenes,
        mo,
        rail,
        save_draft,
    )


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    # Tracker designer

    Open a tracker from the library (or start from the blank one), edit what it tracks and its
    fields, and watch what the model will get: the `### Trackers` block at the starting values,
    the plain line it falls back to, its cost in tokens, and its line in the update tool.
    Renames follow the field, not its name; a draft the decoder refuses is not saved.
    """)
    return


@app.cell
def _(library, mo):
    _pieces = {f"{v.tracker.name} ({v.id})": v.id for v in library.verdicts() if v.tracker is not None}
    picker = mo.ui.dropdown(
        options={**_pieces, "New blank tracker": ""},
        value=next(iter(_pieces), "New blank tracker"),
        label="Open",
    )
    picker
    return (picker,)


@app.cell
def _(Draft, library, mo, picker):
    opened = Draft.open(library.get(picker.value)) if picker.value else Draft.blank("new-tracker")
    get_draft, set_draft = mo.state(opened)
    get_key, set_key = mo.state(opened.fields[0].key)
    get_note, set_note = mo.state("")
    return get_draft, get_key, get_note, opened, set_draft, set_key, set_note


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Identity & settings
    """)
    return


@app.cell
def _(get_draft, mo, set_draft):
    _d = get_draft()
    name_box = mo.ui.text(value=_d.name, label="Name", on_change=lambda v: set_draft(get_draft().rename_tracker(v)))
    description_box = mo.ui.text(value=_d.description, label="What it tracks", full_width=True, on_change=lambda v: set_draft(get_draft().set(description=v)))
    note_box = mo.ui.text_area(value=_d.note, label="How the AI should update it (its line in the update tool)", full_width=True, on_change=lambda v: set_draft(get_draft().set(note=v)))
    layout_box = mo.ui.dropdown(options=["record", "list"], value=_d.layout, label="Shape", on_change=lambda v: set_draft(get_draft().set(layout=v)))
    icon_box = mo.ui.text(value=_d.icon or "", label="Icon (lucide:… or mdi:…)", on_change=lambda v: set_draft(get_draft().set(icon=v or None)))
    changes_box = mo.ui.dropdown(
        options=["chips", "card", "toast", "hidden"],
        value=_d.changes or "chips",
        label="Show changes on replies as",
        on_change=lambda v: set_draft(get_draft().set(changes=v)),
    )
    template_box = mo.ui.text_area(
        value=_d.template or "",
        label="Prompt line (macros; empty = the plain line)",
        full_width=True,
        on_change=lambda v: set_draft(get_draft().set(template=v or None)),
    )

    def _insert(macro):
        current = get_draft()
        set_draft(current.set(template=(current.template or "") + macro))

    _macros = ["{{user}}", "{{char}}", f"{{{{tracker::{_d.name}}}}}"]
    _macros += [
        f"{{{{tracker::{_d.name}::{f.name}}}}}" if _d.layout == "record" else f"{{{{tracker::{_d.name}::Sample::{f.name}}}}}"
        for f in _d.fields
    ]
    macro_buttons = mo.hstack(
        [mo.ui.button(label=m, on_click=lambda _, m=m: _insert(m)) for m in _macros]
        + [mo.ui.button(label="Clear prompt line", on_click=lambda _: set_draft(get_draft().set(template=None)))],
        justify="start",
        wrap=True,
    )
    mo.vstack(
        [
            mo.hstack([name_box, layout_box, icon_box, changes_box], justify="start"),
            description_box,
            note_box,
            template_box,
            macro_buttons,
        ]
    )
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Fields
    """)
    return


@app.cell
def _(get_draft, get_key, mo, set_draft, set_key):
    _d = get_draft()
    _keys = {f"{f.name} ({f.type})": f.key for f in _d.fields}
    _selected = get_key() if get_key() in _keys.values() else _d.fields[0].key
    field_pick = mo.ui.radio(
        options=_keys,
        value=next(label for label, key in _keys.items() if key == _selected),
        label="Fields",
        on_change=set_key,
    )

    def _add(_):
        added = get_draft().add_field(type="number")
        set_draft(added)
        set_key(added.fields[-1].key)

    def _move(step):
        current = get_draft()
        keys = [f.key for f in current.fields]
        set_draft(current.move_field(_selected, max(0, keys.index(_selected) + step)))

    def _delete(_):
        current = get_draft()
        if len(current.fields) > 1:
            remaining = current.delete_field(_selected)
            set_draft(remaining)
            set_key(remaining.fields[0].key)

    field_controls = mo.hstack(
        [
            mo.ui.button(label="Add field", on_click=_add),
            mo.ui.button(label="Move up", on_click=lambda _: _move(-1)),
            mo.ui.button(label="Move down", on_click=lambda _: _move(1)),
            mo.ui.button(label="Delete", on_click=_delete),
        ],
        justify="start",
    )
    return field_controls, field_pick


@app.cell
def _(TrackerkitError, get_draft, get_key, mo, set_draft, set_note):
    _d = get_draft()
    _key = get_key() if get_key() in {f.key for f in _d.fields} else _d.fields[0].key
    _f = _d.field(_key)

    def _edit(**changes):
        try:
            set_draft(get_draft().set_field(_key, **changes))
        except (TrackerkitError, ValueError) as error:
            set_note(str(error))

    def _number(text):
        text = text.strip()
        if not text:
            return None
        value = float(text)
        return int(value) if value.is_integer() else value

    def _start(text):
        if _f.type == "number":
            return _number(text)
        if _f.type == "boolean":
            return {"": None, "true": True, "false": False}.get(text.strip().lower())
        return text or None

    _widgets = [
        mo.ui.text(value=_f.name, label="Name", debounce=False, on_change=lambda v: set_draft(get_draft().rename_field(_key, v))),
        mo.ui.text(value=_f.description, label="What it means", full_width=True, on_change=lambda v: _edit(description=v)),
        mo.ui.dropdown(options=["text", "number", "boolean", "choice"], value=_f.type, label="Type", on_change=lambda v: set_draft(get_draft().set_type(_key, v))),
        mo.ui.text(value=_f.icon or "", label="Icon", on_change=lambda v: _edit(icon=v or None)),
    ]
    if _f.type == "number":
        _others = {f.name: f.key for f in _d.fields if f.type == "number" and f.key != _key}
        _top = next((n for n, k in _others.items() if k == _f.top), "none")
        _widgets += [
            mo.ui.text(value="" if _f.min is None else str(_f.min), label="From", on_change=lambda v: _edit(min=_number(v))),
            mo.ui.text(value="" if _f.max is None else str(_f.max), label="To (a number)", on_change=lambda v: _edit(max=_number(v))),
            mo.ui.dropdown(options=["none", *_others], value=_top, label="To (another field)", on_change=lambda v: _edit(max_field=None if v == "none" else _others[v])),
        ]
    if _f.type == "choice":
        _widgets.append(
            mo.ui.text(value=", ".join(_f.choices), label="Choices (comma-separated)", full_width=True, on_change=lambda v: _edit(choices=[c.strip() for c in v.split(",") if c.strip()]))
        )
    _widgets.append(
        mo.ui.text(value="" if _f.default is None else str(_f.default).lower() if isinstance(_f.default, bool) else str(_f.default), label="Starts at", on_change=lambda v: _edit(default=_start(v)))
    )
    field_page = mo.vstack(_widgets)
    return (field_page,)


@app.cell
def _(field_controls, field_page, field_pick, get_note, mo):
    mo.hstack(
        [mo.vstack([field_pick, field_controls]), mo.vstack([field_page, mo.md(f"_{get_note()}_") if get_note() else mo.md("")])],
        widths=[1, 2],
        align="start",
    )
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    ## Verdict, the rail and where it is linked
    """)
    return


@app.cell
def _(data_dir, get_draft, library, load_scenes, mo):
    draft = get_draft()
    library_names = [v.tracker.name for v in library.verdicts() if v.tracker is not None]
    verdict = draft.verdict(library_names)
    links = draft.linked(load_scenes(data_dir / "scenes"))
    mo.callout(
        mo.md(
            f"**{draft.name}** · revision {draft.revision} · {links}\n\n"
            + ("The draft decodes and may be saved." if verdict.ok else "\n".join(f"- {line}" for line in verdict.lines()))
        ),
        kind="success" if verdict.ok else "danger",
    )
    return draft, links, verdict


@app.cell
def _(TrackerDecodeError, draft, mo, rail, verdict):
    try:
        the_rail = rail(draft) if verdict.tracker is not None else None
    except TrackerDecodeError:
        the_rail = None
    if the_rail is None:
        _view = mo.md("_The rail shows once the draft decodes._")
    else:
        _view = mo.vstack(
            [
                mo.md(f"**Prompt** · {the_rail.tokens} tokens per reply ({the_rail.encoding})"),
                mo.md(f"```\n{the_rail.block}\n```"),
                mo.md(f"**The plain line it falls back to** · {the_rail.plain_tokens} tokens"),
                mo.md(f"```\n{the_rail.plain}\n```"),
                mo.md("**Update tool**"),
                mo.md(f"```\n{the_rail.tool_line}\n```"),
            ]
        )
    _view
    return (the_rail,)


@app.cell
def _(StaleRevisionError, TrackerDecodeError, get_draft, library, mo, save_draft, set_draft, set_note):
    def _save(_):
        try:
            saved = save_draft(get_draft(), library)
        except StaleRevisionError as error:
            set_note(f"Not saved: {error}")
            return
        except TrackerDecodeError as error:
            set_note(f"Not saved: {error}")
            return
        set_draft(saved)
        set_note(f"Saved {saved.id} at revision {saved.revision}.")

    save_button = mo.ui.button(label="Save (patch on the revision opened)", on_click=_save, kind="success")
    mo.hstack([save_button, mo.md(f"patch: `{get_draft().patch() or 'nothing edited'}`")], justify="start")
    return


if __name__ == "__main__":
    app.run()
