"""What the model sees: the block, default rendering, templates, macros and the request (TR-28..TR-33)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit.chat import Chat
from trackerkit.errors import PromptTooLargeError
from trackerkit.macros import MacroLimits
from trackerkit.prompt import (
    BLOCK_HEADING,
    LINKED_TRACKERS_MARKER,
    PromptContext,
    assemble_request,
    default_text,
    render_card,
    render_text,
    render_trackers_block,
    tracker_texts,
)
from trackerkit.scene import Prompting, Scene, load_linked, load_scene, source_for
from trackerkit.simulate.session import Session
from trackerkit.state import State
from trackerkit.tokens import count_tokens, tool_json
from trackerkit.tool import update_trackers_tool
from trackerkit.tracker import Tracker, decode_tracker
from trackerkit.update import slot_of, tracker_value

TYPICAL = load_scene(REPO / "data" / "scenes" / "typical.json")
TRACKERS = load_linked(TYPICAL, source_for(REPO / "data" / "trackers")).trackers
HEALTH, PACK, MOOD = TRACKERS
VERA = PromptContext(user="Vera", char="Narrator")


def _tracker(
    name: str,
    *fields: dict[str, Any],
    layout: str = "record",
    template: str | None = None,
) -> Tracker:
    body: dict[str, Any] = {"layout": layout, "fields": list(fields), "note": ""}
    if template is not None:
        body["template"] = template
    return decode_tracker({"id": name.lower(), "name": name, "description": "", "body": body})


def _text(name: str = "text", default: str = "") -> dict[str, Any]:
    return {"name": name, "description": "", "type": "text", "default": default}


def _state(*pairs: tuple[Tracker, Mapping[str, object]]) -> State:
    return {slot_of(t): dict(value) for t, value in pairs}


class TestBlock:
    """TR-28: one block headed `### Trackers`, or none."""

    def test_heading_then_each_text_in_link_order(self) -> None:
        """The block is the heading and then each linked tracker's text, in link order."""
        block = render_trackers_block(TRACKERS, {})
        assert block.text == (
            "### Trackers\n"
            "Health: hp=0, hp_max=30, mood=calm\n"
            "Pack: (none)\n"
            "Scene: time=day, danger=safe"
        )
        assert block.report.ok

    @pytest.mark.parametrize(
        "templates",
        [(), ("",), ("", "  \t"), ("{{tracker::Nobody}}",)],
        ids=["no-tracker", "empty-template", "blank-templates", "template-renders-empty"],
    )
    def test_no_block_without_text(self, templates: tuple[str, ...]) -> None:
        """With no tracker linked, or none with text, there is no block."""
        trackers = [_tracker(f"T{i}", _text(), template=t) for i, t in enumerate(templates)]
        assert render_trackers_block(trackers, {}).text is None

    def test_tracker_without_text_is_left_out(self) -> None:
        """A tracker whose template renders blank is left out; the others stay."""
        quiet = _tracker("Quiet", _text(), template=" ")
        block = render_trackers_block([quiet, HEALTH], {})
        assert block.text == "### Trackers\nHealth: hp=0, hp_max=30, mood=calm"
        assert block.texts["Quiet"] == " "

    def test_block_follows_the_builtin_block(self) -> None:
        """Without a marker the system message is card, then the built-in block, then ours."""
        request = assemble_request(
            card="CARD", block="### Trackers\nX: a=1", history=[], builtin="### Props\nP"
        )
        assert request.messages == [
            {"role": "system", "content": "CARD\n\n### Props\nP\n\n### Trackers\nX: a=1"}
        ]

    def test_block_at_the_marker(self) -> None:
        """A card holding `{{linkedTrackers}}` gets the block exactly there."""
        request = assemble_request(
            card=f"Before.\n{LINKED_TRACKERS_MARKER}\nAfter.",
            block="### Trackers\nX: a=1",
            history=[],
            builtin="### Props\nP",
        )
        assert request.messages[0]["content"] == (
            "Before.\n### Trackers\nX: a=1\nAfter.\n\n### Props\nP"
        )

    def test_block_once_at_the_first_marker(self) -> None:
        """A repeated marker gets the block once (the first), so the sent text matches its count."""
        request = assemble_request(
            card=f"A{LINKED_TRACKERS_MARKER}B{LINKED_TRACKERS_MARKER}C",
            block="### Trackers\nX: a=1",
            history=[],
        )
        assert request.messages[0]["content"] == "A### Trackers\nX: a=1BC"

    def test_marker_without_block_is_removed(self) -> None:
        """With no block the marker leaves no trace in the card."""
        request = assemble_request(card=f"A{LINKED_TRACKERS_MARKER}B", block=None, history=[])
        assert request.messages[0]["content"] == "AB"
        assert "trackers" not in request.parts

    def test_card_keeps_its_marker_through_the_macros(self) -> None:
        """A card run through `render_text` keeps `{{linkedTrackers}}` without a macro error."""
        rendered = render_text(f"{{{{user}}}} {LINKED_TRACKERS_MARKER}", TRACKERS, {}, VERA)
        assert rendered.text == f"Vera {LINKED_TRACKERS_MARKER}"
        assert rendered.report.ok


