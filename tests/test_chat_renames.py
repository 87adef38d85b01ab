"""A chat's stored values follow the field renames and deletions the library saves (TR-44).

Each test copies the bundled data, writes in a chat, saves a patch that renames or deletes a
field (the library records it in `.renames/<id>.json`), and reads the chat again.
"""

from __future__ import annotations

import copy
import json
import pickle
import shutil
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import HEALTH

from trackerkit import Chat, Library, Scene, encode_tracker, load_scene, tracker_changes_between
from trackerkit.errors import BadRequestError
from trackerkit.prompt import render_trackers_block
from trackerkit.renames import FieldRenames
from trackerkit.scene import Prompting
from trackerkit.simulate.playback import pinned, play_page
from trackerkit.state import Delta, Message, Take, Version
from trackerkit.tracker import decode_tracker

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the bundled data; its tracker folder."""
    shutil.copytree(DATA / "scenes", tmp_path / "scenes")
    shutil.copytree(DATA / "trackers", tmp_path / "trackers")
    return tmp_path / "trackers"


def _chat(folder: Path) -> Chat:
    return Chat(load_scene(folder.parent / "scenes" / "typical.json"), folder)


def _reply(chat: Chat, *updates: dict[str, Any]) -> Message:
    chat.add_user("go on")
    turn = chat.begin_turn()
    assert turn.call({"updates": list(updates)}).ok
    return turn.commit("done")


def _patch(
    folder: Path, tracker_id: str, renames: Mapping[str, str], deleted: Collection[str] = ()
) -> None:
    """Save `tracker_id` with its fields renamed and deleted, as the designer saves a patch."""
    library = Library(folder)
    tracker = library.get(tracker_id)
    fields = []
    for field in encode_tracker(tracker)["body"]["fields"]:
        if field["name"] in deleted:
            continue
        for key in ("name", "maxField"):
            if key in field:
                field[key] = renames.get(field[key], field[key])
        fields.append(field)
    library.patch(
        tracker_id, tracker.revision, {"body": {"fields": fields}}, renames=renames, deleted=deleted
    )


def _changed(chat: Chat, tracker: str = "Health") -> list[dict[str, Any]]:
    """The changes read's entries for `tracker` on m2 (the first reply)."""
    read = tracker_changes_between(chat, None, "m1").to_json()["messages"]
    entries = [t for m in read if m["messageId"] == "m2" for t in m["trackers"]]
    return [c for t in entries if t["name"] == tracker for c in t["changes"]]


class TestRenamedField:
    """A field renamed by a save keeps its values, its changes and its prompt text in the chat."""

    def test_value_follows_the_rename(self, folder: Path) -> None:
        """The value written under `hp` reads under `vit` once `hp` is renamed `vit`."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        _patch(folder, "health", {"hp": "vit"})
        assert chat.values()["Health"] == {"vit": 25, "hp_max": 30, "mood": "calm"}
        assert chat.values("m2")["Health"]["vit"] == 25

    def test_changes_read_names_the_new_field(self, folder: Path) -> None:
        """The changes read, as the first read after the save, lists m2's change under `vit`."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        _patch(folder, "health", {"hp": "vit"})
        assert _changed(chat) == [{"field": "vit", "before": 0, "after": 25}]

    def test_prompt_block_shows_the_new_name(self, folder: Path) -> None:
        """The next turn's `### Trackers` block shows `vit=25`."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        _patch(folder, "health", {"hp": "vit"})
        chat.add_user("and now?")
        turn = chat.begin_turn()
        block = render_trackers_block(turn.trackers, turn.state).text
        assert "Health: vit=25, hp_max=30, mood=calm" in (block or "")

    def test_swap_in_one_save(self, folder: Path) -> None:
        """Two fields swapping names in one save swap their values too."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25, "hp_max": 40}})
        _patch(folder, "health", {"hp": "hp_max", "hp_max": "hp"})
        assert chat.values()["Health"] == {"hp": 40, "hp_max": 25, "mood": "calm"}

    def test_two_saves_apply_in_one_read(self, folder: Path) -> None:
        """A rename and a rename again, saved between two reads, both apply at the next read."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        chat.values()
        _patch(folder, "health", {"hp": "vit"})
        _patch(folder, "health", {"vit": "life"})
        assert chat.values()["Health"]["life"] == 25
        assert _changed(chat) == [{"field": "life", "before": 0, "after": 25}]

    def test_list_row_fields_follow(self, folder: Path) -> None:
        """A list tracker's rows hold their values under the renamed field."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Pack", "row": "rope", "set": {"qty": 2}})
        _patch(folder, "pack", {"qty": "count"})
        assert chat.values()["Pack"] == {"rope": {"count": 2, "worn": False}}

    def test_persons_edit_follows(self, folder: Path) -> None:
        """A person's edit (a message-level delta) is renamed like a reply's write."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        chat.edit("Health", set={"hp": 12})
        _patch(folder, "health", {"hp": "vit"})
        assert chat.values()["Health"]["vit"] == 12
        assert chat.take.messages[-1].edits == (Delta("tracker-record:health", "vit", 12),)


class TestDeletedField:
    """A field deleted by a save takes its stored values with it."""

    def test_values_and_changes_dropped(self, folder: Path) -> None:
        """The deleted `mood` is gone from the stored deltas, the values and m2's changes."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25, "mood": "tense"}})
        _patch(folder, "health", {}, deleted=["mood"])
        assert chat.values()["Health"] == {"hp": 25, "hp_max": 30}
        assert _changed(chat) == [{"field": "hp", "before": 0, "after": 25}]
        assert [d.key for d in chat.take.messages[1].deltas()] == ["hp"]

    def test_deleted_then_name_given_again(self, folder: Path) -> None:
        """A field deleted and its name given to a new field in a later save does not get the old value."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"mood": "tense"}})
        _patch(folder, "health", {}, deleted=["mood"])
        library = Library(folder)
        tracker = library.get("health")
        fields = encode_tracker(tracker)["body"]["fields"]
        fields.append({"name": "mood", "description": "A word.", "type": "text"})
        library.patch("health", tracker.revision, {"body": {"fields": fields}})
        assert chat.values()["Health"]["mood"] == ""

    def test_list_row_field_dropped(self, folder: Path) -> None:
        """A list row keeps its row but loses the deleted field."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Pack", "row": "rope", "set": {"qty": 2, "worn": True}})
        _patch(folder, "pack", {}, deleted=["worn"])
        assert chat.values()["Pack"] == {"rope": {"qty": 2}}
        assert chat.take.messages[1].deltas()[0].value == {"qty": 2}


