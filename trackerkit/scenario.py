"""Playing a scene's scripted steps: turns and actions, each checked against its `expect`.

A scene file's `turns` list is a scenario: each step is a turn (`user`, with the scripted model's
`reply` and `calls` or `rounds`) or an action (`swipe`, `regenerate`, `continue`, `edit`, `cut`,
`fork`, `show_version`). `Step` is the one typed model of a step, decoded strictly (unknown keys,
wrong types and a missing key are refused with a path such as `turns[3].set`); `ScenarioPlayer`
plays decoded steps on a `Session`, which inherits it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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

from trackerkit.errors import BadRequestError, EditRefusedError, Problem, TurnError
from trackerkit.fields import describe_value, shown_text
from trackerkit.model import TurnPlan
from trackerkit.report import TurnReport, expect_mismatches
from trackerkit.update import read_updates

if TYPE_CHECKING:
    from trackerkit.update import UpdateResult

__all__ = [
    "ContinueStep",
    "CutStep",
    "EditStep",
    "Expect",
    "ForkStep",
    "RegenerateStep",
    "ScenarioPlayer",
    "ScriptedCall",
    "ShowVersionStep",
    "Step",
    "SwipeStep",
    "TurnStep",
    "decode_step",
    "decode_steps",
    "plain_problems",
    "problem_sentence",
]

#: A value a step may expect: exactly the JSON type a tracker's field holds (no coercion).
ExpectedValue = StrictBool | StrictInt | StrictFloat | StrictStr | None
#: Problems shown in one error before the rest are counted.
_SHOWN = 10


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


class _Step(_Strict):
    kind: ClassVar[str]
    expect: Expect | None = None


class _Planned(_Step):
    """A step that runs the model: its reply, and calls (one round) or rounds."""

    reply: str | None = None
    calls: list[ScriptedCall] | None = None
    rounds: list[list[ScriptedCall]] | None = None
    refuses_tools: StrictBool = Field(default=False, alias="refusesTools")

    @pydantic.model_validator(mode="after")
    def _calls_or_rounds(self) -> _Planned:
        if self.calls is not None and self.rounds is not None:
            raise ValueError("gives both calls and rounds; give calls (one round) or rounds")
        return self

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


class EditStep(_Step):
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


class _OnMessage(_Step):
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


_KINDS: tuple[type[_Step], ...] = (
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


def _step_kind(step: object) -> str | None:
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
        _step_kind,
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


def plain_problems(exc: pydantic.ValidationError, where: str = "") -> list[Problem]:
    """Pydantic's errors in plain words, each with its path from `where` (`turns[3].set`).

    The step union's tags are left out of the paths: they are no keys of the file.
    """
    kinds = {k.kind for k in _KINDS}
    problems: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc: list[int | str] = []
        for part in err["loc"]:
            after_index = not loc or isinstance(loc[-1], int)
            if not (after_index and part in kinds):  # the union's tag is no key of the file
                loc.append(part)
        kind = err["type"]
        if kind == "step_kind":
            step = err.get("input")
            if isinstance(step, dict):
                problem = Problem(
                    "action",
                    f"must be one of {_ACTIONS}, or left out for a turn; "
                    f"found {describe_value(step.get('action'))}",
                )
            else:
                problem = Problem("", f"must be an object; found {describe_value(step)}")
        elif kind == "value_error":
            problem = Problem("", str(err.get("ctx", {}).get("error", err["msg"])))
        else:
            problem = Problem("", _plain(kind, err))
        path = where + _path(loc)
        if problem.path:
            path += f".{problem.path}"
        path = path.removeprefix(".")
        problems.append(Problem(path, problem.message))
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


def _plain(kind: str, err: Any) -> str:
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a known key"
    found = describe_value(err.get("input"))
    if kind == "literal_error":
        return f"must be {err.get('ctx', {}).get('expected', '')}; found {found}"
    if kind in _MESSAGES:
        return f"{_MESSAGES[kind]}; found {found}"
    return f"{err['msg']}; found {found}"


def _path(loc: Sequence[int | str]) -> str:
    """`turns[3].set` from pydantic's location; a key is shown escaped, so the path stays one line."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{shown_text(p, 40)}" for p in loc)