class TestMarkerInTheAuthorsTextOnly:
    """TR-28, TR-30: the block goes where the author's `{{linkedTrackers}}` stands, never where a value spells it."""

    NOTES = _tracker("Notes", _text())
    BLOCK = "### Trackers\nNotes: text=x"

    def _request(self, card: str, value: str) -> str:
        state = _state((self.NOTES, {"text": value}))
        rendered = render_card(card, [self.NOTES], state)
        request = assemble_request(card=rendered, block=self.BLOCK, history=[])
        return request.messages[0]["content"]

    def test_value_spelling_the_marker_does_not_move_the_block(self) -> None:
        """A model-written `{{linkedTrackers}}` shown by a field macro stays text; the block follows the card."""
        content = self._request("Notes say: {{tracker::Notes::text}} (end)", LINKED_TRACKERS_MARKER)
        assert content == f"Notes say: {LINKED_TRACKERS_MARKER} (end)\n\n{self.BLOCK}"

    def test_block_stays_at_the_authors_marker(self) -> None:
        """With the author's marker too, the block goes there and the value's spelling stays where it was shown."""
        card = "A {{tracker::Notes::text}} B\n{{linkedTrackers}}\nC"
        content = self._request(card, LINKED_TRACKERS_MARKER)
        assert content == f"A {LINKED_TRACKERS_MARKER} B\n{self.BLOCK}\nC"

    def test_authors_marker_whatever_its_case(self) -> None:
        """`{{ LinkedTrackers }}` is the author's marker as the macro engine reads names."""
        assert self._request("A{{ LinkedTrackers }}B", "v") == f"A{self.BLOCK}B"

    def test_only_the_first_authors_marker(self) -> None:
        """A repeated marker gets the block once; the count is of the card without its markers."""
        card = render_card("A{{linkedTrackers}}B{{linkedTrackers}}C", [self.NOTES], {})
        assert (card.text, card.marker) == ("ABC", 1)
        assert card.report.ok

    def test_session_request_keeps_the_block_in_place(self) -> None:
        """Through a turn: Notes written as `{{linkedTrackers}}` leaves the block after the card."""
        scene = Scene(
            id="s",
            title="S",
            card="Notes: {{tracker::Notes::text}}",
            prompting=Prompting(trackers=["notes"]),
            tool_access=True,
        )
        notes = {
            "id": "notes",
            "name": "Notes",
            "description": "",
            "body": {"layout": "record", "fields": [_text()], "note": ""},
        }
        session = Session(scene, {"notes": notes})
        write = {"updates": [{"tracker": "Notes", "set": {"text": LINKED_TRACKERS_MARKER}}]}
        session.turn("go", {"calls": [{"name": "update_trackers", "arguments": write}]})
        report = session.turn("again", {"reply": "ok"})
        assert report.request is not None
        system = report.request.messages[0]["content"]
        assert system.startswith(f"Notes: {LINKED_TRACKERS_MARKER}\n\n### Trackers\n")


