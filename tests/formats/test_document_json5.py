"""JSON5, the last reading `parse_document` tries, is read by pyjson5's compiled parser within the
import's limits (trial nu4: the pure-Python `json5` package took 172 s to refuse 2 MB of
`{a:1,a:1,…` with a stray character at its end, and could not read 99 levels of nesting)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import pyjson5
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit.errors import ImportRefusedError
from trackerkit.formats import document, json5_document
from trackerkit.formats.document import parse_document
from trackerkit.formats.json5_document import NOT_JSON5, PastLimitError, read_json5

#: The trial's input: 2 MB of a mapping's entries, then a character no reader takes.
_TRIAL_NU4 = "{" + "a:1," * 524_288 + "@"


def _refusal(text: str) -> str:
    with pytest.raises(ImportRefusedError) as caught:
        parse_document(text, "f.json5")
    return str(caught.value).removeprefix("f.json5: ")


def _count(data: object) -> int:
    """The values `data` holds, as `document._plain` counts them (mapping keys are no values)."""
    if isinstance(data, dict):
        return 1 + sum(_count(value) for value in data.values())
    if isinstance(data, list):
        return 1 + sum(_count(value) for value in data)
    return 1


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each text pyjson5 is given to parse."""
    lengths: list[int] = []
    decode = pyjson5.decode

    def recorded(text: str, maxdepth: int | None = None) -> Any:
        lengths.append(len(text))
        return decode(text, maxdepth=maxdepth)

    monkeypatch.setattr(json5_document.pyjson5, "decode", recorded)
    return lengths


class TestRefusals:
    """What JSON5 past a limit, or no JSON5 at all, is refused with."""

    def test_trial_input(self) -> None:
        """The trial's 2 MB text is refused in the words it was, naming the YAML error."""
        assert _refusal(_TRIAL_NU4) == (
            "is not JSON, YAML or JSON5 (YAML: found character that cannot start any token "
            "at line 1, column 2097154)"
        )

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("// deep\n" + "[" * 102 + "]" * 102, "nests deeper than 100 levels"),
            ("// deep\n" + "[" * 101 + "1" + "]" * 101, "nests deeper than 100 levels"),
            ("// deep\n" + "{a:" * 150, "nests deeper than 100 levels"),
            (
                "// c\n{a: [1,\n  1e999]}",
                "is JSON5 holding a number too large to read at line 3, column 3",
            ),
            (
                "// c\n{a: " + "9" * 5000 + "}",
                "is JSON5 holding a number too large to read at line 2, column 5",
            ),
            (
                "{a: 1,, }",
                "is not JSON, YAML or JSON5 (YAML: expected the node content, but found ',' at line 1, column 7)",
            ),
            (
                "// c\n{a: 1} x",
                "is not JSON, YAML or JSON5 (YAML: mapping values are not allowed here at line 2, column 3)",
            ),
        ],
        ids=["deep", "deep-scalar", "deep-unclosed", "1e999", "5000-digits", "broken", "extra"],
    )
    def test_refused(self, text: str, reason: str) -> None:
        assert _refusal(text) == reason

    def test_read_at_the_depth_limit(self) -> None:
        """A hundred levels below the top are read (the pure-Python reader stopped before)."""
        text = "// deep\n" + "[" * 100 + "'x'" + "]" * 100
        found = parse_document(text, "f.json5")
        for _ in range(100):
            assert isinstance(found, list)
            found = found[0]
        assert found == "x"


