"""The parts of an editor draft: fields keyed by identity, and a template bound to those keys (TR-47).

A draft field holds its top (`maxField`) as the key of the field it names, and a template holds its
`{{tracker::Name::field}}` and `{{tracker::Name::row::field}}` macros that name the draft's own
tracker as bound macros (the tracker itself, and the key of the field read). Names are rendered
from the keys only when the piece is produced, so links follow identity, never names.

`fits` (a value against a draft field) and `refused` (a decoder refusal worded for the designer)
serve the draft alone and are left out of `__all__`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from trackerkit.errors import Location, Problem, render_location
from trackerkit.fields import (
    BooleanField,
    ChoiceField,
    FieldType,
    NumberField,
    TextField,
    shown_text,
)
from trackerkit.tracker import Tracker
from trackerkit.values import AnyField, Value, refusal

__all__ = [
    "BoundMacro",
    "DraftField",
    "DraftVerdict",
    "Template",
    "bind_template",
    "from_model",
    "names_like",
    "render_template",
]


@dataclass(frozen=True, slots=True)
class DraftField:
    """One field of a draft; `top` is the key of the field whose value is this one's top.

    `top_name` keeps a top typed as a name that matched no field, so the verdict can name it.
    """

    key: str
    name: str
    type: FieldType
    description: str = ""
    icon: str | None = None
    min: int | float | None = None
    max: int | float | None = None
    top: str | None = None
    top_name: str | None = None
    default: Value | None = None
    choices: tuple[str, ...] = ()

    def piece(self, names: Mapping[str, str]) -> dict[str, Any]:
        """The field as JSON data, its top named through `names` (key -> name)."""
        out: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.icon is not None:
            out["icon"] = self.icon
        out["type"] = self.type
        if self.type == "number":
            top = names[self.top] if self.top is not None else self.top_name
            for key, value in (("min", self.min), ("max", self.max), ("maxField", top)):
                if value is not None:
                    out[key] = value
        if self.type == "choice":
            out["choices"] = list(self.choices)
        if self.default is not None:
            out["default"] = self.default
        return out

    def freed(self, key: str) -> DraftField:
        """This field without its top when the top was the field `key`."""
        return replace(self, top=None) if self.top == key else self


def from_model(key: str, field: AnyField, keys: Mapping[str, str]) -> DraftField:
    """A decoded field as a draft field under `key`; `keys` maps field names to keys."""
    out = DraftField(key, field.name, field.type, field.description, field.icon)
    if isinstance(field, NumberField):
        top = field.max_field
        out = replace(
            out,
            min=field.min,
            max=field.max,
            top=keys.get(top) if top is not None else None,
            top_name=top if top is not None and top not in keys else None,
        )
    if isinstance(field, ChoiceField):
        out = replace(out, choices=tuple(field.choices))
    return replace(out, default=field.default)


def fits(field: DraftField, value: object) -> bool:
    """True when `value` fits the field's type, choices and range (the one rule, `refusal`)."""
    model: AnyField
    if field.type == "number":
        model = NumberField.model_construct(
            name=field.name, description="", type="number", min=field.min, max=field.max
        )
    elif field.type == "choice":
        model = ChoiceField.model_construct(
            name=field.name, description="", type="choice", choices=list(field.choices)
        )
    elif field.type == "boolean":
        model = BooleanField.model_construct(name=field.name, description="", type="boolean")
    else:
        model = TextField.model_construct(name=field.name, description="", type="text")
    return refusal(model, value) is None


def names_like(stem: str) -> Iterator[str]:
    """`stem`, `stem_2`, `stem_3`, ... without end."""
    yield stem
    n = 2
    while True:
        yield f"{stem}_{n}"
        n += 1


# --- the template --------------------------------------------------------------------------

# Only macros without nested braces can be bound; `{{{` is not where the engine opens a macro.
_MACRO = re.compile(r"(?<!\{)\{\{([^{}]*)\}\}")


@dataclass(frozen=True, slots=True)
class BoundMacro:
    """A `{{tracker::Name...}}` macro naming the draft's tracker; `field` is the key its last part reads.

    `parts` are the pieces between `{{` and `}}` split at `::`, as written (spaces kept).
    """

    parts: tuple[str, ...]
    field: str | None

    def text(self, name: str, names: Mapping[str, str]) -> str:
        """The macro as it reads with the tracker called `name` and fields named by `names`."""
        parts = list(self.parts)
        parts[1] = _respace(parts[1], name)
        if self.field is not None:
            parts[-1] = _respace(parts[-1], names[self.field])
        return "{{" + "::".join(parts) + "}}"

    def baked(self, name: str) -> BoundMacro:
        """The macro with its field part fixed to `name` (the field it read is gone)."""
        return BoundMacro((*self.parts[:-1], _respace(self.parts[-1], name)), None)

    @property
    def row(self) -> str | None:
        """The row a `{{tracker::Name::row::field}}` macro reads, as written."""
        return self.parts[2] if len(self.parts) == 4 else None


Template: TypeAlias = tuple[str | BoundMacro, ...]


def _respace(part: str, name: str) -> str:
    """`name` in place of the word in `part`, keeping the spaces around it as written."""
    core = part.strip()
    start = part.find(core) if core else len(part)
    return part[:start] + name + part[start + len(core) :]