class TestDefaultRendering:
    """TR-29: `Name: f=v, f=v`; a list `Name:` and a line per row; `Name: (none)`."""

    @pytest.mark.parametrize(
        ("tracker", "value", "text"),
        [
            (HEALTH, {}, "Health: hp=0, hp_max=30, mood=calm"),
            (
                HEALTH,
                {"hp": 25, "hp_max": 10, "mood": "tense"},
                "Health: hp=10, hp_max=10, mood=tense",
            ),
            (PACK, {}, "Pack: (none)"),
            (
                PACK,
                {"rope": {"qty": 2}, "Torch": {"qty": 1, "worn": True}},
                "Pack:\n- rope: qty=2, worn=false\n- Torch: qty=1, worn=true",
            ),
            (MOOD, {"time": "night", "danger": "deadly"}, "Scene: time=night, danger=deadly"),
            (
                _tracker("Note", _text("says"), {"name": "t", "description": "", "type": "number"}),
                {"says": "two\nlines", "t": 9.5},
                "Note: says=two lines, t=9.5",
            ),
        ],
        ids=["record-start", "record-top-held", "list-empty", "list-rows", "choices", "text-float"],
    )
    def test_exact_text(self, tracker: Tracker, value: Mapping[str, object], text: str) -> None:
        """Each tracker renders to exactly the text of its row in the table."""
        read = tracker_value(tracker, _state((tracker, value)))
        assert default_text(tracker, read) == text

    def test_row_name_on_one_line(self) -> None:
        """A row name with line breaks stays on its row's line (TR-30)."""
        read = tracker_value(PACK, _state((PACK, {"a\n### Trackers\r\nb": {}})))
        assert default_text(PACK, read) == "Pack:\n- a ### Trackers b: qty=1, worn=false"


ALPHA = _tracker(
    "Alpha",
    {"name": "n", "description": "", "type": "number"},
    template="A sees B={{tracker::Beta::n}}",
)
BETA = _tracker(
    "Beta",
    {"name": "n", "description": "", "type": "number"},
    template="B sees A={{tracker::Alpha::n}}",
)


class TestTemplates:
    """TR-31: templates run after every value and default text is computed."""

    @pytest.mark.parametrize(
        "order", [(ALPHA, BETA), (BETA, ALPHA)], ids=["alpha-first", "beta-first"]
    )
    def test_link_order_does_not_matter(self, order: tuple[Tracker, Tracker]) -> None:
        """Two templates reading each other see the same values whichever is linked first."""
        state = _state((ALPHA, {"n": 1}), (BETA, {"n": 2}))
        texts, report = tracker_texts(order, state)
        assert texts == {"Alpha": "A sees B=2", "Beta": "B sees A=1"}
        assert report.ok

    def test_whole_tracker_inside_a_template_is_its_default_rendering(self) -> None:
        """`{{tracker::Other}}` in a template is the other's default rendering, not its template."""
        other = _tracker("Other", _text(default="x"), template="OTHER TEMPLATE")
        reader = _tracker("Reader", _text(), template="[{{tracker::Other}}]")
        texts, _ = tracker_texts([reader, other], {})
        assert texts == {"Reader": "[Other: text=x]", "Other": "OTHER TEMPLATE"}

    def test_context_names(self) -> None:
        """`{{user}}` and `{{char}}` read the turn's names, each on one line."""
        t = _tracker("T", _text(), template="{{user}} and {{char}}")
        texts, _ = tracker_texts([t], {}, PromptContext(user="Ve\nra", char="Nar\u2028rator"))
        assert texts["T"] == "Ve ra and Nar rator"

    @pytest.mark.parametrize(
        ("template", "macro", "position", "words"),
        [
            ("hp {{tracker::Helth::hp}}", "{{tracker::Helth::hp}}", 3, '"Helth"'),
            ("x{{tracker::T::hpp}}", "{{tracker::T::hpp}}", 1, '"hpp"'),
            ("{{nope}}", "{{nope}}", 0, '"nope"'),
        ],
        ids=["unknown-tracker", "unknown-field", "unknown-macro"],
    )
    def test_errors_go_into_the_report(
        self, template: str, macro: str, position: int, words: str
    ) -> None:
        """A template's macro error is reported with the macro, its position and the tracker."""
        t = _tracker("T", _text(), template=template)
        block = render_trackers_block([t], {})
        [issue] = block.report.errors
        assert (issue.macro, issue.position, issue.source) == (macro, position, "T")
        assert words in issue.message

    def test_uses_go_into_the_report(self) -> None:
        """Every macro a template evaluated is reported as a use, with its tracker."""
        t = _tracker("T", _text(), template="{{user}} {{tracker::T::text}}")
        uses = render_trackers_block([t], {}).report.uses
        assert [(u.name, u.args, u.source) for u in uses] == [
            ("user", (), "T"),
            ("tracker", ("T", "text"), "T"),
        ]

    def test_read_only(self) -> None:
        """Rendering leaves the state it was given as it was."""
        state = _state((HEALTH, {"hp": 50}), (PACK, {"rope": {"qty": 2}}))
        before = repr(state)
        render_text("{{tracker::Health}}{{tracker::Pack::rope::qty}}", TRACKERS, state)
        render_trackers_block(TRACKERS, state)
        assert repr(state) == before


