"""Findings of a new user's trial of `trackerkit import` (and export's reading of a file)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cli_run import run_cli as _run

from trackerkit import ImportRefusedError
from trackerkit.formats import import_file

EXAMPLES = Path(__file__).parents[2] / "examples"


def _lines(data: object, tmp_path: Path, name: str = "vars.json") -> list[str]:
    """The report lines of `data` imported as MVU."""
    path = tmp_path / name
    path.write_bytes(orjson.dumps(data))
    return [str(line) for line in import_file(path, "mvu").report.lines]


class TestFromAnotherFormat:
    """`--from mvu` on a file content detection tells is another known format."""

    def test_wtracker_file_as_mvu_is_refused(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A WTracker file read as MVU names what it looks like and how to import it."""
        wtracker = EXAMPLES / "wtracker.json"
        data = tmp_path / "data"
        assert _run(capsys, "import", str(wtracker), "--from", "mvu", "--into", str(data)) == (
            1,
            "",
            f"trackerkit: {wtracker}: looks like a WTracker file, not MVU; import it with "
            "--from wtracker, or without --from\n",
        )
        assert not data.exists()

    @pytest.mark.parametrize(
        ("data", "reason"),
        [
            (
                {"trackerDef": {"field-0": {"name": "Time", "type": "STRING"}}},
                "looks like a SillyTavern-Tracker file, not MVU; import it with --from "
                "sillytavern-tracker, or without --from",
            ),
            (
                {"trackerConfig": {"userStats": {}}},
                "looks like an RPG Companion file, not MVU; import it with --from rpg-companion, "
                "or without --from",
            ),
            (
                {"kind": "tracker", "id": "li", "body": {}},
                "is already a trackerkit tracker: it needs no import; copy it into the trackers "
                "folder of your data folder (trackerkit check reads trackers)",
            ),
        ],
        ids=["sillytavern-tracker", "rpg-companion", "own-tracker"],
    )
    def test_other_formats_as_mvu_are_refused(
        self, tmp_path: Path, data: object, reason: str
    ) -> None:
        """Each importer refuses a file of another kind; MVU, which reads any object, too."""
        path = tmp_path / "other.json"
        path.write_bytes(orjson.dumps(data))
        with pytest.raises(ImportRefusedError) as caught:
            import_file(path, "mvu")
        assert caught.value.reason == reason

    def test_plain_variables_still_import(self, tmp_path: Path) -> None:
        """Variables no format claims (plain values only) are what --from mvu is for."""
        assert _lines({"Li": {"hp": 5}}, tmp_path) == ["exact: Li.hp -> Li.hp: number"]

    def test_flattened_field_is_guessed(self, tmp_path: Path) -> None:
        """A nested object flattened into a dotted name is read from a shape: guessed."""
        assert _lines({"Li": {"hp": 5, "mood": {"now": "calm"}}}, tmp_path) == [
            "exact: Li.hp -> Li.hp: number",
            'guessed: Li.mood.now -> Li.mood_now: text; flattened from 2 levels as "mood.now"',
        ]


def _book(*contents: str) -> bytes:
    """A world-info book of `[InitVar]` entries with these contents."""
    entries = {str(i): {"comment": f"[InitVar] v{i}", "content": c} for i, c in enumerate(contents)}
    return orjson.dumps({"entries": entries})


class TestUnreadableEntry:
    """A book whose `[InitVar]` entry cannot be read says which entry and why."""

    @pytest.mark.parametrize(
        ("content", "reason"),
        [
            (
                '{"Li": {"x": [1, "a"], "deep": ' + '{"a": ' * 150 + "1" + "}" * 150 + "}}",
                'entries[0] "[InitVar] v0": its content nests deeper than 100 levels',
            ),
            (
                "{a: [1,",
                'entries[0] "[InitVar] v0": its content is not JSON, YAML or JSON5 (YAML: '
                "expected the node content, but found '<stream end>' at line 1, column 8)",
            ),
            (
                "[1, 2]",
                'entries[0] "[InitVar] v0": its content is a list, not an object of variables',
            ),
        ],
        ids=["too-deep", "not-json", "a-list"],
    )
    def test_the_reason_is_given(self, tmp_path: Path, content: str, reason: str) -> None:
        """The refusal names the entry and why it was not read, not only that none was."""
        path = tmp_path / "h2.json"
        path.write_bytes(_book(content))
        with pytest.raises(ImportRefusedError) as caught:
            import_file(path)
        assert caught.value.reason == (
            f"is a world-info book with no readable [InitVar] entry: {reason}"
        )

    def test_a_number_too_long_leaves_only_its_variable(self, tmp_path: Path) -> None:
        """A 5,000-digit integer (MVU reads it as Infinity) is one unmapped variable; the rest
        imports."""
        path = tmp_path / "h1.json"
        path.write_bytes(_book('{"Li": {"affection": [' + "9" * 5000 + ', "aff"], "hp": 5}}'))
        imported = import_file(path)
        assert [str(line) for line in imported.report.lines] == [
            'unmapped: entries[0] "[InitVar] v0": Li.affection: a [value, meaning] pair (a list '
            "of two, the second a text) whose value is an integer of 5,000 digits, too long to "
            "read",
            'exact: entries[0] "[InitVar] v0": Li.hp -> Li.hp: number',
        ]

    def test_a_number_past_a_double_in_a_list(self, tmp_path: Path) -> None:
        """A list of plain values holding `1e400` is not joined into a text of `inf`."""
        path = tmp_path / "h1.json"
        path.write_bytes(_book('{"Li": {"tags": [1, -1e400], "hp": 5}}'))
        assert [str(line) for line in import_file(path).report.lines] == [
            'unmapped: entries[0] "[InitVar] v0": Li.tags: its items hold the number -1e400, too '
            "large to read",
            'exact: entries[0] "[InitVar] v0": Li.hp -> Li.hp: number',
        ]


