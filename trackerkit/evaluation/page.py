"""What the evaluation page (`notebooks/evaluate.py`) does besides drawing: kept here to be tested.

- `read_scenarios`: the scenarios of a scenes folder, and each file refused with why (a broken
  file never hides the good ones; two files with one id offer the first and say so);
- `endpoint_name_clash`: the endpoint variant takes its name from the model-name box, so naming
  the model `scripted` clashes with the scripted variant: said in those words;
- `play_with_progress`: the evaluation on a worker thread while the page's thread moves the
  progress bar (marimo draws only from the cell's own thread);
- `variations`: each variant picked under each protocol and tool style picked, named so the table
  says which (`trackerkit eval` names its one variant with it too);
- `NumberBox`: a number typed in a text box (marimo's number box names itself by its label's
  HTML), read with the number box's bounds and step;
- `RunGuard`: a press of Run made during a run reaches the page only after the run ends, as a
  second run of the same settings; the guard tells it apart, so it does not play everything
  again.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TypeVar

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.tool_style import ToolStyle
from trackerkit.evaluation.variants import Variant
from trackerkit.scene import read_scene
from trackerkit.steps import problem_sentence

__all__ = [
    "NumberBox",
    "RunGuard",
    "ScenarioFolder",
    "endpoint_name_clash",
    "play_with_progress",
    "read_scenarios",
    "settings_key",
    "variations",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ScenarioFolder:
    """The scenarios offered (id to file, those with scripted turns) and the files refused."""

    scenes: dict[str, Path]
    refused: list[tuple[Path, str]]


def read_scenarios(folder: Path) -> ScenarioFolder:
    """Every `*.json` in `folder`: a scene with scripted turns is offered by its id; a file that
    does not read is refused with its problems; a second file with an id already offered is
    refused, naming the first (each run is named by its scenario's id). A scene without turns
    is not a scenario and is passed over, as before."""
    scenes: dict[str, Path] = {}
    refused: list[tuple[Path, str]] = []
    for path in sorted(folder.glob("*.json")):
        read = read_scene(path)
        if read.scene is None or read.problems:
            refused.append((path, problem_sentence(read.problems) or "cannot be read"))
            continue
        if not read.scene.turns:
            continue
        first = scenes.get(read.scene.id)
        if first is not None:
            refused.append(
                (
                    path,
                    f"has the id {read.scene.id!r}, as {first.name} has; only {first.name} is "
                    "offered (each run is named by its scenario's id: give this one its own)",
                )
            )
            continue
        scenes[read.scene.id] = path
    return ScenarioFolder(scenes, refused)


@dataclass(frozen=True, slots=True)
class NumberBox:
    """A number the page asks for in a text box, with a number box's bounds, step and default.

    Not `mo.ui.number`: marimo's number box takes its label's HTML as its aria-label (and its ±
    buttons' too), so a screen reader read markup; a text box is named by its label's text.
    """

    label: str
    start: int | float
    stop: int | float
    value: int | float
    step: int | float = 1

    @property
    def shown(self) -> str:
        """The default as the box shows it."""
        return f"{self.value:g}"

    def read(self, typed: str) -> int | float:
        """The number `typed` in the box: an int when the step is whole, else a float.

        Raises:
            BadRequestError: not a number, outside the bounds, or off the step; said with the
                label and what the box takes.
        """
        whole = isinstance(self.step, int)
        takes = (
            f"{self.label} takes a {'whole number' if whole else 'number'} from "
            f"{self.start:g} to {self.stop:g}" + ("" if whole else f", in steps of {self.step:g}")
        )
        try:
            number = Decimal(typed.strip())
        except InvalidOperation:
            number = Decimal("NaN")
        if (
            not number.is_finite()
            or not self.start <= number <= self.stop
            or number % Decimal(str(self.step)) != 0
        ):
            raise BadRequestError(f"{takes}; it reads {typed!r}. Type such a number in the box.")
        return int(number) if whole else float(number)


def endpoint_name_clash(picked: Sequence[str], model_name: str) -> str | None:
    """Why the endpoint variant's name clashes with another picked variant's, or None.

    Args:
        picked: the variants picked (`scripted`, `noisy loopback`, `endpoint`).
        model_name: the model-name box, which names the endpoint variant.
    """
    if "endpoint" not in picked:
        return None
    name = model_name or "endpoint"
    others = [p for p in picked if p != "endpoint"]
    if name not in others:
        return None
    return (
        f"The endpoint variant takes its name from the model-name box, {name!r}, which is also "
        f"the name of the {name} variant: the two columns would share a name. Give the endpoint "
        f"its model's own name, or do not pick the {name} variant."
    )


def variations(
    variants: Sequence[Variant], protocols: Sequence[str], tool_styles: Sequence[ToolStyle]
) -> list[Variant]:
    """Each variant under each protocol and, under "tools", each tool style picked.

    A text-protocol variant is named `… · text`, once: no tool is sent under "text", so the tool
    style does not apply. Under "tools" a variant is named `… · STYLE` (`scripted · strict`)
    unless "lines" is the only style picked, when the names stay as they were (`scripted`).

    Args:
        variants: the variants picked, each with the default protocol and tool style.
        protocols: "tools" and/or "text".
        tool_styles: "lines", "anyOf", "strict" and/or "gemini".
    """
    labelled = list(tool_styles) != ["lines"]
    made: list[Variant] = []
    for protocol in protocols:
        styles: Sequence[ToolStyle] = tool_styles if protocol == "tools" else ["lines"]
        for style in styles:
            suffix = f" · {style}" if labelled else ""
            if protocol == "text":
                suffix = " · text"
            made.extend(
                variant.model_copy(
                    update={
                        "protocol": protocol,
                        "tool_style": style,
                        "name": variant.name + suffix,
                    }
                )
                for variant in variants
            )
    return made


def play_with_progress(
    play: Callable[[Callable[[int, int], None]], T],
    moved: Callable[[int, int], None],
    poll: float = 0.25,
) -> T:
    """`play(progress)` on a worker thread; `moved(done, total)` on this thread as turns end.

    `play` is given the callback to pass as `evaluate(..., progress=...)`; it may call it from
    any thread. This thread waits for reports and hands each, latest first, to `moved` (a
    progress bar drawn from the page's thread), and returns `play`'s result or raises its error.
    """
    reports: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(play(lambda done, total: reports.put((done, total))))
        except BaseException as exc:  # handed to the page's thread, which raises it
            failure.append(exc)

    worker = threading.Thread(target=work, name="trackerkit-eval-page", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(poll)
        latest = None
        while not reports.empty():
            latest = reports.get()
        if latest is not None:
            moved(*latest)
    if failure:
        raise failure[0]
    return outcome[0]


@dataclass(slots=True)
class RunGuard:
    """Tells a press of Run made during a run from a new press.

    marimo queues a press made while the run's cell is busy and delivers it the moment the run
    ends: the same settings, arriving within `echo` seconds of the end. Such a press is not
    played again (the page shows the run it was made during); a press after that plays.
    """

    echo: float = 1.0
    clock: Callable[[], float] = time.monotonic
    _last: Hashable | None = field(default=None, init=False)
    _ended: float = field(default=float("-inf"), init=False)

    def is_echo(self, settings: Hashable) -> bool:
        """True when `settings` were just played and this press came in as the run ended."""
        return settings == self._last and self.clock() - self._ended < self.echo

    def ended(self, settings: Hashable) -> None:
        """A run of `settings` has just ended (played, or failed)."""
        self._last, self._ended = settings, self.clock()


def settings_key(values: Iterable[object]) -> tuple[object, ...]:
    """The page's controls' values as one hashable key (lists become tuples)."""
    return tuple(tuple(v) if isinstance(v, list) else v for v in values)
