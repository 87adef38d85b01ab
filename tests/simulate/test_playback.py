"""The simulator page's playback: every step's outcome, refusals as sentences, stable ids, takes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from trackerkit.line import md_text
from trackerkit.simulate.playback import (
    Clamp,
    Playback,
    clamps_of,
    compare_protocols,
    linked_names,
    pinned,
    play_page,
    read_json,
    turn_clamps,
)

ROOT = Path(__file__).resolve().parents[2]
FIGHT = ROOT / "data" / "scenes" / "fight.json"
SHOP = ROOT / "data" / "scenes" / "shop.json"
TYPICAL = ROOT / "data" / "scenes" / "typical.json"


def _calls(updates: str) -> str:
    return '[{"name": "update_trackers", "arguments": {"updates": [' + updates + "]}}]"


def _turn(calls: str, user: str = "I act.", reply: str = "It happens.") -> dict[str, str]:
    return {"user": user, "reply": reply, "callsText": calls}


class TestReadJson:
    @pytest.mark.parametrize(
        ("text", "where"),
        [
            ('[{"name": "update_trackers"', "line 1, column 28 (character 27)"),
            ('{"qty": ', "line 1, column 9 (character 8)"),
            ("[\n  1,\n  ]", "line 3, column 3 (character 9)"),
        ],
        ids=["missing-bracket", "missing-value", "trailing-comma-on-line-3"],
    )
    def test_refuses_with_the_parsers_message_and_position(self, text: str, where: str) -> None:
        """Text that does not parse gives a sentence with the parser's message, line, column and character."""
        value, problem = read_json(text, "The tool calls")
        assert value is None
        assert problem is not None
        assert problem.startswith("The tool calls are not valid JSON: ")
        assert where in problem

    def test_reads_valid_json(self) -> None:
        """Valid text is read as JSON with no problem."""
        assert read_json('[{"a": 1}]', "The tool calls") == ([{"a": 1}], None)


def _edit_then_regenerate(hp: int) -> Playback:
    """A turn writing hp 20, a person's edit to hp 18, then a regenerate asking `hp`."""
    steps = [
        _turn(_calls('{"tracker": "Health", "set": {"hp": 20}}')),
        {"action": "edit", "tracker": "Health", "setText": '{"hp": 18}'},
        {
            "action": "regenerate",
            "callsText": _calls(f'{{"tracker": "Health", "set": {{"hp": {hp}}}}}'),
        },
    ]
    return play_page(FIGHT, steps, scripted=2)


class TestClamps:
    def test_a_number_written_other_than_asked_is_a_clamp(self) -> None:
        """A number the values hold otherwise than asked is reported with both."""
        found = clamps_of(
            {"updates": [{"tracker": "Health", "set": {"hp": 80, "mood": "calm"}}]},
            {"Health": {"hp": 40, "mood": "calm"}},
        )
        assert found == (Clamp("Health", None, "hp", 80, 40),)
        assert str(found[0]) == "Health · hp: asked 80, written 40"

    @pytest.mark.parametrize("asked", [9007199254740993, 1e300], ids=["past-2^53", "huge-float"])
    def test_a_number_past_the_safe_range_clamped_is_a_clamp(self, asked: float) -> None:
        """Found when tried: hp asked 9007199254740993 (or 1e300) was written 40 with no note."""
        found = clamps_of(
            {"updates": [{"tracker": "Health", "set": {"hp": asked, "mood": True}}]},
            {"Health": {"hp": 40, "mood": True}},
        )
        assert found == (Clamp("Health", None, "hp", asked, 40),)

    def test_rows_are_matched_case_folded(self) -> None:
        """A list row named in another case is the row the rules wrote."""
        found = clamps_of(
            [{"tracker": "Inventory", "row": "TORCH", "set": {"qty": -3}}],
            {"Inventory": {"Torch": {"qty": 0}}},
        )
        assert found == (Clamp("Inventory", "TORCH", "qty", -3, 0),)

    def test_a_number_written_as_asked_is_no_clamp(self) -> None:
        """Equal numbers (1 and 1.0 too) are no clamp."""
        assert clamps_of([{"tracker": "Health", "set": {"hp": 1.0}}], {"Health": {"hp": 1}}) == ()

    def test_a_persons_edit_under_a_regenerate_is_no_clamp(self) -> None:
        """Found in a trial: after an edit (hp 18), a regenerate asking hp 3 (in range) was noted
        "Clamped: asked 3, written 18"; a clamp compares the ask with what the write stored."""
        playback = _edit_then_regenerate(3)
        regenerated = playback.page_outcomes[-1]
        assert regenerated.report is not None
        assert regenerated.clamps == ()
        assert turn_clamps(regenerated.report) == ()
        assert playback.session.values()["Health"]["hp"] == 18  # the edit still lies over it

    def test_a_clamp_under_a_persons_edit_is_still_a_clamp(self) -> None:
        """A regenerate asking past the top is noted with the number its version stored, not the edit's."""
        playback = _edit_then_regenerate(99)
        assert [str(c) for c in playback.page_outcomes[-1].clamps] == [
            "Health · hp: asked 99, written 30"
        ]