def bind_template(
    text: str,
    name: str,
    fields: Iterable[DraftField],
    known: Mapping[str, Sequence[BoundMacro]] | None = None,
) -> Template:
    """Bind the tracker macros of `text` that name the tracker `name` (case-sensitive) to field keys.

    A field part binds to the first field of that name. A macro written exactly as the draft's
    macros render now keeps their binding (`known`: rendered text -> those macros in template
    order, the n-th such text taking the n-th macro), so editing the template in the middle of a
    rename, while two fields share a name, does not rebind what was bound.
    """
    seen: dict[str, int] = {}
    first: dict[str, str] = {}
    for field in fields:
        first.setdefault(field.name, field.key)
    out: list[str | BoundMacro] = []
    pos = 0
    for match in _MACRO.finditer(text):
        parts = tuple(match.group(1).split("::"))
        if parts[0].strip().lower() != "tracker" or len(parts) < 2:
            continue
        written = match.group()
        same = (known or {}).get(written, ())
        n = seen[written] = seen.get(written, -1) + 1
        macro = same[n] if n < len(same) else None
        if macro is None:
            if not name or parts[1].strip() != name:
                continue  # another tracker's macro is plain text to this draft
            key = first.get(parts[-1].strip()) if len(parts) in (3, 4) else None
            macro = BoundMacro(parts, key)
        if match.start() > pos:
            out.append(text[pos : match.start()])
        out.append(macro)
        pos = match.end()
    if pos < len(text):
        out.append(text[pos:])
    return tuple(out)


def render_template(template: Template, name: str, names: Mapping[str, str]) -> str:
    """The template's text with the tracker called `name` and fields named by `names`."""
    return "".join(p if isinstance(p, str) else p.text(name, names) for p in template)


# --- problems in plain words, naming fields by name (TR-49) ------------------------------------


@dataclass(frozen=True, slots=True)
class DraftVerdict:
    """What a draft would meet on save: every problem in plain words, naming fields by name (TR-49).

    Attributes:
        problems: decoder problems as `field "hp": maxField names ...`, then template problems.
        tracker: the decoded tracker, or None when the decoder refused the draft.
        by_field: each field key with a problem, and its messages (for showing beside the field).
        warnings: what will not read as meant yet does not hold the draft back: a macro reading a
            list row (a list starts empty), a start held to its top field, a renamed field that
            the tracker's own words still name.
    """

    problems: tuple[Problem, ...]
    tracker: Tracker | None
    by_field: Mapping[str, tuple[str, ...]]
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the draft may be saved."""
        return not self.problems

    def lines(self) -> list[str]:
        """One plain sentence per problem (names as written; the page escapes them, `safe_md`)."""
        return [str(p) for p in self.problems]

    def warning_lines(self) -> list[str]:
        """One plain sentence per warning (names as written; the page escapes them)."""
        return [str(p) for p in self.warnings]


_TRACKER_PLACES: dict[Location, str] = {("name",): "tracker name", ("body", "icon"): "tracker icon"}


def refused(fields: Sequence[DraftField], problems: Iterable[Problem]) -> DraftVerdict:
    """The verdict on a draft the decoder refused: `body.fields[2].maxField` worded as `field "hp": maxField`.

    Read from each problem's location and code, never from its sentence.
    """
    named: list[Problem] = []
    by_field: dict[str, tuple[str, ...]] = {}
    for problem in problems:
        index = _field_at(problem.where, len(fields))
        if index is None:
            named.append(Problem((_tracker_place(problem.where),), problem.message, problem.code))
            continue
        message = _worded(problem, fields, index)
        rest = _box(problem.where[3:])
        named.append(
            Problem(
                (_label(fields, index),), f"{rest} {message}" if rest else message, problem.code
            )
        )
        key = fields[index].key
        by_field[key] = (*by_field.get(key, ()), named[-1].message)
    return DraftVerdict(tuple(named), None, by_field)


def _field_at(where: Location, count: int) -> int | None:
    """The index of the draft field `where` is in (`body.fields[i]` or below a key of it), or None."""
    if len(where) < 3 or where[:2] != ("body", "fields"):
        return None
    index = where[2]
    if (
        not isinstance(index, int)
        or index >= count
        or (len(where) > 3 and isinstance(where[3], int))
    ):
        return None
    return index


def _tracker_place(where: Location) -> str:
    """A place outside the fields: `tracker name`, `tracker icon`, or the path without `body.`."""
    if where in _TRACKER_PLACES:
        return _TRACKER_PLACES[where]
    return render_location(where[1:] if len(where) > 1 and where[0] == "body" else where)


#: A field's settings as the editor labels their boxes, so a problem names the box to fix.
_BOXES: dict[str, str] = {
    "min": "From",
    "max": "To",
    "maxField": "To (another field)",
    "default": "Starts at",
    "choices": "Choices",
}


def _box(where: Location) -> str:
    """Where in a field a problem is, in the editor's words: `From`, `Starts at`, `choice 4`
    (counted from 1, as a person counts them); the decoder's path for anything else."""
    if len(where) == 2 and where[0] == "choices" and isinstance(where[1], int):
        return f"choice {where[1] + 1}"
    if len(where) == 1 and isinstance(where[0], str) and where[0] in _BOXES:
        return _BOXES[where[0]]
    return render_location(where)


def _worded(problem: Problem, fields: Sequence[DraftField], index: int) -> str:
    """The problem's sentence in the editor's words: another field named by its number (`field
    number 1`), and a range's ends by their boxes (From must be at most To)."""
    if problem.code == "min_above_max":
        field = fields[index]
        return f"must be at most To ({field.max}); found {field.min}"
    other = problem.other
    if problem.code != "name_repeated" or other is None or not isinstance(other[-1], int):
        return problem.message
    return f'repeats the name "{fields[index].name}" of field number {other[-1] + 1}'


def _label(fields: Sequence[DraftField], index: int) -> str:
    """`field "hp"` (a long name cut, so the verdict keeps its width), or its number."""
    if not fields[index].name:
        return f"field number {index + 1}"
    name = shown_text(fields[index].name, 40)
    if sum(f.name == fields[index].name for f in fields) > 1:
        return f'field "{name}" (number {index + 1})'
    return f'field "{name}"'
