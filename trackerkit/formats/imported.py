"""What an importer returns: trackers, the order a scene links them in, and the field report.

Every importer builds its trackers through `Builder`, which gives each source key a TR-1 name
(`names.FieldNames`), keeps the original key in the field's meaning, writes one report line per
source key (exact, guessed and from what text, or unmapped and why) and hands the result to the
strict decoder, so nothing is dropped silently and nothing the decoder would refuse leaves here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from trackerkit.errors import ImportRefusedError, TrackerDecodeError
from trackerkit.fields import is_number
from trackerkit.formats.document import LongNumber
from trackerkit.formats.leaves import quoted
from trackerkit.formats.names import FieldNames, piece_id
from trackerkit.line import line_of
from trackerkit.tracker import Layout, Tracker, decode_tracker
from trackerkit.values import same_value

__all__ = ["Builder", "ImportReport", "Imported", "ReportLine", "TrackerDraft", "own_start"]

Kind = Literal["exact", "guessed", "unmapped"]


@dataclass(frozen=True, slots=True)
class ReportLine:
    """One source key and what became of it.

    Attributes:
        kind: `exact` (mapped as written), `guessed` (mapped by reading text or a shape; `detail`
            says from what) or `unmapped` (left behind; `detail` says why).
        source: where in the source file, as written there (`世界.当前位置`, `field-3.StateOfDress`).
        target: `Tracker.field` (or `Tracker` for a whole tracker); empty when unmapped.
        detail: the field type and how it was read, or the reason it was left behind.
    """

    kind: Kind
    source: str
    target: str
    detail: str

    def __str__(self) -> str:
        arrow = f" -> {self.target}" if self.target else ""
        return f"{self.kind}: {self.source}{arrow}: {self.detail}"

    def to_json(self) -> dict[str, str]:
        """Plain data: `{kind, source, target, detail}`."""
        return {
            "kind": self.kind,
            "source": self.source,
            "target": self.target,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class ImportReport:
    """Every line of one import, in the source's order."""

    file: str
    format: str
    lines: tuple[ReportLine, ...]

    def of(self, kind: Kind) -> tuple[ReportLine, ...]:
        """The lines of one kind."""
        return tuple(line for line in self.lines if line.kind == kind)

    def summary(self) -> str:
        """`3 exact, 2 guessed, 1 unmapped`."""
        return ", ".join(f"{len(self.of(k))} {k}" for k in ("exact", "guessed", "unmapped"))

    def to_text(self) -> str:
        """One line per source key, `kind: source -> target: detail`."""
        return "\n".join(str(line) for line in self.lines)

    def to_json(self) -> dict[str, Any]:
        """Plain data: `{file, format, lines: [...]}`."""
        return {
            "file": self.file,
            "format": self.format,
            "lines": [line.to_json() for line in self.lines],
        }


@dataclass(frozen=True, slots=True)
class Imported:
    """An import's result.

    Attributes:
        trackers: the new tracker pieces, each passed by the strict decoder, at revision 0.
        scene_links: their ids in the order a scene should link them (the source's order).
        report: what became of every source key.
        scene: the title of the scene the source implies (a card, a preset, a game state: trackers
            used together in one chat), or None when it implies none (alternative presets).
        scene_details: what else the source says of that scene, by the scene file's key: `id`
            (wanted; the next free one when taken), `char`, `user` and `card` (a card's name,
            its exported scene's user, its description). A key left out keeps the scene's default.
    """

    trackers: tuple[Tracker, ...]
    scene_links: tuple[str, ...]
    report: ImportReport
    scene: str | None = None
    scene_details: Mapping[str, str] = field(default_factory=dict)


def meaning(key: str, name: str, text: str) -> str:
    """A field's meaning that keeps the original key when the name had to change it."""
    text = text.strip()
    if key == name:
        return text
    return f"{key}: {text}" if text else key


