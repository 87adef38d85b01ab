"""Models: the OpenAI-compatible path against a loopback server, and the scripted model (TR-34, TR-41)."""

from __future__ import annotations

import copy
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BAG, HEALTH
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

from trackerkit import (
    ModelError,
    OpenAIModel,
    Scene,
    ScriptedModel,
    Session,
    TurnPlan,
    update_trackers_tool,
)
from trackerkit.scene import Prompting
from trackerkit.simulate.model import ToolsRefusedError

HIT = {"updates": [{"tracker": "Health", "set": {"hp": 12}}]}
REFUSAL = {"error": {"message": "registry.ollama.ai/library/tiny does not support tools"}}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, shut down after the test."""
    with serving() as running:
        yield running


def _session(model: Any) -> Session:
    scene = Scene(
        id="s",
        title="S",
        card="You narrate for {{user}}.",
        user="Vera",
        prompting=Prompting(trackers=["health", "bag"]),
    )
    return Session(scene, {"health": copy.deepcopy(HEALTH), "bag": copy.deepcopy(BAG)}, model)


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
        session = _session(openai_model(server))
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
        reply = openai_model(server).complete(ask())
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
            openai_model(server).complete(ask())
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
        openai_model(server).complete(ask())
        assert server.seen[0].headers["Authorization"] == "Bearer sk-loopback"

    def test_no_tools_sends_no_tools_key(self, server: LoopbackServer) -> None:
        """A request that offers no tool has no `tools` key at all (TR-34)."""
        openai_model(server).complete(ask(tools=False))
        assert list(server.seen[0].body) == ["model", "messages"]

    def test_object_arguments_are_read_as_json_text(self, server: LoopbackServer) -> None:
        """A server that sends arguments as an object is read as their JSON text."""
        answer = completion(None, [("c1", "update_trackers", "x")])
        answer["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = HIT
        server.script(answer)
        (call,) = openai_model(server).complete(ask()).tool_calls
        assert (call.id, call.name, json.loads(call.arguments)) == ("c1", "update_trackers", HIT)


class TestErrors:
    """A server that is away, slow, refusing or unreadable gives a plain error (TR-41)."""

    def test_a_server_that_is_away(self) -> None:
        """Connection refused is a ModelError naming the address."""
        port = _free_port()
        model = OpenAIModel(f"http://127.0.0.1:{port}/v1", "m", api_key_env=KEY_ENV, timeout=2)
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        with pytest.raises(ModelError, match=f"^could not reach the model server at {url}: "):
            model.complete(ask())
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
            openai_model(server, timeout=0.2).complete(ask())

    def test_a_model_that_refuses_tools(self, server: LoopbackServer) -> None:
        """HTTP 400 "does not support tools" is a ToolsRefusedError (TR-41)."""
        server.script(Answer(REFUSAL, status=400))
        with pytest.raises(
            ToolsRefusedError,
            match=r"^local-model does not take tools \(registry.ollama.ai/library/tiny does not support tools\)$",
        ):
            openai_model(server).complete(ask())

    def test_a_refusing_model_fails_the_turn_in_one_sentence(self, server: LoopbackServer) -> None:
        """The turn fails in one plain sentence, keeps nothing and the chat takes the next turn (TR-41)."""
        server.script(Answer(REFUSAL, status=400))
        session = _session(openai_model(server))
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
            openai_model(server).complete(ask(tools=False))
        assert not isinstance(raised.value, ToolsRefusedError)

    def test_a_server_error_on_one_line(self, server: LoopbackServer) -> None:
        """An HTTP 500 with a multi-line body is reported on one line."""
        server.script(Answer(b"Internal\n  error\n", status=500))
        with pytest.raises(ModelError, match=r"answered HTTP 500: Internal error$"):
            openai_model(server).complete(ask())

    @pytest.mark.parametrize(
        "body",
        [b"<html>not json</html>", b'{"choices": []}', b"[1, 2]"],
        ids=["html", "no-choices", "a-list"],
    )
    def test_an_answer_that_is_not_a_completion(self, server: LoopbackServer, body: bytes) -> None:
        """A 200 whose body is not a chat completion is a ModelError."""
        server.script(Answer(body))
        with pytest.raises(ModelError, match="answered something that is not a chat completion"):
            openai_model(server).complete(ask())


class TestTurns:
    """A client failure fails the turn in one sentence, keeps nothing, and the chat goes on (TR-41)."""

    def test_content_of_the_wrong_type_fails_the_turn_in_one_sentence(
        self, server: LoopbackServer
    ) -> None:
        """A reply whose content is an object fails the turn with the path, keeps nothing, and the chat goes on."""
        answer = completion("x")
        answer["choices"][0]["message"]["content"] = {"text": "hi"}
        server.script(answer)
        session = _session(openai_model(server))
        report = session.turn("go")
        assert report.failed == (
            f"The model failed: the model server at {server.url}/v1/chat/completions answered "
            "something that is not a chat completion: choices[0].message.content must be text or "
            "null; found an object."
        )
        assert [m.role for m in session.chat.messages] == ["user"]
        assert session.turn("again").ok

    def test_a_trickled_turn_fails_and_the_chat_goes_on(self, server: LoopbackServer) -> None:
        """In a session the trickle fails the turn in one sentence instead of holding it."""
        server.script(Answer(b"", endless=b" ", pace=0.3))
        session = _session(openai_model(server, timeout=1))
        report, raised = guarded(lambda: session.turn("go"))
        assert raised is None
        assert report.failed is not None
        assert report.failed.endswith("did not answer within 1 s.")
        assert session.turn("again").ok


class TestScripted:
    """The embedded scripted model answers from plans, round by round."""

    def test_rounds_then_the_reply(self) -> None:
        """Each round's calls come in order, then the reply; calls get ids when the plan has none."""
        model = ScriptedModel(
            [TurnPlan("Done.", [[{"arguments": HIT}], [{"id": "x", "name": "look"}]])]
        )
        model.start_turn()
        first = model.complete(ask())
        second = model.complete(ask())
        third = model.complete(ask())
        assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
            ("call_1", "update_trackers", json.dumps(HIT))
        ]
        assert [(c.id, c.name, c.arguments) for c in second.tool_calls] == [("x", "look", "{}")]
        assert (third.content, third.tool_calls, third.finish_reason) == ("Done.", (), "stop")

    def test_no_tools_means_no_calls(self) -> None:
        """Without tools offered the plan goes straight to its reply."""
        model = ScriptedModel([TurnPlan("Plain.", [[{"arguments": HIT}]])])
        model.start_turn()
        assert model.complete(ask(tools=False)).content == "Plain."

    def test_refuses_tools(self) -> None:
        """A plan that refuses tools raises ToolsRefusedError only when tools are offered (TR-41)."""
        model = ScriptedModel([TurnPlan("x", refuses_tools=True)])
        model.start_turn()
        with pytest.raises(ToolsRefusedError):
            model.complete(ask())
        assert model.complete(ask(tools=False)).content == "x"

    def test_asked_outside_a_turn(self) -> None:
        """A scripted model asked before a turn starts says so."""
        with pytest.raises(ModelError, match="outside a turn"):
            ScriptedModel().complete(ask())

    def test_rounds_must_be_lists(self) -> None:
        """A step whose rounds are not lists of calls is refused in words."""
        with pytest.raises(ModelError, match="rounds must be a list of lists"):
            TurnPlan.from_step({"reply": "x", "rounds": [{"name": "look"}]})