def problem_sentence(problems: Sequence[Problem]) -> str:
    """Problems as one line: `path: message; path: message`, the first ten and a count of the rest."""
    shown = "; ".join(map(str, problems[:_SHOWN]))
    more = len(problems) - _SHOWN
    return shown + (f"; and {more} more problem{'s' if more > 1 else ''}" if more > 0 else "")


class ScenarioPlayer:
    """Plays the scripted steps of a scene on the session that inherits it."""

    steps: list[dict[str, Any]]
    step_index: int
    mismatches: list[str]

    if TYPE_CHECKING:
        # What the player needs of its session; `Session` defines each.
        def turn(
            self, user_text: str, script: TurnPlan | Mapping[str, Any] | None = None
        ) -> TurnReport: ...
        def swipe(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport: ...
        def regenerate(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport: ...
        def continue_(self, script: TurnPlan | Mapping[str, Any] | None = None) -> TurnReport: ...
        def show_version(self, message: str | int, index: int) -> None: ...
        def cut(self, message: str | int) -> None: ...
        def fork(self, message: str | int) -> str: ...
        def edit(self, tracker: str, **item: Any) -> UpdateResult: ...
        def values(self) -> dict[str, Any]: ...

    @property
    def done(self) -> bool:
        """True when every scripted step of the scene has been played."""
        return self.step_index >= len(self.steps)

    def play_next(self) -> TurnReport | None:
        """Play the scene's next scripted step; returns the turn's report (None for an action).

        Raises:
            TurnError: no step is left, or the step does not decode (its path says where).
        """
        if self.done:
            raise TurnError("the scenario has no steps left")
        index = self.step_index
        self.step_index += 1
        return self.play(self.steps[index], label=f"step {index + 1}", where=f"turns[{index}]")

    def play(
        self, step: Step | Mapping[str, Any], *, label: str | None = None, where: str = "step"
    ) -> TurnReport | None:
        """Play one scenario step: a turn (`user`), or an action (`swipe`, `edit`, `cut`, ...).

        A step's `expect` (values by tracker, field and row; `absent` lists rows that must be
        gone) is compared after the step; each mismatch is kept in `self.mismatches`.

        Raises:
            TurnError: the step does not decode (every problem, with its path from `where`).
            EditRefusedError: an edit step that does not decode; nothing was written (TR-27).
        """
        if not isinstance(step, _Step):
            try:
                step = decode_step(step, where)
            except BadRequestError as exc:
                if _step_kind(step) == "edit":
                    raise EditRefusedError(str(exc)) from None
                raise TurnError(str(exc)) from None
        report = self._play(step)
        if step.expect is not None:
            if label is None:
                label = (
                    f"after {step.user!r}" if isinstance(step, TurnStep) else f"after {step.kind}"
                )
            self.mismatches.extend(
                f"{label}: {m}" for m in expect_mismatches(self.values(), step.expect.as_mapping())
            )
        return report

    def _play(self, step: Step) -> TurnReport | None:
        if isinstance(step, TurnStep):
            return self.turn(step.user, step.plan())
        if isinstance(step, SwipeStep):
            return self.swipe(step.plan())
        if isinstance(step, RegenerateStep):
            return self.regenerate(step.plan())
        if isinstance(step, ContinueStep):
            return self.continue_(step.plan())
        if isinstance(step, EditStep):
            self.edit(step.tracker, set=step.set_, row=step.row, remove=step.remove)
        elif isinstance(step, CutStep):
            self.cut(step.message)
        elif isinstance(step, ForkStep):
            self.fork(step.message)
        else:
            self.show_version(step.message, step.version)
        return None

    def run(self, progress: Callable[[int, int], None] | None = None) -> list[TurnReport]:
        """Play every remaining scripted step; returns the turn reports."""
        reports = []
        while not self.done:
            report = self.play_next()
            if report is not None:
                reports.append(report)
            if progress is not None:
                progress(self.step_index, len(self.steps))
        return reports
