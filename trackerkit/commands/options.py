"""The options and argument types the commands share: the model, the data folder, numbers, files."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from trackerkit.errors import TrackerkitError
from trackerkit.simulate.endpoint import address_problem


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """`--data DIR`, which `simulate` and `eval` share: the data folder whose trace/ receives
    the turns, chosen by the one rule of `trackerkit.workspace` when not given."""
    parser.add_argument(
        "--data",
        metavar="DIR",
        type=Path,
        help=(
            "the data folder whose trace/ receives the turns (default: $TRACKERKIT_DATA, else "
            "$ASSISTANT_DATA_DIR, else the per-user workspace)"
        ),
    )


def trace_folder(data: Path | None) -> Path:
    """The data folder whose `trace/` receives a command's turns (`--data`, else the rule of
    `trackerkit.workspace`), refused before any turn when no trace can be written under it: a
    file, the bundled data, a folder that cannot be made or that this user cannot write.

    The trace folder is made here, and a scratch file written in it and removed: asking the
    operating system is the one test that holds for every user, root included.

    Raises:
        TrackerkitError: the message names the folder, where it came from, and the fix.
    """
    from trackerkit.simulate import check_data_dir, data_dir

    root = check_data_dir(data_dir(data))
    trace = root / "trace"
    problem = ""
    try:
        trace.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        problem = f"its trace folder {trace} cannot be made ({exc.strerror or exc})"
    else:
        try:
            tempfile.TemporaryFile(dir=trace).close()
        except OSError as exc:
            problem = f"this user cannot write in its trace folder {trace} ({exc.strerror or exc})"
    if problem:
        raise TrackerkitError(
            f"{_data_named(data)} {root}: {problem}, so no trace can be written; give a data "
            "folder this user can write, or --no-trace to write none"
        )
    return root


def _data_named(data: Path | None) -> str:
    """Where the data folder came from, as a refusal names it (`--data`, a variable)."""
    from trackerkit.workspace import ASSISTANT_ENV, DATA_ENV

    if data is not None and os.fspath(data):
        return "--data"
    if os.environ.get(DATA_ENV):
        return DATA_ENV
    return ASSISTANT_ENV if os.environ.get(ASSISTANT_ENV) else "your workspace"


MODEL_DEFAULTS: dict[str, str | None] = {
    "model": "scripted",
    "base_url": None,
    "model_name": None,
    "api_key_env": "OPENAI_API_KEY",
    "protocol": "tools",
}
"""Each model option's default, by its `args` name: one given is one that differs."""


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """The model options `simulate` and `eval` share: which model, where, and by which protocol."""
    parser.add_argument(
        "--model",
        choices=["scripted", "openai"],
        default=MODEL_DEFAULTS["model"],
        help="the model (default: scripted)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1",
    )
    parser.add_argument(
        "--model-name",
        metavar="NAME",
        help="the model name the server knows (needed with --model openai)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        default=MODEL_DEFAULTS["api_key_env"],
        help=(
            "the environment variable holding the API key (default: OPENAI_API_KEY); when it "
            "is not set, requests go without a key, as local servers take them"
        ),
    )
    from trackerkit.simulate.completion import PROTOCOLS

    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default=MODEL_DEFAULTS["protocol"],
        help=(
            "how the model sends its tracker updates: tools (the update_trackers tool; default) "
            "or text (no tool: one fenced update_trackers JSON block at the end of the reply, "
            "for models without tool calling)"
        ),
    )


def model_options_given(args: argparse.Namespace) -> list[str]:
    """The model options given on the command line (those not at their default), as typed."""
    return [
        f"--{name.replace('_', '-')}"
        for name, default in MODEL_DEFAULTS.items()
        if getattr(args, name) != default
    ]


