"""The macro engine: syntax (TR-32), read-only templates and their caps (TR-31)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trackerkit.errors import MacroLookupError, TrackerkitError
from trackerkit.macros import (
    MacroHandler,
    MacroIssue,
    MacroLimits,
    MacroReport,
    MacroUse,
    context_handlers,
    render_macros,
)


def _tracker(args: tuple[str, ...]) -> str:
    values = {("Health",): "Health: hp=25, hp_max=30", ("Health", "hp"): "25"}
    if args[:1] != ("Health",):
        name = args[0] if args else ""
        raise MacroLookupError(f'no tracker named "{name}" is linked', code="no_tracker", name=name)
    if args not in values:
        raise MacroLookupError(
            f'Health has no field named "{args[1]}"', code="no_field", name=args[1]
        )
    return values[args]


HANDLERS: dict[str, MacroHandler] = {
    **context_handlers("Ann", "Health"),
    "tracker": _tracker,
    "echo": lambda args: "|".join(args),
}


def _double(args: tuple[str, ...]) -> str:
    return args[0] * 2


class TestSyntax:
    """TR-32: `{{name}}`, `{{name::arg::...}}`, nesting, and what stays plain text."""

    def test_plain_text_is_copied(self) -> None:
        """Text with no macro comes out unchanged and the report is empty."""
        rendered = render_macros("hp: 25 } :: }} {", HANDLERS)
        assert rendered.text == "hp: 25 } :: }} {"
        assert rendered.report == MacroReport()

    def test_context_names(self) -> None:
        """`{{user}}` and `{{char}}` read the turn's names."""
        assert render_macros("{{user}} and {{char}}.", HANDLERS).text == "Ann and Health."

    def test_arguments(self) -> None:
        """`::` separates arguments; the handler receives them without the name."""
        rendered = render_macros("{{tracker::Health::hp}}/30", HANDLERS)
        assert rendered.text == "25/30"
        assert rendered.report.uses == (MacroUse("tracker", ("Health", "hp"), 0),)

    def test_empty_and_colon_arguments(self) -> None:
        """Arguments are split at each `::` of the template, leftmost first."""
        assert render_macros("{{echo::a:::b::::c}}", HANDLERS).text == "a|:b||c"

    def test_nesting_innermost_first(self) -> None:
        """A macro inside an argument is evaluated first and its result becomes the argument."""
        rendered = render_macros("hp {{tracker::{{char}}::hp}}", HANDLERS)
        assert rendered.text == "hp 25"
        assert [use.name for use in rendered.report.uses] == ["char", "tracker"]
        assert rendered.report.uses[1] == MacroUse("tracker", ("Health", "hp"), 3)

    def test_use_knows_where_its_result_went(self) -> None:
        """A use written to the output records its offset there; one fed into an argument records none."""
        rendered = render_macros("hp {{tracker::{{char}}::hp}} {{user}}", HANDLERS)
        assert rendered.text == "hp 25 Ann"
        assert [(u.name, u.at) for u in rendered.report.uses] == [
            ("char", None),
            ("tracker", 3),
            ("user", 6),
        ]

    def test_offset_counts_results_not_template_text(self) -> None:
        """The offset is in the output: a long result before a macro moves it, a long macro source does not."""
        handlers: dict[str, MacroHandler] = {**HANDLERS, "long": lambda args: "x" * 50}
        rendered = render_macros("{{long::ignored::args}}|{{ user }}", handlers)
        assert rendered.text.index("Ann") == rendered.report.uses[1].at == 51

    def test_names_match_whatever_the_case(self) -> None:
        """`{{USER}}`, `{{ Char }}` and a handler registered as `Echo` all match."""
        handlers: dict[str, MacroHandler] = {**HANDLERS, "Shout": lambda args: "HEY"}
        rendered = render_macros("{{USER}} {{ Char }} {{shout}}", handlers)
        assert rendered.text == "Ann Health HEY"
        assert [use.name for use in rendered.report.uses] == ["user", "char", "shout"]

    @pytest.mark.parametrize(
        ("template", "expected"),
        [
            ("{{user", "{{user"),
            ("a {{b {{user}}", "a {{b Ann"),
            ("{{echo::x::{{user}}", "{{echo::x::Ann"),
            ("{{user}}}", "Ann}"),
            ("}}{{user}}::", "}}Ann::"),
        ],
        ids=["unclosed", "unclosed-around-a-macro", "unclosed-with-args", "extra-brace", "strays"],
    )
    def test_unclosed_and_stray_braces_are_text(self, template: str, expected: str) -> None:
        """An unclosed `{{`, and `}}` or `::` outside a macro, stay as written."""
        rendered = render_macros(template, HANDLERS)
        assert rendered.text == expected
        assert rendered.report.ok

    def test_result_is_not_scanned_again(self) -> None:
        """A value holding macro syntax comes out literally: a model-written value cannot run a macro."""
        handlers: dict[str, MacroHandler] = {
            "note": lambda args: "{{user}} {{self}} ::",
            "self": lambda args: "{{self}}",
        }
        rendered = render_macros("{{note}}|{{self}}", handlers)
        assert rendered.text == "{{user}} {{self}} ::|{{self}}"
        assert [use.name for use in rendered.report.uses] == ["note", "self"]

    def test_result_never_splits_arguments(self) -> None:
        """`::` in a nested macro's result stays inside one argument."""
        handlers: dict[str, MacroHandler] = {**HANDLERS, "pair": lambda args: "a::b"}
        assert render_macros("{{echo::{{pair}}::c}}", handlers).text == "a::b|c"


