"""The `trackerkit` command: thin, one library call per command, errors as one line and exit 1."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from trackerkit.errors import TrackerkitError

# Each command module registers its sub-commands on the parser; the handler is stored as `func`.
Handler = Callable[[argparse.Namespace], int]


def _registrars() -> list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]]:
    from trackerkit.trace.cli import register as register_trace

    return [register_trace]


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 refused or failed, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.func
    try:
        return handler(args)
    except TrackerkitError as exc:
        print(f"trackerkit: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"trackerkit: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