@dataclass
class TrackerDraft:
    """A tracker being built: its fields as plain data, named as they are added."""

    builder: Builder
    name: str
    layout: Layout
    description: str
    source: str = ""
    notes: list[str] = field(default_factory=list)
    fields: list[dict[str, Any]] = field(default_factory=list)
    names: FieldNames = field(init=False)
    #: Each source key's field name, as `add` gave it (the first field made from a key).
    columns: dict[str, str] = field(default_factory=dict)
    #: A field whose start the importer chose (`add`'s `start`): its report line's index and its
    #: detail without the start, for when the starting rows give the start instead.
    chosen: dict[str, tuple[int, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.names = FieldNames(("name",) if self.layout == "list" else ())

    def add(
        self,
        source: str,
        key: str,
        spec: dict[str, Any],
        *,
        text: str = "",
        detail: str,
        guessed: bool = False,
        start: str = "",
    ) -> str:
        """Add a field for `key` (its type and settings in `spec`) and report it; returns its name.

        `start` says where the spec's default came from when the file gives none (the format's
        own default, or trackerkit's choice); it ends the report line unless the starting rows
        give the column its start (`starting_rows`), which then says so on its own line.
        """
        name = self.names.name(key)
        self.columns.setdefault(key, name)
        self.fields.append({"name": name, "description": meaning(key, name, text), **spec})
        if start:
            self.chosen[name] = (len(self.builder.lines), detail)
            detail = f"{detail}; {start}"
        self.builder.line("guessed" if guessed else "exact", source, f"{self.name}.{name}", detail)
        return name

    def starting_rows(self, where: str, rows: Sequence[tuple[str, Mapping[str, object]]]) -> None:
        """Take what a list's starting rows say into its columns, and report every row.

        A tracker holds no rows: a list starts empty and a new row starts from its fields'
        defaults (TR-19), and a scene holds no starting state. So what the model can hold is
        taken: a column on which two or more starting rows agree, with a value that fits it,
        starts there (guessed, from how many rows). Each row is then reported on its own line
        with its values, left for the model or a person's edit to add.

        Args:
            where: the rows' place in the source file.
            rows: each row's name and its values by source key (the keys given to `add`).
        """
        if len(rows) >= 2:
            for key, name in self.columns.items():
                spec = self.field_named(name)
                seen = [held.get(key, _ABSENT) for _, held in rows]
                first = seen[0]
                if spec is None or not all(_same(v, first) for v in seen[1:]):
                    continue
                if not _fits(spec, first):
                    continue
                if name not in self.chosen and _same(spec.get("default", own_start(spec)), first):
                    continue  # the file's own start, which the rows agree with
                spec["default"] = first
                if name in self.chosen:  # its line no longer names the start chosen without rows
                    index, detail = self.chosen.pop(name)
                    lines = self.builder.lines
                    lines[index] = replace(lines[index], detail=detail)
                self.builder.line(
                    "guessed",
                    f"{where} (starting rows).{key}",
                    f"{self.name}.{name}",
                    f"a new row starts at {_shown(first)}, guessed: all {len(rows)} starting rows "
                    "hold it",
                )
        for row, values in rows:
            known = [
                f"{self.columns[k]}={_shown(v)}" for k, v in values.items() if k in self.columns
            ]
            held = f" ({', '.join(known)})" if known else ""
            self.builder.unmapped(
                f"{where} row {quoted_row(row)}",
                f"a starting row{held}, not kept: a list starts with no rows; the model or a "
                "person's edit adds it",
            )

    def field_named(self, name: str) -> dict[str, Any] | None:
        """The field data added under `name`, or None."""
        return next((f for f in self.fields if f["name"] == name), None)


_ABSENT = object()


def _same(a: object, b: object) -> bool:
    """The one equality (`values.same_value`), with a value a row does not hold never the same."""
    return a is not _ABSENT and b is not _ABSENT and same_value(a, b)


def _fits(spec: Mapping[str, Any], value: object) -> bool:
    """Whether `value` is a start the field takes as it is (its type, range and choices)."""
    kind = spec.get("type")
    if kind == "text":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "choice":
        return isinstance(value, str) and value in spec.get("choices", ())
    if kind == "number" and is_number(value) and isinstance(value, int | float):
        low, high = spec.get("min", value), spec.get("max", value)
        return bool(low <= value <= high) and spec.get("maxField") is None
    return False


def own_start(spec: Mapping[str, Any]) -> object:
    """What a field starts with when it has no default (TR-8)."""
    kind = spec.get("type")
    if kind == "number":
        start = max(0, spec["min"]) if "min" in spec else 0
        return min(start, spec["max"]) if "max" in spec else start
    if kind == "boolean":
        return False
    if kind == "choice":
        choices = spec.get("choices") or [None]
        return choices[0]
    return ""


def _shown(value: object) -> str:
    """A starting row's value in an import report line: a text quoted and cut (`quoted_row`),
    since a source's text can run long; numbers, flags and null by the display rule (`line_of`);
    anything else by its kind (`a list`): the line names a value, it does not carry it.
    """
    if isinstance(value, str):
        return quoted_row(value)
    if isinstance(value, LongNumber):
        return f"({value.reason})"
    if value is None or isinstance(value, bool | int | float):
        return line_of(value)
    return f"a {type(value).__name__}"


def quoted_row(text: str) -> str:
    """A row name or text value on one line in double quotes, cut at 40 characters."""
    return quoted(text, 40)


class Builder:
    """Collects an import's trackers and report lines, then decodes every tracker strictly."""

    def __init__(self, file: str, format: str) -> None:
        self.file = file
        self.format = format
        self.drafts: list[TrackerDraft] = []
        self.lines: list[ReportLine] = []
        #: The title of the scene the source implies, when it implies one (see `Imported.scene`).
        self.scene: str | None = None

    def tracker(
        self, name: str, layout: Layout, description: str = "", source: str = ""
    ) -> TrackerDraft:
        """Start a tracker (`source`: where in the file, when not its name); kept in order."""
        base = " ".join(name.split()) or "Tracker"
        unique = base
        n = 1
        while any(d.name == unique for d in self.drafts):  # a scene drops a repeated name (TR-25)
            n += 1
            unique = f"{base} ({n})"
        draft = TrackerDraft(self, unique, layout, description, source)
        self.drafts.append(draft)
        return draft

    def line(self, kind: Kind, source: str, target: str, detail: str) -> None:
        """Add one report line."""
        self.lines.append(ReportLine(kind, source, target, detail))

    def unmapped(self, source: str, reason: str) -> None:
        """Report a source key left behind, and why."""
        self.line("unmapped", source, "", reason)

    def finish(self) -> Imported:
        """The trackers (ids made from their names), their link order and the report.

        A tracker that got no field is not made, and says so in the report.

        Raises:
            ImportRefusedError: a tracker the strict decoder refuses (past a TR-11 ceiling).
        """
        taken: set[str] = set()
        trackers: list[Tracker] = []
        for draft in self.drafts:
            if not draft.fields:
                self.unmapped(
                    draft.source or draft.name,
                    "no field of it could be imported, so no tracker was made",
                )
                continue
            name = draft.name
            data = {
                "kind": "tracker",
                "id": piece_id(name, taken),
                "revision": 0,
                "name": name,
                "description": draft.description,
                "body": {
                    "layout": draft.layout,
                    "fields": draft.fields,
                    "note": "\n".join(draft.notes),
                },
            }
            try:
                trackers.append(decode_tracker(data))
            except TrackerDecodeError as error:  # past a ceiling (TR-11), such as 10,000 fields
                problems = "; ".join(str(p) for p in error.problems[:3])
                raise ImportRefusedError(
                    self.file, f"its tracker {name!r} would be refused: {problems}"
                ) from None
        report = ImportReport(self.file, self.format, tuple(self.lines))
        scene = " ".join(self.scene.split()) if self.scene else None
        return Imported(tuple(trackers), tuple(t.id for t in trackers), report, scene or None)