class TestTakes:
    """Every take is carried through the renames, and messages that takes share stay shared."""

    def test_fork_migrated_once(self, folder: Path) -> None:
        """Both takes of a fork read the renamed value, and still share the message they shared."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        chat.fork("m2")
        _reply(chat, {"tracker": "Health", "set": {"hp": 20}})
        chat.use("t1")
        _reply(chat, {"tracker": "Health", "set": {"hp": 10}})
        _patch(folder, "health", {"hp": "vit"})
        assert chat.values()["Health"]["vit"] == 10
        chat.use("t2")
        assert chat.values()["Health"]["vit"] == 20
        assert chat.values("m2")["Health"]["vit"] == 25
        assert chat.takes["t1"].messages[1] is chat.takes["t2"].messages[1]

    def test_version_read_before_still_edits(self, folder: Path) -> None:
        """A version a person read before the rename still stands for an edit after it."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        version = chat.take.version
        _patch(folder, "health", {"hp": "vit"})
        assert chat.edit("Health", set={"vit": 7}, base_version=version).ok
        assert chat.values()["Health"]["vit"] == 7

    def test_second_read_changes_nothing(self, folder: Path) -> None:
        """Reading again after the renames were followed leaves every message as it is."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        _patch(folder, "health", {"hp": "vit"})
        chat.values()
        held = list(chat.take.messages)
        assert chat.values()["Health"]["vit"] == 25
        assert all(a is b for a, b in zip(chat.take.messages, held, strict=True))


class TestOpenTurn:
    """A rename saved while a reply is written applies once the reply is committed."""

    def test_commit_then_renamed(self, folder: Path) -> None:
        """The reply's write under `hp` ends under `vit`, read after the commit."""
        chat = _chat(folder)
        chat.add_user("hit")
        turn = chat.begin_turn()
        assert turn.call({"updates": [{"tracker": "Health", "set": {"hp": 25}}]}).ok
        _patch(folder, "health", {"hp": "vit"})
        chat.values()  # a read while the turn is open renames nothing
        assert turn.values()["Health"]["hp"] == 25
        turn.commit("ow")
        assert chat.values()["Health"]["vit"] == 25
        assert _changed(chat) == [{"field": "vit", "before": 0, "after": 25}]


