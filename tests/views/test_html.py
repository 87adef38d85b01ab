"""The pictures: bars over history (checked by their data), a reply's changes and the panel as HTML."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from conftest import BAG, HEALTH

from trackerkit import (
    BadRequestError,
    Chat,
    NotFoundError,
    Scene,
    TrackerChanges,
    bars_over_history,
    changes_html,
    history_frame,
    panel_html,
    tracker_changes_between,
)
from trackerkit.views.html import icon_html, trouble_html

HOSTILE = "<script>alert(1)</script>"
BREAKOUT = '"><img src=x onerror=alert(1)>'

TRUST: dict[str, Any] = {
    "id": "trust",
    "name": "Trust",
    "description": "Trust by person.",
    "body": {
        "layout": "list",
        "fields": [
            {
                "name": "level",
                "description": "Trust.",
                "type": "number",
                "min": -100,
                "max": 100,
                "icon": "lucide:handshake",
            }
        ],
        "note": "Move it.",
        "icon": "lucide:users",
        "changes": "card",
    },
}


def make_chat(*pieces: dict[str, Any]) -> Chat:
    docs = {p["id"]: copy.deepcopy(p) for p in pieces or (HEALTH, BAG, TRUST)}
    return Chat(Scene(id="s", title="S", prompting={"trackers": list(docs)}), docs)


def reply(chat: Chat, *updates: dict[str, Any]) -> str:
    turn = chat.begin_turn()
    assert turn.call({"updates": list(updates)}).ok
    return turn.commit("…").id


def tags(html: str) -> list[str]:
    """The element names opened in `html`, outside the style block."""
    return re.findall(r"<([a-z]+)[\s>]", html.split("</style>", 1)[-1])


def panel_part(html: str, tracker: str) -> str:
    """The panel's box for the tracker with id `tracker`."""
    return html.split(f'data-tracker="{tracker}"', 1)[1].split('<div class="tk-tracker"', 1)[0]


@pytest.fixture
def chat() -> Chat:
    """hp 20 then 8 (hp_max 30 then 10); trust rows for Ana and Bo; a bag row."""
    chat = make_chat()
    reply(
        chat,
        {"tracker": "Health", "set": {"hp": 20}},
        {"tracker": "Trust", "row": "Ana", "set": {"level": -40}},
    )
    reply(
        chat,
        {"tracker": "Health", "set": {"hp_max": 10, "hp": 8}},
        {"tracker": "Trust", "row": "Bo", "set": {"level": 60}},
    )
    reply(
        chat,
        {"tracker": "Trust", "row": "Ana", "set": {"level": 10}},
        {"tracker": "Bag", "row": "rope", "set": {"qty": 2}},
    )
    return chat