class TestMacros:
    """TR-32: the three tracker macro forms, their errors and a turn's updates."""

    STATE = _state(
        (HEALTH, {"hp": 12, "mood": "tense"}),
        (PACK, {"Rope\nCoil": {"qty": 2}, "Torch": {"qty": 3, "worn": True}}),
    )

    @pytest.mark.parametrize(
        ("text", "out"),
        [
            ("{{tracker::Health}}", "Health: hp=12, hp_max=30, mood=tense"),
            (
                "{{tracker::Pack}}",
                "Pack:\n- Rope Coil: qty=2, worn=false\n- Torch: qty=3, worn=true",
            ),
            ("{{tracker::Health::hp}}/{{tracker::Health::hp_max}}", "12/30"),
            ("{{tracker::Pack::Torch::qty}}", "3"),
            ("{{tracker::Pack::torch::worn}}", "true"),
            ("{{tracker::Pack::TORCH::qty}}", "3"),
            ("{{tracker::Pack::Rope\nCoil::qty}}", "2"),
            ("{{tracker:: Health ::mood}}", "tense"),
        ],
        ids=[
            "whole-record",
            "whole-list",
            "record-fields",
            "row-field",
            "row-lower-case",
            "row-upper-case",
            "row-with-break",
            "spaced-name",
        ],
    )
    def test_forms(self, text: str, out: str) -> None:
        """Each macro form reads the value the table gives."""
        rendered = render_text(text, TRACKERS, self.STATE)
        assert rendered.text == out
        assert rendered.report.ok

    def test_whole_tracker_is_its_template_outside_templates(self) -> None:
        """Outside templates `{{tracker::Name}}` is the tracker's text, its template's output."""
        t = _tracker("T", _text(default="v"), template="T reads {{tracker::T::text}}")
        assert render_text("<{{tracker::T}}>", [t], {}).text == "<T reads v>"

    def test_field_value_on_one_line(self) -> None:
        """A field read by a macro is shown through `line_of`, so it cannot start a line."""
        t = _tracker("T", _text())
        state = _state((t, {"text": "a\r\n### Trackers\u2029b"}))
        assert render_text("{{tracker::T::text}}", [t], state).text == "a ### Trackers b"

    @pytest.mark.parametrize(
        ("text", "words"),
        [
            ("{{tracker::Mana}}", 'no linked tracker is called "Mana"'),
            ("{{tracker::health::hp}}", 'no linked tracker is called "health"'),
            ("{{tracker::Health::hpp}}", 'Health has no field "hpp"'),
            ("{{tracker::Pack::Lantern::qty}}", 'Pack has no row "Lantern"'),
            ("{{tracker::Pack::Torch::weight}}", 'Pack has no field "weight"'),
            ("{{tracker::Pack::qty}}", "Pack is a list: use {{tracker::Pack::row::field}}"),
            ("{{tracker::Health::a::hp}}", "Health is a record: use {{tracker::Health::field}}"),
            ("{{tracker}}", "tracker needs a tracker name"),
        ],
        ids=[
            "unknown-tracker",
            "tracker-case",
            "unknown-field",
            "unknown-row",
            "unknown-row-field",
            "list-without-row",
            "record-with-row",
            "no-name",
        ],
    )
    def test_errors_name_what_is_missing(self, text: str, words: str) -> None:
        """A lookup that fails renders empty and reports an error that names what is missing."""
        rendered = render_text(f"[{text}]", TRACKERS, self.STATE)
        assert rendered.text == "[]"
        [issue] = rendered.report.errors
        assert words in issue.message
        assert (issue.macro, issue.position) == (text, 1)

    def test_reads_follow_the_turns_updates(self) -> None:
        """After `Turn.call`, macros, templates and the block on `turn.state` read the new values."""
        watch = _tracker("Watch", _text(), template="hp is {{tracker::Health::hp}}")
        scene = Scene(id="s", title="S", prompting=Prompting(trackers=["health", "pack", "watch"]))
        chat = Chat(scene, [HEALTH, PACK, watch])
        chat.add_user("Vera steps on a trap.")
        turn = chat.begin_turn()
        assert render_text("{{tracker::Health::hp}}", turn.trackers, turn.state).text == "0"
        result = turn.call(
            {
                "updates": [
                    {"tracker": "Health", "set": {"hp": 22}},
                    {"tracker": "Pack", "row": "Rope", "set": {"qty": 2}},
                ]
            }
        )
        assert result.ok
        text = "{{tracker::Health::hp}} {{tracker::Pack::rope::qty}} {{tracker::Watch}}"
        assert render_text(text, turn.trackers, turn.state).text == "22 2 hp is 22"
        assert render_trackers_block(turn.trackers, turn.state).text == (
            "### Trackers\n"
            "Health: hp=22, hp_max=30, mood=calm\n"
            "Pack:\n- Rope: qty=2, worn=false\n"
            "hp is 22"
        )


