"""`LazyData`: an event's `data` kept as its JSON bytes until someone looks inside.

The reader checks the syntax of every line (a line whose `data` is broken is a broken line,
TC-19) but decodes `data` only on first use: most analyses read a few event names, and a
million dicts cost far more to build than the rest of the frame. A `LazyData` is a read-only
`Mapping` that behaves like the dict it stands for: `x["k"]`, `x.get`, `in`, iteration,
`len`, `==` with a dict, `dict(x)`, `repr` and pickling. It decodes once (as `loads` reads JSON) and
keeps the dict; nested values are plain dicts and lists.

Memory: the bytes a `LazyData` holds are a view into the block of about a megabyte the reader
read them from, so until it is decoded it keeps that block alive. A frame cut down to a few
events of a large day holds their blocks; decode them (`events["data"].map(dict)`) or copy the
bytes (`LazyData(x.to_json())`) to let the rest go.
"""

from __future__ import annotations

import json
import math
from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import TYPE_CHECKING, Any

import msgspec
import orjson

from trackerkit._json import loads  # the reading the trace reader shares with the client

__all__ = ["LazyData", "as_text", "decode", "jsonable", "loads"]


def decode(raw: Any) -> dict[str, Any]:
    """The object a `data` value's bytes hold (syntax already checked by the reader).

    Raises:
        ValueError: not valid JSON.
        TypeError: not an object.
    """
    value = loads(raw)
    if not isinstance(value, dict):
        raise TypeError(f"data is a {type(value).__name__}, not an object")
    return value


_DEPTH = 200
"""Nesting kept when a decoded value must be written back as JSON text deeper than orjson goes."""


def _shallow(value: Any, depth: int) -> Any:
    if isinstance(value, dict | list):
        if depth <= 0:
            return "…[deep]"  # TC-7's mark
        if isinstance(value, dict):
            return {k: _shallow(v, depth - 1) for k, v in value.items()}
        return [_shallow(v, depth - 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None  # as orjson writes it
    return value


def as_text(value: Any) -> bytes:
    """`value` as compact JSON bytes (orjson; past its limits, cut to 200 levels)."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # nested past 255 levels, an integer past 64 bits
        return json.dumps(
            _shallow(value, _DEPTH), ensure_ascii=False, separators=(",", ":")
        ).encode()


class _Base(msgspec.Struct, gc=False, eq=False):
    """Two slots made in C (a million `LazyData` cost a fraction of a Python `__init__`).

    `gc=False`: the garbage collector need not track them (a `LazyData` holds bytes and a
    dict decoded from JSON, which cannot point back at it).
    """

    _raw: Any
    _dict: dict[str, Any] | None = None


if TYPE_CHECKING:  # what type checkers see: a Mapping (at run time it is registered as one)

    class _Shape(_Base, Mapping[str, Any]):
        pass

else:
    _Shape = _Base


class LazyData(_Shape):
    """A JSON object decoded on first use: a read-only mapping equal to the dict it holds.

    `isinstance(x, collections.abc.Mapping)` holds (registered); `isinstance(x, dict)` does not,
    and `json.dumps` needs `dict(x)` or `x.to_dict()` (orjson: `default=jsonable`).

    Args:
        raw: the object's JSON text as bytes (or any buffer); it must be a valid JSON object.
    """

    @classmethod
    def of(cls, value: dict[str, Any]) -> LazyData:
        """A `LazyData` around an already decoded dict (kept, not copied)."""
        return cls(None, value)

    def _decoded(self) -> dict[str, Any]:
        found = self._dict
        if found is None:
            found = self._dict = decode(self._raw)
            self._raw = None
        return found

    @property
    def decoded(self) -> bool:
        """Whether the bytes were decoded already (for tests and curious readers)."""
        return self._dict is not None

    def to_dict(self) -> dict[str, Any]:
        """The decoded object itself (the cached dict: copy it before changing it)."""
        return self._decoded()

    def to_json(self) -> bytes:
        """The object as JSON bytes, without decoding it when it was never decoded."""
        if self._dict is None:
            return bytes(self._raw)
        return as_text(self._dict)

    def copy(self) -> dict[str, Any]:
        """A shallow copy as a plain, mutable dict (like `dict.copy`)."""
        return dict(self._decoded())

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __contains__(self, key: object) -> bool:
        return key in self._decoded()

    def get(self, key: str, default: Any = None) -> Any:
        return self._decoded().get(key, default)

    def keys(self) -> KeysView[str]:
        return self._decoded().keys()

    def values(self) -> ValuesView[Any]:
        return self._decoded().values()

    def items(self) -> ItemsView[str, Any]:
        return self._decoded().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyData):
            if self._dict is None and other._dict is None and self.to_json() == other.to_json():
                return True
            return self._decoded() == other._decoded()
        if isinstance(other, dict):
            return self._decoded() == other
        if isinstance(other, Mapping):
            return self._decoded() == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable contents, like a dict

    def __or__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return {**self._decoded(), **other}

    def __ror__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return {**other, **self._decoded()}

    def __repr__(self) -> str:
        return repr(self._decoded())

    def toDict(self) -> dict[str, Any]:  # noqa: N802 (the name pandas' to_json looks for)
        """The decoded object, for `DataFrame.to_json` (which calls `toDict` on objects)."""
        return self._decoded()

    def __reduce__(self) -> tuple[Any, ...]:
        if self._dict is None:
            return (LazyData, (bytes(self._raw),))
        return (LazyData.of, (self._dict,))


Mapping.register(LazyData)


def jsonable(value: Any) -> Any:
    """An orjson `default=` hook: `LazyData` (any mapping) as a dict, anything else as str."""
    if isinstance(value, LazyData):
        return value.to_dict()
    if isinstance(value, Mapping):
        return dict(value)
    return str(value)
