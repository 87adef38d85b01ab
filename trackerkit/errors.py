"""One error family for trackerkit.

    TrackerkitError
    ├── TrackerDecodeError      a tracker piece the strict decoder refuses (every problem, with paths)
    ├── SceneDecodeError        a scene file that cannot be read or is not a scene (every problem)
    ├── StaleRevisionError      a save on a revision that moved since the piece was opened
    ├── EditRefusedError        a person's edit refused whole (unlinked tracker, open turn, moved take)
    ├── TurnError               a turn that cannot run or failed (no turn open, a refusing model, ...)
    ├── NotFoundError           a take, message, tracker or file that is not there
    ├── BadRequestError         a malformed argument, such as a message id of the wrong shape
    ├── PromptTooLargeError     the fixed parts of a request alone do not fit its window
    ├── ModelError              a model endpoint that is away or answered nonsense
    │   └── ToolsRefusedError   the model (or its server) does not take tools
    ├── MacroLookupError        a macro handler's refusal (reported by the engine, never raised out)
    ├── TraceLineError          a trace line that cannot be read (file and line number)
    ├── ImportRefusedError      a file an importer cannot read as a tracker format (names the file)
    └── ImportWriteError        an import's write that failed partway (names what was and was not written)

Messages are whole sentences that say what is wrong, where, and what was found. Code that acts on
a problem reads its fields (`Problem.where`, `Problem.code`, `MacroLookupError.code` and `.name`),
never the sentence: the sentence is for people.

`Problem` is no exception: it is one reason a piece was refused, which `TrackerDecodeError` and
the verdicts carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

__all__ = [
    "BadRequestError",
    "EditRefusedError",
    "ImportRefusedError",
    "ImportWriteError",
    "Location",
    "MacroLookupError",
    "ModelError",
    "NotFoundError",
    "Problem",
    "PromptTooLargeError",
    "SceneDecodeError",
    "StaleRevisionError",
    "ToolsRefusedError",
    "TraceLineError",
    "TrackerDecodeError",
    "TrackerkitError",
    "TurnError",
    "render_location",
]


class TrackerkitError(Exception):
    """The base of every error trackerkit raises on purpose."""


Location: TypeAlias = tuple[str | int, ...]
"""Where a problem is, from the document's root: keys and list indexes, such as
`("body", "fields", 2, "maxField")`; `()` is the document (or file) itself."""


def render_location(where: Location) -> str:
    """`body.fields[2].maxField` from `("body", "fields", 2, "maxField")`; `""` for the root."""
    out = ""
    for part in where:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a tracker piece was refused: where, why in a sentence, and what kind of reason.

    Attributes:
        where: the location, keys and indexes from the root (`("body", "fields", 2, "maxField")`).
        message: the plain sentence, without the location (`names "hp", which is ...`).
        code: what kind of problem, for code that acts on it (`"name_repeated"`,
            `"top_unknown"`, `"required"`, ...; `"invalid"` when nothing more is said).
        other: a second location the problem concerns (the first field whose name is repeated).
    """

    where: Location
    message: str
    code: str = "invalid"
    other: Location | None = None

    @property
    def path(self) -> str:
        """The location as one string, such as `body.fields[2].maxField` (`""` for the root)."""
        return render_location(self.where)

    def __str__(self) -> str:
        path = self.path
        return f"{path}: {self.message}" if path else self.message


class TrackerDecodeError(TrackerkitError):
    """The strict decoder refused a tracker piece; `.problems` lists every reason at once."""

    def __init__(self, problems: list[Problem], source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        where = f"{source}: " if source else ""
        lines = "; ".join(str(p) for p in self.problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"{where}tracker refused with {count} {noun}: {lines}")


class SceneDecodeError(TrackerkitError):
    """A scene file that cannot be read, is not JSON or is not a scene; `.problems` lists every
    reason found (`.path` is the file), and the message names the file and each problem."""

    def __init__(self, message: str, problems: list[Problem], path: Path | None = None) -> None:
        self.problems = list(problems)
        self.path = path
        super().__init__(message)


class StaleRevisionError(TrackerkitError):
    """A save named a revision that is no longer the piece's revision; nothing was written."""

    def __init__(self, tracker_id: str, base_revision: int, current_revision: int) -> None:
        self.tracker_id = tracker_id
        self.base_revision = base_revision
        self.current_revision = current_revision
        super().__init__(
            f"tracker {tracker_id!r} was opened at revision {base_revision} but is now at revision "
            f"{current_revision}; nothing was written. Reopen it and apply the edits again."
        )


class EditRefusedError(TrackerkitError):
    """A person's edit was refused whole; nothing was written."""


class TurnError(TrackerkitError):
    """A turn could not run, or failed; its pending writes were dropped."""


class NotFoundError(TrackerkitError):
    """A take, message, tracker or file that was asked for is not there."""


class BadRequestError(TrackerkitError):
    """An argument is malformed (for example a message id of the wrong shape)."""


class PromptTooLargeError(TrackerkitError):
    """The fixed parts of a request (card, trackers block, tool) alone do not fit its window."""

    def __init__(self, window: int, reserve: int, parts: dict[str, int]) -> None:
        self.window = window
        self.reserve = reserve
        self.parts = dict(parts)
        named = ", ".join(f"{name} {tokens} tokens" for name, tokens in self.parts.items())
        total = sum(self.parts.values())
        super().__init__(
            f"the fixed parts of the request need {total} tokens ({named}) but the window of "
            f"{window} tokens leaves {window - reserve} after the reply reserve of {reserve}; "
            "shorten one of them or use a larger window."
        )


class ModelError(TrackerkitError):
    """A model endpoint was unreachable, timed out or answered something unreadable."""


class ToolsRefusedError(ModelError):
    """The model (or its server) does not take tools."""


class MacroLookupError(TrackerkitError):
    """A macro handler's refusal in one plain sentence, such as `no linked tracker is called "Helth"`.

    The macro engine catches it and reports it as a `MacroIssue` carrying the same `code` and
    `name`, so a caller can tell kinds of refusal apart without reading the sentence.

    Attributes:
        code: the kind of refusal (`"no_tracker"`, `"no_field"`, `"no_row"`, `"usage"`, ...).
        name: the name the refusal concerns (the tracker, field or row asked for), or `""`.
    """

    def __init__(self, message: str, *, code: str = "refused", name: str = "") -> None:
        self.code = code
        self.name = name
        super().__init__(message)


class TraceLineError(TrackerkitError):
    """One trace line that could not be read, named by file and 1-based line number."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(f"{file}:{line}: {reason}")

    def __repr__(self) -> str:
        return f"TraceLineError(file={self.file!r}, line={self.line}, reason={self.reason!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TraceLineError):
            return NotImplemented
        return (self.file, self.line, self.reason) == (other.file, other.line, other.reason)

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.reason))


class ImportRefusedError(TrackerkitError):
    """A file an importer cannot read: not there, not text, not JSON/YAML, or not its format."""

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        super().__init__(f"{file}: {reason}")


class ImportWriteError(TrackerkitError):
    """An import's write that failed partway: what was written stays, and the message says it.

    Attributes:
        written: the files written before the failure (left in place, whole).
        not_written: the files the import meant to write and did not.
    """

    def __init__(
        self, reason: str, written: tuple[Path, ...], not_written: tuple[str, ...]
    ) -> None:
        self.written = written
        self.not_written = not_written
        done = ", ".join(str(p) for p in written) if written else "nothing"
        super().__init__(
            f"the import stopped partway: {reason}. Written (kept, whole): {done}; not "
            f"written: {', '.join(not_written)}"
        )