def _timed(seconds: float = 5.0) -> Any:
    """Assert the block under `with` ends within `seconds` (far above what it takes)."""

    class Timer:
        def __enter__(self) -> None:
            self.start = time.perf_counter()

        def __exit__(self, *exc: object) -> None:
            assert time.perf_counter() - self.start < seconds

    return Timer()


class TestHostileTemplates:
    """TR-31: templates end fast with a reported cap or literal text; nothing hangs."""

    def test_deep_nesting_hits_the_depth_cap(self) -> None:
        """50,000 nested macros stop at the depth cap, reported."""
        t = _tracker("T", _text(), template="{{tracker::" * 50_000 + "}}" * 50_000)
        with _timed():
            block = render_trackers_block([t], {})
        [issue] = block.report.errors
        assert "nested more than 32 deep" in issue.message

    def test_template_chain_does_not_grow_exponentially(self) -> None:
        """Ten trackers each repeating the previous ten times stay small: a template reads defaults."""
        chain = [_tracker("T0", _text(default="x" * 10))]
        for i in range(1, 10):
            chain.append(_tracker(f"T{i}", _text(), template=f"{{{{tracker::T{i - 1}}}}}" * 10))
        with _timed():
            texts, report = tracker_texts(chain, {})
            card = render_text("{{tracker::T9}}", chain, {})
        assert report.ok
        assert texts["T9"] == "T8: text=" * 10
        assert max(len(t) for t in texts.values()) == len("T0: text=xxxxxxxxxx") * 10
        assert card.text == texts["T9"]

    def test_template_reading_itself(self) -> None:
        """A template `{{tracker::Self}}` is its own default rendering, read once, no loop."""
        t = _tracker("Self", _text(default="v"), template="{{tracker::Self}}")
        with _timed():
            assert render_trackers_block([t], {}).text == "### Trackers\nSelf: text=v"
            assert render_text("{{tracker::Self}}", [t], {}).text == "Self: text=v"

    def test_value_holding_a_macro_is_literal_text(self) -> None:
        """A value that holds `{{tracker::Self}}` is shown as those characters and never runs."""
        t = _tracker("Self", _text(), template="says {{tracker::Self::text}}")
        state = _state((t, {"text": "{{tracker::Self}} {{tracker::Self::text}}"}))
        block = render_trackers_block([t], state)
        assert block.text == "### Trackers\nsays {{tracker::Self}} {{tracker::Self::text}}"
        assert len(block.report.uses) == 1

    def test_million_character_output_hits_the_ceiling(self) -> None:
        """A template writing past 1,000,000 characters is cut at the ceiling and reported."""
        big = _tracker("Big", _text(), template="{{tracker::Big::text}}" * 8)
        state = _state((big, {"text": "y" * 200_000}))
        with _timed():
            block = render_trackers_block([big], state)
        assert block.texts["Big"] == "y" * 1_000_000
        [issue] = block.report.errors
        assert "output ceiling of 1000000 characters" in issue.message

    def test_many_macros_spend_the_step_budget(self) -> None:
        """20,000 macros in one template spend the step budget of 10,000, reported."""
        t = _tracker("T", _text(), template="{{user}}" * 20_000)
        with _timed():
            block = render_trackers_block([t], {}, PromptContext(user="u"))
        assert block.texts["T"] == "u" * 10_000
        assert "step budget of 10000" in block.report.errors[0].message

    def test_limits_can_be_tightened(self) -> None:
        """A caller's tighter limits apply to templates too."""
        t = _tracker("T", _text(), template="{{user}}" * 5)
        block = render_trackers_block([t], {}, limits=MacroLimits(step_budget=2))
        assert block.texts["T"] == "UserUser"


