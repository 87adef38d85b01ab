"""A small OpenAI-compatible server on 127.0.0.1 for tests: it records each request and answers from a script.

Also the client side the model tests share: an `OpenAIModel` pointed at a server, a request, and a
guard that fails a call still running after 10 s (so a test of a hang fails instead of hanging).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from trackerkit import OpenAIModel
from trackerkit.simulate.endpoint import MAX_BODY
from trackerkit.simulate.model import ModelRequest

KEY_ENV = "TRACKERKIT_LOOPBACK_KEY"
"""The variable the test models read their API key from."""


@dataclass(frozen=True)
class Answer:
    """One scripted answer: an HTTP status, a body (JSON data or raw bytes) and a delay in seconds.

    `headers` are sent after the status line (a `Location`, say). With `pace` the answer goes out
    one byte every `pace` seconds: the body only, or the status line and headers too when
    `paced_head`. With `endless` the body has no length and, after `body`, repeats `endless` until
    the client hangs up or the server shuts down. `raw` bytes, when given, are the whole answer as
    sent (a garbled status line, say), instead of the status, headers and body.
    """

    body: Any
    status: int = 200
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()
    pace: float = 0.0
    paced_head: bool = False
    endless: bytes = b""
    raw: bytes | None = None


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: Any


def completion(
    content: str | None = "",
    calls: Sequence[tuple[str, str, Any]] = (),
    usage: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """A chat completion with `(id, name, arguments)` tool calls; arguments that are not text are sent as JSON."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
            for call_id, name, arguments in calls
        ]
    answer: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
    }
    if usage is not None:
        answer["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
    return answer


class LoopbackServer(HTTPServer):
    """Answers `POST` requests from `answers` in order, then with `default`; keeps what it saw."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers: deque[Answer] = deque()
        self.default = Answer(completion("ok."))
        self.seen: list[Seen] = []
        self.release = threading.Event()

    @property
    def url(self) -> str:
        """The server's root, `http://127.0.0.1:<port>`."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def script(self, *answers: Answer | dict[str, Any]) -> None:
        """Queue answers; a dict is a 200 with that JSON body."""
        self.answers.extend(a if isinstance(a, Answer) else Answer(a) for a in answers)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a timeout test) is no error of the server's."""


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackServer

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._answer(json.loads(raw))

    def do_GET(self) -> None:
        """A GET (a client that turned a redirected POST into one) is recorded with no body."""
        self._answer(None)

    def _answer(self, seen: Any) -> None:
        self.server.seen.append(Seen(self.path, dict(self.headers.items()), seen))
        answer = self.server.answers.popleft() if self.server.answers else self.server.default
        if answer.delay:
            self.server.release.wait(answer.delay)
        body = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
        lines = [f"HTTP/1.1 {answer.status} Scripted", "Content-Type: application/json"]
        if not answer.endless:
            lines.append(f"Content-Length: {len(body)}")
        lines += [f"{name}: {value}" for name, value in answer.headers]
        head = ("\r\n".join([*lines, "Connection: close", "", ""])).encode()
        self.close_connection = True
        if answer.raw is not None:
            head, body = answer.raw, b""
        try:
            self._send(head, answer.pace if answer.paced_head else 0.0)
            self._send(body, answer.pace)
            while answer.endless and not self.server.release.is_set():
                self._send(answer.endless, answer.pace)
        except OSError:
            pass  # the client gave up waiting

    def _send(self, data: bytes, pace: float) -> None:
        if not pace:
            self.wfile.write(data)
            return
        for i in range(len(data)):
            if self.server.release.wait(pace):
                return
            self.wfile.write(data[i : i + 1])
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


@contextmanager
def serving() -> Iterator[LoopbackServer]:
    """Run a loopback server in a thread; shut it down, close it and join the thread afterwards."""
    server = LoopbackServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


def openai_model(
    server: LoopbackServer, timeout: float = 5.0, max_body: int = MAX_BODY
) -> OpenAIModel:
    """An OpenAIModel on `server`'s `/v1`, its key read from KEY_ENV."""
    return OpenAIModel(
        f"{server.url}/v1", "local-model", api_key_env=KEY_ENV, timeout=timeout, max_body=max_body
    )


def ask(tools: bool = True) -> ModelRequest:
    """A one-message request, offering the update tool unless `tools` is false."""
    trackers_tool = [{"type": "function", "function": {"name": "update_trackers"}}]
    return ModelRequest([{"role": "user", "content": "hi"}], trackers_tool if tools else [])


def guarded(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
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
