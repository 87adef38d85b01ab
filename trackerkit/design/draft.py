"""Draft editing that follows field identity, not names; the verdict, the patch and the save (TR-47..TR-50).

A `Draft` is an immutable edit of one tracker piece: every operation returns a new draft. Each field
gets a stable key (`#1`, `#2`, ...) when the draft opens or the field is added. A field's top and the
template's tracker macros that read it hold that key, not a name; names are rendered only when the
piece is produced. So a rename typed one keystroke at a time moves exactly the field's own links to
the last name typed, and a sibling's name typed through on the way takes none of the sibling's
links (TR-47). The draft does no I/O: `save_draft` goes through the `Library` it is handed.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any

from trackerkit._pieces import check_tracker_id
from trackerkit.design.hints import held_starts, name_problems, old_names, unsure_rows
from trackerkit.design.namesakes import _names_another, name_clash, named, namesakes
from trackerkit.design.parts import (
    BoundMacro,
    DraftField,
    DraftVerdict,
    Template,
    bind_template,
    fits,
    from_model,
    names_like,
    refused,
    render_template,
)
from trackerkit.design.sample import starting_state
from trackerkit.errors import BadRequestError, NotFoundError, Problem, TrackerDecodeError
from trackerkit.fields import FieldType
from trackerkit.library import Library, Links, linked_in
from trackerkit.prompt import tracker_texts
from trackerkit.tracker import (
    ChangesStyle,
    Layout,
    Tracker,
    blank_tracker,
    decode_tracker,
    encode_tracker,
)
from trackerkit.values import Value, same_value

__all__ = ["Draft", "DraftField", "DraftVerdict", "name_clash", "named", "namesakes", "save_draft"]


class _Unset(enum.Enum):
    UNSET = enum.auto()


_UNSET = _Unset.UNSET
_NUMBER_ONLY = ("min", "max", "max_field")


@dataclass(frozen=True, slots=True)
class Draft:
    """An edit of one tracker piece that follows field identity (TR-47); every edit returns a new draft.

    Example:
        >>> draft = Draft.open(health)                          # doctest: +SKIP
        >>> draft = draft.rename_field(draft.key("hp_max"), "hp_top")  # doctest: +SKIP
        >>> draft.to_piece()["body"]["fields"][0]["maxField"]   # doctest: +SKIP
        'hp_top'
    """

    base: Tracker
    name: str
    description: str
    layout: Layout
    note: str
    fields: tuple[DraftField, ...]
    icon: str | None
    changes: ChangesStyle | None
    macros: Template | None
    next_key: int
    #: Each field of `base` by its key, in `base`'s order: who each stored field is (TR-47).
    opened: tuple[str, ...]

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, tracker: Tracker) -> Draft:
        """A draft of `tracker`, each field keyed by its position when opened (`#1`, `#2`, ...)."""
        keys = {f.name: f"#{i}" for i, f in enumerate(tracker.fields, 1)}
        fields = tuple(from_model(keys[f.name], f, keys) for f in tracker.fields)
        body = tracker.body
        template = body.template
        macros = None if template is None else bind_template(template, tracker.name, fields)
        return cls(
            tracker,
            tracker.name,
            tracker.description,
            body.layout,
            body.note,
            fields,
            body.icon,
            body.changes,
            macros,
            len(fields) + 1,
            tuple(f.key for f in fields),
        )

    @classmethod
    def blank(cls, id: str, name: str = "Tracker") -> Draft:
        """A draft of the blank tracker (TR-10): a record with one number field, `value`."""
        return cls.open(blank_tracker(id, name))

    # --- reading ---------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The piece's id."""
        return self.base.id

    @property
    def revision(self) -> int:
        """The revision the draft was opened on (a save is guarded by it)."""
        return self.base.revision

    @property
    def title(self) -> str:
        """The name to head the draft with: as written without its outer spaces, or `(no name)`
        when it is blank (the verdict then says the name must not be blank)."""
        return self.name.strip() or "(no name)"

    def name_clash(self, trackers: Iterable[Tracker], new: bool = False) -> str:
        """A warning naming the other trackers called by the draft's name, or '' when none.

        Args:
            trackers: the library's trackers.
            new: the draft is a new tracker: its id is not yet its own, so a tracker the library
                holds under that id is another one.
        """
        return name_clash(self.name, trackers, None if new else self.id)

    @property
    def template(self) -> str | None:
        """The template as it reads now, or None when the plain line is used."""
        if self.macros is None:
            return None
        return render_template(self.macros, self.name, self._names())

    def field(self, key: str) -> DraftField:
        """The field with `key`.

        Raises:
            NotFoundError: no field of the draft has that key.
        """
        for field in self.fields:
            if field.key == key:
                return field
        raise NotFoundError(f"no field of the draft has the key {key!r}")

    def key(self, name: str) -> str:
        """The key of the first field called `name`.

        Raises:
            NotFoundError: no field is called `name`.
        """
        for field in self.fields:
            if field.name == name:
                return field.key
        raise NotFoundError(f'no field of the draft is called "{name}"')

    def top_of(self, key: str) -> str | None:
        """The name of the field whose value is this field's top, as it reads now."""
        field = self.field(key)
        return self.field(field.top).name if field.top is not None else field.top_name

    def to_piece(self) -> dict[str, Any]:
        """The piece as JSON data, names rendered from keys; it may not decode (see `verdict`)."""
        names = self._names()
        body: dict[str, Any] = {
            "layout": self.layout,
            "fields": [f.piece(names) for f in self.fields],
            "note": self.note,
        }
        for key, value in (("template", self.template), ("icon", self.icon)):
            if value is not None:
                body[key] = value
        if self.changes is not None:
            body["changes"] = self.changes
        return {
            "kind": "tracker",
            "id": self.id,
            "revision": self.revision,
            "name": self.name,
            "description": self.description,
            "body": body,
        }

    def tracker(self) -> Tracker:
        """The draft as a tracker, through the strict decoder.

        Raises:
            TrackerDecodeError: the draft breaks a rule (`verdict` says which in plain words).
        """
        return decode_tracker(self.to_piece())

    def linked(self, scenes: Iterable[object]) -> Links:
        """Where the tracker is linked, from the scenes' settings alone (TR-46)."""
        return linked_in(self.id, scenes)

    # --- editing fields ----------------------------------------------------------------------

    def rename_field(self, key: str, new_name: str) -> Draft:
        """Rename one field; its tops and template macros follow it by key (TR-47)."""
        return self._with_field(replace(self.field(key), name=new_name))

    def add_field(
        self,
        name: str | None = None,
        type: FieldType = "text",
        *,
        description: str = "",
        index: int | None = None,
    ) -> Draft:
        """Add a field (at the end, or at `index`) under a fresh key; `name` defaults to `field`, `field_2`, ..."""
        taken = {f.name for f in self.fields}
        if name is None:
            name = next(n for n in names_like("field") if n not in taken)
        field = DraftField(f"#{self.next_key}", name, type, description)
        fields = list(self.fields)
        fields.insert(len(fields) if index is None else index, field)
        return replace(self, fields=tuple(fields), next_key=self.next_key + 1)

    def move_field(self, key: str, index: int) -> Draft:
        """Move a field to position `index` (clamped to the list)."""
        field = self.field(key)
        fields = [f for f in self.fields if f.key != key]
        fields.insert(max(0, min(index, len(fields))), field)
        return replace(self, fields=tuple(fields))

    def delete_field(self, key: str) -> Draft:
        """Delete a field; the tops that named it are freed (TR-48).

        The template's macros that read it keep its last name, so the verdict reports them.
        """
        gone = self.field(key)
        fields = tuple(f.freed(key) for f in self.fields if f.key != key)
        macros = self.macros
        if macros is not None:
            macros = tuple(
                p.baked(gone.name) if isinstance(p, BoundMacro) and p.field == key else p
                for p in macros
            )
        return replace(self, fields=fields, macros=macros)

    def set_type(self, key: str, type: FieldType) -> Draft:
        """Change a field's type, dropping what only the old type could hold (TR-48).

        Choices, a range and a top go; a default that no longer fits goes; a field that stops
        being a number frees the fields whose top it was. A new choice field has no choices
        yet (the verdict asks for one).
        """
        old = self.field(key)
        if type == old.type:
            return self
        new = DraftField(key, old.name, type, old.description, old.icon)
        if old.default is not None and fits(new, old.default):
            new = replace(new, default=old.default)
        draft = self._with_field(new)
        if old.type == "number":
            draft = replace(draft, fields=tuple(f.freed(key) for f in draft.fields))
        return draft

    def set_field(
        self,
        key: str,
        *,
        description: str | _Unset = _UNSET,
        icon: str | _Unset | None = _UNSET,
        min: int | float | _Unset | None = _UNSET,
        max: int | float | _Unset | None = _UNSET,
        max_field: str | _Unset | None = _UNSET,
        default: Value | _Unset | None = _UNSET,
        choices: Iterable[str] | _Unset = _UNSET,
    ) -> Draft:
        """Change a field's settings; `None` clears an optional one.

        `max_field` names the top by key or by name (a name that matches no field is kept as
        typed, for the verdict). A fixed `max` and a top field exclude each other: setting one
        clears the other.

        Raises:
            BadRequestError: a setting the field's type does not have (a text field's `min`).
        """
        field = self.field(key)
        given = {"min": min, "max": max, "max_field": max_field, "choices": choices}
        wrong = [k for k, v in given.items() if v is not _UNSET and not _has(field.type, k)]
        if wrong:
            raise BadRequestError(
                f'field "{field.name}" is a {field.type} field and has no {" or ".join(wrong)}'
            )
        if not isinstance(description, _Unset):
            field = replace(field, description=description)
        if not isinstance(icon, _Unset):
            field = replace(field, icon=icon)
        if not isinstance(min, _Unset):
            field = replace(field, min=min)
        if not isinstance(max, _Unset):
            field = replace(field, max=max)
            if max is not None:
                field = replace(field, top=None, top_name=None)
        if not isinstance(max_field, _Unset):
            top, top_name = self._resolve(max_field)
            field = replace(field, top=top, top_name=top_name)
            if max_field is not None:
                field = replace(field, max=None)
        if not isinstance(default, _Unset):
            field = replace(field, default=default)
        if not isinstance(choices, _Unset):
            field = replace(field, choices=tuple(choices))
        return self._with_field(field)

    # --- editing the tracker -------------------------------------------------------------------

    def rename_tracker(self, new_name: str) -> Draft:
        """Rename the tracker; the template's macros that name it follow (TR-47)."""
        return replace(self, name=new_name)

    def set(
        self,
        *,
        name: str | _Unset = _UNSET,
        description: str | _Unset = _UNSET,
        note: str | _Unset = _UNSET,
        layout: Layout | _Unset = _UNSET,
        icon: str | _Unset | None = _UNSET,
        changes: ChangesStyle | _Unset | None = _UNSET,
        template: str | _Unset | None = _UNSET,
    ) -> Draft:
        """Change the tracker's settings; a template that is empty (or only spaces) is removed."""
        draft = self if isinstance(name, _Unset) else self.rename_tracker(name)
        edits: dict[str, Any] = {
            k: v
            for k, v in (
                ("description", description),
                ("note", note),
                ("layout", layout),
                ("icon", icon),
                ("changes", changes),
            )
            if not isinstance(v, _Unset)
        }
        if not isinstance(template, _Unset) and template != draft.template:
            edits["macros"] = draft._macros_of(template)
        return replace(draft, **edits) if edits else draft

    # --- verdict and patch -----------------------------------------------------------------

    def verdict(self, library_names: Collection[str] = ()) -> DraftVerdict:
        """Whether the draft may be saved, and every reason it may not, naming fields by name (TR-49).

        The template is run with only this tracker loaded (a list holds the rows its macros name,
        or one sample row); a macro error is held back unless it only names another tracker
        that `library_names` holds.
        """
        try:
            tracker = self.tracker()
        except TrackerDecodeError as exc:
            return refused(self.fields, exc.problems)
        # The page names this place "tracker name".
        held = [Problem(("tracker name",), p.message, p.code) for p in name_problems(tracker.name)]
        warned = (
            *(
                Problem(("template",), p.message, p.code)
                for p in unsure_rows([tracker]).get(tracker.name, [])
            ),
            *refused(self.fields, held_starts(tracker)).problems,
            *old_names(self._renamed(), tracker),
        )
        if tracker.body.template is None:
            return DraftVerdict(tuple(held), tracker, {}, warned)
        rows = [p.row for p in self.macros or () if isinstance(p, BoundMacro) and p.row is not None]
        _, report = tracker_texts([tracker], starting_state(tracker, rows))
        for issue in report.errors:
            if _names_another(issue, tracker.name, library_names):
                continue
            held.append(Problem(("template",), f"{issue.message} (in {issue.macro})", issue.code))
        return DraftVerdict(tuple(held), tracker, {}, warned)

    def patch(self) -> dict[str, Any]:
        """The edits against the piece opened: changed head keys and/or `body` with its changed keys (TR-50).

        Empty when nothing was edited; a removed optional key is sent as None.
        """
        old, new = encode_tracker(self.base), self.to_piece()
        out: dict[str, Any] = {k: new[k] for k in ("name", "description") if new[k] != old[k]}
        before, after = old["body"], new["body"]
        body = {
            k: after.get(k)
            for k in dict.fromkeys([*before, *after])
            if not same_value(before.get(k), after.get(k))
        }
        if body:
            out["body"] = body
        return out

    def with_id(self, new_id: str) -> Draft:
        """The same draft (keys kept) as a new piece under `new_id`, at revision 0.

        Raises:
            BadRequestError: `new_id` cannot name a piece file.
        """
        check_tracker_id(new_id)
        return replace(self, base=self.base.model_copy(update={"id": new_id, "revision": 0}))

    def rebased(self, saved: Tracker) -> Draft:
        """The same draft (keys kept) on `saved`, the piece as the library stored it from this
        draft (its fields in the draft's order)."""
        return replace(self, base=saved, opened=tuple(f.key for f in self.fields))

    # --- helpers -------------------------------------------------------------------------------

    def _names(self) -> dict[str, str]:
        return {f.key: f.name for f in self.fields}

    def _renamed(self) -> dict[str, str]:
        """Each field of the revision opened (or last saved) that is renamed in the draft: old
        name -> new name, followed by key, so a field added, moved or deleted before an earlier
        save is no rename."""
        now = self._names()
        pairs = (
            (f.name, now.get(key)) for f, key in zip(self.base.fields, self.opened, strict=True)
        )
        return {old: new for old, new in pairs if new is not None and new != old}

    def _deleted(self) -> list[str]:
        """Each field of the revision opened (or last saved) that the draft deleted, by its name
        then (followed by key, as `_renamed`)."""
        now = self._names()
        return [
            f.name for f, key in zip(self.base.fields, self.opened, strict=True) if key not in now
        ]

    def _with_field(self, field: DraftField) -> Draft:
        return replace(self, fields=tuple(field if f.key == field.key else f for f in self.fields))

    def _resolve(self, top: str | None) -> tuple[str | None, str | None]:
        if top is None:
            return None, None
        if any(f.key == top for f in self.fields):
            return top, None
        try:
            return self.key(top), None
        except NotFoundError:
            return None, top

    def _macros_of(self, template: str | None) -> Template | None:
        if template is None or not template.strip():
            return None
        names = self._names()
        known: dict[str, list[BoundMacro]] = {}
        for part in self.macros or ():
            if isinstance(part, BoundMacro):
                known.setdefault(part.text(self.name, names), []).append(part)
        return bind_template(template, self.name, self.fields, known)