_RECORD = _tracker("Rec", _text("a"), _text("b"))
_LIST = _tracker("Lst", _text("a"), layout="list")
_EMPTY = _tracker("Empty", _text("a"), layout="list")


class TestBlockLaws:
    """Hypothesis (TR-28..TR-30): whatever the values, the block's shape is fixed."""

    @settings(max_examples=150)
    @given(
        a=st.text(),
        b=st.text(),
        rows=st.dictionaries(st.text(min_size=1), st.text(), max_size=5),
    )
    def test_lines_per_tracker(self, a: str, b: str, rows: dict[str, str]) -> None:
        """One line per record, `1 + rows` per list (`Name: (none)` empty), one `###` heading."""
        state = _state((_RECORD, {"a": a, "b": b}), (_LIST, {r: {"a": v} for r, v in rows.items()}))
        text = render_trackers_block([_RECORD, _LIST, _EMPTY], state).text
        assert text is not None
        lines = text.splitlines()
        assert len(lines) == 1 + 1 + (1 + len(rows)) + 1
        assert lines[0] == BLOCK_HEADING
        assert lines[1].startswith("Rec: a=")
        assert lines[2] == "Lst:" if rows else lines[2] == "Lst: (none)"
        assert all(line.startswith("- ") for line in lines[3 : 3 + len(rows)])
        assert lines[-1] == "Empty: (none)"
        assert [line for line in lines if line.startswith("###")] == [BLOCK_HEADING]


HISTORY = [
    ("user" if i % 2 == 0 else "assistant", f"message {i}: " + "word " * 20) for i in range(10)
]


