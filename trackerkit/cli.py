"""The `trackerkit` command: thin, one library call per command, errors as one line and exit 1.

The commands live in `trackerkit.commands`, a module per group (`eval` and `trace` in their own
sub-packages); this module builds the parser from them and runs one. The helpers the groups share
(the model options, the scene a command reads) are taken from here, as `trackerkit.evaluation.cli`
does.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from trackerkit.commands.formats import register_export, register_import
from trackerkit.commands.options import (
    add_data_option,
    add_model_options,
    check_model_options,
    check_out_file,
    model_options_given,
    non_negative_number,
    positive_int,
    positive_number,
    trace_folder,
)
from trackerkit.commands.scene import (
    file_kind,
    refuse_tracker_for_scene,
    register_prompt,
    say_unread_workspace,
    scene_and_trackers,
)
from trackerkit.commands.simulate import held_trace_failures, register_simulate, say_trace
from trackerkit.commands.terminal import Shown, escaping, say
from trackerkit.commands.trackers import register_trackers
from trackerkit.errors import TrackerkitError

__all__ = [
    "Handler",
    "Registrar",
    "add_data_option",
    "add_model_options",
    "build_parser",
    "check_model_options",
    "check_out_file",
    "file_kind",
    "held_trace_failures",
    "main",
    "model_options_given",
    "non_negative_number",
    "positive_int",
    "positive_number",
    "refuse_tracker_for_scene",
    "register_export",
    "register_import",
    "register_prompt",
    "register_simulate",
    "register_trackers",
    "say_trace",
    "say_unread_workspace",
    "scene_and_trackers",
    "trace_folder",
]

# Each command module registers its sub-commands on the parser; the handler is stored as `func`.
Handler = Callable[[argparse.Namespace], int]
Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _registrars() -> list[Registrar]:
    from trackerkit.evaluation.cli import register as register_eval
    from trackerkit.trace.cli import register as register_trace

    return [
        register_trackers,
        register_prompt,
        register_simulate,
        register_eval,
        register_trace,
        register_import,
        register_export,
    ]


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree, so tests can check every command is documented."""
    parser = argparse.ArgumentParser(
        prog="trackerkit",
        description="Design, simulate and inspect LLM chat trackers; read trace journals.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for register in _registrars():
        register(sub)
    _remember_parsers(parser)
    return parser


_PARSER = "_parser"
"""The namespace's attribute naming the deepest parser a command line chose (`trace days`)."""


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Have every parser of the tree set itself as `_PARSER`: a sub-command's defaults are set
    after its group's, so the namespace ends naming the deepest parser chosen."""
    parser.set_defaults(**{_PARSER: parser})
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _remember_parsers(child)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 refused or failed, 2 usage).

    Every error is one line on stderr (`trackerkit: <file>: <what is wrong>`), never a traceback.
    """
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    args, extra = parser.parse_known_args(words)
    if extra:
        # Refused by the command they were given to, whose usage then shows what it takes
        # (`usage: trackerkit check ...`), not the top level's `COMMAND ...`; what came before
        # the command (`trackerkit --bogus check`) is the top level's.
        before = words[: words.index(args.command)] if args.command in words else words
        chosen = parser if set(extra) & set(before) else getattr(args, _PARSER, parser)
        chosen.error(f"unrecognized arguments: {' '.join(extra)}")
    handler: Handler = args.func
    out, err = sys.stdout, sys.stderr
    # Text from files, models and servers reaches the terminal shown, never obeyed: an escape
    # sequence in a row name or an error body would colour or move the user's terminal.
    sys.stdout, sys.stderr = Shown(out, "\t\n"), Shown(err, "\t\n\r")
    try:
        # A stdout that is not UTF-8 (cp1252) takes every command's output: what it cannot
        # encode is written as a JSON escape, so JSON stays valid and text readable.
        with escaping(out), escaping(err):
            return _run(handler, args)
    finally:
        sys.stdout, sys.stderr = out, err


def _run(handler: Handler, args: argparse.Namespace) -> int:
    try:
        code = handler(args)
        sys.stdout.flush()  # a reader gone (`| head`) shows here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        # The reader stopped reading (`trackerkit changes --json | head`): stop quietly, as
        # well-behaved commands do, with stdout pointed at devnull so the exit's flush is silent.
        _quiet_stdout()
        return 1
    except (TrackerkitError, OSError, ValueError) as exc:
        say(str(exc))
        return 1
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except Exception as exc:  # a bug: still one line, naming the error so it can be reported
        say(f"unexpected {type(exc).__name__} (a bug in trackerkit; please report it): {exc}")
        return 1


def _quiet_stdout() -> None:
    """Point the process's stdout at devnull (when it is a real file descriptor)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # a captured or replaced stdout (tests): nothing to silence
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
