"""The editor's rail: what the model gets from one tracker, at its starting values (TR-51).

Beside the prompt block it shows each export of the update tool (the line-per-tracker tool, its
anyOf variant, OpenAI strict, Anthropic, Gemini) with its token cost in both OpenAI encodings,
and what each provider's checker finds, so the designer sees which provider would refuse it.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trackerkit.design.sample import starting_state
from trackerkit.formats.checkers import check_provider_tool, is_warning, tool_verdict
from trackerkit.formats.providers import PROVIDERS, export_costs, provider_tool
from trackerkit.macros import MacroReport
from trackerkit.prompt import PromptContext, default_text, render_trackers_block
from trackerkit.tokens import DEFAULT_ENCODING, ENCODINGS, count_tokens
from trackerkit.tool import tracker_line
from trackerkit.tracker import Tracker
from trackerkit.update import tracker_value

if TYPE_CHECKING:
    from trackerkit.design.draft import Draft

__all__ = [
    "PROVIDER_NAMES",
    "ExportRow",
    "Rail",
    "export_rows",
    "exports_html",
    "rail",
]

_CONTEXT = PromptContext()


@dataclass(frozen=True, slots=True)
class Rail:
    """What the model gets from a tracker (TR-51), a list showing one sample row and its start.

    Attributes:
        block: the `### Trackers` block as prompt assembly renders it (None when the text is empty).
        plain: the default rendering the tracker falls back to without a template.
        tokens: the block's cost in tokens per reply, counted with `encoding`.
        plain_tokens: what the block (with its `### Trackers` heading) would cost with the
            plain line instead of the template.
        line_tokens: the plain line's own cost, without the heading.
        encoding: the tiktoken encoding of both counts.
        tool_line: the tracker's own line in the `update_trackers` description.
        report: the macro report of the template.
        sample: True for a list: `block` shows one invented sample row, and a chat starts with
            none (TR-19).
        empty_block: for a list, the block as a chat starts, with no rows (None when the
            tracker's text is then empty and the block leaves it out).
        empty_tokens: that block's cost in tokens (0 when there is none).
    """

    block: str | None
    plain: str
    tokens: int
    plain_tokens: int
    line_tokens: int
    encoding: str
    tool_line: str
    report: MacroReport
    sample: bool = False
    empty_block: str | None = None
    empty_tokens: int = 0

    def prompt_heading(self) -> str:
        """The block's heading (markdown), saying what it shows and what it costs.

        >>> Rail(None, "Bag: (none)", 15, 9, 5, "cl100k_base", "", MacroReport(), True).prompt_heading()
        '**Prompt, with one sample row** · 15 tokens per reply with that row (cl100k_base)'
        """
        if not self.sample:
            return f"**Prompt** · {self.tokens} tokens per reply ({self.encoding})"
        return (
            f"**Prompt, with one sample row** · {self.tokens} tokens per reply with that row "
            f"({self.encoding})"
        )

    def empty_heading(self) -> str:
        """For a list, what a chat starts with (markdown); '' for a record.

        >>> Rail(None, "", 15, 9, 5, "cl100k_base", "", MacroReport(), True).empty_heading()
        "**A chat starts with no rows**: the tracker's text is then empty, and the block leaves it out"
        """
        if not self.sample:
            return ""
        if self.empty_block is None:
            return (
                "**A chat starts with no rows**: the tracker's text is then empty, and the block "
                "leaves it out"
            )
        return (
            f"**A chat starts with no rows**, and the block then reads · {self.empty_tokens} tokens"
        )

    def plain_heading(self) -> str:
        """The plain line's heading (markdown), saying what each count counts.

        >>> Rail(None, "Health: hp=0", 0, 9, 5, "cl100k_base", "", MacroReport()).plain_heading()
        '**The plain line it falls back to** · 5 tokens for the line alone (9 for the block with this line)'
        """
        return (
            f"**The plain line it falls back to** · {self.line_tokens} tokens for the line alone "
            f"({self.plain_tokens} for the block with this line)"
        )


def rail(
    subject: Draft | Tracker,
    context: PromptContext = _CONTEXT,
    encoding: str = DEFAULT_ENCODING,
) -> Rail:
    """The rail for a tracker or a draft at its starting values (a list with one sample row).

    Raises:
        TrackerDecodeError: a draft the strict decoder refuses (its verdict says why).
        TrackerkitError: an encoding that is not available offline.
    """
    tracker = subject if isinstance(subject, Tracker) else subject.tracker()
    state = starting_state(tracker)
    block = render_trackers_block([tracker], state, context)
    plain = default_text(tracker, tracker_value(tracker, state))
    plain_block = render_trackers_block(
        [tracker.model_copy(update={"body": tracker.body.model_copy(update={"template": None})})],
        state,
        context,
    )
    empty = render_trackers_block([tracker], {}, context).text if tracker.layout == "list" else None
    return Rail(
        block=block.text,
        plain=plain,
        tokens=count_tokens(block.text, encoding) if block.text else 0,
        plain_tokens=count_tokens(plain_block.text, encoding) if plain_block.text else 0,
        line_tokens=count_tokens(plain, encoding) if plain else 0,
        encoding=encoding,
        tool_line=tracker_line(tracker),
        report=block.report,
        sample=tracker.layout == "list",
        empty_block=empty,
        empty_tokens=count_tokens(empty, encoding) if empty else 0,
    )


#: Each provider export's name as the rail says it.
PROVIDER_NAMES: Mapping[str, str] = {
    "openai": "OpenAI (strict)",
    "anthropic": "Anthropic",
    "gemini": "Gemini",
}


@dataclass(frozen=True, slots=True)
class ExportRow:
    """One export of the update tool for the rail: its cost and, for a provider, what its checker finds.

    Attributes:
        key: `tool`, `anyof`, `openai`, `anthropic` or `gemini`.
        label: what the export is, in words.
        tokens: its cost in each OpenAI encoding (`cl100k_base`, `o200k_base`); for Anthropic and
            Gemini an estimate, not those providers' own counts.
        provider: the provider whose rules were checked, or None (no provider checker applies).
        problems: each rule the export breaks, with its path (empty: the provider takes it).
        warnings: each limit the provider has enforced and may have lifted, which the export
            passes (`checkers.is_warning`): it may be refused, not surely.
    """

    key: str
    label: str
    tokens: Mapping[str, int]
    provider: str | None
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def refused(self) -> bool:
        """True when the provider's rules refuse this export."""
        return bool(self.problems)

    def verdict(self) -> str:
        """What the provider makes of it, in the words `export` uses (`checkers.tool_verdict`)."""
        if self.provider is None:
            return "no provider rules to check"
        name = PROVIDER_NAMES.get(self.provider, self.provider)
        return tool_verdict(name, len(self.problems), len(self.warnings))


def export_rows(subject: Draft | Tracker) -> list[ExportRow]:
    """Each export of the update tool for one tracker (or draft), with its cost and its checker's problems.

    Raises:
        TrackerDecodeError: a draft the strict decoder refuses (its verdict says why).
    """
    tracker = subject if isinstance(subject, Tracker) else subject.tracker()
    rows = []
    for cost in export_costs([tracker]):
        provider = next((p for p in PROVIDERS if p == cost.key), None)
        tool = provider_tool(provider, [tracker]) if provider is not None else None
        found = check_provider_tool(provider, tool) if provider is not None else []
        problems = tuple(str(p) for p in found if not is_warning(p))
        warnings = tuple(str(p) for p in found if is_warning(p))
        rows.append(
            ExportRow(cost.key, cost.label, dict(cost.tokens), provider, problems, warnings)
        )
    return rows


_EXPORTS_STYLE = (
    "<style>"
    ".export-costs{border-collapse:collapse;font-size:0.9em}"
    ".export-costs th,.export-costs td{border:1px solid #d4d4d8;padding:3px 6px;"
    "text-align:left;vertical-align:top}"
    ".export-costs th{background:#f4f4f5}"
    ".export-costs td.tokens{text-align:right;font-variant-numeric:tabular-nums}"
    ".export-costs .refused{background:#fee2e2}"
    "</style>"
)


def exports_html(rows: Iterable[ExportRow]) -> str:
    """The exports as an HTML table: label, tokens per encoding, the provider's verdict and problems."""
    head = (
        "<tr><th>Export</th>"
        + "".join(f"<th>{html.escape(e)}</th>" for e in ENCODINGS)
        + "<th>Provider rules</th></tr>"
    )
    body = []
    for row in rows:
        tokens = "".join(
            f'<td class="tokens">{row.tokens[e]:,}</td>'
            if e in row.tokens
            else '<td class="tokens">—</td>'
            for e in ENCODINGS
        )
        said = html.escape(row.verdict())
        listed = [*row.problems, *(f"warning: {w}" for w in row.warnings)]
        if listed:
            said += "<ul>" + "".join(f"<li>{html.escape(p)}</li>" for p in listed) + "</ul>"
        mark = ' class="refused"' if row.refused else ""
        body.append(
            f'<tr{mark} data-export="{html.escape(row.key)}"><td>{html.escape(row.label)}</td>'
            f"{tokens}<td>{said}</td></tr>"
        )
    return f'{_EXPORTS_STYLE}<table class="export-costs"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'
