"""The tracker piece: its model, the strict decoder with ceilings, encoding, the blank tracker.

Rules TR-9..TR-12 and TR-19 (the field rules TR-1..TR-7 live in `fields.py`, values in `values.py`).
"""

from __future__ import annotations

from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, PrivateAttr

from trackerkit._problems import MAX_ITEMS, MAX_TEXT, ceiling_problems, plain_problem
from trackerkit._rules import field_rules, read_what_parsed
from trackerkit.errors import Problem, TrackerDecodeError
from trackerkit.fields import (
    Field,
    IconId,
    describe_value,
    read_fields,
)
from trackerkit.values import AnyField, top_order

__all__ = [
    "CHANGES_STYLES",
    "MAX_ITEMS",
    "MAX_TEXT",
    "ChangesStyle",
    "Layout",
    "Tracker",
    "TrackerBody",
    "blank_tracker",
    "decode_tracker",
    "encode_tracker",
]

#: TR-11 ceilings: about a hundred times past real use; not design limits.

Layout = Literal["record", "list"]
ChangesStyle = Literal["chips", "card", "toast", "hidden"]
CHANGES_STYLES: tuple[ChangesStyle, ...] = ("chips", "card", "toast", "hidden")
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _check_id(value: object) -> str:
    from pydantic_core import PydanticCustomError

    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= 128
        or not set(value) <= _ID_CHARS
        or value[0] in "-_"
    ):
        raise PydanticCustomError(
            "piece_id",
            "must be an id of letters, digits, - and _ (1 to 128 characters, starting with a "
            "letter or digit); found {found}",
            {"found": describe_value(value)},
        )
    return value


class TrackerBody(BaseModel):
    """What a tracker tracks: layout, fields, note, and how it is shown (TR-9)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    layout: Layout
    fields: list[Field]
    note: str
    template: str | None = None
    icon: IconId | None = None
    changes: ChangesStyle | None = None


class Tracker(BaseModel):
    """A tracker piece as it is stored: `{"kind": "tracker", "id", "revision", "name", ...}`.

    Build one with `decode_tracker` (which checks every rule); constructing it directly checks
    only the shape.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: Literal["tracker"] = "tracker"
    id: str
    revision: int = 0
    name: str
    description: str
    body: TrackerBody

    _order: tuple[int, ...] | None = PrivateAttr(default=None)
    _by_name: dict[str, AnyField] | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        # Equal as stored: an absent optional key and an explicit null are the same piece.
        if not isinstance(other, Tracker):
            return NotImplemented
        return encode_tracker(self) == encode_tracker(other)

    __hash__ = None  # type: ignore[assignment]

    @pydantic.field_validator("id", mode="plain")
    @classmethod
    def _id(cls, value: object) -> str:
        return _check_id(value)

    @pydantic.field_validator("revision", mode="plain")
    @classmethod
    def _revision(cls, value: object) -> int:
        from pydantic_core import PydanticCustomError

        if type(value) is not int or value < 0:
            raise PydanticCustomError(
                "revision",
                "must be a whole number, 0 or more; found {found}",
                {"found": describe_value(value)},
            )
        return value

    @property
    def layout(self) -> Layout:
        """`record` or `list`."""
        return self.body.layout

    @property
    def fields(self) -> list[AnyField]:
        """The fields, in order."""
        return self.body.fields

    @property
    def style(self) -> ChangesStyle:
        """How a reply's changes to this tracker are drawn; `chips` when the piece says nothing."""
        return self.body.changes or "chips"

    @property
    def order(self) -> tuple[int, ...]:
        """Field positions with every top before the fields it bounds (computed once)."""
        if self._order is None:
            self._order = top_order(self.body.fields)
        return self._order

    def field(self, name: str) -> AnyField | None:
        """The field called `name`, or None."""
        if self._by_name is None:
            self._by_name = {f.name: f for f in self.body.fields}
        return self._by_name.get(name)

    def field_icons(self) -> dict[str, str]:
        """Each field's icon, for the fields that have one."""
        return {f.name: f.icon for f in self.body.fields if f.icon}


