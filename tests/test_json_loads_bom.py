"""`trackerkit._json.loads` skips one UTF-8 byte order mark opening the bytes, as `json` does.

A found defect (trial atk5, finding 10): `loads` said it reads JSON bytes as Python's `json`
would, but refused a body opening with a BOM ("Unexpected UTF-8 BOM"), which `json.loads`
reads (RFC 8259, 8.1 lets a parser ignore it; .NET servers and some proxies send one), and the
chat client then said "its body is not JSON". The trace reader shares `loads` and keeps its
own rule (TC-19): a BOM opening the file is skipped, one opening a later line is a broken line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit._json import loads
from trackerkit.simulate.completion import read_completion
from trackerkit.trace import read_trace

BOM = b"\xef\xbb\xbf"
REPLY = {"choices": [{"message": {"role": "assistant", "content": "привет"}}]}


class TestLoads:
    @pytest.mark.parametrize(
        "body",
        [b'{"a": [1, 2]}', b'"\\ud83d!"', b"1e999", b"-" + b"9" * 5000],
        ids=["object", "lone-surrogate", "past-the-double-range", "past-4300-digits"],
    )
    def test_one_bom_opening_the_bytes_is_skipped(self, body: bytes) -> None:
        """What `loads` reads without the BOM it reads with one (msgspec's path and `json`'s)."""
        assert loads(BOM + body) == loads(body)

    def test_values_are_pythons_json(self) -> None:
        """The value is the one `json.loads` gives for the same bytes."""
        raw = BOM + json.dumps(REPLY).encode("utf-8")
        assert loads(raw) == json.loads(raw)

    @pytest.mark.parametrize(
        "raw",
        [BOM + BOM + b"{}", b" " + BOM + b"{}", b"[" + BOM + b"1]"],
        ids=["two", "late", "inside"],
    )
    def test_only_one_opening_the_bytes_is_skipped(self, raw: bytes) -> None:
        """A second BOM, or one after the first byte, is refused, as `json` refuses it."""
        with pytest.raises(ValueError, match="Expecting value"):
            json.loads(raw)
        with pytest.raises(ValueError, match=r"Unexpected UTF-8 BOM|Expecting value"):
            loads(raw)


def test_the_chat_client_reads_a_body_opening_with_a_bom() -> None:
    """The client reads such a reply instead of saying its body is not JSON."""
    raw = BOM + json.dumps(REPLY, ensure_ascii=False).encode("utf-8")
    reply = read_completion(raw, "http://127.0.0.1:8080/v1/chat/completions")
    assert reply.content == "привет"


def _line(turn: str, text: str = "ok") -> bytes:
    event = {
        "ts": "2026-03-01T10:00:00.000Z",
        "turn": turn,
        "session": "s",
        "source": "telegram",
        "kind": "eve",
        "name": "step.completed",
        "data": {"text": text},
    }
    return json.dumps(event, ensure_ascii=False).encode("utf-8")


class TestTraceLines:
    """TC-19: `loads` skipping a BOM changes nothing in the trace reader's lines."""

    # A lone surrogate escape sends a line down the reader's slow path, which calls `loads`.
    @pytest.mark.parametrize("text", ["ok", "\\ud83d"], ids=["plain", "slow-path"])
    @pytest.mark.parametrize("mode", ["dict", "raw", "lazy", "none"])
    def test_a_bom_opening_the_file_is_skipped(self, tmp_path: Path, mode: str, text: str) -> None:
        """Line 1 after the file's BOM is read."""
        lines = [_line("turn_1", text), _line("turn_2")]
        (tmp_path / "2026-03-01.jsonl").write_bytes(BOM + b"\n".join(lines) + b"\n")
        events, errors = read_trace(tmp_path, data=mode)  # type: ignore[call-overload]
        assert errors == []
        assert events["turn"].tolist() == ["turn_1", "turn_2"]

    @pytest.mark.parametrize("text", ["ok", "\\ud83d"], ids=["plain", "slow-path"])
    @pytest.mark.parametrize("mode", ["dict", "raw", "lazy", "none"])
    def test_a_bom_opening_a_later_line_is_a_broken_line(
        self, tmp_path: Path, mode: str, text: str
    ) -> None:
        """A BOM opening line 2 makes line 2 broken, with that reason; lines 1 and 3 are read."""
        lines = [_line("turn_1"), BOM + _line("turn_2", text), _line("turn_3")]
        (tmp_path / "2026-03-01.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        events, errors = read_trace(tmp_path, data=mode)  # type: ignore[call-overload]
        assert [(e.line, e.reason) for e in errors] == [
            (2, "a UTF-8 byte order mark opens the line (only one opening the file is skipped)")
        ]
        assert events["turn"].tolist() == ["turn_1", "turn_3"]