def check_model_options(args: argparse.Namespace) -> None:
    """Refuse model options that cannot work, before anything runs: `--model openai` without
    `--base-url` or `--model-name` (all that is missing said at once), a `--base-url` that is no
    well-formed http(s) address, `--base-url` for the scripted model, an empty `--model-name` or
    `--api-key-env`. With `--variants` the model options are not used (each variant names its
    own model), so they are not checked.

    A `--api-key-env` naming a variable that is not set is said on stderr, not refused: local
    servers take requests without a key (a typo is still seen). The default, unset, is quiet.
    """
    if getattr(args, "variants", None) is not None:
        return
    if args.model == "openai" and not args.base_url and args.model_name is None:
        raise TrackerkitError(
            "--model openai needs --base-url and --model-name: the API root (such as "
            "http://127.0.0.1:11434/v1) and the model the server there knows (such as "
            "qwen2.5:7b on Ollama)"
        )
    if args.model == "openai" and not args.base_url:
        raise TrackerkitError(
            "--model openai needs --base-url (the API root, such as http://127.0.0.1:11434/v1)"
        )
    if args.base_url and not args.base_url.startswith(("http://", "https://")):
        raise TrackerkitError(
            f"--base-url {args.base_url!r} is not an http(s) address; give the API root, such "
            "as http://127.0.0.1:11434/v1"
        )
    if args.base_url and (problem := address_problem(args.base_url)):
        raise TrackerkitError(
            f"--base-url {args.base_url!r} {problem}; give the API root, such as "
            "http://127.0.0.1:11434/v1"
        )
    if args.base_url and args.model != "openai":
        raise TrackerkitError(
            "--base-url is for --model openai; the scripted model plays the scene's own calls "
            "(add --model openai to use the server)"
        )
    if args.model == "openai" and args.model_name is None:
        raise TrackerkitError(
            f"--model openai needs --model-name: the model the server at {args.base_url} knows "
            "(such as qwen2.5:7b on Ollama); it also names the results and the trace's model"
        )
    for option, value in (("--model-name", args.model_name), ("--api-key-env", args.api_key_env)):
        if value is not None and not value.strip():  # None: not given, where it has no default
            raise TrackerkitError(f"{option} needs a name, not an empty text")
    if args.model == "openai" and args.api_key_env != MODEL_DEFAULTS["api_key_env"]:
        key = os.environ.get(args.api_key_env)
        if key is None or not key.strip():  # the model sends no key for a blank one either
            state = "is not set" if key is None else "is empty"
            print(
                f"trackerkit: --api-key-env {args.api_key_env}: the variable {state}; requests "
                "go without a key",
                file=sys.stderr,
            )


def refuse_empty_ids(from_id: str | None, to_id: str | None) -> None:
    """Refuse `--from ''` or `--to ''`: an empty id names no message, and taken as the option
    left out it would show a range not asked for.

    Raises:
        TrackerkitError: the message names the option and what leaving it out means.
    """
    for option, value, rest in (
        ("--from", from_id, "start at the first message"),
        ("--to", to_id, "end at the tip"),
    ):
        if value is not None and not value.strip():
            raise TrackerkitError(
                f"{option} needs a message id such as m2, not an empty text; leave {option} out "
                f"to {rest}"
            )


def _number(text: str, *, least: float, inclusive: bool, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give {what}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; give {what}")
    if value < least or (value == least and not inclusive):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; give {what}")
    return value


def positive_number(text: str) -> float:
    """An option's number that must be above 0 (seconds, for instance); argparse's `type`."""
    return _number(text, least=0.0, inclusive=False, what="a number above 0")


def non_negative_number(text: str) -> float:
    """An option's number that must be 0 or more (a tolerance); argparse's `type`."""
    return _number(text, least=0.0, inclusive=True, what="a number of 0 or more")


def positive_int(text: str) -> int:
    """An option's whole number that must be 1 or more (runs, concurrency); argparse's `type`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number; give 1 or more"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; give 1 or more")
    return value


def check_out_file(out: Path, option: str = "--out", example: str = "results.parquet") -> Path:
    """Refuse an output file that cannot be written, before any work: a folder, a missing
    folder, a place this user cannot write.

    Raises:
        TrackerkitError: the message names the path and what to give instead.
    """
    if out.is_dir():
        raise TrackerkitError(
            f"{option} {out} is a folder; give a file name, such as {out / example}"
        )
    parent = out.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise TrackerkitError(f"{option} {out}: the folder {parent} {what}")
    if not os.access(parent, os.W_OK | os.X_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise TrackerkitError(f"{option} {out}: this user cannot write there")
    return out
