"""A noisy model for testing the harness: an OpenAI-compatible server on 127.0.0.1 with known error rates.

`NoisyServer` answers each chat completion from the scenario's own scripted calls (so with every
rate at 0 it plays exactly as the scripted model), then spoils them at the rates of `Noise`: it
misses an update, writes a number off by one, writes a field that should not change, sends
malformed arguments (a refused batch, corrected in the next round), makes no call at all, answers
slowly, or answers 429 first. Every choice is drawn from a generator seeded by the seed and the
(scenario, step, run) the harness's client names in its `X-Trackerkit-Eval` header, never by the
order requests arrive in, so concurrency cannot change them. `injected` lists what was done.

A request that offers no tool but whose prompt asks for the text protocol's update block (a
variant with `protocol="text"`) is answered with the same calls, spoiled alike, written as that
block at the end of the reply; there is one round per turn, so a malformed block is not sent again.
A request whose update tool is a strict export's (a variant with `tool_style` "strict" or
"gemini") is answered in that tool's shape: the same calls, spoiled alike, with a null for every
field not given (`trackerkit.evaluation.tool_style.strict_shape`).
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import random
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeAlias

from trackerkit.errors import BadRequestError
from trackerkit.evaluation.client import TAG_HEADER
from trackerkit.evaluation.tool_style import strict_parameters_offered, strict_shape
from trackerkit.evaluation.variants import load_design
from trackerkit.fields import describe_value
from trackerkit.formats.text_protocol import BLOCK_LABEL
from trackerkit.scene import Scene, load_scene, scene_trackers
from trackerkit.simulate.model import text_block
from trackerkit.steps import TurnPlan, decode_steps
from trackerkit.tracker import Tracker

__all__ = ["KINDS", "Noise", "NoisyServer", "serving_noisy"]

#: A request's (scenario, step, run), as the harness's client tags it.
_Key: TypeAlias = tuple[str, int, int]
#: (status, JSON body, headers) of one answer.
_Response: TypeAlias = tuple[int, dict[str, Any], dict[str, str]]

#: The kinds of noise, in the order their draws are made.
KINDS = ("rate_limit", "slow", "no_call", "malformed", "miss", "off_by_one", "extra_write")
#: The fields of `Noise` that are seconds to wait.
_DURATIONS = ("slow_seconds", "delay")


@dataclass(frozen=True, slots=True)
class Noise:
    """How often each kind of error happens, per scored turn (each drawn on its own)."""

    rate_limit: float = 0.0
    slow: float = 0.0
    no_call: float = 0.0
    malformed: float = 0.0
    miss: float = 0.0
    off_by_one: float = 0.0
    extra_write: float = 0.0
    slow_seconds: float = 0.05
    #: Every answer waits this long (a model's thinking time); `slow` answers wait more.
    delay: float = 0.0
    retry_after: str = "0"
    seed: int = 0

    def __post_init__(self) -> None:
        """Refuse a rate outside [0, 1] and a wait that is negative or not finite (NaN too).

        Raises:
            BadRequestError: the first such field, named, with what is allowed and what was found.
        """
        for kind in KINDS:
            rate = getattr(self, kind)
            if not _is_number(rate) or not 0 <= rate <= 1:
                raise BadRequestError(
                    f"Noise.{kind} must be a rate from 0 to 1; found {describe_value(rate)}"
                )
        for name in _DURATIONS:
            seconds = getattr(self, name)
            if not _is_number(seconds) or not 0 <= seconds < math.inf:
                raise BadRequestError(
                    f"Noise.{name} must be a finite number of seconds, 0 or more; found "
                    f"{describe_value(seconds)}"
                )


def _is_number(value: object) -> bool:
    """An int or float, not a bool (NaN passes here; the range checks refuse it)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


