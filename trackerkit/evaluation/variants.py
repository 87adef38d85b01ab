"""What is compared side by side: a variant is a model endpoint, a tracker design, a tool style and a protocol.

A variants file is a JSON list of objects with the keys of `Variant` (unknown keys are refused,
with their path). API keys are never written there: `api_key_env` names the environment variable
that holds one. The tool styles are `lines`, `anyOf`, `strict` and `gemini`: the last two offer
the tool `trackerkit export --to openai` or `--to gemini` writes, so a designer learns whether
their model keeps the trackers true with the tool they will deploy (see
`trackerkit.evaluation.tool_style`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson
import pydantic
from pydantic import BaseModel, ConfigDict, Field

from trackerkit._names import repeated
from trackerkit.errors import BadRequestError, NotFoundError, TrackerDecodeError
from trackerkit.evaluation.client import EndpointModel
from trackerkit.evaluation.tool_style import AnyOfTools, StrictTools, ToolStyle
from trackerkit.fields import describe_value
from trackerkit.library import read_piece
from trackerkit.scene import Scene
from trackerkit.simulate.completion import UpdateProtocol
from trackerkit.simulate.endpoint import address_problem
from trackerkit.simulate.model import Model, ScriptedModel
from trackerkit.steps import plain_problems, problem_sentence
from trackerkit.tracker import Tracker

__all__ = ["Variant", "load_design", "read_variants"]


class Variant(BaseModel):
    """One column of the comparison: which model answers, and which trackers it keeps.

    Args:
        name: the variant's label in tables and figures.
        model: "scripted" (the scenario's own calls; no network) or "openai" (any
            OpenAI-compatible endpoint at `base_url`).
        base_url: the API root, such as `http://127.0.0.1:11434/v1` (Ollama).
        model_name: the model name the server knows.
        api_key_env: the environment variable holding the API key (never the key itself).
        trackers: the folder of tracker pieces (the design); None uses each scene's own
            `trackers/` folder beside its `scenes/` folder.
        timeout: seconds for one model call, retries and their waits included.
        max_retries: tries after a 429 or 5xx.
        tool_style: "lines" (the update tool as trackerkit builds it, one line per tracker),
            "anyOf" (each tracker's fields in the schema), "strict" (the OpenAI strict tool of
            `export --to openai`: every field listed, null when not given) or "gemini" (the
            declaration of `export --to gemini`, `nullable` alike); under the last two the calls
            are read with null as "not given". See `trackerkit.evaluation.tool_style`. The
            scripted model makes the scenario's calls whatever the schema; under "strict" and
            "gemini" they are sent with the nulls the tool asks for.
        protocol: how the model sends its updates: "tools" (the update tool) or "text" (no tool;
            one fenced update block at the end of the reply, answered on the next turn; see
            `trackerkit.formats.text_protocol`). Under "text" no tool is sent, so a `tool_style`
            other than "lines" is refused: it would change nothing.
    """

    # protected_namespaces: pydantic before 2.10 reserves `model_` names and warns on `model_name`.
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, protected_namespaces=()
    )

    name: str = Field(min_length=1)
    model: Literal["scripted", "openai"] = "scripted"
    base_url: str | None = None
    model_name: str = "gpt-4o-mini"
    api_key_env: str = "OPENAI_API_KEY"
    trackers: Path | None = None
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    tool_style: ToolStyle = "lines"
    protocol: UpdateProtocol = "tools"

    @pydantic.field_validator("trackers", mode="before")
    @classmethod
    def _trackers_is_a_path(cls, value: object) -> object:
        if value is not None and not isinstance(value, str | Path):
            # pydantic would say "Input is not a valid path for <class 'pathlib.Path'>".
            raise ValueError(
                "must be the path of a tracker folder, as text (such as "
                f'"data/trackers"); found {describe_value(value)}'
            )
        return value

    @pydantic.model_validator(mode="after")
    def _endpoint_has_url(self) -> Variant:
        if self.model == "openai" and not self.base_url:
            raise ValueError("a variant with model openai needs base_url (the API root)")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            # Refused here, before any turn is played, on every way in (library, page, file).
            raise ValueError(
                f"base_url {self.base_url!r} is not an http(s) address; give the API root, such "
                "as http://127.0.0.1:11434/v1"
            )
        if self.base_url is not None and (problem := address_problem(self.base_url)):
            raise ValueError(
                f"base_url {self.base_url!r} {problem}; give the API root, such as "
                "http://127.0.0.1:11434/v1"
            )
        if self.protocol == "text" and self.tool_style != "lines":
            # The style would name the variant's row while changing nothing it measures.
            raise ValueError(
                f"tool_style {self.tool_style!r} does nothing under protocol 'text' (no tool is "
                "sent; the update is a fenced block in the reply); leave tool_style out, or use "
                "protocol 'tools'"
            )
        return self

    if not TYPE_CHECKING:  # mypy keeps the fields' own signature for `Variant(...)`

        def __init__(self, **data: Any) -> None:
            """Raises BadRequestError naming each wrong value (`Variant.tool_style: must be ...`),
            as a variants file's `variants[0].tool_style: ...`, rather than pydantic's wording."""
            try:
                super().__init__(**data)
            except pydantic.ValidationError as exc:
                raise BadRequestError(problem_sentence(plain_problems(exc, "Variant"))) from None

    def make_model(self, trackers: Sequence[Tracker] = ()) -> Model:
        """A fresh model for one run (each run gets its own, so runs share no state).

        Args:
            trackers: the run's linked trackers, for the tool styles other than `lines`.
        """
        model: Model
        if self.model == "scripted":
            model = ScriptedModel()
        else:
            assert self.base_url is not None
            model = EndpointModel(
                self.base_url,
                self.model_name,
                self.api_key_env,
                timeout=self.timeout,
                max_retries=self.max_retries,
            )
        if self.protocol != "tools" or self.tool_style == "lines":
            return model
        if self.tool_style == "anyOf":
            # The scripted model makes the scenario's calls whatever the tool's schema says; it is
            # still offered (and counted with) the `anyOf` tool.
            return AnyOfTools(model, trackers)
        # A scripted plan is written in the line shape: its calls are sent in the strict one, so
        # the run goes through the null handling. An endpoint's calls are read as it sent them.
        return StrictTools(
            model, trackers, self.tool_style, fill_calls=isinstance(model, ScriptedModel)
        )


class _Listed(Variant):
    """A variant as a variants file's list validates it, each problem from its place in the list
    (`variants[0].name`): pydantic calls a model's own `__init__` on each item of a list, and
    `Variant`'s would say the problem from `Variant` and end the list's validation there."""

    __init__ = BaseModel.__init__


_VARIANTS: pydantic.TypeAdapter[list[_Listed]] = pydantic.TypeAdapter(list[_Listed])


def read_variants(path: str | Path) -> list[Variant]:
    """The variants of a JSON file (a list of objects); relative `trackers` are read from its folder.

    Raises:
        BadRequestError: the file is not JSON or a variant is wrong (every problem, with its path,
            after the file's name); two variants share a name.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadRequestError(f"{path}: cannot read the variants ({exc})") from None
    try:
        # orjson, as every other JSON input: nesting past its depth is refused as not JSON
        # (Python's json would recurse until RecursionError). One leading UTF-8 byte order mark
        # is skipped, as scenes, trackers and cards skip it (editors on Windows write one).
        data = orjson.loads(raw.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError as exc:
        raise BadRequestError(f"{path}: the variants are not valid JSON ({exc})") from None
    try:
        listed = _VARIANTS.validate_python(data)
    except pydantic.ValidationError as exc:
        raise BadRequestError(
            f"{path}: {problem_sentence(plain_problems(exc, 'variants'))}"
        ) from None
    # Each already valid: made a `Variant` without validating it again.
    variants = [Variant.model_construct(v.model_fields_set, **dict(v)) for v in listed]
    twice = repeated(v.name for v in variants)
    if twice:
        raise BadRequestError(f"{path}: two variants are named {twice[0]!r}; names must differ")
    if not variants:
        raise BadRequestError(f"{path}: lists no variant")
    return [
        v.model_copy(update={"trackers": path.parent / v.trackers})
        if v.trackers is not None and not v.trackers.is_absolute()
        else v
        for v in variants
    ]


def load_design(scene: Scene, folder: Path) -> list[Tracker]:
    """The scene's linked trackers read from `folder`, every one of them.

    A scenario scores the whole expected state, so a design without one of its trackers would
    be scored on what is left (an attack trial: a variant's mistyped folder scored 1 on
    everything): a missing folder or piece is refused, not left out as a chat turn leaves it.

    Raises:
        NotFoundError: `folder` is not a folder, or holds no piece for a linked tracker.
        TrackerDecodeError: a piece does not decode (the message names its file).
    """
    if not folder.is_dir():
        raise NotFoundError(
            f"the tracker folder {folder} does not exist (scene {scene.id} links "
            f"{', '.join(scene.trackers) or 'no tracker'})"
        )
    pieces = []
    for tracker_id in scene.trackers:
        path = folder / f"{tracker_id}.json"
        if not path.exists():
            raise NotFoundError(
                f"scene {scene.id} links {tracker_id}, but {folder} holds no {tracker_id}.json"
            )
        verdict = read_piece(path, within=folder)
        if verdict.tracker is None:
            raise TrackerDecodeError(list(verdict.problems), source=str(path))
        pieces.append(verdict.tracker)
    return pieces
