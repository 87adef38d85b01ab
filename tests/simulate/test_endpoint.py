"""One POST to a model server, bounded: a deadline for the whole call, a capped body, one origin (loopback servers)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from loopback import (
    KEY_ENV,
    Answer,
    LoopbackServer,
    ask,
    completion,
    guarded,
    openai_model,
    serving,
)

from trackerkit import ModelError, OpenAIModel
from trackerkit.simulate.endpoint import MAX_BODY, MAX_REDIRECTS


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, shut down after the test."""
    with serving() as running:
        yield running


class TestGarbled:
    """An answer HTTP cannot parse is a ModelError in one short line."""

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
            openai_model(server).complete(ask())
        assert str(raised.value) == f"the model server at {url} broke off its answer: {reason}"


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
        _, raised = guarded(lambda: openai_model(server, timeout=1).complete(ask()))
        assert isinstance(raised, ModelError)
        assert str(raised) == (
            f"the model server at {server.url}/v1/chat/completions did not answer within 1 s"
        )


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
        assert openai_model(server, max_body=len(body)).complete(ask()).content == "ok."

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
        _, raised = guarded(lambda: openai_model(server, timeout=60, max_body=4096).complete(ask()))
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
            openai_model(server).complete(ask())
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
            openai_model(server).complete(ask())
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
        assert openai_model(server).complete(ask()).content == "moved."
        first, second = server.seen
        assert second.path == "/v2/chat/completions"
        assert second.body == first.body
        assert second.headers["Authorization"] == "Bearer sk-loopback"

    def test_a_redirect_loop_gives_up(self, server: LoopbackServer) -> None:
        """More than MAX_REDIRECTS same-origin redirects is a ModelError."""
        loop = Answer(b"", status=307, headers=(("Location", "/v1/chat/completions"),))
        server.script(*[loop] * (MAX_REDIRECTS + 1))
        with pytest.raises(ModelError, match=f"redirected more than {MAX_REDIRECTS} times"):
            openai_model(server).complete(ask())
        assert len(server.seen) == MAX_REDIRECTS + 1
