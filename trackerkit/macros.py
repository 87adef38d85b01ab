"""The macro engine: `{{name::arg::...}}` macros in template text, evaluated read-only (TR-31, TR-32).

A template is data. The engine copies text, finds macros, evaluates each one by calling
the handler registered for its name with the already evaluated arguments, and returns
the text plus a report of errors and uses. It never writes anything and never evaluates
code: what a macro can do is exactly what its handler does, so a template run on a
turn's read-only handlers reads state and writes none.

Syntax:

- `{{name}}` or `{{name::arg1::arg2}}`; a name matches whatever its case, with spaces
  around it ignored; arguments are passed as written.
- Arguments may hold macros (`{{tracker::{{char}}::hp}}`), evaluated innermost first.
  Arguments are split only where `::` stands in the template itself, never inside a
  nested macro's result.
- A `{{` that is never closed, and a `}}` or `::` outside any macro, are plain text.
- A handler's result is never scanned again, so a value that holds `{{x}}` (a model
  wrote it, say) comes out as those characters and cannot run a macro.

Errors never raise: an unknown name leaves the macro's source as written and is
reported; a handler raising `MacroLookupError` renders as empty text and is reported
with the handler's sentence. Three caps bound a hostile template: the step budget
(macro evaluations), the output ceiling (characters written to the output, plus every
macro result fed into an argument, so it bounds time and memory and not only the
final length) and the nesting depth. Reaching one stops the run with one reported
error and returns the text written so far. Work is linear in the template's length
plus the characters written, times the nesting depth at worst (an unknown or unclosed
macro is copied back as text once per level it is nested in).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from trackerkit.errors import MacroLookupError

__all__ = [
    "MacroHandler",
    "MacroIssue",
    "MacroLimits",
    "MacroReport",
    "MacroUse",
    "Rendered",
    "context_handlers",
    "render_macros",
]

MacroHandler = Callable[[tuple[str, ...]], str]
"""A macro's implementation: receives the evaluated arguments (the name excluded), returns text."""

_OPEN = "{{"
_BRACE = re.compile(r"\{\{|\}\}")


@dataclass(frozen=True, slots=True)
class MacroIssue:
    """One macro problem: the macro as written, its offset in the template, and why.

    `code` says what kind of problem it is, for code that acts on it: `unknown_macro`, a cap
    (`too_deep`, `step_budget`, `output_ceiling`), or a handler's own (`MacroLookupError.code`,
    such as `no_tracker`). `name` is the name it concerns: the unknown macro's, or the one the
    handler refused (the tracker, field or row asked for); `""` when none.
    """

    macro: str
    position: int
    message: str
    source: str = ""
    code: str = "refused"
    name: str = ""

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.macro} at {self.position}: {self.message}"


@dataclass(frozen=True, slots=True)
class MacroUse:
    """One macro that evaluated: its lowercase name, evaluated arguments and offset in the template.

    `at` is where its result starts in the output when it was written there (None when it went
    into another macro's argument): how a caller finds a marker the author wrote, never one that
    a substituted value merely spells (TR-30).
    """

    name: str
    args: tuple[str, ...]
    position: int
    source: str = ""
    at: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class MacroReport:
    """What an evaluation found: every error and every macro that evaluated, in template order."""

    errors: tuple[MacroIssue, ...] = ()
    uses: tuple[MacroUse, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the evaluation reported no error."""
        return not self.errors

    def merge(self, other: MacroReport) -> MacroReport:
        """Return one report holding this report's errors and uses, then `other`'s."""
        return MacroReport(self.errors + other.errors, self.uses + other.uses)


@dataclass(frozen=True, slots=True)
class Rendered:
    """A template's text after its macros ran, and the report of the run."""

    text: str
    report: MacroReport


@dataclass(frozen=True, slots=True)
class MacroLimits:
    """The caps of one evaluation: macro evaluations, characters written, and nesting depth."""

    step_budget: int = 10_000
    output_ceiling: int = 1_000_000
    max_depth: int = 32


@dataclass(slots=True)
class _Frame:
    """An open macro: where its `{{` stands, its finished arguments, and the pieces of the current one."""

    start: int
    args: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)


