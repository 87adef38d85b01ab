import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    from pathlib import Path

    import marimo as mo

    from trackerkit import Library, initial_value, linked_in, load_scenes

    return Library, Path, initial_value, linked_in, load_scenes, mo


@app.cell(hide_code=True)
def _(mo):
    mo.md("""
    # The tracker library

    Every `<id>.json` piece in `data/trackers/`, read through the strict decoder. A file
    the decoder refuses is listed with every problem, by path; it never hides the others.
    """)
    return


@app.cell
def _(Library, Path, load_scenes):
    data = Path(__file__).parent.parent / "data"
    folder = data / "trackers"
    verdicts = Library(folder).verdicts()
    scenes = load_scenes(data / "scenes")
    return folder, scenes, verdicts


@app.cell
def _(folder, linked_in, mo, scenes, verdicts):
    refused = [v for v in verdicts if not v.ok]
    mo.vstack(
        [
            mo.md(
                f"**{len(verdicts)} trackers** in `{folder.name}/`: "
                + (f"{len(refused)} refused" if refused else "all decode")
            ),
            mo.ui.table(
                [
                    {
                        "id": v.id,
                        "name": v.tracker.name if v.tracker else "",
                        "layout": v.tracker.layout if v.tracker else "",
                        "fields": len(v.tracker.fields) if v.tracker else 0,
                        "changes": v.tracker.style if v.tracker else "",
                        "icon": (v.tracker.body.icon or "") if v.tracker else "",
                        "linked": str(linked_in(v.id, scenes)),
                        "verdict": "decodes" if v.ok else f"refused: {len(v.problems)} problems",
                    }
                    for v in verdicts
                ],
                selection=None,
                label="Decoder verdicts",
            ),
        ]
    )
    return (refused,)


@app.cell
def _(mo, refused):
    mo.md(
        "\n".join(f"- `{v.file}`: {p}" for v in refused for p in v.problems)
        if refused
        else "No file was refused."
    )
    return


@app.cell
def _(mo, verdicts):
    decoded = {v.tracker.name: v.tracker for v in verdicts if v.tracker is not None}
    picked = mo.ui.dropdown(
        options=sorted(decoded), value=min(decoded, default=None), label="Tracker"
    )
    picked
    return decoded, picked


@app.cell
def _(decoded, initial_value, mo, picked):
    tracker = decoded.get(picked.value) if picked.value else None
    mo.stop(tracker is None, mo.md("No tracker decodes."))
    mo.vstack(
        [
            mo.md(
                f"### {tracker.name}\n\n{tracker.description}\n\n"
                f"*{tracker.layout}*, changes shown as *{tracker.style}*. "
                f"Note for the model: {tracker.body.note}"
                + (f"\n\nTemplate: `{tracker.body.template}`" if tracker.body.template else "")
            ),
            mo.ui.table(
                [
                    {
                        "field": f.name,
                        "type": f.type,
                        "description": f.description,
                        "accepts": f.model_dump(
                            by_alias=True,
                            exclude_none=True,
                            include={"min", "max", "max_field", "choices"},
                        ),
                        "starts at": initial_value(f),
                        "icon": f.icon or "",
                    }
                    for f in tracker.fields
                ],
                selection=None,
                label="Fields",
            ),
        ]
    )
    return


if __name__ == "__main__":
    app.run()