class TestPlayPage:
    def test_refusals_are_outcomes_never_exceptions(self) -> None:
        """Malformed calls, an edit of a tracker the scene does not link and a cut of a gone message are refused sentences."""
        playback = play_page(
            SHOP,
            [
                _turn('[{"name": "update_trackers"'),
                {"action": "edit", "tracker": "Health", "setText": '{"hp": 25}'},
                {"action": "edit", "tracker": "Inventory", "setText": "{", "row": "Torch"},
                {"action": "cut", "message": "m99"},
                {"action": "use", "take": "t9"},
            ],
        )
        refused = [o.refused for o in playback.page_outcomes]
        assert all(refused), refused
        assert "line 1, column 28" in str(refused[0])
        assert refused[1] == "Cannot edit 'Health': the scene does not link it."
        assert "The values to set are not valid JSON" in str(refused[2])
        assert "m99" in str(refused[3])
        assert "t9" in str(refused[4])
        assert len(playback.session.chat.messages) == 10, "nothing refused was written"

    def test_a_refused_step_keeps_what_was_typed(self) -> None:
        """The outcome of a refused edit holds the texts as the page gave them."""
        step = {"action": "edit", "tracker": "Inventory", "setText": '{"qty": ', "row": "Torch"}
        outcome = play_page(SHOP, [step]).page_outcomes[-1]
        assert outcome.refused is not None
        assert outcome.typed == step

    def test_ids_are_the_same_on_every_replay(self) -> None:
        """Playing the same steps twice gives the same message ids, counted in the chat (m1, m2, ...)."""
        steps = [_turn(_calls('{"tracker": "Health", "set": {"hp": 20}}'))]
        first = [m.id for m in play_page(FIGHT, steps).session.chat.messages]
        second = [m.id for m in play_page(FIGHT, steps).session.chat.messages]
        assert first == second == [f"m{n}" for n in range(1, 15)]

    def test_message_labels_count_from_one_as_the_panel_does(self) -> None:
        """The picker's label of message 14 says message 14, as the panel's "changed by message 14"."""
        playback = play_page(
            FIGHT, [_turn(_calls('{"tracker": "Health", "set": {"hp": 20}}'), reply="You bind it.")]
        )
        assert playback.message_labels()["m14"] == "message 14 · assistant · You bind it."

    def test_clamps_and_refused_batches_belong_to_their_reply(self) -> None:
        """The reply a turn wrote carries its clamps; the scripted fight's round-1 refusal stays on message 6."""
        playback = play_page(FIGHT, [_turn(_calls('{"tracker": "Health", "set": {"hp": 80}}'))])
        mine = playback.reply_outcome("m14", 0)
        assert mine is not None
        assert [str(c) for c in mine.clamps] == ["Health · hp: asked 80, written 40"]
        scripted = playback.reply_outcome("m6", 0)
        assert scripted is not None
        assert scripted.report is not None
        assert [c.ok for c in scripted.report.calls] == [False, True]
        assert [str(c) for c in playback.reply_outcome("m10", 0).clamps] == [
            "Health · hp: asked 55, written 40"
        ]  # type: ignore[union-attr]

    def test_fork_and_switch_back_keep_the_last_turn_in_step(self) -> None:
        """After a fork and a turn there, switching back shows the first take's last turn and fork point."""
        steps = [
            _turn(_calls('{"tracker": "Health", "set": {"hp": 20}}')),
            {"action": "fork", "message": "m12"},
            _turn(_calls('{"tracker": "Health", "set": {"hp": 5}}')),
        ]
        forked = play_page(FIGHT, steps)
        assert forked.session.chat.current == "t2"
        assert forked.last_turn() is not None
        assert forked.last_turn().message_id == "m16"
        assert forked.take_labels() == {
            "t1": "t1 · the first take · 14 messages",
            "t2": "t2 · forked from t1 at message 12 · 14 messages",
        }
        back = play_page(FIGHT, [*steps, {"action": "use", "take": "t1"}])
        assert back.session.chat.current == "t1"
        assert back.last_turn() is not None
        assert back.last_turn().message_id == "m14"
        assert back.session.values()["Health"]["hp"] == 20

    def test_a_fork_with_no_turn_of_its_own_shows_the_shared_last_turn(self) -> None:
        """A new take's last turn is the last turn of the history it shares."""
        playback = play_page(FIGHT, [{"action": "fork", "message": "m8"}])
        last = playback.last_turn()
        assert last is not None
        assert last.message_id == "m8"

    def test_versions_count_from_one(self) -> None:
        """`version` 1 is the first version; one past the last is refused with the range."""
        swipe = {"action": "swipe", "reply": "Another.", "callsText": "[]"}
        playback = play_page(
            FIGHT, [swipe, {"action": "show_version", "message": "m12", "version": 1}]
        )
        assert playback.session.chat.take.message("m12").shown == 0
        refused = play_page(
            FIGHT, [swipe, {"action": "show_version", "message": "m12", "version": 3}]
        )
        assert (
            refused.page_outcomes[-1].refused
            == "message 12 has 2 versions (1 to 2); there is no version 3."
        )

    def test_an_emptied_version_box_asks_for_a_number(self) -> None:
        """Found when tried: an empty Version box said "there is no version None."."""
        swipe = {"action": "swipe", "reply": "Another.", "callsText": "[]"}
        refused = play_page(
            FIGHT, [swipe, {"action": "show_version", "message": "m12", "version": None}]
        )
        assert refused.page_outcomes[-1].refused == (
            "Type a version number: message 12 has 2 versions (1 to 2)."
        )

    @pytest.mark.parametrize("typed", ["", "{}", "  "])
    def test_an_edit_with_nothing_to_set_is_refused(self, typed: str) -> None:
        """Found when tried: an empty Set (JSON) box reported "Step 7 (edit) done."."""
        playback = play_page(FIGHT, [{"action": "edit", "tracker": "Health", "setText": typed}])
        outcome = playback.page_outcomes[0]
        assert outcome.refused is not None
        assert outcome.refused.startswith("Nothing to set: type the fields and their values")
        assert outcome.sentence.startswith("Step 7 (edit) was refused, nothing was written")

    def test_calls_no_tool_could_take_are_said(self, tmp_path: Path) -> None:
        """Found when tried: with no tracker linked, typed tool calls vanished ("done", "No tool
        call"); the outcome says they were not sent, and why."""
        scene = json.loads(FIGHT.read_text())
        scene["prompting"] = {"trackers": []}
        path = tmp_path / "unlinked.json"
        path.write_text(json.dumps(scene))
        calls = _calls('{"tracker": "Health", "set": {"hp": 20}}')
        playback = play_page(path, [_turn(calls)], scripted=0, trackers=ROOT / "data" / "trackers")
        assert playback.page_outcomes[0].sentence == (
            "Step 1 (turn) done; the scene links no tracker, so no update tool was offered and "
            "the 1 tool call typed was not sent."
        )
        linked = play_page(FIGHT, [_turn(calls)])
        assert "not sent" not in linked.page_outcomes[0].sentence

    def test_a_swipe_with_no_reply_is_refused(self) -> None:
        """A swipe before any reply is a refused step with the chat's sentence."""
        playback = play_page(FIGHT, [{"action": "swipe", "reply": "x"}], scripted=0)
        assert (
            playback.page_outcomes[0].refused
            == "Nothing to swipe: the last message of take 't1' is not a reply."
        )

    def test_a_failed_turn_is_the_last_turn_of_its_take(self) -> None:
        """A turn that fails keeps nothing, says why, and is the take's last turn."""
        playback = play_page(FIGHT, [{"user": "Hello.", "refusesTools": True}])
        outcome = playback.page_outcomes[0]
        assert outcome.report is not None
        assert outcome.report.failed
        assert outcome.sentence.startswith(
            "Step 7 (turn) failed and kept nothing: The model does not take tools"
        )
        assert playback.last_turn() is outcome.report

    def test_a_refusal_keeps_its_quotes(self) -> None:
        """A refusal that ends on a quoted id keeps the closing quote."""
        playback = play_page(FIGHT, [{"action": "cut", "message": "m99"}])
        assert playback.page_outcomes[0].refused == "Take 't1' has no live message 'm99'."

    def test_a_step_that_lacks_a_key_is_refused(self) -> None:
        """A fork without its message is refused, naming the key."""
        playback = play_page(FIGHT, [{"action": "fork"}])
        assert playback.page_outcomes[0].refused == "The step has no 'message'."

    def test_an_edit_made_on_the_take_as_shown_is_written(self) -> None:
        """TR-27: an edit carrying the version the form showed is written when the take has not moved."""
        shown = play_page(FIGHT, []).session.chat.take.version
        edit = {
            "action": "edit",
            "tracker": "Health",
            "setText": '{"hp": 30}',
            "baseVersion": shown,
        }
        playback = play_page(FIGHT, [edit])
        assert playback.page_outcomes[0].refused is None
        assert playback.session.values()["Health"]["hp"] == 30

    def test_an_edit_from_a_stale_view_is_refused(self) -> None:
        """TR-27: an edit read before a later step (another turn came first) writes nothing and says why."""
        shown = play_page(FIGHT, []).session.chat.take.version
        turn = _turn(_calls('{"tracker": "Health", "set": {"hp": 20}}'))
        edit = {
            "action": "edit",
            "tracker": "Health",
            "setText": '{"hp": 30}',
            "baseVersion": shown,
        }
        playback = play_page(FIGHT, [turn, edit])
        refused = playback.page_outcomes[1].refused
        assert refused is not None
        assert refused.startswith(
            f"The take moved on since it was read (read at version {shown}, now "
        )
        assert playback.session.values()["Health"]["hp"] == 20

    def test_an_edit_read_on_another_take_is_refused(self) -> None:
        """TR-27: an edit whose form showed take t2 never lands on t1 after a switch."""
        steps = [{"action": "fork", "message": "m12"}]
        on_t2 = play_page(FIGHT, steps).session.chat.take.version
        edit = {
            "action": "edit",
            "tracker": "Health",
            "setText": '{"hp": 30}',
            "baseVersion": on_t2,
        }
        playback = play_page(FIGHT, [*steps, {"action": "use", "take": "t1"}, edit])
        refused = playback.page_outcomes[-1].refused
        assert refused is not None
        assert refused.startswith(
            f"Version {on_t2} was read on take 't2', but the take shown is 't1'"
        )
        assert playback.session.values()["Health"]["hp"] == 40

    def _edit_after_a_turn(self) -> list[dict[str, object]]:
        """A turn (hp 20), then an edit (hp 18) whose form was read after that one page step."""
        turn = _turn(_calls('{"tracker": "Health", "set": {"hp": 20}}'))
        edit = {"action": "edit", "tracker": "Health", "setText": '{"hp": 18}', "baseStep": 1}
        return [turn, edit]

    @pytest.mark.parametrize("scripted", [0, 2, 3, None], ids=["none", "two", "three", "all"])
    def test_an_edit_survives_the_scripted_slider(self, scripted: int | None) -> None:
        """Found in a trial: moving "Scripted steps played" from 2 to 3 refused the edit (the take
        moved on) and the panel silently showed the model's hp 20; the form's version is re-read
        at its place in the replay, so the edit lands on the message it was made on."""
        playback = play_page(FIGHT, self._edit_after_a_turn(), scripted=scripted)
        edit = playback.page_outcomes[-1]
        assert edit.refused is None
        assert playback.session.values()["Health"]["hp"] == 18
        reply = playback.session.chat.take.messages[-1]
        assert [d.value for d in reply.edits] == [18]

    def test_an_edit_read_before_a_later_step_is_still_refused(self) -> None:
        """TR-27: a form read before a turn that came first writes nothing, at any slider."""
        turn, edit = self._edit_after_a_turn()
        for scripted in (2, 3):
            playback = play_page(FIGHT, [turn, turn, edit], scripted=scripted)
            refused = playback.page_outcomes[-1].refused
            assert refused is not None
            assert refused.startswith("The take moved on since it was read")
            assert playback.session.values()["Health"]["hp"] == 20

    def test_an_edit_read_after_no_such_step_is_refused(self) -> None:
        """A base step past the edit's own place is refused with a sentence, never raised."""
        turn, edit = self._edit_after_a_turn()
        playback = play_page(FIGHT, [turn, {**edit, "baseStep": 5}])
        assert playback.page_outcomes[-1].refused == (
            "The edit's form was read after step 5 of yours, but it comes after 1; "
            "read the values again and edit."
        )

    def test_refusals_list_every_refused_step_but_the_last_page_step(self) -> None:
        """The status row says each refused step, scripted or the person's, that no control shows:
        the last page step's outcome is drawn by its own control."""
        turn, edit = self._edit_after_a_turn()
        steps = [turn, turn, edit, {"action": "cut", "message": "m99"}]
        playback = play_page(FIGHT, steps, scripted=2)
        listed = [o.kind for o in playback.refusals()]
        assert listed == ["edit"]
        assert play_page(FIGHT, steps[:3], scripted=2).refusals() == []

    def test_an_edit_of_a_row_pins_the_whole_row(self) -> None:
        """TR-21, TR-27: a list's delta is the whole row, so an edit of one field keeps the row's
        other fields (worn) after the version that wrote them is regenerated away, as the page
        and notebook 01 say (a trial took it for a record's field-by-field edit)."""
        worn = _turn(_calls('{"tracker": "Pack", "row": "Torch", "set": {"worn": true}}'))
        lamp = _calls('{"tracker": "Pack", "row": "Lamp", "set": {"qty": 1}}')
        steps = [
            worn,
            {"action": "edit", "tracker": "Pack", "row": "Torch", "setText": '{"qty": 5}'},
            {"action": "regenerate", "callsText": lamp},
        ]
        playback = play_page(TYPICAL, steps, scripted=0)
        assert all(o.refused is None for o in playback.page_outcomes)
        assert playback.session.values()["Pack"] == {
            "Lamp": {"qty": 1, "worn": False},
            "Torch": {"qty": 5, "worn": True},
        }


