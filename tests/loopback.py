"""A small OpenAI-compatible server on 127.0.0.1 for tests: it records each request and answers from a script."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any


@dataclass(frozen=True)
class Answer:
    """One scripted answer: an HTTP status, a body (JSON data or raw bytes) and a delay in seconds."""

    body: Any
    status: int = 200
    delay: float = 0.0


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
        self.server.seen.append(Seen(self.path, dict(self.headers.items()), json.loads(raw)))
        answer = self.server.answers.popleft() if self.server.answers else self.server.default
        if answer.delay:
            self.server.release.wait(answer.delay)
        body = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up waiting

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