class TestRangesNotUsed:
    """A range in a `[value, meaning]` pair that is not taken says why, on a guessed line."""

    @pytest.mark.parametrize(
        ("pair", "detail"),
        [
            (
                [0, "[100,-30]: reversed range"],
                'number, guessed: the range "[100,-30]" in its meaning was not used: it is '
                "written backwards, 100 above -30",
            ),
            (
                [0, "[-1e400,1e400]: aff"],
                'number, guessed: the range "[-1e400,1e400]" in its meaning was not used: its '
                "bound -1e400 is not a finite number within 2^53",
            ),
            (
                [5, "[0, 99999999999999999999]"],
                'number, guessed: the range "[0, 99999999999999999999]" in its meaning was not '
                "used: its bound 99999999999999999999 is not a finite number within 2^53",
            ),
            (
                [250, "[0,100]"],
                'number, guessed: the range "[0,100]" in its meaning was not used: the start '
                "value 250 lies outside it",
            ),
            ([3, "[1e0, 1e1]"], 'number; min 1, max 10 guessed from "[1e0, 1e1]"'),
        ],
        ids=["backwards", "infinite-bound", "bound-past-2^53", "start-outside", "exponents"],
    )
    def test_range(self, tmp_path: Path, pair: list[object], detail: str) -> None:
        """The range is named with the reason it was left out (or read, exponents and all)."""
        assert _lines({"Li": {"aff": pair}}, tmp_path) == [
            f"guessed: Li.aff -> Li.aff: {detail}; start and meaning from a [value, meaning] pair"
        ]

    @pytest.mark.parametrize("word", ["NaN", "-Infinity"])
    def test_json5_number_word_read_as_text(self, tmp_path: Path, word: str) -> None:
        """`[NaN, "aff"]`: YAML, read first as MVU reads it, takes NaN for a text; so said."""
        path = tmp_path / "book.json"
        path.write_bytes(_book('{"Li": {"aff": [' + word + ', "aff"]}}'))
        assert [str(line) for line in import_file(path).report.lines] == [
            'guessed: entries[0] "[InitVar] v0": Li.aff -> Li.aff: text, guessed: the start '
            f"value {word} is JSON5's word for a number that is not finite, which YAML (read "
            f'first, as MVU reads it) takes for the text "{word}"; no number field holds it; '
            "start and meaning from a [value, meaning] pair"
        ]


