"""What the designer shows of a file read for import: the view, the format choices, the report table.

An `ImportView` is what the page shows of one file read (by `design.importing.read_upload` or
`read_path`): the file, the format it was read as and the one its content shows, the import or the
problem in words, and the "which tracker" choices. `format_label` and `format_options` name the
formats as their users know them; `report_html` lays an import report out as a table (exact,
guessed with the text it was guessed from, unmapped with the reason; the original key beside the
new name).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from trackerkit.formats.detect import FORMAT_NAMES, FORMATS
from trackerkit.formats.imported import Imported, ImportReport, ReportLine
from trackerkit.tracker import Tracker

__all__ = ["ALL_IMPORTED", "ImportView", "format_label", "format_options", "report_html"]


#: The value of the "which tracker" choice that means every imported tracker.
ALL_IMPORTED = "*"


_MARKS = {"exact": "✓ exact", "guessed": "≈ guessed", "unmapped": "✗ unmapped"}


def format_label(format: str) -> str:
    """A format as its users know it, with its short name: `SillyTavern-Tracker (sillytavern-tracker)`."""
    return f"{FORMAT_NAMES.get(format, format)} ({format})"


def format_options() -> dict[str, str]:
    """The "Read as" choices, label to format: the detected format first (value ``""``), then each format."""
    return {"the format its content shows": "", **{format_label(f): f for f in FORMATS}}


@dataclass(frozen=True, slots=True)
class ImportView:
    """What the designer shows of one file read for import.

    Attributes:
        file: the file's name (an upload's own name, or the path given).
        detected: the format its content shows, or None when it cannot be told.
        format: the format it was read as (the one chosen, else the detected one), or None.
        imported: the import, or None when the file could not be read.
        problem: why nothing was imported, in words for the page (None when imported).
    """

    file: str
    detected: str | None
    format: str | None
    imported: Imported | None
    problem: str | None = None

    @property
    def trackers(self) -> tuple[Tracker, ...]:
        """The imported trackers (none when the file could not be read)."""
        return self.imported.trackers if self.imported is not None else ()

    def summary(self) -> str:
        """One line (markdown) for the page: the file, how it was read, what came of it.

        The file name is as given, not escaped: the page escapes the line (`safe_md`).
        """
        head = f"**{self.file}**"
        if self.format is None:
            return f"{head} · not imported"
        how = format_label(self.format)
        if self.detected == self.format:
            read = f"read as {how}, the format its content shows"
        elif self.detected is None:
            read = f"read as {how}, as chosen (its content shows no format trackerkit knows)"
        else:
            read = f"read as {how}, as chosen (its content shows {format_label(self.detected)})"
        if self.imported is None:
            return f"{head} · {read}"
        made = _count(len(self.imported.trackers), "tracker")
        if self.imported.scene:
            made += f' used together as "{self.imported.scene}"'
        return f"{head} · {read} · {made} · {self.imported.report.summary()}"

    def choices(self) -> dict[str, str]:
        """The "which tracker" choices, label to id: every tracker when there are several, then each one."""
        trackers = self.trackers
        each = {f"{t.name} ({_count(len(t.fields), 'field')})": t.id for t in trackers}
        if len(trackers) > 1:
            return {f"All {len(trackers)} trackers": ALL_IMPORTED, **each}
        return each


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _row(line: ReportLine) -> str:
    cells = (
        f'<td class="kind">{_MARKS[line.kind]}</td>',
        f"<td><code>{html.escape(line.source)}</code></td>",
        f"<td>{'<code>' + html.escape(line.target) + '</code>' if line.target else '—'}</td>",
        f"<td>{html.escape(line.detail)}</td>",
    )
    return f'<tr class="report-{line.kind}">{"".join(cells)}</tr>'


_STYLE = (
    "<style>"
    ".import-report{border-collapse:collapse;width:100%;font-size:0.9em}"
    ".import-report th,.import-report td{border:1px solid #d4d4d8;padding:3px 6px;"
    "text-align:left;vertical-align:top}"
    ".import-report th{background:#f4f4f5}"
    ".import-report .kind{white-space:nowrap}"
    ".import-report .report-guessed{background:#fef9c3}"
    ".import-report .report-unmapped{background:#fee2e2}"
    "</style>"
)


def report_html(report: ImportReport) -> str:
    """The report as an HTML table: one row per source key, in the source's order.

    Columns: what became of it (`✓ exact`, `≈ guessed`, `✗ unmapped`), the original key, the new
    name (`Tracker.field`, or `—` when unmapped) and how it was read (for a guess, the text it was
    guessed from; for an unmapped key, the reason). Every text is escaped.
    """
    head = "<tr><th>Became</th><th>Original key</th><th>New name</th><th>How it was read, or why not</th></tr>"
    rows = "".join(_row(line) for line in report.lines)
    return (
        f'{_STYLE}<table class="import-report"><thead>{head}</thead><tbody>{rows}</tbody></table>'
    )