class TestBarsOverHistory:
    def test_a_record_number_with_its_top_behind_it(self, chat: Chat) -> None:
        """A topped record number draws a top bar and a value bar per message, overlaid, the axis from its min."""
        fig = bars_over_history(history_frame(chat), "Health", "hp")
        top, value = fig.data
        assert (top.name, value.name) == ("hp top", "hp")
        assert list(top.x) == list(value.x) == [1, 2, 3], (
            "messages are numbered from 1, as the panel does"
        )
        assert list(top.y) == [30, 10, 10]
        assert list(value.y) == [20, 8, 8]
        assert list(value.customdata) == [m.id for m in chat.messages]
        assert fig.layout.barmode == "overlay"
        assert fig.layout.yaxis.range[0] == 0

    def test_a_number_without_top_has_one_trace(self, chat: Chat) -> None:
        """A number with no top draws the value bars alone; the tracker may be named by id."""
        fig = bars_over_history(history_frame(chat), "bag", "qty")
        assert [(t.name, list(t.x), list(t.y)) for t in fig.data] == [("rope", [3], [2.0])]

    def test_list_rows_are_series_and_min_is_the_floor(self, chat: Chat) -> None:
        """Each list row is its own series, grouped, with its own top; a negative min is the axis floor."""
        fig = bars_over_history(history_frame(chat), "Trust", "level")
        series = [(t.name, t.offsetgroup, list(t.x), list(t.y)) for t in fig.data]
        assert series == [
            ("Ana top", "Ana", [1, 2, 3], [100, 100, 100]),
            ("Ana", "Ana", [1, 2, 3], [-40, -40, 10]),
            ("Bo top", "Bo", [2, 3], [100, 100]),
            ("Bo", "Bo", [2, 3], [60, 60]),
        ]
        assert fig.layout.barmode == "group"
        assert fig.layout.yaxis.range[0] == -100

    def test_hostile_row_names_are_escaped_in_labels(self) -> None:
        """A row name with markup reaches plotly's labels escaped."""
        chat = make_chat(TRUST)
        reply(chat, {"tracker": "Trust", "row": HOSTILE, "set": {"level": 5}})
        fig = bars_over_history(history_frame(chat), "Trust", "level")
        assert all("<" not in t.name for t in fig.data)
        assert fig.data[1].offsetgroup == HOSTILE

    @pytest.mark.parametrize(
        ("tracker", "field", "error"),
        [
            ("Nope", "hp", NotFoundError),
            ("Health", "nope", NotFoundError),
            ("Health", "mood", BadRequestError),
        ],
        ids=["tracker", "field", "not-a-number"],
    )
    def test_errors(self, chat: Chat, tracker: str, field: str, error: type[Exception]) -> None:
        """An unknown tracker or field is NotFoundError; a field that is not a number is BadRequestError."""
        with pytest.raises(error):
            bars_over_history(history_frame(chat), tracker, field)


def entry_of(chat: Chat, name: str, index: int = -1) -> TrackerChanges:
    """The changes-read entry of tracker `name` on message `index`."""
    result = tracker_changes_between(chat, None, chat.messages[0].id)
    message = result.of(chat.messages[index].id)
    assert message is not None
    return next(t for t in message.trackers if t.name == name)


class TestChangesHtml:
    def test_chips_one_pill_per_change_with_icon(self, chat: Chat) -> None:
        """Chips draw one pill per change: its icon, then `field before → after`."""
        html = changes_html(entry_of(chat, "Health", 1))
        assert html.startswith("<style>")
        assert html.count("<style>") == 1
        assert html.count('class="tk-chip"') == 2
        assert (
            'title="lucide:heart">♥</span><span class="tk-field">hp</span> 20 <span class="tk-arrow">→</span> 8'
            in html
        )
        assert '<span class="tk-field">hp_max</span> 30 <span class="tk-arrow">→</span> 10' in html

    def test_card_is_a_titled_box_with_bars(self, chat: Chat) -> None:
        """A card has the tracker's title and icon, one item per change, and bars for topped numbers."""
        html = changes_html(entry_of(chat, "Trust", 1))
        assert 'class="tk-changes tk-card"' in html
        assert '<div class="tk-card-title"><span class="tk-icon" data-icon="lucide:users"' in html
        assert html.count("<li>") == 1
        assert '+ <span class="tk-row-name">Bo</span> (level=60)' in html
        assert re.search(
            r'class="tk-bar" title="60 of 100"><span class="tk-bar-fill" style="width:80%">', html
        )

    def test_toast_is_one_short_line(self, chat: Chat) -> None:
        """A toast is a single status line naming the tracker and every change."""
        html = changes_html(entry_of(chat, "Health", 1), style="toast")
        body = html.split("</style>", 1)[1]
        assert body.startswith('<div class="tk-changes tk-toast" role="status"')
        assert "<strong>Health</strong>: " in body
        assert "; " in body
        assert "<li>" not in body

    def test_a_list_row_edit_lists_what_moved(self, chat: Chat) -> None:
        """A changed row shows only its fields that moved."""
        html = changes_html(entry_of(chat, "Trust"), style="chips")
        assert (
            '<span class="tk-row-name">Ana</span>: level -40 <span class="tk-arrow">→</span> 10'
            in html
        )

    def test_hidden_and_the_switch_off_draw_nothing(self, chat: Chat) -> None:
        """Hidden draws nothing, and the scene's trackerChanges switch off turns every style off."""
        entry = entry_of(chat, "Health", 1)
        assert changes_html(entry, style="hidden") == ""
        for style in ("chips", "card", "toast", None):
            assert changes_html(entry, style=style, changes_on=False) == ""
        message = tracker_changes_between(chat, None, chat.messages[0].id).messages[0]
        assert changes_html(message, changes_on=chat.scene.with_changes(False).changes_on) == ""

    def test_a_whole_message_draws_each_tracker_in_its_style(self, chat: Chat) -> None:
        """A message entry draws each tracker in its own style inside one wrapper with one style block."""
        message = tracker_changes_between(chat, None, chat.messages[0].id).messages[-1]
        html = changes_html(message)
        assert html.count("<style>") == 1
        assert f'data-message-id="{message.message_id}"' in html
        assert 'tk-card" data-tracker="trust"' in html
        assert 'tk-chips" data-tracker="bag"' in html

    def test_an_unknown_style_is_a_bad_request(self, chat: Chat) -> None:
        """A style that is not chips, card, toast or hidden is refused."""
        with pytest.raises(BadRequestError):
            changes_html(entry_of(chat, "Health", 1), style="banner")

    @pytest.mark.parametrize("style", ["chips", "card", "toast"])
    def test_hostile_text_is_escaped(self, style: str) -> None:
        """Hostile tracker names, row names and values never become markup."""
        trust = copy.deepcopy(TRUST)
        trust["name"] = HOSTILE
        trust["body"]["fields"].append({"name": "note", "description": "A note.", "type": "text"})
        chat = make_chat(trust)
        reply(chat, {"tracker": HOSTILE, "row": BREAKOUT, "set": {"level": 5, "note": HOSTILE}})
        reply(chat, {"tracker": HOSTILE, "row": BREAKOUT, "set": {"note": BREAKOUT}})
        for message in tracker_changes_between(chat, None, chat.messages[0].id).messages:
            html = changes_html(message, style=style)
            assert "<script" not in html
            assert "<img" not in html
            assert set(tags(html)) <= {"div", "span", "ul", "li", "strong"}
            assert "&lt;script&gt;" in html
            assert "&quot;&gt;&lt;img" in html


