"""The harness's client: retries on 429 and 5xx, Retry-After honoured, the deadline kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from loopback import Answer, ask, completion, serving

from trackerkit.errors import ModelError
from trackerkit.evaluation.client import TAG_HEADER, EndpointModel, retry_after


def _model(url: str, waits: list[float], **options: object) -> EndpointModel:
    return EndpointModel(f"{url}/v1", "m", api_key_env="NO_SUCH_KEY", sleep=waits.append, **options)  # type: ignore[arg-type]


def test_retry_after_forms() -> None:
    """Seconds, an HTTP date (against now), nothing, nonsense."""
    now = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after("3") == 3.0
    assert retry_after("0.5") == 0.5
    assert retry_after("Tue, 01 Dec 2026 12:00:07 GMT", now) == 7.0
    assert retry_after("Tue, 01 Dec 2026 11:00:00 GMT", now) == 0.0
    assert retry_after(None) is None
    assert retry_after("soon") is None


def test_429_and_503_are_retried_with_the_waits_asked() -> None:
    """Retry-After when sent, else a doubling backoff; the tag goes in its header; retries counted."""
    waits: list[float] = []
    with serving() as server:
        server.script(
            Answer(
                {"error": {"message": "slow down"}}, status=429, headers=(("Retry-After", "2"),)
            ),
            Answer({"error": {"message": "busy"}}, status=503),
            Answer({"error": {"message": "busy"}}, status=503),
            completion("done"),
        )
        model = _model(server.url, waits, backoff=0.25)
        model.tag = ("fight", 3, 1)
        reply = model.complete(ask())
    assert reply.content == "done"
    assert waits == [2.0, 0.5, 1.0]  # attempt 0 waited as asked; then 0.25 * 2**1, * 2**2
    assert model.retries == 3
    assert [s.headers[TAG_HEADER] for s in server.seen] == ["scenario=fight; step=3; run=1"] * 4


def test_retries_end() -> None:
    """After max_retries the error is the server's, with the tries counted; 400 is never retried."""
    waits: list[float] = []
    with serving() as server:
        server.script(*[Answer({"error": {"message": "busy"}}, status=500)] * 3)
        with pytest.raises(ModelError, match="HTTP 500 after 3 tries: busy"):
            _model(server.url, waits, max_retries=2, backoff=0).complete(ask())
        server.script(Answer({"error": {"message": "bad"}}, status=400))
        with pytest.raises(ModelError, match="HTTP 400: bad"):
            _model(server.url, waits).complete(ask())
    assert len(waits) == 2


def test_a_wait_past_the_deadline_is_not_made() -> None:
    """A Retry-After longer than the time left ends the call at once, saying why."""
    waits: list[float] = []
    with serving() as server:
        server.script(
            Answer({"error": {"message": "later"}}, status=429, headers=(("Retry-After", "120"),))
        )
        with pytest.raises(ModelError, match="waiting 120 s more would pass the 5 s deadline"):
            _model(server.url, waits, timeout=5.0).complete(ask())
    assert waits == []