def blank_tracker(id: str, name: str = "Tracker") -> Tracker:
    """The blank tracker (TR-10): a record with one number field, `value`, that starts at 0."""
    return decode_tracker(
        {
            "kind": "tracker",
            "id": id,
            "revision": 0,
            "name": name,
            "description": "",
            "body": {
                "layout": "record",
                "fields": [{"name": "value", "description": "", "type": "number"}],
                "note": "",
            },
        }
    )


def encode_tracker(tracker: Tracker) -> dict[str, Any]:
    """The piece as plain JSON data; `decode_tracker(encode_tracker(t)) == t`."""
    return tracker.model_dump(mode="json", by_alias=True, exclude_none=True)


def decode_tracker(data: object, *, source: str | None = None) -> Tracker:
    """Read a tracker piece through the strict decoder (TR-12).

    Args:
        data: parsed JSON (a dict), as read from a `<id>.json` file.
        source: a file name to put in front of the error message.
    Returns:
        The tracker.
    Raises:
        TrackerDecodeError: with `.problems`, every problem at once, each with its path
            (`body.fields[2].maxField`) and a plain sentence.
    """
    problems = ceiling_problems(data)
    if problems:
        raise TrackerDecodeError(problems, source)
    if not isinstance(data, dict):
        raise TrackerDecodeError(
            [Problem((), f"must be a JSON object; found {describe_value(data)}", "not_object")],
            source,
        )
    errors, parsed, document = _fields_first(data)
    try:
        tracker = Tracker.model_validate(document)
    except pydantic.ValidationError as exc:
        errors = [*exc.errors(), *errors]
    if errors:
        problems = [plain_problem(err, data) for err in errors]
        problems += _loose_problems(data, errors, parsed)
        raise TrackerDecodeError(list(dict.fromkeys(problems)), source) from None
    if parsed is not None:
        # The fields were validated by the body's own field schema; put them in place.
        body = tracker.body.model_copy(update={"fields": parsed})
        tracker = tracker.model_copy(update={"body": body})
    problems = _body_problems(tracker)
    if problems:
        raise TrackerDecodeError(problems, source)
    return tracker


def _fields_first(data: dict[str, Any]) -> tuple[list[Any], list[AnyField] | None, dict[str, Any]]:
    """Validate `body.fields` in one call, apart from the rest, so no field is validated twice.

    Returns the fields' errors (located in the whole document), the parsed fields (None when
    any failed), and the document to validate next, with an empty field list in their place
    (validating 10,000 parsed fields again, even as model instances, costs several ms).
    """
    body = data.get("body")
    fields = body.get("fields") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(fields, list):
        return [], None, data
    try:
        parsed: list[AnyField] = read_fields(fields)
    except pydantic.ValidationError as exc:
        errors = [{**err, "loc": ("body", "fields", *err["loc"])} for err in exc.errors()]
        return errors, None, {**data, "body": {**body, "fields": []}}
    return [], parsed, {**data, "body": {**body, "fields": []}}


def _loose_problems(
    data: dict[str, Any], errors: list[Any], parsed_fields: list[AnyField] | None
) -> list[Problem]:
    """The rules across keys for what did parse, when the document as a whole did not (TR-12)."""
    problems = _name_problems(data.get("name"))
    body = data.get("body")
    fields = body.get("fields") if isinstance(body, dict) else None
    if not isinstance(body, dict) or not isinstance(fields, list):
        return problems
    is_list = body.get("layout") == "list"
    if parsed_fields is not None:
        return problems + field_rules(parsed_fields, is_list=is_list)
    # Each field as far as it reads: a bad name hides neither its range nor its top, and a field
    # that did not read at all still counts by its name, so a top naming it is not called unknown.
    read, names, broken = read_what_parsed(fields, errors)
    return problems + field_rules(read, is_list=is_list, names=names, broken=broken)


def _name_problems(name: object) -> list[Problem]:
    if isinstance(name, str) and not name.strip():
        return [Problem(("name",), "must not be blank", "blank")]
    return []


def _body_problems(tracker: Tracker) -> list[Problem]:
    """The rules across keys (TR-3..TR-7, TR-9, TR-19) for a document that parsed whole."""
    is_list = tracker.body.layout == "list"
    return _name_problems(tracker.name) + field_rules(tracker.body.fields, is_list=is_list)