class TestProtocols:
    """The page under the text protocol, and the comparison with the tool path."""

    def test_the_page_plays_under_the_text_protocol(self) -> None:
        calls = '[{"name": "update_trackers", "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 3}}]}}]'
        playback = play_page(
            FIGHT, [{"user": "I fall.", "callsText": calls, "reply": "Down."}], protocol="text"
        )
        last = playback.outcomes[-1]
        assert last.report is not None
        assert last.report.protocol == "text"
        assert last.report.reply == "Down."
        assert playback.session.values()["Health"]["hp"] == 3
        assert last.sentence == "Step 7 (turn) done."

    def test_a_malformed_page_block_is_an_outcome(self) -> None:
        calls = '[{"name": "update_trackers", "arguments": "{broken"}]'
        playback = play_page(
            FIGHT, [{"user": "x", "callsText": calls, "reply": "y"}], protocol="text"
        )
        last = playback.outcomes[-1]
        assert last.refused is None
        assert last.sentence == "Step 7 (turn) done; 1 tool call(s) refused (see under the reply)."

    def test_single_round_scenes_compare_alike(self) -> None:
        comparison = compare_protocols(SHOP)
        assert comparison.same
        assert comparison.mismatches() == []
        assert len(comparison.steps) == 5

    def test_a_retried_batch_is_the_first_mismatch_and_named(self) -> None:
        comparison = compare_protocols(FIGHT)
        assert not comparison.same
        assert comparison.retried == frozenset({3})
        assert comparison.mismatches() == [
            "Step 3 (turn) (a retried batch: the text protocol answers it next turn): Health.hp: tools 12, text 22",
            "Step 3 (turn) (a retried batch: the text protocol answers it next turn): Stamina.stamina: tools 9, text 15",
            "Step 4 (turn): Stamina.stamina: tools 9, text 15",
            "Step 5 (turn): Stamina.stamina: tools 9, text 15",
        ]
        assert comparison.rows()[0] == {
            "step": 3,
            "kind": "turn",
            "value": "Health.hp",
            "tools": "12",
            "text": "22",
        }

    def test_page_steps_are_compared_too(self) -> None:
        calls = '[{"name": "update_trackers", "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 1}}]}}]'
        comparison = compare_protocols(
            SHOP, [{"user": "x", "callsText": calls, "reply": "y"}], scripted=2
        )
        assert [s.number for s in comparison.steps] == [1, 2, 3]
        assert comparison.same


