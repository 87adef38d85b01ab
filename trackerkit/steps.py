"""A scene's scripted steps, the scenario file format: turns and actions with their `expect`.

A scene file's `turns` list is a scenario: each step is a turn (`user`, with the scripted model's
`reply` and `calls` or `rounds`) or an action (`swipe`, `regenerate`, `continue`, `edit`, `cut`,
`fork`, `show_version`). `Step` is the one typed model of a step, decoded strictly (unknown keys,
wrong types and a missing key are refused with a path such as `turns[3].set`); the
simulator's `ScenarioPlayer` (trackerkit.simulate.scenario) plays them. `TurnPlan` is what the
scripted model does in one turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import pydantic
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    TypeAdapter,
)

from trackerkit.errors import BadRequestError, ModelError, Problem
from trackerkit.fields import describe_value, shown_text
from trackerkit.tool import TOOL_NAME
from trackerkit.update import read_updates

if TYPE_CHECKING:
    pass

__all__ = [
    "BaseStep",
    "ContinueStep",
    "CutStep",
    "EditStep",
    "Expect",
    "ForkStep",
    "RegenerateStep",
    "ScriptedCall",
    "ShowVersionStep",
    "Step",
    "SwipeStep",
    "TurnPlan",
    "TurnStep",
    "decode_step",
    "decode_steps",
    "plain_problems",
    "problem_sentence",
    "step_kind",
    "step_problems",
]

#: A value a step may expect: exactly the JSON type a tracker's field holds (no coercion).
ExpectedValue = StrictBool | StrictInt | StrictFloat | StrictStr | None
#: Problems shown in one error before the rest are counted.
_SHOWN = 10


@dataclass(slots=True)
class TurnPlan:
    """What the scripted model does in one turn: calls per round, then the reply text."""

    reply: str
    rounds: list[list[dict[str, Any]]] = field(default_factory=list)
    refuses_tools: bool = False

    @classmethod
    def from_step(cls, step: Mapping[str, Any]) -> TurnPlan:
        """Read a scenario step: `reply`, and `calls` (one round) or `rounds` (a list of rounds)."""
        rounds = step.get("rounds")
        if rounds is None:
            calls = step.get("calls")
            rounds = [calls] if calls else []
        if not isinstance(rounds, list) or not all(isinstance(r, list) for r in rounds):
            raise ModelError("a scripted step's rounds must be a list of lists of calls")
        return cls(
            str(step.get("reply", "")),
            [list(r) for r in rounds],
            bool(step.get("refusesTools", False)),
        )


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)


def _arguments(value: object) -> object:
    if isinstance(value, dict | str):
        return value
    raise ValueError(f"must be an object (or the arguments as text); found {describe_value(value)}")


def _message(value: object) -> object:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"must be a message id or an index such as -1; found {describe_value(value)}")


class ScriptedCall(_Strict):
    """One tool call the scripted model makes: the tool's name, its arguments, an optional id.

    `arguments` is an object, or text sent as it is (so a scenario can send broken JSON).
    """

    name: str = "update_trackers"
    arguments: Annotated[dict[str, JsonValue] | str, pydantic.BeforeValidator(_arguments)] = Field(
        default_factory=dict
    )
    id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The call as the scripted model reads it."""
        return self.model_dump(exclude_none=True)


_VALUES: TypeAdapter[dict[str, ExpectedValue | dict[str, ExpectedValue]]] = TypeAdapter(
    dict[str, ExpectedValue | dict[str, ExpectedValue]]
)


def _tracker_expectation(value: object) -> object:
    # One sentence instead of one error per member of the union of value types.
    if not isinstance(value, dict):
        raise ValueError(f"must be an object of fields (or rows); found {describe_value(value)}")
    try:
        return _VALUES.validate_python(value)
    except pydantic.ValidationError:
        raise ValueError(
            "must map each field to a value (text, a number, true, false or null), or each row "
            "to an object of such values"
        ) from None


class Expect(_Strict):
    """What a step expects after it: values by tracker name, field and row; `absent` rows.

    Example: `{"Health": {"hp": 12}, "Bag": {"Rope": {"qty": 1}}, "absent": {"Bag": ["Lamp"]}}`.
    """

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[
        str, Annotated[dict[str, Any], pydantic.BeforeValidator(_tracker_expectation)]
    ] = Field(init=False)

    absent: dict[str, list[str]] = Field(default_factory=dict)

    def as_mapping(self) -> dict[str, Any]:
        """The expectation as `expect_mismatches` reads it."""
        wanted: dict[str, Any] = dict(self.__pydantic_extra__ or {})
        if self.absent:
            wanted["absent"] = self.absent
        return wanted


class BaseStep(_Strict):
    kind: ClassVar[str]
    expect: Expect | None = None


