"""Trial new5: a second import of one file, simulate's step numbers, eval's trace file."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli as _run

from trackerkit import Library
from trackerkit.cli import main
from trackerkit.design import read_path, take_imported

ROOT = Path(__file__).resolve().parent.parent
LOREBOOK = ROOT / "examples" / "lorebook.json"


def _files(data: Path) -> list[str]:
    return sorted(str(p.relative_to(data)) for p in data.rglob("*.json"))


def _same_lines(data: Path) -> list[str]:
    tail = (
        "the library already holds a tracker of this name, {old}; a scene that links two "
        "trackers of one name leaves one of them out of every turn"
    )
    return [
        f'same name: {data / "trackers" / "li-2.json"} ("Li"): '
        + tail.format(old=data / "trackers" / "li.json"),
        f'same name: {data / "trackers" / "shi-jian-2.json"} ("时间"): '
        + tail.format(old=data / "trackers" / "shi-jian.json"),
        f'same title: {data / "scenes" / "lorebook-2.json"} (scene "lorebook"): the scenes '
        f"folder already holds a scene of this title, {data / 'scenes' / 'lorebook.json'}; the "
        "scene lists show two of one title",
    ]


class TestSecondImport:
    """Importing one file twice into one folder."""

    @pytest.fixture
    def data(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
        """A folder the lorebook was imported into once."""
        data = tmp_path / "data"
        assert _run(capsys, "import", str(LOREBOOK), "--into", str(data))[0] == 0
        return data

    def test_refused_naming_both_files(
        self, capsys: pytest.CaptureFixture[str], data: Path
    ) -> None:
        """The second import prints a line per clash naming both files, is refused (exit 1) and
        writes nothing."""
        before = _files(data)
        code, out, err = _run(capsys, "import", str(LOREBOOK), "--into", str(data))
        assert code == 1
        assert [line for line in out.splitlines() if line.startswith("same ")] == _same_lines(data)
        assert err == (
            f"trackerkit: import refused: 3 pieces it would write bear the names of ones already "
            f"in {data} (above; was {LOREBOOK} imported there before?); nothing was written. "
            "Rename or remove the ones there, import into another folder (--into DIR), or pass "
            "--allow-duplicates to write them anyway\n"
        )
        assert _files(data) == before

    def test_dry_run_says_it_too(self, capsys: pytest.CaptureFixture[str], data: Path) -> None:
        """--dry-run prints the same lines and says the import would be refused."""
        code, out, err = _run(capsys, "import", str(LOREBOOK), "--into", str(data), "--dry-run")
        assert code == 1
        assert [line for line in out.splitlines() if line.startswith("same ")] == _same_lines(data)
        assert err.startswith("trackerkit: import would be refused: 3 pieces")

    def test_allowed_duplicates_are_written_with_the_lines(
        self, capsys: pytest.CaptureFixture[str], data: Path
    ) -> None:
        """--allow-duplicates writes the second copies, still saying each clash."""
        code, out, err = _run(
            capsys, "import", str(LOREBOOK), "--into", str(data), "--allow-duplicates"
        )
        assert (code, err) == (0, "")
        lines = out.splitlines()
        assert [line for line in lines if line.startswith("same ")] == _same_lines(data)
        assert lines[-1] == f"wrote {data / 'scenes' / 'lorebook-2.json'} (scene lorebook)"
        assert sorted(Library(data / "trackers").ids()) == ["li", "li-2", "shi-jian", "shi-jian-2"]

    def test_other_names_import_quietly(
        self, capsys: pytest.CaptureFixture[str], data: Path
    ) -> None:
        """An import whose trackers and scene are new to the folder prints no clash line."""
        wtracker = str(ROOT / "examples" / "wtracker.json")
        code, out, _ = _run(capsys, "import", wtracker, "--into", str(data))
        assert code == 0
        assert "same " not in out

    def test_designer_says_the_scene_title_too(self, tmp_path: Path) -> None:
        """The designer's Import panel, taking the lorebook twice, names the scene of that title
        already there, in the command's words."""
        view = read_path(LOREBOOK)
        assert view.imported is not None
        library, scenes = Library(tmp_path / "trackers"), tmp_path / "scenes"
        assert "same title" not in take_imported(view.imported, library, scenes=scenes).message()
        said = take_imported(view.imported, library, scenes=scenes, allow_duplicates=True).message()
        assert (
            "- same title: `lorebook-2.json`: the scenes folder already holds a scene of this "
            "title, `lorebook.json`; the scene lists show two of one title\n"
        ) in said
        assert "the library already holds a tracker of this name" in said


class TestStepNumbers:
    """simulate's table and its expectation messages count steps alike."""

    def test_the_missed_step_is_the_row_of_its_number(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Under the text protocol "step 3" misses: the table's row 3 is the turn that wrote
        nothing (turns[2] of fight.json), numbered from 1 under a "step" header."""
        fight = str(ROOT / "data" / "scenes" / "fight.json")
        code, out, err = _run(capsys, "simulate", fight, "--no-trace", "--protocol", "text")
        assert code == 1
        assert "trackerkit: expectation not met: step 3: Health.hp: expected 12, found 22\n" in err
        rows = out.splitlines()
        assert rows[0].startswith("step  kind ")
        assert [row.split()[0] for row in rows[2:8]] == ["1", "2", "3", "4", "5", "6"]
        assert rows[4].startswith("   3  reply  I fight on")
        assert " 0/1 ok  - " in rows[4]


class TestEvalTrace:
    """eval names the day file its turns went to, as simulate does."""

    def test_the_day_file_is_named(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """The line names the one .jsonl day file written in DATA/trace, not the folder."""
        fight = str(ROOT / "data" / "scenes" / "fight.json")
        assert main(["eval", fight, "--runs", "1", "--data", str(tmp_path)]) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "trace written" in line]
        (day,) = list((tmp_path / "trace").glob("*.jsonl"))
        assert said == [f"trackerkit: trace written to {day}"]