class TestLastTurnHeading:
    def test_numbered_as_the_steps_are(self) -> None:
        """The last turn's heading and its step's outcome share one number (not a turn counter)."""
        steps = [
            {"action": "edit", "tracker": "Health", "set": {"hp": 30}},  # a step that is no turn
            _turn("[]", reply="You bind the cut."),
            {"action": "continue", "reply": " You pull the knot tight."},
        ]
        playback = play_page(FIGHT, steps)
        last = playback.page_outcomes[-1]
        assert last.sentence == "Step 9 (continue) done."
        assert playback.last_turn_heading() == "Step 9 (continue) · wrote message 14"
        assert playback.last_turn() is last.report
        assert (
            playback.session.chat.take.messages[-1].text
            == "You bind the cut. You pull the knot tight."
        )

    def test_a_failure_is_shown_not_run(self) -> None:
        """A server's words in the heading are escaped: no tag, no emphasis (the page's markdown)."""
        playback = play_page(FIGHT, [{"user": "Hello.", "refusesTools": True}])
        report = playback.page_outcomes[0].report
        assert report is not None
        report.failed = "<img src=x onerror=alert(1)> *loud*"
        heading = playback.last_turn_heading()
        assert "<img" not in heading
        assert "*loud*" not in heading
        assert heading.endswith(md_text("<img src=x onerror=alert(1)> *loud*"))
        assert "&lt;img" in heading

    def test_empty_when_the_take_shows_no_turn(self) -> None:
        assert play_page(FIGHT, [], scripted=0).last_turn_heading() == ""


