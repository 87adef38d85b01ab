"""Models: the OpenAI-compatible path against a loopback server, and the scripted model (TR-34, TR-41)."""

from __future__ import annotations

import copy
import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conftest import BAG, HEALTH
from loopback import Answer, LoopbackServer, completion, serving

from trackerkit import (
    ModelError,
    OpenAIModel,
    Scene,
    ScriptedModel,
    Session,
    TurnPlan,
    update_trackers_tool,
)
from trackerkit.endpoint import MAX_BODY, MAX_REDIRECTS
from trackerkit.model import ModelReply, ModelRequest, ToolCall, ToolsRefusedError
from trackerkit.scene import Prompting

KEY_ENV = "TRACKERKIT_LOOPBACK_KEY"
HIT = {"updates": [{"tracker": "Health", "set": {"hp": 12}}]}
REFUSAL = {"error": {"message": "registry.ollama.ai/library/tiny does not support tools"}}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, shut down after the test."""
    with serving() as running:
        yield running


def _model(server: LoopbackServer, timeout: float = 5.0, max_body: int = MAX_BODY) -> OpenAIModel:
    return OpenAIModel(
        f"{server.url}/v1", "local-model", api_key_env=KEY_ENV, timeout=timeout, max_body=max_body
    )


def _session(model: Any) -> Session:
    scene = Scene(
        id="s",
        title="S",
        card="You narrate for {{user}}.",
        user="Vera",
        prompting=Prompting(trackers=["health", "bag"]),
    )
    return Session(scene, {"health": copy.deepcopy(HEALTH), "bag": copy.deepcopy(BAG)}, model)


def _ask(tools: bool = True) -> ModelRequest:
    trackers_tool = [{"type": "function", "function": {"name": "update_trackers"}}]
    return ModelRequest([{"role": "user", "content": "hi"}], trackers_tool if tools else [])


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class TestRequest:
    """The exact request trackerkit sends to `/chat/completions`, round by round."""

    def test_a_turn_with_a_tool_call_then_a_reply(
        self, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Round one offers the tool; round two carries the call, its answer and the new block (TR-32)."""
        monkeypatch.setenv(KEY_ENV, "sk-loopback")
        server.script(
            completion(None, [("call_a", "update_trackers", HIT)], usage=(321, 17)),
            completion("The cut stings.", usage=(400, 5)),
        )
        session = _session(_model(server))
        report = session.turn("I fight.")
        assert report.ok
        assert (report.reply, session.values()["Health"]["hp"]) == ("The cut stings.", 12)
        assert [(r.tokens_in, r.tokens_out) for r in report.rounds] == [(321, 17), (400, 5)]

        first, second = server.seen
        for seen in (first, second):
            assert seen.path == "/v1/chat/completions"
            assert seen.headers["Authorization"] == "Bearer sk-loopback"
            assert seen.headers["Content-Type"] == "application/json"
            assert list(seen.body) == ["model", "messages", "tools"]  # no tool_choice
            assert seen.body["model"] == "local-model"
            tool = update_trackers_tool(session.chat.linked().trackers)
            assert seen.body["tools"] == [tool.to_openai()]

        system, user = first.body["messages"]
        assert system["role"] == "system"
        assert system["content"] == (
            "You narrate for Vera.\n\n### Trackers\nHealth: hp=0, hp_max=30, mood=calm\nBag: (none)"
        )
        assert user == {"role": "user", "content": "I fight."}

        assert second.body["messages"][0]["content"].endswith(
            "Health: hp=12, hp_max=30, mood=calm\nBag: (none)"
        )
        assert second.body["messages"][1:] == [
            user,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "update_trackers", "arguments": json.dumps(HIT)},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": report.calls[0].answer},
        ]

    def test_no_key_sends_no_authorization(
        self, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With the key's variable unset no Authorization header goes out."""
        monkeypatch.delenv(KEY_ENV, raising=False)
        reply = _model(server).complete(_ask())
        assert reply.content == "ok."
        assert "Authorization" not in server.seen[0].headers

    @pytest.mark.parametrize(
        ("key", "position"),
        [("sk-ключ", 4), ("sk-a\nb", 5), ("sk-\x01", 4), ("sk a", 3)],
        ids=["non-ascii", "newline", "control", "space"],
    )
    def test_a_key_that_cannot_go_in_a_header(
        self, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, key: str, position: int
    ) -> None:
        """A key with a character no HTTP header carries is a ModelError naming the variable, not the key; nothing is sent."""
        monkeypatch.setenv(KEY_ENV, f" {key}\n")
        with pytest.raises(ModelError) as raised:
            _model(server).complete(_ask())
        assert str(raised.value) == (
            f"the API key in {KEY_ENV} has a character that cannot go in an HTTP header at "
            f"position {position} (keys are printable ASCII); check the variable"
        )
        assert server.seen == []

    def test_surrounding_whitespace_of_a_key_is_dropped(
        self, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A key read with a trailing newline is sent without it."""
        monkeypatch.setenv(KEY_ENV, "sk-loopback\n")
        _model(server).complete(_ask())
        assert server.seen[0].headers["Authorization"] == "Bearer sk-loopback"

    def test_no_tools_sends_no_tools_key(self, server: LoopbackServer) -> None:
        """A request that offers no tool has no `tools` key at all (TR-34)."""
        _model(server).complete(_ask(tools=False))
        assert list(server.seen[0].body) == ["model", "messages"]

    def test_object_arguments_are_read_as_json_text(self, server: LoopbackServer) -> None:
        """A server that sends arguments as an object is read as their JSON text."""
        answer = completion(None, [("c1", "update_trackers", "x")])
        answer["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = HIT
        server.script(answer)
        (call,) = _model(server).complete(_ask()).tool_calls
        assert (call.id, call.name, json.loads(call.arguments)) == ("c1", "update_trackers", HIT)


class TestErrors:
    """A server that is away, slow, refusing or unreadable gives a plain error (TR-41)."""

    def test_a_server_that_is_away(self) -> None:
        """Connection refused is a ModelError naming the address."""
        port = _free_port()
        model = OpenAIModel(f"http://127.0.0.1:{port}/v1", "m", api_key_env=KEY_ENV, timeout=2)
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        with pytest.raises(ModelError, match=f"^could not reach the model server at {url}: "):
            model.complete(_ask())
        report = _session(model).turn("go")
        assert report.failed is not None
        assert report.failed.startswith(
            f"The model failed: could not reach the model server at {url}"
        )
        assert "\n" not in report.failed

    def test_a_timeout(self, server: LoopbackServer) -> None:
        """A server slower than the timeout is a ModelError that says so."""
        server.script(Answer(completion("late"), delay=2.0))
        with pytest.raises(ModelError, match=r"did not answer within 0\.2 s$"):
            _model(server, timeout=0.2).complete(_ask())

    def test_a_model_that_refuses_tools(self, server: LoopbackServer) -> None:
        """HTTP 400 "does not support tools" is a ToolsRefusedError (TR-41)."""
        server.script(Answer(REFUSAL, status=400))
        with pytest.raises(
            ToolsRefusedError,
            match=r"^local-model does not take tools \(registry.ollama.ai/library/tiny does not support tools\)$",
        ):
            _model(server).complete(_ask())

    def test_a_refusing_model_fails_the_turn_in_one_sentence(self, server: LoopbackServer) -> None:
        """The turn fails in one plain sentence, keeps nothing and the chat takes the next turn (TR-41)."""
        server.script(Answer(REFUSAL, status=400))
        session = _session(_model(server))
        report = session.turn("go")
        assert report.failed == (
            "The model does not take tools, so this scene's trackers cannot be offered; the turn "
            "failed (local-model does not take tools (registry.ollama.ai/library/tiny does not "
            "support tools))."
        )
        assert [m.role for m in session.chat.messages] == ["user"]
        assert session.turn("again").ok

    def test_a_refusal_without_tools_is_a_plain_http_error(self, server: LoopbackServer) -> None:
        """The same 400 on a request that offered no tools is an ordinary ModelError."""
        server.script(Answer(REFUSAL, status=400))
        with pytest.raises(ModelError, match="answered HTTP 400: ") as raised:
            _model(server).complete(_ask(tools=False))
        assert not isinstance(raised.value, ToolsRefusedError)

    def test_a_server_error_on_one_line(self, server: LoopbackServer) -> None:
        """An HTTP 500 with a multi-line body is reported on one line."""
        server.script(Answer(b"Internal\n  error\n", status=500))
        with pytest.raises(ModelError, match=r"answered HTTP 500: Internal error$"):
            _model(server).complete(_ask())

    @pytest.mark.parametrize(
        ("raw", "reason"),
        [
            (b"garbage\r\n\r\n", "illegal status line: bytearray(b'garbage')"),
            (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"f" * 5000 + b"\r\n",
                ("illegal chunk header: bytearray(b'" + "f" * 5000)[:197] + "...",
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}",
                "peer closed connection without sending complete message body (received 2 bytes, expected 9)",
            ),
            (b"", "Server disconnected without sending a response."),
        ],
        ids=["status-line", "content-length", "long-chunk-header", "cut-short", "nothing"],
    )
    def test_a_garbled_answer_is_one_short_line(
        self, server: LoopbackServer, raw: bytes, reason: str
    ) -> None:
        """An answer HTTP cannot parse is a ModelError on one line of at most 200 characters of detail."""
        server.script(Answer(b"", raw=raw))
        url = f"{server.url}/v1/chat/completions"
        with pytest.raises(ModelError) as raised:
            _model(server).complete(_ask())
        assert str(raised.value) == f"the model server at {url} broke off its answer: {reason}"

    @pytest.mark.parametrize(
        "body",
        [b"<html>not json</html>", b'{"choices": []}', b"[1, 2]"],
        ids=["html", "no-choices", "a-list"],
    )
    def test_an_answer_that_is_not_a_completion(self, server: LoopbackServer, body: bytes) -> None:
        """A 200 whose body is not a chat completion is a ModelError."""
        server.script(Answer(body))
        with pytest.raises(ModelError, match="answered something that is not a chat completion"):
            _model(server).complete(_ask())


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
        "its body is not JSON (invalid unicode code point at line 1 column 14)",
    ),
    (
        "lone-surrogate",
        _reply_with(_set(f"{MESSAGE}.content", "\ud800")),
        "its body is not JSON (unexpected end of hex escape at line 1 column 127)",
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
    (
        "arguments-nested-100000-deep",
        _reply_with(_set(f"{SECOND}.function.arguments", 0)).replace(
            b'"arguments": 0', b'"arguments": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP
        ),
        "its body is not JSON (recursion limit exceeded",
    ),
]


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
            _model(server).complete(_ask())
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
        model = _model(server)
        assert model.complete(_ask()) == ModelReply(
            "", (ToolCall("call_0", "look", ""),), "tool_calls", None, None
        )
        assert model.complete(_ask()) == ModelReply("", (), "stop", None, None)
        assert model.complete(_ask()) == ModelReply("", (), "stop", None, None)

    def test_content_of_the_wrong_type_fails_the_turn_in_one_sentence(
        self, server: LoopbackServer
    ) -> None:
        """A reply whose content is an object fails the turn with the path, keeps nothing, and the chat goes on."""
        server.script(_reply_with(_set(f"{MESSAGE}.content", {"text": "hi"})))
        session = _session(_model(server))
        report = session.turn("go")
        assert report.failed == (
            f"The model failed: the model server at {server.url}/v1/chat/completions answered "
            "something that is not a chat completion: choices[0].message.content must be text or "
            "null; found an object."
        )
        assert [m.role for m in session.chat.messages] == ["user"]
        assert session.turn("again").ok


def _guarded(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """Run `call` in a thread: what it returned and what it raised; fail if it still runs after 10 s."""
    outcome: list[Any] = [None, None]

    def run() -> None:
        try:
            outcome[0] = call()
        except BaseException as exc:  # handed back to the test
            outcome[1] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the call was still running after 10 s"
    return outcome[0], outcome[1]


class TestDeadline:
    """The timeout bounds the whole call, however slowly the server sends."""

    @pytest.mark.parametrize(
        "answer",
        [
            Answer(completion("A reply sent one byte at a time."), pace=0.3),
            Answer(completion("A reply whose head comes slowly."), pace=0.3, paced_head=True),
            Answer(b"", endless=b" ", pace=0.3),
        ],
        ids=["body-trickled", "head-trickled", "trickles-forever"],
    )
    def test_a_trickling_server_meets_the_deadline(
        self, server: LoopbackServer, answer: Answer
    ) -> None:
        """A byte every 0.3 s against a 1 s timeout is a ModelError at the deadline, not after the last byte."""
        server.script(answer)
        _, raised = _guarded(lambda: _model(server, timeout=1).complete(_ask()))
        assert isinstance(raised, ModelError)
        assert str(raised) == (
            f"the model server at {server.url}/v1/chat/completions did not answer within 1 s"
        )

    def test_a_trickled_turn_fails_and_the_chat_goes_on(self, server: LoopbackServer) -> None:
        """In a session the trickle fails the turn in one sentence instead of holding it."""
        server.script(Answer(b"", endless=b" ", pace=0.3))
        session = _session(_model(server, timeout=1))
        report, raised = _guarded(lambda: session.turn("go"))
        assert raised is None
        assert report.failed is not None
        assert report.failed.endswith("did not answer within 1 s.")
        assert session.turn("again").ok


class TestBodyCap:
    """The body read from a model server is capped, error bodies too, and never read whole past it."""

    def test_the_cap_is_32_mib_by_default(self, server: LoopbackServer) -> None:
        """The documented default cap is 32 MiB; the constructor takes another."""
        assert MAX_BODY == 32 * 1024 * 1024
        assert OpenAIModel("http://127.0.0.1:1/v1", "m").max_body == MAX_BODY

    def test_a_body_at_the_cap_is_read(self, server: LoopbackServer) -> None:
        """A body of exactly `max_body` bytes is read."""
        body = json.dumps(completion("ok.")).encode()
        server.script(Answer(body))
        assert _model(server, max_body=len(body)).complete(_ask()).content == "ok."

    @pytest.mark.parametrize(
        ("answer", "status"),
        [
            (Answer(completion("x" * 5000)), 200),
            (Answer(b"", endless=b" " * 65536), 200),
            (Answer(b"", status=500, endless=b"e" * 65536), 500),
            (Answer(b"", endless=b" ", headers=(("Content-Length", str(10**12)),)), 200),
        ],
        ids=["over-with-length", "endless", "endless-error-body", "declared-too-long"],
    )
    def test_a_body_over_the_cap(self, server: LoopbackServer, answer: Answer, status: int) -> None:
        """A body over the cap is a ModelError as soon as it passes it (an endless one too, well before the timeout)."""
        server.script(answer)
        url = f"{server.url}/v1/chat/completions"
        _, raised = _guarded(lambda: _model(server, timeout=60, max_body=4096).complete(_ask()))
        assert isinstance(raised, ModelError)
        assert str(raised).startswith(
            f"the model server at {url} answered HTTP {status} with a body over 4,096 bytes, "
            "the cap on what trackerkit reads from a model server"
        )


@pytest.fixture
def elsewhere() -> Iterator[LoopbackServer]:
    """A second loopback server, on another port: another origin."""
    with serving() as running:
        yield running


class TestRedirects:
    """The API key never goes to another origin: cross-origin redirects are refused."""

    @pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
    def test_a_redirect_to_another_port_is_refused(
        self,
        server: LoopbackServer,
        elsewhere: LoopbackServer,
        monkeypatch: pytest.MonkeyPatch,
        status: int,
    ) -> None:
        """A redirect to another port is a ModelError and the other server never sees a request, let alone the key."""
        monkeypatch.setenv(KEY_ENV, "sk-secret")
        target = f"{elsewhere.url}/v1/chat/completions"
        server.script(Answer(b"", status=status, headers=(("Location", target),)))
        with pytest.raises(
            ModelError,
            match=f"^the model server at {server.url}/v1/chat/completions redirected to {target}, another origin; ",
        ):
            _model(server).complete(_ask())
        assert elsewhere.seen == []
        assert server.seen[0].headers["Authorization"] == "Bearer sk-secret"

    def test_a_redirect_to_another_host_name_is_refused(
        self, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`localhost` is another origin than `127.0.0.1`, even on the same port."""
        monkeypatch.setenv(KEY_ENV, "sk-secret")
        port = server.server_address[1]
        server.script(
            Answer(b"", status=302, headers=(("Location", f"http://localhost:{port}/v1/x"),))
        )
        with pytest.raises(ModelError, match="another origin"):
            _model(server).complete(_ask())
        assert len(server.seen) == 1

    def test_a_same_origin_redirect_is_followed(
        self, server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A 307 to a path on the same origin posts the same body, with the key, there."""
        monkeypatch.setenv(KEY_ENV, "sk-loopback")
        server.script(
            Answer(b"", status=307, headers=(("Location", "/v2/chat/completions"),)),
            completion("moved."),
        )
        assert _model(server).complete(_ask()).content == "moved."
        first, second = server.seen
        assert second.path == "/v2/chat/completions"
        assert second.body == first.body
        assert second.headers["Authorization"] == "Bearer sk-loopback"

    def test_a_redirect_loop_gives_up(self, server: LoopbackServer) -> None:
        """More than MAX_REDIRECTS same-origin redirects is a ModelError."""
        loop = Answer(b"", status=307, headers=(("Location", "/v1/chat/completions"),))
        server.script(*[loop] * (MAX_REDIRECTS + 1))
        with pytest.raises(ModelError, match=f"redirected more than {MAX_REDIRECTS} times"):
            _model(server).complete(_ask())
        assert len(server.seen) == MAX_REDIRECTS + 1


class TestScripted:
    """The embedded scripted model answers from plans, round by round."""

    def test_rounds_then_the_reply(self) -> None:
        """Each round's calls come in order, then the reply; calls get ids when the plan has none."""
        model = ScriptedModel(
            [TurnPlan("Done.", [[{"arguments": HIT}], [{"id": "x", "name": "look"}]])]
        )
        model.start_turn()
        first = model.complete(_ask())
        second = model.complete(_ask())
        third = model.complete(_ask())
        assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
            ("call_1", "update_trackers", json.dumps(HIT))
        ]
        assert [(c.id, c.name, c.arguments) for c in second.tool_calls] == [("x", "look", "{}")]
        assert (third.content, third.tool_calls, third.finish_reason) == ("Done.", (), "stop")

    def test_no_tools_means_no_calls(self) -> None:
        """Without tools offered the plan goes straight to its reply."""
        model = ScriptedModel([TurnPlan("Plain.", [[{"arguments": HIT}]])])
        model.start_turn()
        assert model.complete(_ask(tools=False)).content == "Plain."

    def test_refuses_tools(self) -> None:
        """A plan that refuses tools raises ToolsRefusedError only when tools are offered (TR-41)."""
        model = ScriptedModel([TurnPlan("x", refuses_tools=True)])
        model.start_turn()
        with pytest.raises(ToolsRefusedError):
            model.complete(_ask())
        assert model.complete(_ask(tools=False)).content == "x"

    def test_asked_outside_a_turn(self) -> None:
        """A scripted model asked before a turn starts says so."""
        with pytest.raises(ModelError, match="outside a turn"):
            ScriptedModel().complete(_ask())

    def test_rounds_must_be_lists(self) -> None:
        """A step whose rounds are not lists of calls is refused in words."""
        with pytest.raises(ModelError, match="rounds must be a list of lists"):
            TurnPlan.from_step({"reply": "x", "rounds": [{"name": "look"}]})