def _has(type: FieldType, setting: str) -> bool:
    if setting in _NUMBER_ONLY:
        return type == "number"
    return setting != "choices" or type == "choice"


def save_draft(draft: Draft, library: Library) -> Draft:
    """Save a draft as a patch of its edits on the revision it was opened on (TR-50).

    Nothing is sent when nothing was edited. A draft of a piece the library does not hold yet is
    saved whole. Returns the draft rebased on the piece as saved (keys kept).

    Raises:
        TrackerDecodeError: the draft is held back (`draft.verdict` in plain words); nothing sent.
        StaleRevisionError: the piece moved since the draft was opened; nothing was written and
            the draft is as it was.
    """
    exists = draft.id in library
    changes = draft.patch()
    if exists and not changes:
        return draft
    others = [t.name for t in library.trackers() if t.id != draft.id]
    verdict = draft.verdict(others)
    if verdict.tracker is None or not verdict.ok:
        raise TrackerDecodeError(list(verdict.problems), draft.id)
    if not exists:
        return draft.rebased(library.save(verdict.tracker, base_revision=draft.revision))
    # The fields renamed and deleted are recorded with the revision made, so history follows
    # them (TR-44).
    saved = library.patch(
        draft.id, draft.revision, changes, renames=draft._renamed(), deleted=draft._deleted()
    )
    return draft.rebased(saved)