def _library(tmp_path: Path, links: list[str]) -> Path:
    """A copy of the bundled data whose fight scene links `links`; the copied scene's path."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "scenes", data / "scenes")
    shutil.copytree(ROOT / "data" / "trackers", data / "trackers")
    scene = data / "scenes" / "fight.json"
    raw = json.loads(scene.read_text())
    raw["prompting"]["trackers"] = links
    scene.write_text(json.dumps(raw))
    return scene


def _rename(scene: Path, tracker_id: str, name: str) -> None:
    """The tracker's name changed in its JSON file, its id unchanged (as the designer saves it)."""
    piece = scene.parent.parent / "trackers" / f"{tracker_id}.json"
    raw = json.loads(piece.read_text())
    raw["name"] = name
    piece.write_text(json.dumps(raw))


class TestRenamesBetweenSteps:
    """Found when tried: a linked tracker renamed in the designer between two steps made every
    replay refuse the earlier batches that named it (and, all or nothing, their other trackers'
    writes), so the panel and the prompt went back to empty values. Each page step now carries
    the tracker its names meant (`pinned`), and a replay sends it under the tracker's name now."""

    def _steps(self, scene: Path) -> list[dict[str, object]]:
        """A turn (Vitæ and the Bag at once), an edit, and a turn whose arguments are typed as
        text and name the tracker in another case, each pinned as the page pins it when added."""
        turn = pinned(
            _turn(
                _calls(
                    '{"tracker": "Vitæ", "set": {"hp": 25}}, '
                    '{"tracker": "Bag", "row": "Rope", "set": {"qty": 2}}'
                )
            ),
            scene,
        )
        base = play_page(scene, [turn], scripted=0).session.chat.take.version
        edit = pinned(
            {
                "action": "edit",
                "tracker": "Vitæ",
                "setText": '{"mood": "tense"}',
                "baseVersion": base,
            },
            scene,
        )
        text = json.dumps({"updates": [{"tracker": "VITÆ", "set": {"hp": 20}}]}, ensure_ascii=False)
        later = pinned(
            _turn(json.dumps([{"name": "update_trackers", "arguments": text}], ensure_ascii=False)),
            scene,
        )
        return [turn, edit, later]

    def test_values_are_kept_across_a_rename(self, tmp_path: Path) -> None:
        """Values, the prompt and every step's outcome are the same after the rename."""
        scene = _library(tmp_path, ["health", "inventory"])
        _rename(scene, "health", "Vitæ")
        _rename(scene, "inventory", "Bag")
        steps = self._steps(scene)
        before = play_page(scene, steps, scripted=0)
        assert [o.sentence for o in before.outcomes] == [
            "Step 1 (turn) done.",
            "Step 2 (edit) done.",
            "Step 3 (turn) done.",
        ]
        seen = before.session.values()  # read live: the session reads the library at each read
        _rename(scene, "health", "Vita")
        after = play_page(scene, steps, scripted=0)
        assert [o.sentence for o in after.outcomes] == [o.sentence for o in before.outcomes]
        values = after.session.values()
        assert values["Vita"]["hp"] == 20
        assert values["Vita"]["mood"] == "tense"
        assert values["Bag"]["Rope"]["qty"] == 2
        assert {"Vitæ": values["Vita"], "Bag": values["Bag"]} == seen
        last = after.last_turn()
        assert last is not None
        assert last.block is not None
        assert "Vita" in last.block
        assert "Vitæ" not in last.block
        assert "Rope" in last.block
        # The arguments typed as text are sent as text, under the name the tracker has now.
        sent = [c.arguments for c in last.calls]
        assert sent == [
            json.dumps({"updates": [{"tracker": "Vita", "set": {"hp": 20}}]}, ensure_ascii=False)
        ]

    def test_a_swipe_follows_the_rename_too(self, tmp_path: Path) -> None:
        """A swipe's calls are pinned as a turn's are."""
        scene = _library(tmp_path, ["health", "inventory"])
        steps = [
            pinned(_turn(_calls('{"tracker": "Health", "set": {"hp": 12}}')), scene),
            pinned(
                {
                    "action": "swipe",
                    "reply": "Again.",
                    "callsText": _calls('{"tracker": "Health", "set": {"hp": 9}}'),
                },
                scene,
            ),
        ]
        _rename(scene, "health", "Vita")
        playback = play_page(scene, steps, scripted=0)
        assert [o.refused for o in playback.outcomes] == [None, None]
        assert all(c.ok for o in playback.outcomes if o.report for c in o.report.calls)
        assert playback.session.values()["Vita"]["hp"] == 9

    def test_two_trackers_that_swap_names_keep_their_own_values(self, tmp_path: Path) -> None:
        """A name that now belongs to another linked tracker still writes the tracker it meant."""
        scene = _library(tmp_path, ["health", "stamina"])
        steps = [
            pinned(
                _turn(
                    _calls(
                        '{"tracker": "Health", "set": {"hp": 7}}, '
                        '{"tracker": "Stamina", "set": {"stamina": 4}}'
                    )
                ),
                scene,
            )
        ]
        _rename(scene, "health", "Swap")
        _rename(scene, "stamina", "Health")
        _rename(scene, "health", "Stamina")
        values = play_page(scene, steps, scripted=0).session.values()
        assert values["Stamina"]["hp"] == 7
        assert values["Health"]["stamina"] == 4

    def test_a_tracker_no_longer_linked_is_refused_by_its_name(self, tmp_path: Path) -> None:
        """A step naming a tracker the scene no longer links is refused as typed, never sent elsewhere."""
        scene = _library(tmp_path, ["health", "stamina"])
        steps = [pinned(_turn(_calls('{"tracker": "Health", "set": {"hp": 7}}')), scene)]
        raw = json.loads(scene.read_text())
        raw["prompting"]["trackers"] = ["stamina"]
        scene.write_text(json.dumps(raw))
        outcome = play_page(scene, steps, scripted=0).outcomes[0]
        assert outcome.report is not None
        assert "no linked tracker is called 'Health'" in outcome.report.calls[0].answer

    def test_steps_not_pinned_play_as_typed(self, tmp_path: Path) -> None:
        """A step without `trackerIds` (a script of steps, an older page) names trackers as typed."""
        scene = _library(tmp_path, ["health", "stamina"])
        _rename(scene, "health", "Vita")
        outcome = play_page(
            scene, [_turn(_calls('{"tracker": "Health", "set": {"hp": 7}}'))], scripted=0
        ).outcomes[0]
        assert outcome.report is not None
        assert not outcome.report.calls[0].ok

    def test_linked_names_and_a_scene_that_cannot_be_read(self, tmp_path: Path) -> None:
        """`linked_names` maps the linked trackers' names to ids; an unreadable scene pins nothing."""
        assert linked_names(FIGHT) == {"Health": "health", "Stamina": "stamina"}
        step = {"user": "Hi.", "callsText": "[]"}
        assert pinned(step, tmp_path / "gone.json") == step
        assert pinned(step, FIGHT)["trackerIds"] == {"Health": "health", "Stamina": "stamina"}


