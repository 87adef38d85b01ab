"""Models: the OpenAI-compatible path against a loopback server, and the scripted model (TR-34, TR-41)."""

from __future__ import annotations

import copy
import json
import socket
from collections.abc import Iterator
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
from trackerkit.model import ModelRequest, ToolsRefusedError
from trackerkit.scene import Prompting

KEY_ENV = "TRACKERKIT_LOOPBACK_KEY"
HIT = {"updates": [{"tracker": "Health", "set": {"hp": 12}}]}
REFUSAL = {"error": {"message": "registry.ollama.ai/library/tiny does not support tools"}}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, shut down after the test."""
    with serving() as running:
        yield running


def _model(server: LoopbackServer, timeout: float = 5.0) -> OpenAIModel:
    return OpenAIModel(f"{server.url}/v1", "local-model", api_key_env=KEY_ENV, timeout=timeout)


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
        "body",
        [b"<html>not json</html>", b'{"choices": []}', b"[1, 2]"],
        ids=["html", "no-choices", "a-list"],
    )
    def test_an_answer_that_is_not_a_completion(self, server: LoopbackServer, body: bytes) -> None:
        """A 200 whose body is not a chat completion is a ModelError."""
        server.script(Answer(body))
        with pytest.raises(ModelError, match="answered something that is not a chat completion"):
            _model(server).complete(_ask())


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