class TestNamesOnlyCaseApart:
    """Trackers an import writes whose names differ only in case are warned of as check does."""

    def test_warned_in_checks_words(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Each of the two gets check's namesake warning line, naming the other's file."""
        path = tmp_path / "case.json"
        path.write_bytes(orjson.dumps({"Li": {"a": [1, "x"]}, "li": {"b": [2, "y"]}}))
        data = tmp_path / "data"
        code, out, _ = _run(capsys, "import", str(path), "--into", str(data), "--dry-run")
        li, li_2 = data / "trackers" / "li.json", data / "trackers" / "li-2.json"
        tail = (
            "whatever the case, as the update tool matches names: a scene linking both reaches "
            "the second only by its exact spelling"
        )
        assert code == 0
        assert out.splitlines()[3:7] == [
            f"would write {li} (Li)",
            f"would write {li_2} (li)",
            f'{li}: warning: name: matches the name of {li_2} ("li") {tail}',
            f'{li_2}: warning: name: matches the name of {li} ("Li") {tail}',
        ]

    def test_written_pieces_get_the_same_warning_from_check(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """The lines import prints are the ones `trackerkit check` prints of the written files."""
        path = tmp_path / "case.json"
        path.write_bytes(orjson.dumps({"Li": {"a": [1, "x"]}, "li": {"b": [2, "y"]}}))
        data = tmp_path / "data"
        _, out, _ = _run(capsys, "import", str(path), "--into", str(data))
        warned = [line for line in out.splitlines() if ": warning: " in line]
        files = [str(data / "trackers" / name) for name in ("li.json", "li-2.json")]
        _, checked, _ = _run(capsys, "check", *files)
        assert len(warned) == 2
        assert sorted(warned) == sorted(
            line for line in checked.splitlines() if ": warning: " in line
        )

    def test_names_apart_are_not_warned(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Two trackers of different names: no warning."""
        path = tmp_path / "two.json"
        path.write_bytes(orjson.dumps({"Li": {"a": [1, "x"]}, "Bo": {"b": [2, "y"]}}))
        _, out, _ = _run(capsys, "import", str(path), "--into", str(tmp_path / "d"), "--dry-run")
        assert "warning" not in out


class TestOneEncodingDiagnosis:
    """A file that is not UTF-8 is named alike by check, import and export."""

    UTF16 = "is UTF-16 text, not UTF-8; save it as UTF-8 (JSON files are UTF-8, RFC 8259)"

    @pytest.mark.parametrize(
        "raw",
        [b"\xff\xfe\x00bad\x80\x81", '{"a": 1}'.encode("utf-16-le")],
        ids=["bom", "no-bom"],
    )
    def test_utf16(self, capsys: pytest.CaptureFixture[str], tmp_path: Path, raw: bytes) -> None:
        """check's words for UTF-16 text, from import and export too."""
        path = tmp_path / "bin.json"
        path.write_bytes(raw)
        assert _run(capsys, "check", str(path))[1].splitlines()[0] == f"{path}: {self.UTF16}"
        assert _run(capsys, "import", str(path), "--into", str(tmp_path / "d")) == (
            1,
            "",
            f"trackerkit: {path}: {self.UTF16}\n",
        )
        assert _run(capsys, "export", "--to", "openai", str(path)) == (
            1,
            "",
            f"trackerkit: {path}: {self.UTF16}\n",
        )

    def test_other_bytes(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """Latin-1 text: export names the byte as import does, not the JSON reader's words."""
        path = tmp_path / "latin.json"
        path.write_bytes(b'{"a": "caf\xe9"}')
        said = f"trackerkit: {path}: is not UTF-8 text (byte 10 is not UTF-8)\n"
        assert _run(capsys, "import", str(path), "--into", str(tmp_path / "d"))[2] == said
        assert _run(capsys, "export", "--to", "openai", str(path)) == (1, "", said)

    def test_upload_in_the_designer(self) -> None:
        """The designer's upload says it in the same words."""
        from trackerkit.design.importing import read_upload

        view = read_upload("bin.json", b"\xff\xfe\x00bad\x80\x81")
        assert view.problem == f"Could not read the file: bin.json: {self.UTF16}"


KNOWN = (
    "MagVarUpdate (mvu), SillyTavern-Tracker (sillytavern-tracker), WTracker (wtracker), RPG "
    "Companion (rpg-companion), Marinara Engine (marinara), Character Card V2 with trackerkit "
    "trackers (card)"
)


class TestUnparsedFile:
    """A file no reader reads says what it holds when it can, and what import reads."""

    def test_json_lines(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A trace day (one JSON value per line) is named as JSON Lines, not a YAML error."""
        path = tmp_path / "2026-11-26.jsonl"
        path.write_text('{"turn": 1}\n{"turn": 2}\n\n[3]\n', encoding="utf-8")
        assert _run(capsys, "import", str(path), "--into", str(tmp_path / "d")) == (
            1,
            "",
            f"trackerkit: {path}: holds JSON Lines (one JSON value per line: a trace day?), not "
            f"one tracker document; import reads {KNOWN}\n",
        )

    def test_other_text_keeps_the_parser_detail(self, tmp_path: Path) -> None:
        """Broken text keeps the YAML reader's words, then names the formats."""
        path = tmp_path / "broken.json"
        path.write_text('{"a": 1}\n{"b": ', encoding="utf-8")
        with pytest.raises(ImportRefusedError) as caught:
            import_file(path)
        assert caught.value.reason == (
            "is not JSON, YAML or JSON5 (YAML: expected '<document start>', but found '{' at "
            f"line 2, column 1); import reads {KNOWN}"
        )

    def test_an_entry_is_not_told_what_import_reads(self, tmp_path: Path) -> None:
        """An [InitVar] entry's content is no file given to import: its reason stays bare."""
        path = tmp_path / "book.json"
        path.write_bytes(_book('{"a": 1}\n{"b": 2}', '{"Li": {"hp": 5}}'))
        assert str(import_file(path).report.lines[0]) == (
            'unmapped: entries[0] "[InitVar] v0": its content is not JSON, YAML or JSON5 (YAML: '
            "expected '<document start>', but found '{' at line 2, column 1); MagVarUpdate "
            "itself loads no variable of a book while one of its [InitVar] entries cannot be read"
        )


class TestTooLarge:
    """A file past the import limit says the limit is import's."""

    def test_larger_than_the_limit(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A 60 MB file: the limit is named as the most import reads."""
        path = tmp_path / "hugefile.json"
        with path.open("wb") as out:
            out.truncate(60 * 10**6)
        assert _run(capsys, "import", str(path), "--into", str(tmp_path / "d")) == (
            1,
            "",
            f"trackerkit: {path}: is larger than 32 MiB, the most import reads\n",
        )

    def test_text_larger_than_the_limit(self) -> None:
        """Text in hand past the limit says the same."""
        with pytest.raises(ImportRefusedError) as caught:
            import_file("big.json", text=" " * (32 * 2**20 + 1))
        assert caught.value.reason == "is larger than 32 MiB, the most import reads"