class _Run:
    """The state of one evaluation; private so that `render_macros` stays a pure function."""

    def __init__(
        self, text: str, handlers: Mapping[str, MacroHandler], limits: MacroLimits, source: str
    ) -> None:
        self.text = text
        self.handlers = {name.lower(): handler for name, handler in handlers.items()}
        self.limits = limits
        self.source = source
        self.out: list[str] = []
        self.length = 0  # characters in `out`
        self.stack: list[_Frame] = []
        self.written = 0
        self.steps = 0
        self.stopped = False
        self.errors: list[MacroIssue] = []
        self.uses: list[MacroUse] = []

    def run(self) -> Rendered:
        text, end = self.text, len(self.text)
        pos = 0
        while pos < end and not self.stopped:
            if not self.stack:
                found = text.find(_OPEN, pos)
                if found < 0:
                    self._emit(text[pos:], pos)
                    break
                if self._emit(text[pos:found], pos):
                    self.stack.append(_Frame(found))
                pos = found + 2
                continue
            match = _BRACE.search(text, pos)
            self._split(text[pos : match.start() if match else end])
            if match is None:
                break
            pos = self._brace(match.group(), match.start(), match.end())
        if not self.stopped:
            self._unwind()
        return Rendered("".join(self.out), MacroReport(tuple(self.errors), tuple(self.uses)))

    def _split(self, segment: str) -> None:
        """Add template text to the open macro, starting a new argument at each `::`."""
        frame = self.stack[-1]
        # str.split keeps a template full of `::` as fast as plain text.
        parts = segment.split("::")
        if len(parts) == 1:
            if segment:
                frame.pieces.append(segment)
            return
        frame.args.append("".join(frame.pieces) + parts[0])
        frame.args.extend(parts[1:-1])
        frame.pieces = [parts[-1]]

    def _brace(self, token: str, start: int, end: int) -> int:
        """Act on a `{{` or `}}` inside an open macro; return where scanning goes on."""
        if token == "}}":
            self._evaluate(self.stack.pop(), end)
        elif len(self.stack) < self.limits.max_depth:
            self.stack.append(_Frame(start))
        else:
            self._stop(
                _OPEN,
                start,
                f"macros are nested more than {self.limits.max_depth} deep; "
                "the rest of the template was left out",
                "too_deep",
            )
        return end

    def _evaluate(self, frame: _Frame, end: int) -> None:
        """Run the macro of a closed frame and write its result where the frame stood."""
        macro = self.text[frame.start : end]
        if not self._step(macro, frame.start):
            return
        parts = [*frame.args, "".join(frame.pieces)]
        name = parts[0].strip().lower()
        handler = self.handlers.get(name)
        if handler is None:
            message = f'unknown macro "{parts[0]}"; it was left as written'
            self._issue(macro, frame.start, message, "unknown_macro", parts[0].strip())
            self._emit(macro, frame.start, macro)
            return
        args = tuple(parts[1:])
        try:
            result = handler(args)
        except MacroLookupError as error:
            self._issue(macro, frame.start, str(error), error.code, error.name)
            return
        at = None if self.stack else self.length
        self.uses.append(MacroUse(name, args, frame.start, self.source, at))
        self._emit(result, frame.start, macro, result=True)

    def _step(self, macro: str, position: int) -> bool:
        """Spend one step of the budget; stop the run when it is spent."""
        self.steps += 1
        if self.steps <= self.limits.step_budget:
            return True
        self._stop(
            macro,
            position,
            f"step budget of {self.limits.step_budget} macro evaluations spent; "
            "the rest of the template was left out",
            "step_budget",
        )
        return False

    def _emit(self, piece: str, position: int, macro: str = "", result: bool = False) -> bool:
        """Write text where the innermost open macro (or the output) stands, within the ceiling.

        The ceiling counts what reaches the output and every macro result, wherever it
        goes: template text copied into an argument is bounded by the template already,
        but results can grow without end (a result fed to a macro that drops it).
        """
        if not piece or self.stopped:
            return not self.stopped
        target = self.stack[-1].pieces if self.stack else self.out
        if self.stack and not result:
            target.append(piece)
            return True
        room = self.limits.output_ceiling - self.written
        kept = piece if len(piece) <= room else piece[: max(room, 0)]
        target.append(kept)
        if target is self.out:
            self.length += len(kept)
        if len(piece) <= room:
            self.written += len(piece)
            return True
        self.written = self.limits.output_ceiling
        self._stop(
            macro,
            position,
            f"output ceiling of {self.limits.output_ceiling} characters reached; "
            "the text was cut there and the rest of the template was left out",
            "output_ceiling",
        )
        return False

    def _unwind(self) -> None:
        """Write the macros left open at the end back as plain text, innermost first."""
        while self.stack and not self.stopped:
            frame = self.stack.pop()
            self._emit(_OPEN + "::".join([*frame.args, "".join(frame.pieces)]), frame.start)

    def _issue(self, macro: str, position: int, message: str, code: str, name: str = "") -> None:
        self.errors.append(MacroIssue(macro, position, message, self.source, code, name))

    def _stop(self, macro: str, position: int, message: str, code: str) -> None:
        self._issue(macro, position, message, code)
        self.stopped = True


def render_macros(
    text: str,
    handlers: Mapping[str, MacroHandler],
    *,
    limits: MacroLimits = MacroLimits(),
    source: str = "",
) -> Rendered:
    """Evaluate the macros of `text` with `handlers` and report what happened; never raises.

    Args:
        text: The template; anything outside macros is copied as is.
        handlers: Macro implementations by name (matched whatever the case).
        limits: The step budget, output ceiling and nesting cap.
        source: A label for the report, such as the name of the tracker whose template this is.

    Returns:
        The text and the report. When a cap stops the run, the text is what was written
        before it (macros still open are left out) and the report names the cap.

    Raises:
        Nothing of its own; an exception from a handler other than `MacroLookupError`
        is a bug in the handler and propagates.

    Example:
        >>> render_macros("{{USER}} meets {{char}}", context_handlers("Ann", "Vera")).text
        'Ann meets Vera'
    """
    return _Run(text, handlers, limits, source).run()


def _constant(name: str, value: str) -> MacroHandler:
    def handler(args: tuple[str, ...]) -> str:
        if args:
            raise MacroLookupError(f"{{{{{name}}}}} takes no arguments", code="usage", name=name)
        return value

    return handler


def context_handlers(user: str, char: str) -> dict[str, MacroHandler]:
    """Return handlers for `{{user}}` and `{{char}}`, the names a chat template commonly reads.

    The values are returned as given; pass them through `line_of` first if they may
    hold line breaks.
    """
    return {"char": _constant("char", char), "user": _constant("user", user)}
