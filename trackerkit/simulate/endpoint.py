"""One POST to a model server, bounded three ways: a deadline for the whole call, a cap on the body, one origin.

httpx does the HTTP. Its timeouts are per phase and per read, so a server that sends a byte just
inside each read timeout could hold a call for ever; here every phase is given only the time left
before the call's deadline, and a watchdog shuts the call's connections when the deadline passes,
which ends any read or write in progress (the status line, the headers, the body, a TLS handshake).
The body is streamed and refused as soon as it passes the cap, error bodies too. A redirect is
followed only within the origin it came from (scheme, host and port), so the API key and the
conversation never go to another host.

The name lookup before connecting is the system resolver's and is not bounded by the deadline.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from trackerkit.errors import ModelError

__all__ = ["MAX_BODY", "MAX_REDIRECTS", "Answer", "address_problem", "post"]

MAX_BODY = 32 * 1024 * 1024
"""The most bytes of one response body read from a model server (32 MiB); a longer body is refused unread.

This bounds what the client reads from the HTTP server, not a tool's answer (TR-39 leaves those uncapped).
"""

MAX_REDIRECTS = 5
"""How many same-origin redirects one call follows before it gives up."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Answer:
    """What the server answered: its status, reason phrase and whole body (at most the cap)."""

    status: int
    reason: str
    body: bytes
    #: The answer's headers, lower-cased names (a `retry-after` on a 429, say).
    headers: tuple[tuple[str, str], ...] = ()


class _Deadline:
    """The end of one call. When it passes, the call's connections are shut, so nothing outlasts it.

    Each connection is registered when it opens (httpcore's documented `trace` extension reports
    every `connect_tcp`); a duplicate of its socket is kept, because `shutdown` on a duplicate ends
    the connection for every holder, even after TLS has taken over the original socket object.
    """

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        self.passed = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds left before the deadline (0 once it has passed)."""
        return max(self.end - time.monotonic(), 0.0)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: keep a handle on every connection the call opens."""
        if not event.endswith(("connect_tcp.complete", "connect_unix_socket.complete")):
            return
        raw = info["return_value"].get_extra_info("socket")
        if not isinstance(raw, socket.socket):
            return
        held = raw.dup()
        with self._lock:
            self._sockets.append(held)
            if self.passed:
                _shut(held)

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            for held in self._sockets:
                _shut(held)

    def close(self) -> None:
        """Stop the watchdog and let go of the duplicated sockets."""
        self._timer.cancel()
        with self._lock:
            for held in self._sockets:
                held.close()
            self._sockets.clear()


def _shut(held: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by its connection
        held.shutdown(socket.SHUT_RDWR)


def address_problem(url: str) -> str | None:
    """What is wrong with an http(s) address no call could reach, in words; None when it reads.

    Asked of a base URL before any turn is played, so a typo is said once rather than as every
    turn's failure: an address httpx cannot read (`http://[::1`, a bracket left open), one with
    no host (`http://:8080/v1`), or a port outside 1 to 65535.

    >>> address_problem("http://[::1")
    "is not a well-formed address (Invalid port: ':1')"
    """
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        return f"is not a well-formed address ({exc})"
    if not parsed.host:
        return "names no host"
    if parsed.port is not None and not 0 < parsed.port < 65536:
        return f"has the port {parsed.port}; a port is from 1 to 65535"
    return None


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float,
    max_body: int = MAX_BODY,
    verify: ssl.SSLContext | bool = True,
) -> Answer:
    """POST `body` to `url` and read the answer, all within `timeout` seconds.

    Args:
        url: where to post; a redirect is followed only to the same scheme, host and port.
        body: the request body.
        headers: the request headers (an `Authorization` header only ever goes to `url`'s origin).
        timeout: seconds for the whole call: connecting, sending, and reading every byte.
        max_body: the most body bytes read; a longer body, of any status, is refused.
        verify: TLS verification as httpx takes it (`True`, or an `ssl.SSLContext`).

    Raises:
        ModelError: the server is away, did not finish within `timeout`, broke off, redirected to
            another origin (or more than `MAX_REDIRECTS` times), or sent a body over `max_body`.
    """
    deadline = _Deadline(timeout)
    try:
        with httpx.Client(verify=verify, follow_redirects=False) as client:
            request = client.build_request(
                "POST", url, content=body, headers={**headers, "Accept-Encoding": "identity"}
            )
            for _ in range(MAX_REDIRECTS + 1):
                request.extensions = {
                    **request.extensions,
                    "timeout": httpx.Timeout(deadline.left()).as_dict(),
                    "trace": deadline.trace,
                }
                response = client.send(request, stream=True)
                try:
                    target = response.next_request
                    if target is None:
                        return Answer(
                            response.status_code,
                            response.reason_phrase,
                            _read(response, url, max_body, deadline),
                            tuple(response.headers.items()),
                        )
                finally:
                    response.close()
                if _origin(target.url) != _origin(request.url):
                    raise ModelError(
                        f"the model server at {url} redirected to {target.url}, another origin; "
                        "trackerkit does not follow it (the API key and the conversation would go "
                        "there). Use that address as the base URL if it is the right server."
                    )
                request = target
            raise ModelError(
                f"the model server at {url} redirected more than {MAX_REDIRECTS} times; "
                "check the base URL"
            )
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise _failure(exc, url, timeout, deadline.passed) from None
    finally:
        deadline.close()


def _read(response: httpx.Response, url: str, limit: int, deadline: _Deadline) -> bytes:
    """The whole body, streamed, refused as soon as it passes `limit` bytes."""
    status = f"HTTP {response.status_code}"
    over = ModelError(
        f"the model server at {url} answered {status} with a body over {limit:,} bytes, the cap on "
        "what trackerkit reads from a model server; nothing of it was used (raise max_body if the "
        "server is right to answer that much)"
    )
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding != "identity":
        raise ModelError(
            f"the model server at {url} answered {status} compressed ({encoding}) though trackerkit "
            "asked for an uncompressed body"
        )
    declared = response.headers.get("Content-Length", "")
    if declared.isascii() and declared.isdigit() and (len(declared) > 18 or int(declared) > limit):
        raise over
    chunks = []
    size = 0
    for chunk in response.iter_raw():
        size += len(chunk)
        if size > limit:
            raise over
        chunks.append(chunk)
    if deadline.passed:  # the watchdog's shutdown reads as the end of a body sent without a length
        raise httpx.ReadTimeout("the call's deadline passed")
    return b"".join(chunks)


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def _failure(exc: Exception, url: str, timeout: float, expired: bool) -> ModelError:
    if expired or isinstance(exc, httpx.TimeoutException):
        return ModelError(f"the model server at {url} did not answer within {timeout:g} s")
    # httpx's text can quote what the server sent (a garbled status line): one line, cut short.
    reason = " ".join(str(exc).split())
    reason = reason if len(reason) <= 200 else reason[:197] + "..."
    if isinstance(
        exc, httpx.ConnectError | httpx.ProxyError | httpx.UnsupportedProtocol | httpx.InvalidURL
    ):
        return ModelError(f"could not reach the model server at {url}: {reason}")
    return ModelError(f"the model server at {url} broke off its answer: {reason}")