class _Planned(BaseStep):
    """A step that runs the model: its reply, and calls (one round) or rounds."""

    reply: str | None = None
    calls: list[ScriptedCall] | None = None
    rounds: list[list[ScriptedCall]] | None = None
    refuses_tools: StrictBool = Field(default=False, alias="refusesTools")
    #: Nothing should change in this step: the model should make no update call at all.
    expect_no_call: StrictBool = False

    @pydantic.model_validator(mode="after")
    def _calls_or_rounds(self) -> _Planned:
        if self.calls is not None and self.rounds is not None:
            raise ValueError("gives both calls and rounds; give calls (one round) or rounds")
        if self.expect_no_call and (where := self._first_update_call()):
            # Scored 0 on every run whatever the model did: refused before any turn is played.
            # A call to another tool stays: it is how a scenario has a quiet turn go wrong.
            raise ValueError(
                f"expect_no_call is true but its script calls {TOOL_NAME} ({where}); a quiet "
                "turn makes no update call: drop the call or expect_no_call"
            )
        return self

    def _first_update_call(self) -> str | None:
        """Where the first scripted update call is (`calls[0]`, `rounds[1][0]`); None if none."""
        if self.calls is not None:
            return next(
                (f"calls[{i}]" for i, c in enumerate(self.calls) if c.name == TOOL_NAME), None
            )
        for r, calls in enumerate(self.rounds or []):
            for i, call in enumerate(calls):
                if call.name == TOOL_NAME:
                    return f"rounds[{r}][{i}]"
        return None

    def plan(self) -> TurnPlan:
        """What the scripted model does in this step."""
        rounds = self.rounds if self.rounds is not None else [self.calls] if self.calls else []
        return TurnPlan(
            self.reply or "", [[c.to_json() for c in r] for r in rounds], self.refuses_tools
        )


class TurnStep(_Planned):
    """The person says `user`; the model replies."""

    kind: ClassVar[str] = "turn"
    user: str


class SwipeStep(_Planned):
    """A new version of the last reply."""

    kind: ClassVar[str] = "swipe"
    action: Literal["swipe"]


class RegenerateStep(_Planned):
    """The last reply written again."""

    kind: ClassVar[str] = "regenerate"
    action: Literal["regenerate"]


class ContinueStep(_Planned):
    """The last reply extended."""

    kind: ClassVar[str] = "continue"
    action: Literal["continue"]


class EditStep(BaseStep):
    """A person's edit of one tracker on the tip message (the update tool's item shape, TR-27).

    `set`, `row` and `remove` are read by the tool's own item reader (`read_updates`), so a
    scene file's edit is held to exactly the rules a model's update item is.
    """

    kind: ClassVar[str] = "edit"
    action: Literal["edit"]
    tracker: str
    set_: JsonValue = Field(default=None, alias="set")
    row: JsonValue = None
    remove: JsonValue = False

    @pydantic.model_validator(mode="after")
    def _an_update_item(self) -> EditStep:
        item = {"tracker": self.tracker, "row": self.row, "remove": self.remove, "set": self.set_}
        _, errors = read_updates([item])
        if errors:
            raise ValueError("; ".join(e.message for e in errors))
        return self


class _OnMessage(BaseStep):
    message: Annotated[str | int, pydantic.BeforeValidator(_message)]


class CutStep(_OnMessage):
    """Drop a message (an id, or an index such as -1) and all after it."""

    kind: ClassVar[str] = "cut"
    action: Literal["cut"]


class ForkStep(_OnMessage):
    """Start a new take sharing the history up to a message."""

    kind: ClassVar[str] = "fork"
    action: Literal["fork"]


class ShowVersionStep(_OnMessage):
    """Show another version of a reply."""

    kind: ClassVar[str] = "show_version"
    action: Literal["show_version"]
    version: StrictInt


_KINDS: tuple[type[BaseStep], ...] = (
    TurnStep,
    SwipeStep,
    RegenerateStep,
    ContinueStep,
    EditStep,
    CutStep,
    ForkStep,
    ShowVersionStep,
)
_ACTIONS = ", ".join(k.kind for k in _KINDS[1:])


def step_kind(step: object) -> str | None:
    if isinstance(step, dict):
        action = step.get("action")
        if action is None:
            return "turn"
        return action if isinstance(action, str) else None
    return getattr(step, "kind", None)


#: One scenario step: a turn (`user`) or an action, told apart by `action`.
Step = Annotated[
    Annotated[TurnStep, Tag("turn")]
    | Annotated[SwipeStep, Tag("swipe")]
    | Annotated[RegenerateStep, Tag("regenerate")]
    | Annotated[ContinueStep, Tag("continue")]
    | Annotated[EditStep, Tag("edit")]
    | Annotated[CutStep, Tag("cut")]
    | Annotated[ForkStep, Tag("fork")]
    | Annotated[ShowVersionStep, Tag("show_version")],
    Discriminator(
        step_kind,
        custom_error_type="step_kind",
        custom_error_message="is not a step",
    ),
]
_STEP: TypeAdapter[Step] = TypeAdapter(Step)
_STEPS: TypeAdapter[list[Step]] = TypeAdapter(list[Step])