class NoisyServer(ThreadingHTTPServer):
    """Plays the scenarios' scripted calls, spoiled at the rates of `noise`.

    Args:
        scenes: the scene files the harness plays (their ids name them in requests).
        noise: the error rates and the seed.
        trackers: the tracker folder (default: `trackers/` beside each scene's folder), read to
            pick a field that should not change.
    """

    daemon_threads = True

    def __init__(
        self, scenes: Sequence[str | Path], noise: Noise = Noise(), trackers: Path | None = None
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.noise = noise
        self.scenes: dict[str, tuple[Scene, list[Any], list[Tracker]]] = {}
        for item in scenes:
            path = Path(item)
            scene = load_scene(path)
            folder = scene_trackers(path, trackers)
            self.scenes[scene.id] = (scene, decode_steps(scene.turns), load_design(scene, folder))
        self.injected: list[tuple[str, int, int, str]] = []
        self.requests = 0
        #: The tools of the first request seen (so a test can tell which tool design was sent).
        self.first_tools: list[Any] | None = None
        #: Every Authorization header seen (so a test can tell the key arrived, and only here).
        self.authorizations: set[str] = set()
        self._limited: set[tuple[str, int, int]] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The API root to give the harness, `http://127.0.0.1:<port>/v1`."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def answer(self, tag: str | None, body: Mapping[str, Any]) -> _Response:
        """(status, JSON body, headers) for one request."""
        self._count(body)
        found = self._step_of(tag)
        if found is None:
            return (
                400,
                {"error": {"message": f"{TAG_HEADER} must name a scenario step: {tag!r}"}},
                {},
            )
        key, step, plan, trackers = found
        rng = random.Random(f"{self.noise.seed}/{key[0]}/{key[1]}/{key[2]}")
        drawn = {kind: rng.random() < getattr(self.noise, kind) for kind in KINDS}
        round_index = _round_of(body.get("messages") or [])
        first = round_index == 0
        if drawn["rate_limit"] and first and (limited := self._limit_once(key)) is not None:
            return limited
        self._wait(key, slow=drawn["slow"], first=first)
        if not body.get("tools"):
            if not _asks_for_block(body):
                return 200, _completion(plan.reply, []), {}
            made = self._calls(key, drawn, round_index, (step, plan), trackers)
            return 200, _as_block(made, plan.reply), {}
        made = self._calls(key, drawn, round_index, (step, plan), trackers)
        return 200, _shaped(made, strict_parameters_offered(body["tools"])), {}

    def _count(self, body: Mapping[str, Any]) -> None:
        """Count the request, and keep the tools of the first one that offers any."""
        with self._lock:
            self.requests += 1
            if self.first_tools is None and body.get("tools"):
                self.first_tools = list(body["tools"])

    def _step_of(self, tag: str | None) -> tuple[_Key, Any, TurnPlan, list[Tracker]] | None:
        """The (scenario, step, run) the harness's tag names, that step, its plan and trackers."""
        try:
            fields = dict(part.strip().split("=", 1) for part in (tag or "").split(";"))
            key = (fields["scenario"], int(fields["step"]), int(fields["run"]))
            _, steps, trackers = self.scenes[key[0]]
            step = steps[key[1]]
            plan = step.plan()
        except (KeyError, ValueError, IndexError, AttributeError):
            return None
        return key, step, plan, trackers

    def _limit_once(self, key: _Key) -> _Response | None:
        """A 429 the first time a step asks (None after that: the retry goes through)."""
        with self._lock:
            if key in self._limited:
                return None
            self._limited.add(key)
            self.injected.append((*key, "rate_limit"))
        limited = {"error": {"message": "rate limited (noisy model)"}}
        return 429, limited, {"Retry-After": self.noise.retry_after}

    def _wait(self, key: _Key, *, slow: bool, first: bool) -> None:
        """The model's thinking time, and more for a slow answer (noted on its first round)."""
        wait = self.noise.delay + (self.noise.slow_seconds if slow else 0.0)
        if slow and first:
            self._note(key, "slow")
        if wait:
            time.sleep(wait)

    def _calls(
        self,
        key: _Key,
        drawn: Mapping[str, bool],
        round_index: int,
        planned: tuple[Any, TurnPlan],
        trackers: list[Tracker],
    ) -> dict[str, Any]:
        """The completion of a round offered tools: the step's scripted calls, spoiled as drawn."""
        step, plan = planned
        reply = _completion(plan.reply, [])
        first = round_index == 0
        if drawn["no_call"]:
            if first and plan.rounds:
                self._note(key, "no_call")
            return reply
        if drawn["malformed"] and first and plan.rounds:
            self._note(key, "malformed")
            return _completion("", [("call_bad", '{"updates": [')])
        if not plan.rounds and first and drawn["extra_write"]:
            # A turn where nothing should change: the noisy model writes something anyway.
            unasked: list[dict[str, Any]] = [{"arguments": {"updates": []}}]
            if _extra_write(unasked, step, trackers):
                self._note(key, "extra_write")
                return _completion("", [("call_extra", json.dumps(unasked[0]["arguments"]))])
        index = round_index - 1 if drawn["malformed"] else round_index
        if not 0 <= index < len(plan.rounds):
            return reply
        calls = copy.deepcopy(plan.rounds[index])
        if index == 0:
            for kind in ("miss", "off_by_one", "extra_write"):
                if drawn[kind] and _SPOIL[kind](calls, step, trackers):
                    self._note(key, kind)
        calls = [c for c in calls if _updates(c)]
        if not calls:
            return reply
        sent = [
            (f"call_{round_index}_{i}", json.dumps(c.get("arguments", {})))
            for i, c in enumerate(calls)
        ]
        return _completion("", sent)

    def _note(self, key: _Key, kind: str) -> None:
        with self._lock:
            self.injected.append((*key, kind))


def _shaped(made: dict[str, Any], strict: Mapping[str, Any] | None) -> dict[str, Any]:
    """A completion's calls in the shape of the strict tool offered (as made when none was)."""
    calls = made["choices"][0]["message"].get("tool_calls") or []
    if strict is not None:
        for call in calls:
            try:
                arguments = json.loads(call["function"]["arguments"])
            except ValueError:
                continue  # a malformed call stays malformed
            call["function"]["arguments"] = json.dumps(strict_shape(arguments, strict))
    return made


def _asks_for_block(body: Mapping[str, Any]) -> bool:
    """Whether the request's system message asks for the text protocol's update block."""
    messages = body.get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], Mapping) else {}
    return first.get("role") == "system" and f"```{BLOCK_LABEL}" in str(first.get("content"))


