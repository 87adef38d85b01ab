"""The rail's exports (issue 16, item 6): each export's token cost and each provider's verdict."""

from __future__ import annotations

import pytest
from conftest import DATA_TRACKERS

from trackerkit import Draft, Library, TrackerDecodeError, export_costs
from trackerkit.design import export_rows, exports_html

KEYS = ["tool", "anyof", "openai", "anthropic", "gemini"]


def _health() -> Draft:
    return Draft.open(Library(DATA_TRACKERS).get("health"))


def _many_choices() -> Draft:
    """A choice of 1,001 values: OpenAI's strict mode takes at most 1,000 enum values in all."""
    draft = _health()
    key = draft.key("mood")
    return draft.set_field(key, choices=[f"c{i}" for i in range(1001)], default="c0")


@pytest.mark.parametrize("tracker_id", Library(DATA_TRACKERS).ids())
def test_every_bundled_tracker_has_each_export_priced_and_taken(tracker_id: str) -> None:
    """Five rows in order, both OpenAI encodings counted, the same counts as `export_costs`."""
    tracker = Library(DATA_TRACKERS).get(tracker_id)
    rows = export_rows(tracker)
    assert [r.key for r in rows] == KEYS
    assert [dict(r.tokens) for r in rows] == [c.tokens for c in export_costs([tracker])]
    assert all(
        set(r.tokens) == {"cl100k_base", "o200k_base"} and min(r.tokens.values()) > 0 for r in rows
    )
    assert [r.provider for r in rows] == [None, None, "openai", "anthropic", "gemini"]
    assert [r.verdict() for r in rows] == [
        "no provider rules to check",
        "no provider rules to check",
        "OpenAI (strict) takes it",
        "Anthropic takes it",
        "Gemini takes it",
    ]


def test_a_draft_is_priced_as_it_stands() -> None:
    """The rows follow the draft: a longer note (its line in the tool) costs more in every export."""
    draft = _health()
    longer = draft.set(note="Lower hp when she is hurt. " * 20)
    before, after = export_rows(draft), export_rows(longer)
    assert all(
        a.tokens["o200k_base"] > b.tokens["o200k_base"] for a, b in zip(after, before, strict=True)
    )


def test_the_provider_that_would_refuse_is_named_with_its_problem() -> None:
    """Only OpenAI strict refuses 1,001 choices (too many enum values; the description that
    lists them is over 1,024 characters, a warning); its row says so and lists both."""
    rows = {r.key: r for r in export_rows(_many_choices())}
    assert rows["openai"].refused
    assert rows["openai"].verdict() == "OpenAI (strict) would refuse it (1 problem, 1 warning)"
    assert rows["openai"].problems == (
        "function.parameters: has 1,003 enum values; strict mode allows 1,000",
    )
    assert rows["openai"].warnings[0].startswith("function.description: is ")
    assert not rows["anthropic"].refused
    assert not rows["gemini"].refused
    table = exports_html(rows.values())
    assert '<tr class="refused" data-export="openai">' in table
    assert "<li>function.parameters: has 1,003 enum values; strict mode allows 1,000</li>" in table
    assert "<li>warning: function.description: is " in table


def test_the_table_shows_each_count() -> None:
    rows = export_rows(_health())
    table = exports_html(rows)
    assert table.count("<tr data-export=") == 5
    assert "<th>cl100k_base</th><th>o200k_base</th>" in table
    for row in rows:
        assert (
            f'<td class="tokens">{row.tokens["cl100k_base"]:,}</td><td class="tokens">{row.tokens["o200k_base"]:,}</td>'
            in table
        )


def test_a_draft_the_decoder_refuses_is_not_priced() -> None:
    draft = _health()
    broken = draft.set_type(draft.key("mood"), "choice").set_field(draft.key("mood"), choices=[])
    with pytest.raises(TrackerDecodeError):
        export_rows(broken)
