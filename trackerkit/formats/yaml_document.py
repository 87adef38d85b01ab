"""Reading an import's text as YAML by the YAML 1.2 core schema: the loader, and the builder
from libyaml's parse events.

The tools whose files are imported read YAML 1.2, while PyYAML's own rules are YAML 1.1's, so
`_yaml_core_loader` is PyYAML's safe loader with the core schema's resolvers, on PyYAML's
pure-Python parser or on libyaml's C one. `_build_yaml` builds the data straight from libyaml's
parse events, several times faster than that loader and in a fraction of its memory, and leaves
to the loader (`_UNBUILT`) what it does not read the loader's way. Which reader a text gets, and
the limits, are `formats.document`'s: it counts the parse events against the limits before
either reader builds anything.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

__all__: list[str] = []  # its helpers serve `document` only


_UNBUILT = object()
_NO_KEY = object()
_Resolvers = dict[str, list[tuple[str, re.Pattern[str]]]]


def _build_yaml(text: str, loader: type[Any]) -> object:
    """`text`'s YAML built straight from its parse events, several times faster than PyYAML's
    loader and in a fraction of its memory, when it has no explicit tag and no merge key;
    `_UNBUILT` for anything else (a list or mapping as a key, a repeated anchor, an alias inside
    its own node, a second document, a value its reader refuses), for PyYAML's loader to read or
    refuse.

    Raises:
        yaml.YAMLError: the parser stopped on the text. The loader, on the same parser, would
            stop there too, with the same words, after building everything before it (trial nu4:
            25 s and 500 MB for 2 MB of flow mapping with a stray character at its end).
    """
    import yaml

    builder = _Builder(loader.yaml_implicit_resolvers)
    try:
        for event in yaml.parse(text, Loader=loader):
            if not builder.take(event):
                return _UNBUILT
    except ValueError:
        return _UNBUILT
    return builder.found[0] if builder.found else None


class _Builder:
    """The data of YAML parse events, as PyYAML's loader with the core schema reads them."""

    def __init__(self, resolvers: _Resolvers) -> None:
        self.resolvers = resolvers
        self.anchors: dict[str, object] = {}  # an open node's anchor: `_UNBUILT`
        self.open: list[list[Any]] = []  # [list or dict, its anchor, a key waiting for a value]
        self.found: list[object] = []

    def take(self, event: Any) -> bool:
        """Build `event` in; False when it is to be left to PyYAML's loader."""
        import yaml

        if isinstance(event, yaml.CollectionEndEvent):
            node, anchor, _ = self.open.pop()
            return self.place(node, anchor)
        if isinstance(event, yaml.DocumentStartEvent):
            return not self.found
        if isinstance(event, yaml.AliasEvent):
            value = self.anchors.get(str(event.anchor), _UNBUILT)
            return value is not _UNBUILT and self.place(value, None)
        if not isinstance(event, yaml.ScalarEvent | yaml.CollectionStartEvent):
            return True
        if event.tag not in (None, "!") or event.anchor in self.anchors:
            return False
        if isinstance(event, yaml.ScalarEvent):
            value = _core_scalar(event.value, event.implicit, self.resolvers)
            return value is not _UNBUILT and self.place(value, event.anchor)
        node = {} if isinstance(event, yaml.MappingStartEvent) else []
        self.open.append([node, event.anchor, _NO_KEY])
        if event.anchor is not None:
            self.anchors[event.anchor] = _UNBUILT
        return True

    def place(self, value: object, anchor: str | None) -> bool:
        """Put a built value where it goes; False for a list or mapping as a key (which PyYAML's
        loader refuses)."""
        if anchor is not None:
            self.anchors[anchor] = value
        if not self.open:
            self.found.append(value)
            return True
        inside = self.open[-1]
        if isinstance(inside[0], list):
            inside[0].append(value)
        elif inside[2] is _NO_KEY:
            if isinstance(value, list | dict):
                return False
            inside[2] = value
        else:
            inside[0][inside[2]] = value
            inside[2] = _NO_KEY
        return True


def _core_scalar(text: str, implicit: tuple[bool, bool], resolvers: _Resolvers) -> object:
    """A scalar's value by the core schema's resolvers; `_UNBUILT` for a merge key."""
    if implicit[0] or implicit == (False, False):  # see `_resolve_as_pyyaml`
        for tag, pattern in resolvers.get(text[:1], []):
            if pattern.match(text):
                read = _CORE_SCALARS.get(tag.removeprefix("tag:yaml.org,2002:"))
                return _UNBUILT if read is None else read(text)
    return text