class TestErrors:
    """TR-32: an unknown macro, tracker, field or row is a reported error that names it."""

    def test_unknown_macro_stays_as_written(self) -> None:
        """An unknown name is reported by name and its source stays in the text."""
        rendered = render_macros("x {{helth::{{user}}}} y", HANDLERS, source="Mood")
        assert rendered.text == "x {{helth::{{user}}}} y"
        assert rendered.report.errors == (
            MacroIssue(
                "{{helth::{{user}}}}",
                2,
                'unknown macro "helth"; it was left as written',
                "Mood",
                code="unknown_macro",
                name="helth",
            ),
        )
        assert not rendered.report.ok

    @pytest.mark.parametrize(
        ("template", "macro", "position", "message", "code", "name"),
        [
            (
                "hp={{tracker::Helth}}",
                "{{tracker::Helth}}",
                3,
                'no tracker named "Helth" is linked',
                "no_tracker",
                "Helth",
            ),
            (
                "{{user}} {{tracker::Health::hpp}}",
                "{{tracker::Health::hpp}}",
                9,
                'Health has no field named "hpp"',
                "no_field",
                "hpp",
            ),
            ("{{user::x}}", "{{user::x}}", 0, "{{user}} takes no arguments", "usage", "user"),
        ],
        ids=["unknown-tracker", "unknown-field", "argument-to-a-name"],
    )
    def test_handler_refusal(
        self, template: str, macro: str, position: int, message: str, code: str, name: str
    ) -> None:
        """A handler's `MacroLookupError` renders as nothing and is reported at the macro's offset,
        with the handler's code and the name it concerns."""
        rendered = render_macros(template, HANDLERS, source="Health")
        assert rendered.report.errors == (
            MacroIssue(macro, position, message, "Health", code, name),
        )
        assert macro not in rendered.text
        assert template[position:].startswith(macro)

    def test_nested_error_is_reported_where_it_stands(self) -> None:
        """An error inside an argument carries its own offset, and the outer macro still runs."""
        rendered = render_macros("{{echo::a{{tracker::Nope}}b}}", HANDLERS)
        assert rendered.text == "ab"
        assert [(e.macro, e.position) for e in rendered.report.errors] == [("{{tracker::Nope}}", 9)]

    def test_lookup_error_is_in_the_family(self) -> None:
        """`MacroLookupError` is a `TrackerkitError`."""
        assert issubclass(MacroLookupError, TrackerkitError)

    def test_other_handler_exceptions_propagate(self) -> None:
        """Only `MacroLookupError` is a macro error; any other exception is a handler bug."""

        def broken(args: tuple[str, ...]) -> str:
            raise ZeroDivisionError

        with pytest.raises(ZeroDivisionError):
            render_macros("{{broken}}", {"broken": broken})

    def test_report_merge(self) -> None:
        """Merging keeps this report's errors and uses first, then the other's."""
        first = render_macros("{{user}}{{nope}}", HANDLERS, source="A").report
        second = render_macros("{{char}}{{nada}}", HANDLERS, source="B").report
        merged = first.merge(second)
        assert [e.source for e in merged.errors] == ["A", "B"]
        assert [u.name for u in merged.uses] == ["user", "char"]
        assert MacroReport().merge(MacroReport()).ok


