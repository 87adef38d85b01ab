"""Exact BPE token counts, offline."""

from __future__ import annotations

import gzip
import hashlib
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit.errors import TrackerkitError
from trackerkit.tokens import (
    DEFAULT_ENCODING,
    ENCODINGS,
    _count_around_runs,
    available_encodings,
    count_tokens,
    count_tool_tokens,
    load_encoding,
    o200k_ranks,
    tool_json,
)


def _no_network(*args: Any, **kwargs: Any) -> Any:
    raise OSError("the network is off in this test")


class TestCountTokens:
    """`count_tokens` with the bundled cl100k_base."""

    @pytest.mark.parametrize(
        ("text", "count"),
        [("", 0), ("hello world", 2), ("Health: hp=25, hp_max=30", 10), ("### Trackers", 3)],
        ids=["empty", "hello-world", "record-line", "heading"],
    )
    def test_known_counts(self, text: str, count: int) -> None:
        """Counts match cl100k_base exactly."""
        assert count_tokens(text) == count

    def test_default_is_cl100k(self) -> None:
        """The default encoding is cl100k_base, with its real token ids."""
        assert DEFAULT_ENCODING == "cl100k_base"
        encoding = load_encoding()
        assert encoding.name == "cl100k_base"
        assert encoding.encode("hello world") == [15339, 1917]

    def test_special_token_text_is_plain_text(self) -> None:
        """`<|endoftext|>` in a text is counted as ordinary characters, never refused."""
        text = "before <|endoftext|> after <|fim_prefix|>"
        assert count_tokens(text) == len(load_encoding().encode_ordinary(text)) > 4

    def test_loads_without_the_network(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """With every socket refused, the encoding still loads from the bundled file."""
        monkeypatch.setattr(socket, "socket", _no_network)
        monkeypatch.setattr(socket, "create_connection", _no_network)
        monkeypatch.setattr(socket, "getaddrinfo", _no_network)
        load_encoding.cache_clear()
        assert count_tokens("hello world") == 2

    def test_loaded_once(self) -> None:
        """The loaded encoding is kept for the process."""
        assert load_encoding("cl100k_base") is load_encoding("cl100k_base")


class TestAvailability:
    """Only encodings that load from local files are offered; none is downloaded."""

    @pytest.mark.parametrize("name", ["gpt2", "cl100k_base_offline", "o200k_harmony", ""])
    def test_unknown_encoding(self, name: str) -> None:
        """An encoding with no local file is refused in a sentence naming the ones that work."""
        with pytest.raises(TrackerkitError, match="is not available offline") as caught:
            count_tokens("x", name)
        assert f'"{name}"' in str(caught.value)
        assert "cl100k_base" in str(caught.value)

    @pytest.mark.parametrize("cache", ["empty", "disabled"], ids=["empty-cache", "cache-off"])
    def test_both_encodings_offline_whatever_the_cache(
        self, cache: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """cl100k_base and o200k_base both load with tiktoken's cache empty or off and no network."""
        monkeypatch.setattr(socket, "socket", _no_network)
        monkeypatch.setattr(socket, "create_connection", _no_network)
        monkeypatch.setattr(socket, "getaddrinfo", _no_network)
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "" if cache == "disabled" else str(tmp_path))
        load_encoding.cache_clear()
        assert available_encodings() == list(ENCODINGS) == ["cl100k_base", "o200k_base"]
        assert load_encoding("o200k_base").encode("hello world") == [24912, 2375]
        assert list(tmp_path.iterdir()) == []


class TestO200k:
    """o200k_base from the bpe-openai package's file, checked against tiktoken's published hash."""

    def test_same_encoding_as_tiktoken_defines(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Pattern, special tokens and ranks are those of tiktoken's own o200k_base constructor."""
        import tiktoken_ext.openai_public as public

        ranks = o200k_ranks()
        seen: list[tuple[str, str | None]] = []

        def local(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
            seen.append((path, expected_hash))
            return ranks

        monkeypatch.setattr(public, "load_tiktoken_bpe", local)
        theirs = public.o200k_base()
        ours = load_encoding("o200k_base")
        assert seen == [(seen[0][0], hashlib.sha256(_gunzipped()).hexdigest())]
        assert ours._pat_str == theirs["pat_str"]
        assert ours._special_tokens == theirs["special_tokens"]
        assert len(ranks) == 199998
        assert ranks[b"hello"] == 24912
        assert ours.name == "o200k_base"

    @pytest.mark.parametrize(
        ("text", "count"),
        [("", 0), ("hello world", 2), ("Health: hp=25, hp_max=30", 10), ("Вера устала", 4)],
        ids=["empty", "hello-world", "record-line", "cyrillic"],
    )
    def test_known_counts(self, text: str, count: int) -> None:
        """Counts are o200k_base's, which differ from cl100k_base's on non-English text."""
        assert count_tokens(text, "o200k_base") == count

    def test_a_changed_file_is_refused(self) -> None:
        """Ranks from a file whose hash is not tiktoken's are never used."""
        with pytest.raises(TrackerkitError, match="is not the file tiktoken publishes") as caught:
            o200k_ranks(gzip.compress(_gunzipped()[:-1]))
        assert "bpe_openai.data/o200k_base.tiktoken.gz" in str(caught.value)
        assert "reinstall bpe-openai" in str(caught.value)

    def test_a_file_that_is_not_gzip_is_refused(self) -> None:
        """A broken file is a TrackerkitError naming it, not a gzip traceback."""
        with pytest.raises(TrackerkitError, match="cannot be read"):
            o200k_ranks(b"not gzip at all")


def _gunzipped() -> bytes:
    import importlib.util

    spec = importlib.util.find_spec("bpe_openai")
    assert spec is not None
    assert spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations)))
    return gzip.decompress((folder / "data" / "o200k_base.tiktoken.gz").read_bytes())