class TestLongNumbers:
    """An integer past Python's digit limit (4,300) is a step's refusal in words, never a
    ValueError out of play_page (whose steps are never the cause of an error)."""

    def test_read_json_says_so(self) -> None:
        value, problem = read_json("[" + "9" * 5000 + "]", "The tool calls")
        assert value is None
        assert problem == (
            "The tool calls hold a whole number of 5,000 digits; numbers are read up to "
            "4,300 digits. Write a smaller number. Nothing was sent."
        )
        assert read_json("[-" + "9" * 4300 + "]", "x")[1] is None

    def test_play_page_refuses_the_step_and_plays_on(self) -> None:
        digits = "9" * 5000
        playback = play_page(
            FIGHT,
            [
                _turn("[" + digits + "]"),
                _turn(_calls('{"tracker": "Health", "set": {"hp": -' + digits + "}}")),
                {"action": "edit", "tracker": "Health", "setText": '{"hp": ' + digits + "}"},
                _turn("[]"),
            ],
        )
        refused = [o.refused for o in playback.page_outcomes]
        assert refused[:3] == [
            "The tool calls hold a whole number of 5,000 digits; numbers are read up to "
            "4,300 digits. Write a smaller number. Nothing was sent.",
            "The tool calls hold a whole number of 5,000 digits; numbers are read up to "
            "4,300 digits. Write a smaller number. Nothing was sent.",
            "The values to set hold a whole number of 5,000 digits; numbers are read up to "
            "4,300 digits. Write a smaller number. Nothing was sent.",
        ]
        assert refused[3] is None