class TestCaps:
    """TR-31: hostile templates end with a reported cap, never a hang or a blow-up."""

    def test_step_budget(self) -> None:
        """A million macros stop at the budget with one error; the text is what came before."""
        rendered = render_macros("{{user}}" * 1_000_000, HANDLERS)
        assert rendered.text == "Ann" * 10_000
        assert len(rendered.report.uses) == 10_000
        (error,) = rendered.report.errors
        assert error.message == (
            "step budget of 10000 macro evaluations spent; the rest of the template was left out"
        )
        assert error.position == 8 * 10_000

    def test_step_budget_counts_unknown_macros(self) -> None:
        """Unknown macros spend steps too, so their errors are bounded by the budget."""
        limits = MacroLimits(step_budget=50)
        rendered = render_macros("{{x}}" * 1_000_000, HANDLERS, limits=limits)
        assert len(rendered.report.errors) == 51
        assert rendered.report.errors[-1].message.startswith("step budget of 50 ")
        assert rendered.report.errors[-1].code == "step_budget"
        assert len(rendered.text) == 5 * 50

    def test_output_ceiling_on_a_huge_result(self) -> None:
        """A handler's huge result is cut at the ceiling and the cap is reported."""
        handlers: dict[str, MacroHandler] = {"big": lambda args: "y" * 5_000_000}
        rendered = render_macros("ab{{big}}cd", handlers)
        assert rendered.text == "ab" + "y" * 999_998
        (error,) = rendered.report.errors
        assert (error.macro, error.position) == ("{{big}}", 2)
        assert error.message.startswith("output ceiling of 1000000 characters reached")
        assert error.code == "output_ceiling"

    def test_output_ceiling_on_a_million_characters(self) -> None:
        """A template writing past the ceiling is cut exactly at it."""
        rendered = render_macros("{{user}}" + "z" * 1_000_000, HANDLERS)
        assert len(rendered.text) == 1_000_000
        assert rendered.report.errors[0].message.startswith("output ceiling")

    def test_exponential_nesting(self) -> None:
        """Each level doubling its argument hits the ceiling long before 2**30 characters."""
        template = "{{a::" * 30 + "x" + "}}" * 30
        rendered = render_macros(template, {"a": _double})
        assert len(rendered.text) <= 1_000_000
        assert [e.message.split(" of ")[0] for e in rendered.report.errors] == ["output ceiling"]

    def test_results_fed_to_arguments_count(self) -> None:
        """A result a macro drops still counts, so dropping cannot dodge the ceiling."""
        handlers: dict[str, MacroHandler] = {
            "big": lambda args: "y" * 600_000,
            "drop": lambda a: "",
        }
        rendered = render_macros("{{drop::{{big}}}}" * 1_000, handlers)
        assert rendered.text == ""
        assert [use.name for use in rendered.report.uses] == ["big", "drop", "big"]
        assert rendered.report.errors[0].message.startswith("output ceiling")

    def test_depth(self) -> None:
        """Nesting past the depth cap stops with one error at the too-deep `{{`."""
        template = "ok " + "{{a::" * 40 + "x" + "}}" * 40
        rendered = render_macros(template, {"a": _double})
        assert rendered.text == "ok "
        (error,) = rendered.report.errors
        assert error.position == 3 + 5 * 32
        assert error.message == (
            "macros are nested more than 32 deep; the rest of the template was left out"
        )

    def test_wall_of_open_braces(self) -> None:
        """A million unclosed `{{` stop at the depth cap instead of being scanned."""
        rendered = render_macros("{{" * 1_000_000, HANDLERS)
        assert rendered.text == ""
        assert len(rendered.report.errors) == 1

    def test_wall_of_separators(self) -> None:
        """A macro with a million arguments is split at C speed and runs once."""
        handlers: dict[str, MacroHandler] = {"count": lambda args: str(len(args))}
        rendered = render_macros("{{count" + "::" * 1_000_000 + "}}", handlers)
        assert rendered.text == "1000000"

    def test_limits_are_configurable(self) -> None:
        """Smaller caps apply as given."""
        limits = MacroLimits(step_budget=2, output_ceiling=5, max_depth=1)
        assert render_macros("{{user}}{{user}}", HANDLERS, limits=limits).text == "AnnAn"
        deep = render_macros("{{echo::{{user}}}}", HANDLERS, limits=limits)
        assert deep.report.errors[0].message.startswith("macros are nested more than 1 deep")


# Everything but `{`, so no macro can open.
_NO_MACRO = st.text(st.characters(blacklist_characters="{"), max_size=200)
_MACRO_ALPHABET = st.lists(
    st.sampled_from(["{{", "}}", "::", "{", "user", "char", "echo", "x", " "]), max_size=60
).map("".join)


class TestLaws:
    """Laws that hold for any text."""

    @given(_NO_MACRO)
    def test_text_without_macros_is_unchanged(self, text: str) -> None:
        """Text with no `{{` renders as itself with an empty report."""
        rendered = render_macros(text, HANDLERS)
        assert rendered.text == text
        assert rendered.report == MacroReport()

    @given(st.one_of(st.text(max_size=300), _MACRO_ALPHABET))
    def test_rendering_never_raises(self, text: str) -> None:
        """Any text renders, and every error and use points at its macro in the template."""
        rendered = render_macros(text, HANDLERS)
        for error in rendered.report.errors:
            assert text.startswith(error.macro, error.position)
        for use in rendered.report.uses:
            assert text.startswith("{{", use.position)

    @given(_MACRO_ALPHABET, st.integers(min_value=0, max_value=40))
    def test_ceiling_bounds_the_text(self, text: str, ceiling: int) -> None:
        """The text never passes the output ceiling."""
        limits = MacroLimits(output_ceiling=ceiling)
        assert len(render_macros(text * 3, HANDLERS, limits=limits).text) <= ceiling