class TestToolTokens:
    """A tool definition is counted as the JSON a client sends."""

    PARAMETERS: dict[str, Any] = {  # noqa: RUF012 - read-only test data
        "type": "object",
        "properties": {"updates": {"type": "array", "description": "Changes, in order."}},
        "required": ["updates"],
    }

    def test_counts_the_sent_json(self) -> None:
        """The count is the count of the compact JSON object, wrapper included."""
        sent = json.dumps(
            {
                "type": "function",
                "function": {
                    "name": "update_trackers",
                    "description": "Update the trackers: Vera’s mood…",
                    "parameters": self.PARAMETERS,
                },
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        assert (
            tool_json("update_trackers", "Update the trackers: Vera’s mood…", self.PARAMETERS)
            == sent
        )
        counted = count_tool_tokens(
            "update_trackers", "Update the trackers: Vera’s mood…", self.PARAMETERS
        )
        assert counted == count_tokens(sent)

    def test_json_is_compact_and_keeps_unicode(self) -> None:
        """No spaces after separators, and non-ASCII text is sent as itself."""
        text = tool_json("t", "café", {"type": "object"})
        assert text == (
            '{"type":"function","function":{"name":"t","description":"café",'
            '"parameters":{"type":"object"}}}'
        )


class TestLongWhitespace:
    """Found when tried: tiktoken's regex gives up on a run of about a million spaces or tabs
    before a non-space ("Max stack size exceeded for backtracking", a ValueError), so a model's
    reply of that shape crashed the next turn's prompt; in tiktoken 0.12 it takes time growing
    with the square of the run. `count_tokens` counts long runs apart, exactly."""

    @pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
    @pytest.mark.parametrize(
        "text",
        [" " * 1_000_000 + "a", "x!\n\n" + "\t" * 1_000_000 + "\n" + " " * 1_000_000 + "5y"],
        ids=["spaces", "tabs-and-breaks"],
    )
    def test_it_is_counted(self, text: str, encoding: str) -> None:
        """Counted in pieces, without tiktoken's regex over the runs (which gives up on them in
        tiktoken 0.14, and takes minutes in 0.12): the pieces' counts add up."""
        coder = load_encoding(encoding)
        assert count_tokens(text, encoding) == _count_around_runs(coder, text) > 0

    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(
            st.sampled_from(
                ["a", "Hello", "5", "123456", "!", "?!", "été", "'s", "/", "中", "<|endoftext|>"]
            )
            | st.text(alphabet=" \t\n\r\x0b\x1c\x85\u00a0\u2028\u3000", max_size=40),
            max_size=12,
        ),
        st.sampled_from(["cl100k_base", "o200k_base"]),
    )
    def test_the_split_count_is_tiktokens_own(self, parts: list[str], encoding: str) -> None:
        """Law: cutting the text around whitespace runs (here every run of 2 or more) gives the
        count tiktoken gives the whole text, in both encodings."""
        coder = load_encoding(encoding)
        text = "".join(parts)
        assert _count_around_runs(coder, text, least=2) == len(
            coder.encode(text, disallowed_special=())
        )