class TestBudget:
    """TR-33: fixed parts stay whole; history is trimmed oldest first."""

    def _request(self, window: int, history: list[tuple[str, str]] = HISTORY) -> Any:
        block = render_trackers_block(TRACKERS, {}).text
        return assemble_request(
            card=TYPICAL.card,
            block=block,
            history=history,
            tool=update_trackers_tool(TRACKERS),
            window=window,
            reserve=100,
        )

    def test_parts_are_exact_counts(self) -> None:
        """Each part's count is `count_tokens` of the text it carries; the tool is its JSON."""
        request = self._request(8192)
        block = render_trackers_block(TRACKERS, {}).text
        assert block is not None
        tool = update_trackers_tool(TRACKERS)
        assert request.parts == {
            "card": count_tokens(TYPICAL.card),
            "trackers": count_tokens(block),
            "tool": count_tokens(tool_json(tool.name, tool.description, tool.parameters)),
            "history": sum(count_tokens(text) for _, text in HISTORY),
        }
        assert request.history_tokens == [count_tokens(text) for _, text in HISTORY]
        assert (request.kept, request.dropped, request.encoding) == (10, 0, "cl100k_base")
        assert request.total == sum(request.parts.values())

    def test_tight_window_drops_oldest_history(self) -> None:
        """A window with room for three messages keeps the newest three and the whole block."""
        full = self._request(8192)
        fixed = full.total - full.parts["history"]
        room = sum(full.history_tokens[-3:])
        request = self._request(fixed + room + 100 + 1)
        assert (request.kept, request.dropped) == (3, 7)
        assert request.messages[1:] == [{"role": r, "content": t} for r, t in HISTORY[-3:]]
        assert render_trackers_block(TRACKERS, {}).text in request.messages[0]["content"]
        assert request.total <= request.window - request.reserve

    def test_no_room_for_history(self) -> None:
        """When only the fixed parts fit, every history message is dropped and the block stays."""
        full = self._request(8192)
        request = self._request(full.total - full.parts["history"] + 100)
        assert (request.kept, request.dropped, request.parts["history"]) == (0, 10, 0)
        assert [m["role"] for m in request.messages] == ["system"]

    def test_fixed_parts_too_large_names_each(self) -> None:
        """When the fixed parts alone do not fit, the error names each with its token count."""
        full = self._request(8192)
        with pytest.raises(PromptTooLargeError) as caught:
            self._request(200)
        parts = {k: v for k, v in full.parts.items() if k != "history"}
        assert caught.value.parts == parts
        message = str(caught.value)
        for name, tokens in parts.items():
            assert f"{name} {tokens} tokens" in message
        assert "window of 200 tokens leaves 100" in message

    def test_to_openai(self) -> None:
        """The request body carries messages and the tool, and no tool_choice: the model decides."""
        body = self._request(8192).to_openai("gpt-4o")
        assert set(body) == {"model", "messages", "tools"}
        assert body["tools"] == [update_trackers_tool(TRACKERS).to_openai()]
        bare = assemble_request(card="c", block=None, history=[]).to_openai("m")
        assert set(bare) == {"model", "messages"}


class TestTurnState:
    """TR-33: which state the block shows on a swipe and on a continue."""

    def _chat(self) -> Chat:
        chat = Chat(TYPICAL, REPO / "data" / "trackers")
        chat.add_user("Vera falls.")
        turn = chat.begin_turn()
        assert turn.call({"updates": [{"tracker": "Health", "set": {"hp": 20}}]}).ok
        turn.commit("You fall.")
        return chat

    @pytest.mark.parametrize(
        ("kind", "hp"),
        [("reply", 20), ("swipe", 0), ("regenerate", 0), ("continue", 20)],
        ids=["reply", "swipe", "regenerate", "continue"],
    )
    def test_block_state(self, kind: Any, hp: int) -> None:
        """A swipe or regenerate shows the state before the replaced reply; a continue as it stands."""
        chat = self._chat()
        if kind == "reply":
            chat.add_user("And then?")
        turn = chat.begin_turn(kind)
        block = render_trackers_block(turn.trackers, turn.state, VERA).text
        assert block is not None
        assert block.splitlines()[1] == f"Health: hp={hp}, hp_max=30, mood=calm"
        assert (turn.tool is None) == (kind == "continue")
