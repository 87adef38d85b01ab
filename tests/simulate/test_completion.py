"""Reading a chat completion strictly (TR-41's plain errors): every malformed part is a ModelError with its path.

The replies are served by a loopback server, so the whole client path is exercised.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from loopback import Answer, LoopbackServer, ask, completion, openai_model, serving

from trackerkit import ModelError
from trackerkit.simulate.model import ModelReply, ToolCall

HIT = {"updates": [{"tracker": "Health", "set": {"hp": 12}}]}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, shut down after the test."""
    with serving() as running:
        yield running


def _reply_with(change: Callable[[dict[str, Any]], None]) -> bytes:
    """A completion with two tool calls and usage, changed by `change`, as JSON bytes."""
    answer = completion(
        "Hello.", [("c0", "look", {}), ("c1", "update_trackers", HIT)], usage=(10, 2)
    )
    change(answer)
    return json.dumps(answer).encode()


def _message(answer: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = answer["choices"][0]["message"]
    return message


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets the dotted `path` (list indexes as numbers) of a completion to `value`."""
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]

    def change(answer: dict[str, Any]) -> None:
        at: Any = answer
        for part in parents:
            at = at[part]
        at[last] = value

    return change


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]

    def change(answer: dict[str, Any]) -> None:
        at: Any = answer
        for part in parents:
            at = at[part]
        del at[last]

    return change


DEEP = 100_000
MESSAGE = "choices.0.message"
SECOND = f"{MESSAGE}.tool_calls.1"
MALFORMED: list[tuple[str, bytes, str]] = [
    ("top-level-list", b"[1, 2]", "the top level must be an object; found a list"),
    ("top-level-number", b"42", "the top level must be an object; found 42"),
    ("no-choices", b"{}", "choices must be a list of at least one choice; found nothing"),
    (
        "empty-choices",
        b'{"choices": []}',
        "choices must be a list of at least one choice; found an empty list",
    ),
    (
        "choices-object",
        b'{"choices": {"0": {}}}',
        "choices must be a list of at least one choice; found an object",
    ),
    ("choice-number", b'{"choices": [3]}', "choices[0] must be an object; found 3"),
    (
        "message-text",
        _reply_with(_set(MESSAGE, "hi")),
        'choices[0].message must be an object; found the text "hi"',
    ),
    (
        "message-null",
        _reply_with(_set(MESSAGE, None)),
        "choices[0].message must be an object; found null",
    ),
    (
        "message-missing",
        _reply_with(_drop(MESSAGE)),
        "choices[0].message must be an object; found nothing",
    ),
    (
        "content-object",
        _reply_with(_set(f"{MESSAGE}.content", {"text": "hi"})),
        "choices[0].message.content must be text or null; found an object",
    ),
    (
        "content-number",
        _reply_with(_set(f"{MESSAGE}.content", 42)),
        "choices[0].message.content must be text or null; found 42",
    ),
    (
        "content-list",
        _reply_with(_set(f"{MESSAGE}.content", ["hi"])),
        "choices[0].message.content must be text or null; found a list",
    ),
    (
        "tool-calls-object",
        _reply_with(_set(f"{MESSAGE}.tool_calls", {"id": "c"})),
        "choices[0].message.tool_calls must be a list of calls or null; found an object",
    ),
    (
        "tool-calls-text",
        _reply_with(_set(f"{MESSAGE}.tool_calls", "look")),
        'choices[0].message.tool_calls must be a list of calls or null; found the text "look"',
    ),
    (
        "tool-call-text",
        _reply_with(_set(SECOND, "look")),
        'choices[0].message.tool_calls[1] must be an object; found the text "look"',
    ),
    (
        "function-list",
        _reply_with(_set(f"{SECOND}.function", [])),
        "choices[0].message.tool_calls[1].function must be an object; found a list",
    ),
    (
        "function-text",
        _reply_with(_set(f"{SECOND}.function", "look")),
        'choices[0].message.tool_calls[1].function must be an object; found the text "look"',
    ),
    (
        "function-missing",
        _reply_with(_drop(f"{SECOND}.function")),
        "choices[0].message.tool_calls[1].function must be an object; found nothing",
    ),
    (
        "name-number",
        _reply_with(_set(f"{SECOND}.function.name", 5)),
        "choices[0].message.tool_calls[1].function.name must be text; found 5",
    ),
    (
        "name-missing",
        _reply_with(_drop(f"{SECOND}.function.name")),
        "choices[0].message.tool_calls[1].function.name must be text; found nothing",
    ),
    (
        "arguments-number",
        _reply_with(_set(f"{SECOND}.function.arguments", 5)),
        "choices[0].message.tool_calls[1].function.arguments must be text or an object; found 5",
    ),
    (
        "arguments-list",
        _reply_with(_set(f"{SECOND}.function.arguments", [1])),
        "choices[0].message.tool_calls[1].function.arguments must be text or an object; found a list",
    ),
    (
        "arguments-overflow",
        _reply_with(_set(f"{SECOND}.function.arguments", {"hp": 1.5})).replace(b"1.5", b"1e400"),
        "choices[0].message.tool_calls[1].function.arguments holds a number too large for JSON text",
    ),
    (
        "id-number",
        _reply_with(_set(f"{SECOND}.id", 7)),
        "choices[0].message.tool_calls[1].id must be text or null; found 7",
    ),
    (
        "finish-reason-object",
        _reply_with(_set("choices.0.finish_reason", {})),
        "choices[0].finish_reason must be text or null; found an object",
    ),
    ("usage-list", _reply_with(_set("usage", [10, 2])), "usage must be an object; found a list"),
    (
        "usage-text",
        _reply_with(_set("usage", "10")),
        'usage must be an object; found the text "10"',
    ),
    (
        "tokens-text",
        _reply_with(_set("usage.prompt_tokens", "10")),
        'usage.prompt_tokens must be a token count (a whole number from 0 to 2^63-1) or null; found the text "10"',
    ),
    (
        "tokens-negative",
        _reply_with(_set("usage.completion_tokens", -1)),
        "usage.completion_tokens must be a token count (a whole number from 0 to 2^63-1) or null; found -1",
    ),
    (
        "tokens-fraction",
        _reply_with(_set("usage.prompt_tokens", 1.5)),
        "usage.prompt_tokens must be a token count (a whole number from 0 to 2^63-1) or null; found 1.5",
    ),
    (
        "tokens-boolean",
        _reply_with(_set("usage.prompt_tokens", True)),
        "usage.prompt_tokens must be a token count (a whole number from 0 to 2^63-1) or null; found true",
    ),
    (
        "tokens-past-64-bits",
        _reply_with(_set("usage.prompt_tokens", 2**64)),
        "usage.prompt_tokens must be a token count (a whole number from 0 to 2^63-1) or null; found 18446744073709551616",
    ),
    ("html", b"<html>not json</html>", "its body is not JSON (expected value at line 1 column 1)"),
    (
        "not-utf8",
        b'{"choices": "\xff"}',
        # the column is pydantic-core's count, which moved by one between 2.20 (the floor) and 2.50 (the lock)
        "its body is not JSON (invalid unicode code point at line 1 column 1",
    ),
    (
        "bad-hex-escape",
        _reply_with(_set(f"{MESSAGE}.content", "x")).replace(b'"x"', b'"\\u12"'),
        "its body is not JSON (",
    ),
    (
        "digits-past-4300",
        _reply_with(_set("usage.prompt_tokens", 7)).replace(b": 7", b": " + b"7" * 5000),
        "its body is not JSON (number out of range",
    ),
    (
        "nested-100000-deep",
        b"[" * DEEP + b"]" * DEEP,
        "its body is not JSON (recursion limit exceeded",
    ),
    (
        "content-nested-100000-deep",
        _reply_with(_set(f"{MESSAGE}.content", 0)).replace(
            b'"content": 0', b'"content": ' + b"[" * DEEP + b"]" * DEEP
        ),
        "its body is not JSON (recursion limit exceeded",
    ),
    # An attack trial: 10 MB of arguments took minutes and gigabytes in token counting.
    (
        "arguments-past-a-mebi-character",
        _reply_with(_set(f"{SECOND}.function.arguments", "x" * (1 << 20) + "x")),
        "choices[0].message.tool_calls[1].function.arguments holds 1,048,577 characters; "
        "trackerkit reads at most 1,048,576",
    ),
    (
        "content-past-a-mebi-character",
        _reply_with(_set(f"{MESSAGE}.content", "y" * (1 << 20) + "y")),
        "choices[0].message.content holds 1,048,577 characters; trackerkit reads at most 1,048,576",
    ),
    (
        "arguments-nested-100000-deep",
        _reply_with(_set(f"{SECOND}.function.arguments", 0)).replace(
            b'"arguments": 0', b'"arguments": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP
        ),
        "its body is not JSON (recursion limit exceeded",
    ),
]


class TestLoneSurrogates:
    """A lone surrogate escape is legal JSON: read as U+FFFD, as the trace reader reads it."""

    @pytest.mark.parametrize(
        ("escaped", "read"),
        [("Vera smiles \\ud83d", "Vera smiles \ufffd"), ("\\udc00 and \\ud83d\\ude00", "\ufffd and \U0001f600")],
        ids=["cut-pair", "low-half-and-a-pair"],
    )  # fmt: skip
    def test_a_lone_half_reads_as_the_replacement_character(
        self, server: LoopbackServer, escaped: str, read: str
    ) -> None:
        """Found when tried: a reply cut inside an emoji's pair failed the whole turn as "not JSON"."""
        body = json.dumps(completion("PLACE")).replace("PLACE", escaped).encode()
        server.script(Answer(body))
        assert openai_model(server).complete(ask()).content == read

    def test_a_lone_half_in_the_arguments_reads_too(self, server: LoopbackServer) -> None:
        """The tool call's argument text is read the same way."""
        body = json.dumps(completion(None, [("c0", "look", {"q": "PLACE"})]))
        server.script(Answer(body.replace("PLACE", "\\ud83d").encode()))
        (call,) = openai_model(server).complete(ask()).tool_calls
        assert call.arguments == '{"q": "\ufffd"}'


class TestMalformedReplies:
    """Whatever a server answers with HTTP 200, the caller gets a reply or a ModelError naming the part."""

    @pytest.mark.parametrize(
        ("body", "reason"), [(b, r) for _, b, r in MALFORMED], ids=[i for i, _, _ in MALFORMED]
    )
    def test_a_malformed_reply_names_what_is_wrong(
        self, server: LoopbackServer, body: bytes, reason: str
    ) -> None:
        """Each malformed part is a ModelError with its path, never AttributeError, TypeError or RecursionError."""
        server.script(Answer(body))
        url = f"{server.url}/v1/chat/completions"
        with pytest.raises(ModelError) as raised:
            openai_model(server).complete(ask())
        assert str(raised.value).startswith(
            f"the model server at {url} answered something that is not a chat completion: {reason}"
        )

    def test_optional_parts_may_be_null_or_missing(self, server: LoopbackServer) -> None:
        """Null content, calls, ids, arguments, finish reason and usage read as their defaults; unknown keys are ignored."""
        answer = completion(None, [("c0", "look", {})])
        call = _message(answer)["tool_calls"][0]
        call["id"] = None
        call["function"]["arguments"] = None
        answer["choices"][0].update(finish_reason=None, logprobs={"x": 1})
        answer["usage"] = None
        _message(answer)["reasoning_content"] = {"anything": [1]}
        server.script(answer, completion(None), {"choices": [{"message": {}}]})
        model = openai_model(server)
        assert model.complete(ask()) == ModelReply(
            "", (ToolCall("call_0", "look", ""),), "tool_calls", None, None
        )
        assert model.complete(ask()) == ModelReply("", (), "stop", None, None)
        assert model.complete(ask()) == ModelReply("", (), "stop", None, None)