class TestChipsNameTheirTracker:
    """Found in a trial: two trackers without an icon, both with `hp`, gave chips no one could tell
    apart (`hp 20 → 12`, `hp 20 → 5`); the tracker's name was only a hover title."""

    @staticmethod
    def _bare(tracker_id: str, name: str, icon: str | None = None) -> dict[str, Any]:
        """A record tracker as the designer's New blank tracker makes it: one `hp`, no icons."""
        fields = [{"name": "hp", "description": "Hit points.", "type": "number", "min": 0}]
        return {
            "id": tracker_id,
            "name": name,
            "description": f"{name}'s condition.",
            "body": {"layout": "record", "fields": fields, "note": "Lower hp.", "icon": icon},
        }

    def test_a_tracker_without_an_icon_is_named_on_each_chip(self) -> None:
        """Each chip of a tracker with no icon starts with its name, so two `hp` differ; a tracker
        with its own icon keeps its short chip (the icon, no name)."""
        chat = make_chat(
            self._bare("hero", "Hero"),
            self._bare("companion", "Companion"),
            self._bare("guard", "Guard", icon="lucide:shield"),
        )
        reply(
            chat,
            {"tracker": "Hero", "set": {"hp": 12}},
            {"tracker": "Companion", "set": {"hp": 5}},
            {"tracker": "Guard", "set": {"hp": 3}},
        )
        html = changes_html(tracker_changes_between(chat, None, chat.messages[0].id).messages[0])
        chips = re.findall(
            r'<span class="tk-chip">(.*?)</span>(?=<span class="tk-chip">|</div>)', html
        )
        assert len(chips) == 3
        assert chips[0].startswith('<span class="tk-chip-tracker">Hero</span>')
        assert chips[1].startswith('<span class="tk-chip-tracker">Companion</span>')
        assert '<span class="tk-field">hp</span> 0 <span class="tk-arrow">→</span> 12' in chips[0]
        assert chips[2].startswith('<span class="tk-icon" data-icon="lucide:shield"')
        assert "tk-chip-tracker" not in chips[2]

    def test_a_field_icon_does_not_stand_for_the_tracker(self, chat: Chat) -> None:
        """Health has no icon of its own (its hp has one): its chips name it before the field's
        icon, while its card and toast name it once, as before."""
        html = changes_html(entry_of(chat, "Health", 1))
        assert html.count('<span class="tk-chip"><span class="tk-chip-tracker">Health</span>') == 2
        assert '<span class="tk-chip-tracker">Health</span><span class="tk-icon"' in html
        for style in ("card", "toast"):
            other = changes_html(entry_of(chat, "Health", 1), style=style)
            assert 'class="tk-chip-tracker"' not in other
            assert other.count("Health") == 1