def decode_step(step: object, where: str = "step") -> Step:
    """Decode one scenario step strictly.

    Args:
        step: the step as stored (a JSON object).
        where: the step's path in its file, such as `turns[3]`, for the messages.
    Raises:
        BadRequestError: every problem, each with its path (`turns[3].set: must be an object ...`).
    """
    try:
        return _STEP.validate_python(step)
    except pydantic.ValidationError as exc:
        raise BadRequestError(problem_sentence(plain_problems(exc, where))) from None


def decode_steps(steps: object, where: str = "turns") -> list[Step]:
    """Decode a scene's `turns` list strictly; raises BadRequestError naming every problem."""
    try:
        return _STEPS.validate_python(steps)
    except pydantic.ValidationError as exc:
        raise BadRequestError(problem_sentence(plain_problems(exc, where))) from None


def step_problems(steps: object, where: str = "turns") -> list[Problem]:
    """Every problem of a scene's `turns` list, each with its path from `where`; [] when all decode."""
    try:
        _STEPS.validate_python(steps)
    except pydantic.ValidationError as exc:
        return plain_problems(exc, where)
    return []


def plain_problems(exc: pydantic.ValidationError, where: str = "") -> list[Problem]:
    """Pydantic's errors in plain words, each with its path from `where` (`turns[3].set`).

    The step union's tags are left out of the paths: they are no keys of the file.
    """
    kinds = {k.kind for k in _KINDS}
    problems: list[Problem] = []
    errors = exc.errors(include_url=False)
    # Past pydantic's depth the path runs through its validators' names (`dict[str,json-or-…]`)
    # for hundreds of levels: it is cut where they begin, and the union's other branch at that
    # place (`arguments.str: must be text`) is no reason of its own.
    deep = [_file_loc(e["loc"], kinds) for e in errors if e["type"] in _TOO_DEEP]
    for err in errors:
        loc = _file_loc(err["loc"], kinds)
        if err["type"] not in _TOO_DEEP and any(loc[: len(d)] == d for d in deep):
            continue
        kind = err["type"]
        if kind == "step_kind":
            step = err.get("input")
            if isinstance(step, dict):
                problem = Problem(
                    ("action",),
                    f"must be one of {_ACTIONS}, or left out for a turn; "
                    f"found {describe_value(step.get('action'))}",
                    "not_one_of",
                )
            else:
                problem = Problem((), f"must be an object; found {describe_value(step)}")
        elif kind == "value_error":
            problem = Problem((), str(err.get("ctx", {}).get("error", err["msg"])))
        elif kind in _TOO_DEEP:
            problem = Problem((), "is nested too deep to read (past about 500 levels)")
        else:
            problem = Problem((), _plain(kind, err))
        at = (where,) if where else ()
        problems.append(Problem((*at, *_shown(loc), *problem.where), problem.message, problem.code))
    return list(dict.fromkeys(problems))


_MESSAGES = {
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
}


_TOO_DEEP = frozenset({"recursion_depth_exceeded", "recursion_loop"})
"""Pydantic's error past its validation depth: `recursion_loop` before 2.9 ("cyclic reference
detected"), `recursion_depth_exceeded` since."""

_BOUNDS = {
    "greater_than": ("greater than", "gt"),
    "greater_than_equal": ("at least", "ge"),
    "less_than": ("less than", "lt"),
    "less_than_equal": ("at most", "le"),
}
"""Pydantic's number bounds, in words (`window: must be greater than 0; found 0`)."""


def _plain(kind: str, err: Any) -> str:
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a known key"
    if kind == "string_too_short":
        least = err.get("ctx", {}).get("min_length")
        return "must not be empty" if least == 1 else f"must be at least {least} characters long"
    found = describe_value(err.get("input"))
    if kind == "literal_error":
        return f"must be {err.get('ctx', {}).get('expected', '')}; found {found}"
    if kind in _MESSAGES:
        return f"{_MESSAGES[kind]}; found {found}"
    if kind in _BOUNDS:
        words, bound = _BOUNDS[kind]
        return f"must be {words} {err.get('ctx', {}).get(bound)}; found {found}"
    return f"{err['msg']}; found {found}"


def _file_loc(raw: Sequence[int | str], kinds: set[str]) -> list[int | str]:
    """Pydantic's location as the file's path: without the step union's tags, and cut where a
    validator's own name begins (`dict[str,…]`: a part with brackets is no key of the file)."""
    loc: list[int | str] = []
    for part in raw:
        if isinstance(part, str) and "[" in part and part.endswith("]"):
            break
        after_index = not loc or isinstance(loc[-1], int)
        if not (after_index and part in kinds):  # the union's tag is no key of the file
            loc.append(part)
    return loc


def _shown(loc: Sequence[int | str]) -> tuple[int | str, ...]:
    """Pydantic's location with each key shown escaped, so the rendered path stays one line."""
    return tuple(p if isinstance(p, int) else shown_text(p, 40) for p in loc)


def problem_sentence(problems: Sequence[Problem]) -> str:
    """Problems as one line: `path: message; path: message`, the first ten and a count of the rest."""
    shown = "; ".join(map(str, problems[:_SHOWN]))
    more = len(problems) - _SHOWN
    return shown + (f"; and {more} more problem{'s' if more > 1 else ''}" if more > 0 else "")
