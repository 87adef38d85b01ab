"""Field models: the four field types, their keys, and the name and icon rules (TR-1..TR-7)."""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
)
from pydantic import Field as _Key
from pydantic_core import PydanticCustomError

__all__ = [
    "FIELD_TYPES",
    "ICON_PATTERN",
    "MAX_SAFE_INTEGER",
    "NAME_PATTERN",
    "BooleanField",
    "ChoiceField",
    "Field",
    "FieldType",
    "Number",
    "NumberField",
    "TextField",
    "describe_value",
    "is_number",
    "read_fields",
    "shown_text",
]

#: TR-1: a lowercase letter, then lowercase letters, digits or `_`, 64 characters at most.
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")
#: TR-6: `lucide:<name>` or `mdi:<name>`; the name is lowercase letters and digits in hyphenated words.
ICON_PATTERN = re.compile(r"(?:lucide|mdi):[a-z0-9]+(?:-[a-z0-9]+)*")
#: TR-11: whole numbers past this magnitude are refused as unusually large (JavaScript's safe range).
MAX_SAFE_INTEGER = 2**53 - 1

FieldType: TypeAlias = Literal["text", "number", "boolean", "choice"]
FIELD_TYPES: tuple[FieldType, ...] = ("text", "number", "boolean", "choice")


def is_number(value: object) -> bool:
    """True for an int or float that is finite and inside the safe range; never for a bool (TR-8)."""
    if type(value) is int:
        return abs(value) <= MAX_SAFE_INTEGER
    if type(value) is float:
        return math.isfinite(value) and abs(value) <= MAX_SAFE_INTEGER
    return False


def describe_value(value: object) -> str:
    """A short, plain description of what was found, for error messages.

    Always bounded and printable as UTF-8: a whole number past 2^99 (30 digits) is described by
    its length (Python cannot even print one past 4,300 digits), and a lone surrogate in a text
    is shown escaped (`\\ud800`).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 99:
        sign = "a negative" if value < 0 else "a"
        return f"{sign} whole number of {_digits(value):,} digits"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return f'the text "{shown_text(value, 40)}"'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_CONTROLS = {
    code: {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(chr(code), f"\\x{code:02x}")
    for code in [*range(32), 127]
}


def shown_text(text: str, limit: int) -> str:
    """`text` cut to `limit` characters (ending in `...`) for messages: one line, always printable.

    Line breaks and other control characters are shown as escapes (`\\n`), and so are lone
    surrogates (`\\ud800`), so a message quoting the text stays one line of valid UTF-8.
    """
    shown = text if len(text) <= limit else text[: limit - 3] + "..."
    shown = shown.translate(_CONTROLS)
    if shown.isascii():
        return shown
    return shown.encode("utf-8", "backslashreplace").decode("utf-8")


def _digits(value: int) -> int:
    """How many decimal digits `value` has, without building its text (refused past 4,300)."""
    magnitude = abs(value)
    estimate = max(int((magnitude.bit_length() - 1) * 0.30102999566398120), 1)
    while magnitude >= 10**estimate:
        estimate += 1
    while estimate > 1 and magnitude < 10 ** (estimate - 1):
        estimate -= 1
    return estimate


def _check_number(value: object) -> int | float:
    if is_number(value):
        return value  # type: ignore[return-value]
    if type(value) in (int, float) and not (isinstance(value, float) and not math.isfinite(value)):
        raise PydanticCustomError(
            "unusually_large",
            "is unusually large: {found} is past the ceiling of 2^53-1",
            {"found": describe_value(value)},
        )
    raise PydanticCustomError(
        "number", "must be a finite number; found {found}", {"found": describe_value(value)}
    )


def _check_name(value: object) -> str:
    if not isinstance(value, str):
        raise PydanticCustomError(
            "name", "must be a field name; found {found}", {"found": describe_value(value)}
        )
    if NAME_PATTERN.fullmatch(value) is None:
        raise PydanticCustomError(
            "name",
            "must be a lowercase letter, then lowercase letters, digits or _, at most 64 "
            'characters; found "{found}"',
            {"found": shown_text(value, 70)},
        )
    return value


def _check_icon(value: object) -> str:
    if not isinstance(value, str) or ICON_PATTERN.fullmatch(value) is None:
        raise PydanticCustomError(
            "icon",
            "must be an icon id such as lucide:heart or mdi:sword; found {found}",
            {"found": describe_value(value)},
        )
    return value


#: A JSON number that is a real number: not a bool, not NaN or infinite, not past 2^53-1.
Number = Annotated[int | float, PlainValidator(_check_number), PlainSerializer(lambda v: v)]
FieldName = Annotated[str, PlainValidator(_check_name), PlainSerializer(lambda v: v)]
IconId = Annotated[str, PlainValidator(_check_icon), PlainSerializer(lambda v: v)]


class _FieldBase(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, strict=True, populate_by_name=True, allow_inf_nan=False
    )

    name: FieldName
    description: str
    icon: IconId | None = None


class TextField(_FieldBase):
    """A line of text; starts empty unless it has a default."""

    type: Literal["text"]
    default: str | None = None


class NumberField(_FieldBase):
    """A number, with an optional range (`min`, `max`) or a top taken from another field (`maxField`)."""

    type: Literal["number"]
    min: Number | None = None
    max: Number | None = None
    max_field: FieldName | None = _Key(default=None, alias="maxField")
    default: Number | None = None


class BooleanField(_FieldBase):
    """Yes or no; starts false unless it has a default."""

    type: Literal["boolean"]
    default: bool | None = None


class ChoiceField(_FieldBase):
    """One of a fixed list of texts; starts at the first choice unless it has a default."""

    type: Literal["choice"]
    choices: list[str]
    default: str | None = None


#: A tracker field: a discriminated union on `type` (TR-2).
Field = Annotated[TextField | NumberField | BooleanField | ChoiceField, Discriminator("type")]


def _keys_of(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(f.alias or name for name, f in model.model_fields.items())


#: Which keys each type may carry, for plain messages about a key on the wrong type.
KEYS_BY_TYPE: dict[str, frozenset[str]] = {
    "text": _keys_of(TextField),
    "number": _keys_of(NumberField),
    "boolean": _keys_of(BooleanField),
    "choice": _keys_of(ChoiceField),
}


def owner_types(key: str) -> list[str]:
    """The field types that may carry `key` (empty when no type knows it)."""
    return [t for t, keys in KEYS_BY_TYPE.items() if key in keys]


# Built once: building an adapter per call made a refused 10,000-field file take seconds.
_FIELD_LIST: TypeAdapter[list[TextField | NumberField | BooleanField | ChoiceField]] = TypeAdapter(
    list[Field]
)


def read_fields(data: list[Any]) -> list[TextField | NumberField | BooleanField | ChoiceField]:
    """Validate a list of fields from plain data in one call (the decoder's field schema).

    Raises:
        pydantic.ValidationError: with each error located at `(index, type, key, ...)`.
    """
    return _FIELD_LIST.validate_python(data)