class TestPanelHtml:
    def test_values_icons_bars_and_who_changed_it(self, chat: Chat) -> None:
        """The panel shows each tracker's tip value, icons, bars for topped numbers, and the reply that last changed it."""
        html = panel_html(chat)
        assert html.count("<style>") == 1
        assert '<section class="tk-panel">' in html
        health = html.split('data-tracker="health"', 1)[1].split('data-tracker="bag"', 1)[0]
        assert 'title="lucide:heart">♥</span><span class="tk-field">hp</span> 8' in health
        assert 'title="8 of 10"' in health
        assert "width:80%" in health
        # Said as the chat numbers messages (trial des7: "changed by m8 (message 4)" matched
        # nothing the chat shows); the id stays on the element.
        changed = f'<div class="tk-changed-by" data-message="{chat.messages[1].id}">'
        assert f"{changed}changed by message 2</div>" in health
        trust = html.split('data-tracker="trust"')[1]
        assert f'data-message="{chat.messages[2].id}">changed by message 3</div>' in trust
        assert f"changed by {chat.messages[1].id}" not in html
        trust = html.split('data-tracker="trust"', 1)[1]
        assert '<span class="tk-row-name">Ana</span>' in trust
        assert 'title="10 of 100"' in trust

    def test_a_persons_edit_is_said_as_theirs(self, chat: Chat) -> None:
        """A tracker a person's edit changed last says "edited by you at message N", not that
        the message changed it (trial nu4: read as the model's write); the reply's own changes on
        that message keep their words."""
        third = chat.messages[2].id
        assert chat.edit("Health", {"hp": 7}).ok
        html = panel_html(chat)
        health, bag = panel_part(html, "health"), panel_part(html, "bag")
        assert f'data-message="{third}">edited by you at message 3</div>' in health
        assert f'data-message="{third}">changed by message 3</div>' in bag

    def test_an_edit_over_the_replys_own_write_is_the_last_change(self, chat: Chat) -> None:
        """An edit of a tracker the reply on the same message wrote is said as the person's (it
        is written after the reply's), and a later reply's write is said as the reply's again."""
        assert chat.edit("Bag", {"qty": 5}, row="rope").ok
        assert "edited by you at message 3</div>" in panel_part(panel_html(chat), "bag")
        chat.add_user("…")
        fifth = reply(chat, {"tracker": "Bag", "row": "rope", "set": {"qty": 1}})
        html = panel_html(chat)
        assert f'data-message="{fifth}">changed by message 5</div>' in panel_part(html, "bag")
        assert "edited by you" not in html

    def test_empty_list_unchanged_tracker_and_left_out(self) -> None:
        """An empty list shows (none), an untouched tracker says so, and a left-out tracker gives its reason."""
        docs = {p["id"]: copy.deepcopy(p) for p in (HEALTH, BAG)}
        chat = Chat(
            Scene(id="s", title="S", prompting={"trackers": ["health", "bag", "gone"]}), docs
        )
        html = panel_html(chat)
        assert "(none)" in html
        assert "not changed yet" in html
        assert 'data-tracker="gone"' in html
        assert "left out" in html

    def test_values_are_shown_as_the_prompt_shows_them(self) -> None:
        """The panel and a change show a value by `line_of`, as the prompt block does: a float as
        JSON writes it and a text on one line (a row's note with a line break included)."""
        trust = copy.deepcopy(TRUST)
        trust["body"]["fields"].append({"name": "note", "description": "A note.", "type": "text"})
        chat = make_chat(HEALTH, trust)
        reply(chat, {"tracker": "Health", "set": {"hp": 12.5}})
        mid = reply(chat, {"tracker": "Trust", "row": "Ana", "set": {"level": 4.0, "note": "a\nb"}})
        panel = panel_html(chat)
        assert '<span class="tk-field">hp</span> 12.5' in panel
        assert '<span class="tk-field">level</span> 4.0' in panel
        assert '<span class="tk-field">note</span> a b<' in panel
        message = tracker_changes_between(chat, None, mid).of(mid)
        assert message is not None
        assert "(level=4.0, note=a b)" in changes_html(message)

    def test_hostile_text_is_escaped(self) -> None:
        """Row names, values and tracker names in the panel are escaped."""
        trust = copy.deepcopy(TRUST)
        trust["name"] = BREAKOUT
        trust["body"]["fields"].append({"name": "note", "description": "A note.", "type": "text"})
        chat = make_chat(trust)
        reply(chat, {"tracker": BREAKOUT, "row": HOSTILE, "set": {"note": BREAKOUT}})
        html = panel_html(chat)
        assert "<script" not in html
        assert "<img" not in html
        assert set(tags(html)) <= {"section", "div", "span", "ul", "li"}


