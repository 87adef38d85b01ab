"""The `trackerkit check` command: exact output, exit codes, one-line errors."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from conftest import DATA_TRACKERS, HEALTH

from trackerkit.cli import build_parser, main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with one good piece (`health.json`) and one refused (`bad.json`)."""
    (tmp_path / "health.json").write_bytes(orjson.dumps(HEALTH))
    bad = dict(HEALTH, id="bad", extra=1)
    bad["body"] = dict(HEALTH["body"], layout="grid")
    (tmp_path / "bad.json").write_bytes(orjson.dumps(bad))
    return tmp_path


class TestCheck:
    """`trackerkit check PATH...`."""

    def test_bundled_library(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The bundled library decodes: a one-line summary and exit 0."""
        count = len(list(DATA_TRACKERS.glob("*.json")))
        assert _run(capsys, "check", str(DATA_TRACKERS)) == (
            0,
            f"{DATA_TRACKERS}: {count} trackers, all decode\n",
            "",
        )

    def test_one_file(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A single good file says it decodes."""
        path = DATA_TRACKERS / "health.json"
        assert _run(capsys, "check", str(path)) == (0, f"{path}: 1 tracker, decodes\n", "")

    def test_refused(self, capsys: pytest.CaptureFixture[str], folder: Path) -> None:
        """Each problem is one `file: path: message` line; exit 1."""
        bad = folder / "bad.json"
        assert _run(capsys, "check", str(folder)) == (
            1,
            f"{bad}: body.layout: must be one of 'record' or 'list'; found the text \"grid\"\n"
            f"{bad}: extra: is not a known key\n"
            f"{folder}: 1 of 2 trackers refused\n",
            "",
        )

    def test_bad_json(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A file that is not JSON is one line with no path part."""
        path = tmp_path / "x.json"
        path.write_text("{")
        code, out, _ = _run(capsys, "check", str(path))
        assert code == 1
        assert out.splitlines()[0].startswith(f"{path}: is not valid JSON: ")
        assert out.splitlines()[1] == f"{path}: 1 of 1 tracker refused"

    def test_json_output(self, capsys: pytest.CaptureFixture[str], folder: Path) -> None:
        """`--json` prints a list of `{file, ok, id, problems}`; exit 1 when any is refused."""
        code, out, err = _run(capsys, "check", "--json", str(folder))
        assert (code, err) == (1, "")
        assert orjson.loads(out) == [
            {
                "file": str(folder / "bad.json"),
                "ok": False,
                "id": "bad",
                "problems": [
                    {
                        "path": "body.layout",
                        "message": "must be one of 'record' or 'list'; found the text \"grid\"",
                    },
                    {"path": "extra", "message": "is not a known key"},
                ],
            },
            {"file": str(folder / "health.json"), "ok": True, "id": "health", "problems": []},
        ]

    def test_several_paths(self, capsys: pytest.CaptureFixture[str], folder: Path) -> None:
        """Several paths each get their summary, in order."""
        good = folder / "health.json"
        code, out, _ = _run(capsys, "check", str(good), str(DATA_TRACKERS / "quest.json"))
        assert code == 0
        assert (
            out
            == f"{good}: 1 tracker, decodes\n{DATA_TRACKERS / 'quest.json'}: 1 tracker, decodes\n"
        )

    def test_empty_folder(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A folder with no pieces says so and exits 0."""
        assert _run(capsys, "check", str(tmp_path)) == (
            0,
            f"{tmp_path}: no tracker files (*.json)\n",
            "",
        )

    def test_missing_path_is_one_line(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A missing path is a one-line message on stderr, exit 1, no traceback."""
        missing = tmp_path / "nope"
        assert _run(capsys, "check", str(missing)) == (
            1,
            "",
            f"trackerkit: {missing}: no such file or folder\n",
        )

    def test_usage(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`check` with no path is a usage error (exit 2)."""
        with pytest.raises(SystemExit) as caught:
            main(["check"])
        assert caught.value.code == 2
        assert "PATH" in capsys.readouterr().err

    def test_registered(self) -> None:
        """`check` is a command of the parser."""
        parser = build_parser()
        assert parser.parse_args(["check", "x"]).paths == ["x"]