_CORE_INT = r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
_CORE_FLOAT = (
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_CORE_BOOL = "true|True|TRUE|false|False|FALSE"
_CORE_NULL = "~|null|Null|NULL|"


@functools.cache
def _yaml_core_loader(fast: bool) -> type[Any]:
    """A safe YAML loader that resolves plain scalars by the YAML 1.2 core schema, on libyaml's
    C parser when `fast`, else on PyYAML's pure-Python one (the constructors are the same).

    The tools whose files are imported read YAML 1.2 (MagVarUpdate uses the `yaml` npm package,
    whose default is the 1.2 core schema), while PyYAML's own rules are YAML 1.1's: there
    `12:30` is the number 750, `no` and `on` are flags, `010` is 8 and `1e3` is text, and a date
    is a date. Here, as in 1.2: only `true`/`false` (any of three casings) are flags, `~`,
    `null` and nothing are null, `010` is 10, `0o17` octal, `0x1F` hex, `1e3` the number 1000,
    and everything else (times, dates, `yes`, `off`) is text. Merge keys (`<<`) stay, as
    MagVarUpdate reads with merging on.
    """
    import yaml

    class CoreLoader(_base_loader(fast)):  # type: ignore[misc]
        resolve = _resolve_as_pyyaml

    CoreLoader.yaml_implicit_resolvers = {}  # none of YAML 1.1's; the constructors are copied

    def resolver(tag: str, pattern: str, first: list[str]) -> None:
        CoreLoader.add_implicit_resolver(
            f"tag:yaml.org,2002:{tag}", re.compile(f"^(?:{pattern})$"), first
        )

    resolver("bool", _CORE_BOOL, list("tTfF"))
    resolver("int", _CORE_INT, list("-+0123456789"))
    resolver("float", _CORE_FLOAT, list("-+.0123456789"))
    resolver("null", _CORE_NULL, [*"~nN", ""])  # "": an empty value is null
    resolver("merge", "<<", ["<"])

    def constructor(tag: str, read: Callable[[str], object], kind: str) -> None:
        def construct(loader: Any, node: Any) -> object:
            text = str(loader.construct_scalar(node))
            value = read(text)
            if value is None:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{text!r} is not a YAML 1.2 {kind}", node.start_mark
                )
            return value

        CoreLoader.add_constructor(f"tag:yaml.org,2002:{tag}", construct)

    constructor("bool", _core_bool, "boolean")
    constructor("int", _core_int, "integer")
    constructor("float", _core_float, "number")
    return CoreLoader


def _core_bool(text: str) -> bool | None:
    """`text` as a YAML 1.2 core boolean; None when it is none."""
    return text.lower() == "true" if re.fullmatch(_CORE_BOOL, text) else None


def _core_int(text: str) -> int | None:
    """`text` as a YAML 1.2 core integer; None when it is none."""
    if re.fullmatch("0o[0-7]+", text):
        return int(text[2:], 8)
    if re.fullmatch("0x[0-9a-fA-F]+", text):
        return int(text[2:], 16)
    if re.fullmatch("[-+]?[0-9]+", text):
        return int(text, 10)
    return None


def _core_float(text: str) -> float | None:
    """`text` as a YAML 1.2 core number, as a float; None when it is none."""
    if not re.fullmatch(_CORE_FLOAT + "|" + _CORE_INT, text):
        return None
    if text.lower().endswith(("inf", "nan")):
        return float(text.replace(".", ""))
    if re.fullmatch("0[ox].*", text):
        return float(int(text[2:], 8 if text[1] == "o" else 16))
    return float(text)


_CORE_SCALARS: dict[str, Callable[[str], object]] = {
    "bool": _core_bool,
    "int": _core_int,
    "float": _core_float,
    "null": lambda text: None,
}


def _base_loader(fast: bool) -> type[Any]:
    """PyYAML's safe loader on libyaml's C parser when `fast`, else on its pure-Python one."""
    import yaml

    return yaml.CSafeLoader if fast else yaml.SafeLoader


def _resolve_as_pyyaml(loader: Any, kind: Any, value: Any, implicit: Any) -> Any:
    """A node's tag as PyYAML's parser would have it resolved: libyaml gives an empty scalar
    tagged `!` the implicit (False, False), so it would be the text "", where PyYAML reads any
    `!` scalar as plain, so null."""
    import yaml

    resolve: Any = yaml.resolver.BaseResolver.resolve  # untyped in PyYAML's stubs
    return resolve(loader, kind, value, (True, False) if implicit == (False, False) else implicit)
