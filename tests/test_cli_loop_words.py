"""Trial atk6, finding 8: on a symbolic link that loops, `import` said `…/loop.json: is not
there` and `trace days` said "does not exist": both are there. They say the link loops, in
`check`'s words (commit 2ad462e)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit.cli import main

LOOPS = "is a symbolic link that loops (it leads back to itself)"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    """A link to itself."""
    path = tmp_path / "loop.json"
    path.symlink_to("loop.json")
    return path


class TestImport:
    def test_a_looping_file(self, loop: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """The import is refused naming the loop, as `check` names it."""
        assert _run(capsys, "import", "--dry-run", str(loop)) == (
            1,
            "",
            f"trackerkit: {loop}: {LOOPS}; it was not read\n",
        )

    def test_a_missing_file_is_still_not_there(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        missing = tmp_path / "missing.json"
        code, _, err = _run(capsys, "import", "--dry-run", str(missing))
        assert (code, err) == (1, f"trackerkit: {missing}: is not there\n")


class TestTrace:
    @pytest.mark.parametrize(
        "argv",
        [["trace", "days"], ["trace", "turns", "2026-11-28", "--dir"]],
        ids=["days", "turns"],
    )
    def test_a_looping_folder(
        self, argv: list[str], loop: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The folder of day files loops: said, with what to give."""
        assert _run(capsys, *argv, str(loop)) == (
            1,
            "",
            f"trackerkit: {loop} {LOOPS}; give the folder that holds the YYYY-MM-DD.jsonl day "
            "files.\n",
        )

    def test_export_of_a_looping_path(
        self, loop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert _run(capsys, "trace", "export", str(loop), "--parquet", str(tmp_path / "out")) == (
            1,
            "",
            f"trackerkit: {loop} {LOOPS}; give a trace day file or a folder of them.\n",
        )
        assert not (tmp_path / "out").exists()
