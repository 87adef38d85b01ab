"""YAML past the depth or value limits is refused from its parse events, before any tree is built
(trial atk6, finding 2: a 4 MB list took 31 s and 800 MB to be refused, an 8 MB one 67 s and
1.5 GB), and libyaml, which reads large files, reads what PyYAML reads as PyYAML does."""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerkit.errors import ImportRefusedError
from trackerkit.formats import document
from trackerkit.formats.document import parse_document

_LIBYAML = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML is built without libyaml")


def _bomb(merge: bool) -> str:
    """Eight levels of ten aliases each: a hundred million values once expanded, or merged as
    written (PyYAML keeps a key merged twice once, but the count is of the file as written)."""
    lines = ["a: &a {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1, k9: 1}"]
    for n in range(1, 8):
        name, aliases = chr(ord("a") + n), ", ".join(["*" + chr(ord("a") + n - 1)] * 10)
        lines.append(f"{name}: &{name} " + (f"{{<<: [{aliases}]}}" if merge else f"[{aliases}]"))
    return "\n".join(lines)


@pytest.fixture
def nothing_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML's loader or trackerkit's own builder starting to build data fails the test."""

    def build(*args: object) -> object:
        raise AssertionError("the YAML tree was built")

    monkeypatch.setattr(yaml.constructor.BaseConstructor, "get_single_data", build)
    monkeypatch.setattr(document, "_build_yaml", build)


class TestRefusedBeforeBuilding:
    """Past a limit, the refusal comes from the parse events; the loader never builds a tree."""

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("- 1\n" * 1_000_001, "holds more than 1,000,000 values"),
            ("- [1, 2, 3, 4]\n" * 200_001, "holds more than 1,000,000 values"),
            (_bomb(merge=False), "holds more than 1,000,000 values"),
            (_bomb(merge=True), "holds more than 1,000,000 values"),
            ("x: " + "[" * 150 + "]" * 150, "nests deeper than 100 levels"),
            (f"a: {'x' * 200_000}\nb: {'[' * 150}{']' * 150}", "nests deeper than 100 levels"),
            ("a: &a [*a]", "nests deeper than 100 levels"),
            (
                f"a: &a [{'[' * 60}{']' * 60}]\nb: {'[' * 40}*a{']' * 40}",
                "nests deeper than 100 levels",
            ),
        ],
        ids=[
            "list-4MB",
            "lists",
            "alias-bomb",
            "merge-bomb",
            "deep",
            "deep-in-200KB",
            "self-alias",
            "deep-through-alias",
        ],
    )
    def test_refused_unbuilt(self, nothing_built: None, text: str, reason: str) -> None:
        """The limit's own words, and no tree built to say them."""
        with pytest.raises(ImportRefusedError) as caught:
            parse_document(text, "big.yaml")
        assert str(caught.value) == f"big.yaml: {reason}"

    def test_json_too_deep_is_told_as_json(self, nothing_built: None) -> None:
        """JSON the JSON reader stopped on is refused in the JSON's words, not YAML's."""
        with pytest.raises(ImportRefusedError) as caught:
            parse_document("[" * 5000 + "]" * 5000, "deep.json")
        assert str(caught.value).startswith("deep.json: is JSON nested more than 1,024 levels")


class TestCountsWhatIsRead:
    """The events are counted as the read data is: values, not keys, aliases expanded, so a
    file exactly at a limit is read and one value or level more is refused."""

    @pytest.fixture(params=["pyyaml", pytest.param("libyaml", marks=_LIBYAML)])
    def limits(self, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
        """Twelve values and four levels, counted by either reader."""
        monkeypatch.setattr(document, "_MAX_NODES", 12)
        monkeypatch.setattr(document, "_MAX_DEPTH", 4)
        if request.param == "libyaml":
            monkeypatch.setattr(document, "_PURE_YAML_MAX", 0)

    @pytest.mark.parametrize(
        "text",
        [
            "- 1\n" * 11,
            "{a: 1, b: 2, c: [3, 4, 5], d: {e: 6, f: [7, 8]}}",
            "a: &x [1, 2]\nb: *x\nc: *x\nd: 4\ne: 5",
            "&k key: [1, 2, 3, 4, 5, 6, 7, 8, 9]\nagain: *k",
            "- [[[1]]]\n- [[[2]]]\n- x",
            "a: &d [[[1]]]\nb: *d",
        ],
        ids=["list", "mapping", "aliases", "anchored-key", "deep", "deep-alias"],
    )
    def test_at_the_limit_read(self, limits: None, text: str) -> None:
        """Twelve values, four levels: read (these texts hold no more)."""
        assert parse_document(text, "f.yaml") is not None

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("- 1\n" * 12, "holds more than 1,000,000 values"),
            ("a: &x [1, 2]\nb: *x\nc: *x\nd: 4\ne: 5\nf: 6", "holds more than 1,000,000 values"),
            ("- [[[[1]]]]", "nests deeper than 100 levels"),
            ("a: &d [[[1]]]\nb: [*d]", "nests deeper than 100 levels"),
        ],
        ids=["list", "aliases", "deep", "deep-alias"],
    )
    def test_past_the_limit_refused(
        self, limits: None, nothing_built: None, text: str, reason: str
    ) -> None:
        """One value or one level more: refused unbuilt (the words name the real limits)."""
        with pytest.raises(ImportRefusedError) as caught:
            parse_document(text, "f.yaml")
        assert str(caught.value) == f"f.yaml: {reason}"