class TestIcons:
    @pytest.mark.parametrize(
        ("icon", "symbol"),
        [
            ("lucide:heart", "♥"),
            ("mdi:heart", "♥"),
            ("mdi:weight-pound", "⚖"),
            ("lucide:no-such-glyph", "•"),
        ],
    )
    def test_an_icon_id_is_a_labelled_span(self, icon: str, symbol: str) -> None:
        """An icon id draws as a span naming the id, with a known symbol or a neutral dot."""
        assert (
            icon_html(icon)
            == f'<span class="tk-icon" data-icon="{icon}" title="{icon}">{symbol}</span>'
        )

    def test_no_icon_is_nothing(self) -> None:
        """No icon draws nothing."""
        assert icon_html(None) == ""


def test_trouble_html_titles_the_failure_and_escapes_the_error() -> None:
    html = trouble_html("Could not <load>", ValueError("bad <b>path</b> /x"))
    assert html.startswith("<p><strong>Could not &lt;load&gt;</strong></p>")
    assert "ValueError: bad &lt;b&gt;path&lt;/b&gt; /x" in html
    assert "overflow-wrap: anywhere" in html


def test_trouble_html_says_a_validation_error_in_words() -> None:
    """A new-user trial: a URL without a scheme on the evaluate page showed pydantic's dump
    (`1 validation error for Variant … input_value={…} … errors.pydantic.dev`). `Variant` now
    refuses in trackerkit's words itself; any other model's ValidationError is said in words."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    from trackerkit.errors import BadRequestError
    from trackerkit.evaluation.variants import Variant

    class Settings(BaseModel):
        model_config = ConfigDict(extra="forbid")
        runs: int

    for make, said in (
        (lambda: Variant(name="e", model="openai", base_url="127.0.0.1:9/v1"), "is not an http(s)"),
        (lambda: Settings(runs="many"), "runs: "),  # type: ignore[arg-type]
    ):
        with pytest.raises((ValidationError, BadRequestError)) as caught:
            make()
        html = trouble_html("The evaluation could not run", caught.value)
        assert said in html
        assert "pydantic" not in html
        assert "input_value" not in html


def test_trouble_html_gives_a_trackerkit_error_as_its_sentence() -> None:
    """Found when tried: a page showed "BadRequestError: --data: … is not a folder"; a
    trackerkit error is its own sentence, and only an unexpected error is named by its class."""
    from trackerkit.errors import BadRequestError

    html = trouble_html("The data folder", BadRequestError("--data: x is not a folder"))
    assert "BadRequestError" not in html
    assert "--data: x is not a folder" in html
