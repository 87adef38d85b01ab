# /// script
# [tool.marimo.opengraph]
# title = "Tracker library"
# description = "Every tracker piece in the data folder read through the strict decoder: its verdict, every problem by path, the scenes linking it, and its fields."
# ///
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="trackerkit · tracker library")

with app.setup(hide_code=True):
    import marimo as mo

    from trackerkit import (
        Library,
        accepted_text,
        initial_value,
        line_of,
        linked_in,
        load_scenes,
        workspace,
    )
    from trackerkit.design import tracker_hints
    from trackerkit.views import md_text, safe_md, trouble_html


@app.cell(hide_code=True)
def _():
    mo.md("""
    # The tracker library

    Every `<id>.json` piece in the library's `trackers/` folder, read through the strict
    decoder. A file the decoder refuses is listed with every problem, by path; it never hides
    the others. `marimo run notebooks/library.py -- --data DIR` reads DIR's library instead.
    """)
    return


@app.function(hide_code=True)
def trouble(title, error):
    """A failure as the page shows it: what could not be done, then the error in words."""
    return mo.callout(mo.Html(trouble_html(title, error)), kind="danger")


@app.function(hide_code=True)
def tracker_choices(trackers):
    """The "Tracker" picker's options, label to id, sorted by label: each tracker as
    "Name (id)", as the designer's picker names them, so two trackers of one name (a copied
    file, an import made twice) can each be opened."""
    return dict(sorted((f"{t.name} ({t.id})", t.id) for t in trackers))


@app.function(hide_code=True)
def missing_folder(place):
    """What of the folder the library reads is not there, in a sentence (Markdown); "" when it
    is there. A mistyped --data path reads as an empty library, so it is said outright."""
    if not place.root.is_dir():
        return (
            f"**The data folder is not there:** nothing is at <code>{md_text(place.root)}</code> "
            f"(from {md_text(place.source)}), so there are no trackers to read. Check the path."
        )
    if not place.trackers.is_dir():
        return (
            f"**No trackers folder:** the data folder <code>{md_text(place.root)}</code> has no "
            f"<code>trackers/</code> folder (looked for <code>{md_text(place.trackers)}</code>), "
            "so there are no trackers to read."
        )
    return ""


@app.cell
def _():
    # Any failure below is shown in its own section as a message, never as a blank page.
    try:
        place = workspace(mo.cli_args())
    except Exception as _error:
        mo.stop(True, trouble("Could not choose the data folder", _error))
    mo.md(safe_md(place.describe()))
    return (place,)


@app.cell
def _(place):
    try:
        missing = missing_folder(place)
        verdicts = Library(place.trackers).verdicts()
        scenes = load_scenes(place.scenes)
    except Exception as _error:
        mo.stop(True, trouble(f"Could not read the library in {place.root}", _error))
    return missing, scenes, verdicts


@app.cell
def _(missing, place, scenes, verdicts):
    refused = [v for v in verdicts if not v.ok]
    try:
        _rows = [
            {
                "id": v.id,
                "name": v.tracker.name if v.tracker else "",
                "layout": v.tracker.layout if v.tracker else "",
                "fields": len(v.tracker.fields) if v.tracker else 0,
                "changes": v.tracker.style if v.tracker else "",
                "icon": (v.tracker.body.icon or "") if v.tracker else "",
                "linked": str(linked_in(v.id, scenes)),
                "verdict": "decodes"
                if v.ok
                else f"refused: {len(v.problems)} problem{'s' if len(v.problems) != 1 else ''}",
            }
            for v in verdicts
        ]
    except Exception as _error:
        mo.stop(True, trouble("Could not list the verdicts", _error))
    # Every row of a library of modest size on one page: a tracker on page 2 is easily missed.
    verdict_table = mo.ui.table(_rows, selection=None, page_size=100, label="Decoder verdicts")
    mo.vstack(
        [
            mo.callout(mo.md(missing), kind="warn")
            if missing
            else mo.md(
                f"**{len(verdicts)} trackers** in <code>{md_text(place.trackers)}</code>: "
                + (f"{len(refused)} refused" if refused else "all decode")
                if verdicts
                else f"**No tracker files** in <code>{md_text(place.trackers)}</code>."
            ),
            verdict_table,
        ]
    )
    return (refused,)


@app.cell
def _(refused):
    mo.md(
        "\n".join(
            f"- <code>{md_text(v.file)}</code>: {md_text(p)}" for v in refused for p in v.problems
        )
        if refused
        else "No file was refused."
    )
    return


@app.cell
def _(verdicts):
    # What `trackerkit check` warns of: a file that decodes but will not read as meant.
    _decoded = [v for v in verdicts if v.tracker is not None]
    try:
        _hints = tracker_hints([v.tracker for v in _decoded], [v.file for v in _decoded])
    except Exception as _error:
        mo.stop(True, trouble("Could not check the trackers' macros and names", _error))
    _lines = [
        f"- <code>{md_text(v.file)}</code>: {md_text(p)}"
        for v, _found in zip(_decoded, _hints, strict=True)
        for p in _found
    ]
    (
        mo.callout(
            mo.md(
                f"**{len(_lines)} warning{'' if len(_lines) == 1 else 's'}**: these files decode, "
                "but will not read as meant (as `trackerkit check` says).\n\n" + "\n".join(_lines)
            ),
            kind="warn",
        )
        if _lines
        else mo.md("No warnings: every template's macros name trackers and fields here.")
    )
    return


@app.cell
def _(verdicts):
    # Keyed by id, never by name: two trackers may share a name, and each must open.
    decoded = {v.tracker.id: v for v in verdicts if v.tracker is not None}
    _choices = tracker_choices(v.tracker for v in decoded.values())
    picked = mo.ui.dropdown(options=_choices, value=next(iter(_choices), None), label="Tracker")
    picked
    return decoded, picked


@app.cell
def _(decoded, picked):
    _verdict = decoded.get(picked.value) if picked.value else None
    tracker = _verdict.tracker if _verdict is not None else None
    mo.stop(tracker is None, mo.md("No tracker decodes."))
    try:
        _rows = [
            {
                "field": f.name,
                "type": f.type,
                "description": f.description,
                "accepts": accepted_text(f),
                "starts at": line_of(initial_value(f)),
                "icon": f.icon or "",
            }
            for f in tracker.fields
        ]
    except Exception as _error:
        mo.stop(True, trouble(f"Could not show {tracker.name}", _error))
    field_table = mo.ui.table(_rows, selection=None, page_size=100, label="Fields")
    mo.vstack(
        [
            mo.md(
                # Every text here is the tracker file's: escaped, so it shows as written.
                f"### {md_text(tracker.name)}\n\n{md_text(tracker.description)}\n\n"
                f"Id <code>{md_text(tracker.id)}</code>, read from <code>{md_text(_verdict.file)}</code>.\n\n"
                f"Laid out as a *{md_text(tracker.layout)}*; changes shown as *{md_text(tracker.style)}*.\n\n"
                f"**Note for the model:** {md_text(tracker.body.note)}"
                + (
                    f"\n\nTemplate: <code>{md_text(tracker.body.template)}</code>"
                    if tracker.body.template
                    else ""
                )
            ),
            field_table,
        ]
    )
    return


if __name__ == "__main__":
    app.run()