class TestLeftAlone:
    """What has no record, or cannot be read, is left as it is."""

    def test_pieces_in_memory(self) -> None:
        """A chat on pieces given in memory keeps its deltas when a piece moves to a new revision."""
        pieces: dict[str, object] = {"health": HEALTH}
        chat = Chat(Scene(id="s", title="S", prompting=Prompting(trackers=["health"])), pieces)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        renamed = copy.deepcopy(HEALTH)
        renamed["revision"] = 1
        for field in renamed["body"]["fields"]:
            if field["name"] == "hp":
                field["name"] = "vit"
        pieces["health"] = decode_tracker(renamed)
        assert chat.values()["Health"]["vit"] == 0
        assert chat.take.messages[1].deltas() == [Delta("tracker-record:health", "hp", 25)]

    def test_unreadable_piece_waits(self, folder: Path) -> None:
        """A piece that cannot be read keeps its values as written until it reads again."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        _patch(folder, "health", {"hp": "vit"})
        piece = folder / "health.json"
        saved = piece.read_bytes()
        piece.write_text("{not json")
        assert "Health" not in chat.values()
        assert chat.take.messages[1].deltas()[0].key == "hp"
        piece.write_bytes(saved)
        assert chat.values()["Health"]["vit"] == 25

    def test_chat_stored_before(self, folder: Path) -> None:
        """A chat pickled before it kept revisions reads on, taking the next read as its first."""
        chat = _chat(folder)
        _reply(chat, {"tracker": "Health", "set": {"hp": 25}})
        del chat.__dict__["_seen"]
        restored: Chat = pickle.loads(pickle.dumps(chat))
        assert restored.values()["Health"]["hp"] == 25


class TestFieldRenames:
    """`FieldRenames.changed_between` says whether a save in a range renamed or deleted a field."""

    @pytest.mark.parametrize(
        ("since", "until", "changed"),
        [(0, 1, True), (1, 2, False), (1, 3, True), (3, 3, False)],
        ids=["rename", "plain-save", "delete", "empty-range"],
    )
    def test_changed_between(self, since: int, until: int, changed: bool) -> None:
        """Only a save in (since, until] that renamed or deleted a field counts."""
        history = FieldRenames(((1, {"hp": "vit"}), (2, {})), ((3, frozenset({"mood"})),))
        assert history.changed_between(since, until) is changed


class TestTakeRewrite:
    """`Take.rewrite` puts rewritten messages in place, drops stale folds, and keeps the version."""

    @staticmethod
    def _take() -> Take:
        take = Take("t1")
        take.add("assistant", "a", [Delta("tracker-record:x", "hp", 1)])
        take.add("assistant", "b", [Delta("tracker-record:x", "hp", 2)])
        return take

    def test_folds_follow_and_version_stays(self) -> None:
        """The tip's state reads the rewritten deltas, and the version does not move."""
        take = self._take()
        assert take.state_at() == {"tracker-record:x": {"hp": 2}}
        version = take.version

        def renamed(message: Message) -> Message:
            deltas = tuple(Delta(d.slot, "vit", d.value) for d in message.version.deltas)
            return Message(message.id, message.role, (Version(message.text, deltas),))

        take.rewrite(renamed)
        assert (take.state_at(), take.version) == ({"tracker-record:x": {"vit": 2}}, version)

    def test_refuses_another_id(self) -> None:
        """A rewrite that gives a message another id is refused and nothing is put in place."""
        take = self._take()
        held = list(take.messages)
        with pytest.raises(BadRequestError, match="must keep message ids"):
            take.rewrite(lambda m: Message("m9", m.role, m.versions))
        assert take.messages == held


class TestSimulator:
    """The simulator's replays rename a step's calls (`pins`) and its chat renames what is stored;
    each goes from its own revision, so nothing is renamed twice."""

    def test_swap_replayed_then_renamed_live(self, folder: Path) -> None:
        """A step pinned before a swap, one after it, and a rename saved after the replay all read right."""
        scene = folder.parent / "scenes" / "fight.json"
        calls = [{"name": "update_trackers", "arguments": {"updates": []}}]

        def step(values: dict[str, int]) -> dict[str, Any]:
            calls[0]["arguments"] = {"updates": [{"tracker": "Health", "set": values}]}
            return pinned(
                {"user": "I act.", "reply": "Done.", "callsText": json.dumps(calls)}, scene
            )

        before = step({"hp_max": 40, "hp": 35})
        _patch(folder, "health", {"hp": "hp_max", "hp_max": "hp"})
        after = step({"hp": 41})
        playback = play_page(scene, [before, after], scripted=0)
        assert playback.session.chat.values()["Health"] == {"hp": 41, "hp_max": 35, "mood": "calm"}
        _patch(folder, "health", {"hp": "vit"})
        assert playback.session.chat.values()["Health"] == {"vit": 41, "hp_max": 35, "mood": "calm"}