def _read(text: str, fast: bool) -> tuple[bool, str]:
    try:
        return True, repr(yaml.load(text, Loader=document._yaml_core_loader(fast)))
    except (yaml.YAMLError, ValueError):
        return False, ""


def _built(text: str) -> tuple[bool, str] | None:
    """What trackerkit's builder makes of libyaml's events; None when it leaves it to PyYAML."""
    built = document._build_yaml(text, document._yaml_core_loader(True))
    return None if built is document._UNBUILT else (True, repr(built))


_YAMLISH = st.lists(
    st.sampled_from(
        [
            *"ab1 0x.e-+:,[]{}#&*!|>'\"?\n\n  ~@\\",
            *["<<", "yes", "12:30", "!!str", "!!set", "&a", "*a", "---", "- ", ": ", "1e3"],
            *["null", "true", "é", "金", "!!binary", "!!omap"],
        ]
    ),
    max_size=30,
).map("".join)


@_LIBYAML
class TestLibyamlReadsAsPyyaml:
    """Wherever PyYAML's pure-Python reader reads YAML, libyaml reads the same values, both by
    PyYAML's loader and by the builder that reads a large file from its events."""

    @pytest.mark.parametrize(
        "text",
        [
            "a: 1\na: 2\nb: !!set {x, y}\nc: !!omap [{p: 1}, {q: 2}]\nd: !!pairs [{p: 1}, {p: 2}]",
            "d: !!binary aGVsbG8=\ne: !!timestamp 2001-12-14t21:59:43.10-05:00\nf: 2002-12-14",
            "f: ! 12\ng: !!str 12\nh: !!int 0x1F\ni: !!float 1\nj: !!bool True\nk: !!null ''",
            "l:\nm: ~\nn: null\no: Null\np: !\nq: ! ''",
            "[12:30, no, on, 010, 0o17, 0x1F, 1e3, .inf, -.Inf, +12, -0, 1_000, 0b11, 1., .5]",
            "t: |\n  line\n   two\n\nu: >-\n  folded\n  text\nv: \"\\u00e9\\x41\\t\"\nw: 'it''s'",
            "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3",
            "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nm:\n  <<: [*a, *b]\n  w: 0\nn: {<<: {k: v}, k: own}",
            "状态:\n  金币: [5, \"持有的金币\"]\n  '1': one\n  2: two\n  true: t\n  null: n",
            "---\n- &a [1]\n- *a\n- {? a}\n- [ a , b ]\n...\n",
            "%YAML 1.1\n---\na: 1\r\nb: 2\r\n",
        ],
        ids=[
            "keys-and-collections",
            "binary-and-dates",
            "explicit-tags",
            "nulls",
            "core-scalars",
            "block-and-quoted",
            "merge",
            "merge-order",
            "keys",
            "anchors-and-markers",
            "directive-and-crlf",
        ],
    )
    def test_same_values(self, text: str) -> None:
        pure = _read(text, fast=False)
        assert pure[0]
        assert _read(text, fast=True) == pure
        assert _built(text) in (None, pure)

    def test_nan(self) -> None:
        """`.nan` is a float NaN either way."""
        assert math.isnan(yaml.load("[.nan]", Loader=document._yaml_core_loader(True))[0])

    @settings(max_examples=600, deadline=None)
    @given(_YAMLISH)
    def test_random_text(self, text: str) -> None:
        pure = _read(text, fast=False)
        if pure[0]:
            assert _read(text, fast=True) == pure
            assert _built(text) in (None, pure)

    @pytest.mark.parametrize(
        "text",
        [
            "- ok\n- !!str 12\n",
            "- ok\n- {<<: {a: 1}, b: 2}\n",
            "- ok\n- {[1]: 2}\n",
            "- ok\n- &a [*a]\n",
            "- ok\n- &a 1\n- &a 2\n",
            "- ok\n---\n- 2\n",
        ],
        ids=["tag", "merge", "list-key", "self-alias", "repeated-anchor", "two-documents"],
    )
    def test_builder_leaves_the_rest_to_pyyaml(self, text: str) -> None:
        assert _built(text) is None

    def test_a_large_file_is_built_from_events(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Past the size PyYAML's reader takes, the data is built from libyaml's events (PyYAML's
        loader is never reached): the same data, in a fraction of the time and memory."""
        text = "".join(f'k{i}: [{i}, "meaning {i}", {{on: no, at: 12:30}}]\n' for i in range(3_000))
        expected = yaml.load(text, Loader=document._yaml_core_loader(False))
        assert len(text) > document._PURE_YAML_MAX

        def load(*args: object) -> object:
            raise AssertionError("PyYAML's loader was used")

        monkeypatch.setattr(yaml.constructor.BaseConstructor, "get_single_data", load)
        assert parse_document(text, "big.yaml") == expected
        assert expected["k2999"] == [2999, "meaning 2999", {"on": "no", "at": "12:30"}]

    def test_a_large_file_with_a_merge_key(self) -> None:
        """A large file the builder leaves (here for a merge key) is read by PyYAML's loader."""
        text = "base: &b {x: 1, y: 2}\nm: {<<: *b, y: 3}\n" + "".join(
            f"k{i}: {i}\n" for i in range(20_000)
        )
        assert len(text) > document._PURE_YAML_MAX
        found = parse_document(text, "big.yaml")
        assert isinstance(found, dict)
        assert found["m"] == {"x": 1, "y": 3}