def _as_block(made: Mapping[str, Any], reply: str) -> dict[str, Any]:
    """A tool-call completion as the text protocol sends it: the reply, then the calls as one block."""
    calls = made["choices"][0]["message"].get("tool_calls") or []
    block = text_block(
        [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in calls]
    )
    return _completion(f"{reply}\n\n{block}" if block else reply, [])


def _round_of(messages: Sequence[Mapping[str, Any]]) -> int:
    """Which round of its turn a request is: the assistant tool calls after the last user message."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return sum(
        1 for m in messages[last_user + 1 :] if m.get("role") == "assistant" and m.get("tool_calls")
    )


def _updates(call: dict[str, Any]) -> list[dict[str, Any]]:
    arguments = call.get("arguments")
    found = arguments.get("updates") if isinstance(arguments, dict) else None
    return found if isinstance(found, list) else []


def _miss(calls: list[dict[str, Any]], step: Any, trackers: list[Tracker]) -> bool:
    """Leave out one written field (or one item without fields)."""
    for call in calls:
        items = _updates(call)
        for item in items:
            written = item.get("set")
            if isinstance(written, dict) and written:
                written.pop(next(iter(written)))
                if not written and not item.get("row"):
                    items.remove(item)
                return True
        if items:
            items.pop(0)
            return True
    return False


def _off_by_one(calls: list[dict[str, Any]], step: Any, trackers: list[Tracker]) -> bool:
    """Write the first number one lower."""
    for call in calls:
        for item in _updates(call):
            for name, value in (item.get("set") or {}).items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    item["set"][name] = value - 1
                    return True
    return False


def _extra_write(calls: list[dict[str, Any]], step: Any, trackers: list[Tracker]) -> bool:
    """Write a choice or flag of a record that should not change, to another value."""
    expected = step.expect.as_mapping() if step.expect is not None else {}
    items = [i for c in calls for i in _updates(c)]
    if not calls:
        return False
    written = {(i.get("tracker"), n) for i in items for n in (i.get("set") or {})}
    for tracker in trackers:
        if tracker.layout != "record" or tracker.name not in expected:
            continue
        for field in tracker.fields:
            if (tracker.name, field.name) in written or field.name not in expected[tracker.name]:
                continue
            value = expected[tracker.name][field.name]
            if field.type == "boolean":
                other: object = not value
            elif field.type == "choice":
                choices = list(getattr(field, "choices", []))
                other = (
                    choices[(choices.index(value) + 1) % len(choices)] if value in choices else None
                )
                if other == value:
                    continue
            else:
                continue
            _updates(calls[0]).append({"tracker": tracker.name, "set": {field.name: other}})
            return True
    return False


_SPOIL = {"miss": _miss, "off_by_one": _off_by_one, "extra_write": _extra_write}


def _completion(content: str, calls: Sequence[tuple[str, str]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": "update_trackers", "arguments": a}}
            for i, a in calls
        ]
    finish = "tool_calls" if calls else "stop"
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


class _Handler(BaseHTTPRequestHandler):
    server: NoisyServer

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        headers: dict[str, str] = {}
        if not isinstance(body, dict):
            status, data = 400, {"error": {"message": "the body is not a JSON object"}}
        else:
            status, data, headers = self.server.answer(self.headers.get(TAG_HEADER), body)
        if "Authorization" in self.headers:
            with self.server._lock:
                self.server.authorizations.add(self.headers["Authorization"])
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(OSError):  # the client gave up waiting
            self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the output quiet."""


@contextmanager
def serving_noisy(
    scenes: Sequence[str | Path], noise: Noise = Noise(), trackers: Path | None = None
) -> Iterator[NoisyServer]:
    """Run a `NoisyServer` in a thread; shut it down and close it afterwards."""
    server = NoisyServer(scenes, noise, trackers)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