class TestValueLimit:
    """A text holding more values than the limit is refused once pyjson5 has read just past the
    limit, never the whole of it."""

    @pytest.fixture(autouse=True)
    def limits(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(document, "_MAX_NODES", 12)

    @pytest.mark.parametrize(
        "text",
        [
            "// c\n[" + "1, " * 10_000 + "1]",
            "// c\n{" + "a: [], " * 10_000 + "}",
            "// c\n[" + "[[1, 2], {k: 'v,'}], " * 5_000 + "]",
            "// c\n[" + "1, " * 10_000 + "@",
        ],
        ids=["list", "mapping", "nested", "broken-past-the-limit"],
    )
    def test_refused_from_a_short_read(self, decoded: list[int], text: str) -> None:
        assert _refusal(text) == "holds more than 1,000,000 values"
        assert decoded
        assert max(decoded) < 200

    @pytest.mark.parametrize(
        "text",
        [
            "// c\n[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]",
            "// c\n{a: [], b: {}, c: [1, 2,], d: {e: 3, f: [4, 5, 6,],},}",
            "// c\n['" + ",,[{" * 10_000 + "', /* ,,[{ */ 1, 2] // ,,,,",
        ],
        ids=["list", "empty-and-trailing-commas", "commas-in-strings-and-comments"],
    )
    def test_twelve_values_read(self, text: str) -> None:
        assert parse_document(text, "f.json5") is not None

    def test_broken_before_the_limit(self) -> None:
        """Text that stops being JSON5 before the limit is no JSON5."""
        assert read_json5("// c\n[1, @, " + "1, " * 10_000 + "]", 100, 12) is NOT_JSON5


def _json5_text(draw: Callable[[st.SearchStrategy[Any]], Any], data: object) -> str:
    """`data` written as JSON5 the way people write it: either quote, bare keys (`_KEYS` are
    identifiers), comments, trailing commas, any blank between tokens."""
    blank = draw(st.sampled_from(["", " ", "\n  ", " // note, [here]\n", "/* a, {b} */", "\t"]))
    if isinstance(data, dict):
        items = [
            f"{key if draw(st.booleans()) else _json5_text(draw, key)}:{blank}{_json5_text(draw, v)}"
            for key, v in data.items()
        ]
        return "{" + blank + f",{blank}".join(items) + _trailing(draw, items) + "}"
    if isinstance(data, list):
        items = [_json5_text(draw, v) for v in data]
        return "[" + blank + f",{blank}".join(items) + _trailing(draw, items) + "]"
    if isinstance(data, str):
        quote = draw(st.sampled_from(["'", '"']))
        escaped = json.dumps(data, ensure_ascii=False)[1:-1]  # `\"` is `"` in either quote
        return quote + (escaped.replace("'", "\\'") if quote == "'" else escaped) + quote
    return pyjson5.encode(data)


def _trailing(draw: Callable[[st.SearchStrategy[Any]], Any], items: list[str]) -> str:
    """A comma after the last item, sometimes (JSON5 allows one)."""
    return draw(st.sampled_from(["", ","])) if items else ""


_KEYS = st.text(st.sampled_from("abz_$é金"), min_size=1, max_size=4)
_DATA = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=30,
)
_JSON5ISH = st.lists(
    st.sampled_from(
        [*"[]{},:'\"\\/*\n 01.e-+xa@", "//", "/*", "*/", "null", "Infinity", "\\u00", "1e999"]
    ),
    max_size=40,
).map("".join)


class TestLaws:
    """JSON5 as people write it reads back as the data, counted as `_plain` counts it; on any
    text the reading agrees with pyjson5 reading the whole, within the limits."""

    @settings(max_examples=300)
    @given(st.data(), _DATA.filter(lambda d: isinstance(d, list | dict)))
    def test_written_data_reads_back(self, data: st.DataObject, value: object) -> None:
        text = _json5_text(data.draw, value)
        assert read_json5(text, 100, 1_000_000) == value
        assert json5_document._values(json5_document._skeleton(text), len(text)) == _count(value)

    @settings(max_examples=1_000)
    @given(st.sampled_from(["[", "{", "{a:", "[1,", "// c\n["]), _JSON5ISH)
    def test_agrees_with_reading_the_whole(self, start: str, rest: str) -> None:
        text = start + rest
        try:
            whole: object = pyjson5.decode(text, maxdepth=4)
        except (pyjson5.Json5Exception, ValueError):
            whole = NOT_JSON5
        try:
            found: object = read_json5(text, 3, 5)
        except PastLimitError as past:
            found = past.limit
        if whole is NOT_JSON5:
            assert found in (NOT_JSON5, "values", "depth", "number")
        else:
            assert found == ("values" if _count(whole) > 6 else whole)

    @settings(max_examples=500)
    @given(_JSON5ISH)
    def test_only_refusals_escape(self, text: str) -> None:
        with contextlib.suppress(ImportRefusedError):
            parse_document(text, "f.json5")


class TestLargeBrokenYaml:
    """A large text the YAML parser stops on is refused in the parser's words, without running
    PyYAML's loader over it again (trial nu4: on its input that took 25 s and 500 MB, after
    the parse events had found the same error in a fraction of a second)."""

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            (
                "{" + "a:1," * 50_000 + "@",
                "found character that cannot start any token at line 1, column 200002",
            ),
            (
                "".join(f"k{i}: v\n" for i in range(30_000)) + "x: [1,\n",
                "did not find expected node content at line 30002, column 1",
            ),
        ],
        ids=["flow-mapping", "block-mapping"],
    )
    def test_refused_from_the_parse_events(
        self, monkeypatch: pytest.MonkeyPatch, text: str, reason: str
    ) -> None:
        def load(*args: object) -> object:
            raise AssertionError("PyYAML's loader was used")

        monkeypatch.setattr(yaml.constructor.BaseConstructor, "get_single_data", load)
        assert len(text) > document._PURE_YAML_MAX
        assert _refusal(text) == f"is not JSON, YAML or JSON5 (YAML: {reason})"
