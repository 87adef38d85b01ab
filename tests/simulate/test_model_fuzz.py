"""Fuzz of model replies against a loopback server: a well-formed `ModelReply` or a `ModelError`, nothing else.

Hypothesis builds reply bodies (chat completions with parts swapped for any JSON value, any JSON,
random bytes, byte-mutated completions, nesting up to 100,000 deep) and a status code; one loopback
server, shared by every example, answers each. Bounded to about 150 examples (a few seconds).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loopback import Answer, LoopbackServer, completion, serving

from trackerkit import ModelError, OpenAIModel
from trackerkit.simulate.completion import MAX_TOKENS
from trackerkit.simulate.model import ModelReply, ModelRequest, ToolCall

MAX_BODY = 64 * 1024

JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _or_any(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly `valid`, sometimes any JSON value in its place."""
    return st.one_of(valid, valid, valid, JSON)


FUNCTION = st.fixed_dictionaries(
    {},
    optional={
        "name": _or_any(st.sampled_from(["update_trackers", "look", ""])),
        "arguments": _or_any(
            st.text(max_size=30) | st.dictionaries(st.text(max_size=5), JSON, max_size=3)
        ),
    },
)
CALL = st.fixed_dictionaries(
    {"type": st.just("function")},
    optional={"id": _or_any(st.text(max_size=8) | st.none()), "function": _or_any(FUNCTION)},
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.just("assistant")},
    optional={
        "content": _or_any(st.none() | st.text(max_size=40)),
        "tool_calls": _or_any(st.none() | st.lists(_or_any(CALL), max_size=3)),
    },
)
CHOICE = st.fixed_dictionaries(
    {"index": st.just(0)},
    optional={
        "message": _or_any(MESSAGE),
        "finish_reason": _or_any(st.none() | st.sampled_from(["stop", "tool_calls", "length"])),
    },
)
COUNT = _or_any(st.none() | st.integers(min_value=0, max_value=MAX_TOKENS))
USAGE = st.fixed_dictionaries({}, optional={"prompt_tokens": COUNT, "completion_tokens": COUNT})
COMPLETION = st.fixed_dictionaries(
    {"object": st.just("chat.completion")},
    optional={"choices": _or_any(st.lists(_or_any(CHOICE), max_size=2)), "usage": _or_any(USAGE)},
)


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    """A valid completion with a few bytes replaced, inserted or deleted."""
    body = bytearray(json.dumps(completion("Hi.", [("c1", "look", {"q": 1})], (5, 2))).encode())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(body) - 1))
        kind = draw(st.sampled_from(["replace", "insert", "delete"]))
        byte = draw(st.integers(0, 255))
        if kind == "replace":
            body[at] = byte
        elif kind == "insert":
            body.insert(at, byte)
        else:
            del body[at]
    return bytes(body)


@st.composite
def _deep(draw: st.DrawFn) -> bytes:
    """A completion whose content (or the whole body) is nested up to 100,000 deep."""
    depth = draw(st.integers(1, 100_000))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    nested = opener * depth + (b"1" if opener != b"[" else b"") + closer * depth
    if draw(st.booleans()):
        return nested
    return json.dumps(completion("X")).encode().replace(b'"X"', nested)


BODIES = st.one_of(
    COMPLETION.map(lambda data: json.dumps(data).encode()),
    JSON.map(lambda data: json.dumps(data).encode()),
    st.binary(max_size=200),
    _mutated(),
    _deep(),
    st.integers(1, 4096).map(lambda extra: b" " * (MAX_BODY + extra)),
)
STATUSES = st.one_of(st.just(200), st.integers(200, 599))


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    """One loopback server for every example."""
    with serving() as running:
        yield running


def _well_formed(reply: ModelReply) -> None:
    assert isinstance(reply, ModelReply)
    assert isinstance(reply.content, str)
    assert isinstance(reply.finish_reason, str)
    assert isinstance(reply.tool_calls, tuple)
    for call in reply.tool_calls:
        assert isinstance(call, ToolCall)
        assert all(isinstance(part, str) for part in (call.id, call.name, call.arguments))
        (call.id + call.name + call.arguments).encode()  # valid UTF-8 text: no lone surrogate
    reply.content.encode()
    for count in (reply.usage_in, reply.usage_out):
        assert count is None or (type(count) is int and 0 <= count <= MAX_TOKENS)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(body=BODIES, status=STATUSES, tools=st.booleans())
def test_any_reply_is_a_reply_or_a_model_error(
    server: LoopbackServer, body: bytes, status: int, tools: bool
) -> None:
    """complete() returns a well-formed reply or raises ModelError, for any body and status (never another exception)."""
    server.script(Answer(body, status=status))
    model = OpenAIModel(
        f"{server.url}/v1", "m", api_key_env="TRACKERKIT_FUZZ_KEY", timeout=10, max_body=MAX_BODY
    )
    offered = [{"type": "function", "function": {"name": "update_trackers"}}] if tools else []
    try:
        reply = model.complete(ModelRequest([{"role": "user", "content": "hi"}], offered))
    except ModelError:
        return
    assert 200 <= status < 300
    _well_formed(reply)
