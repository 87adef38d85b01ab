"""The `trackerkit check` command: exact output, exit codes, one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import DATA_TRACKERS, HEALTH, REPO
from unopened import never_opened

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


_GOOD_TURN = {"user": "I look around.", "reply": "Fog."}


def _scene_with(*steps: object) -> dict[str, Any]:
    return {
        "id": "bad",
        "title": "Bad steps",
        "prompting": {"trackers": ["health"]},
        "turns": [_GOOD_TURN, *steps],
    }


#: (case id, the scene file's content (None: no file), what the one line says).
_BAD_SCENES: list[tuple[str, object, str]] = [
    (
        "edit-without-tracker",
        _scene_with({"action": "edit", "set": {"hp": 1}}),
        "turns[1].tracker: is required",
    ),
    ("cut-without-message", _scene_with({"action": "cut"}), "turns[1].message: is required"),
    (
        "set-a-list",
        _scene_with({"action": "edit", "tracker": "Health", "set": [1]}),
        "turns[1]: set must be an object",
    ),
    (
        "remove-as-text",
        _scene_with({"action": "edit", "tracker": "Health", "remove": "false"}),
        "turns[1]: remove must be true or false",
    ),
    (
        "calls-a-number",
        _scene_with({"user": "go", "calls": [5]}),
        "turns[1].calls[0]: must be an object; found 5",
    ),
    (
        "expect-a-number",
        _scene_with({"user": "go", "expect": {"Health": 5}}),
        "turns[1].expect.Health: must be an object",
    ),
    ("unknown-action", _scene_with({"action": "jump"}), "turns[1].action: must be one of swipe"),
    (
        "unknown-key",
        _scene_with({"user": "go", "colour": 1}),
        "turns[1].colour: is not a known key",
    ),
    (
        "version-as-text",
        _scene_with({"action": "show_version", "message": 1, "version": "1"}),
        "turns[1].version: must be a whole number",
    ),
    ("step-not-an-object", _scene_with(5), "turns[1]: must be an object; found 5"),
    ("scene-not-an-object", [1], "must be an object"),
    ("bad-json", b"{nope", "not valid JSON"),
    ("missing-file", None, "no scene file at"),
    ("a-directory", "dir", "is a directory, not a regular file"),
    ("a-fifo", "fifo", "is a FIFO, not a regular file"),
]


def _case_path(tmp_path: Path, content: object) -> Path:
    path = tmp_path / "scenes" / "bad.json"
    path.parent.mkdir()
    if content == "dir":
        path.mkdir()
    elif content == "fifo":
        os.mkfifo(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_bytes(orjson.dumps(content))
    return path


def _one_line(code: int, out: str, err: str) -> str:
    assert (code, out) == (1, "")
    assert err.startswith("trackerkit: ")
    assert err.endswith("\n")
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


class TestBadInput:
    """Every command answers bad input with one line naming the file and what is wrong; exit 1."""

    @pytest.mark.parametrize(
        ("content", "fragment"),
        [case[1:] for case in _BAD_SCENES],
        ids=[case[0] for case in _BAD_SCENES],
    )
    @pytest.mark.parametrize("command", ["simulate", "changes", "prompt"])
    def test_a_bad_scene(
        self,
        capsys: pytest.CaptureFixture[str],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        command: str,
        content: object,
        fragment: str,
    ) -> None:
        """Each bad scene file is one `trackerkit: FILE: ...` line on stderr, nothing on stdout."""
        path = _case_path(tmp_path, content)
        argv = [command, str(path), "--trackers", str(DATA_TRACKERS)]
        if command == "simulate":
            argv.append("--no-trace")
        with never_opened(monkeypatch, *([path] if content == "fifo" else [])):
            err = _one_line(*_run(capsys, *argv))
        assert fragment in err
        assert str(path) in err

    def test_an_unknown_time_zone(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """TC-2: `simulate --timezone Mars/Olympus` is one line naming the option; no turn runs."""
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
        fight = str(REPO / "data" / "scenes" / "fight.json")
        err = _one_line(*_run(capsys, "simulate", fight, "--timezone", "Mars/Olympus"))
        assert err == (
            "trackerkit: --timezone: 'Mars/Olympus' is not a time zone this machine knows; use an "
            "IANA name such as Europe/Moscow or UTC\n"
        )
        assert not (tmp_path / "xdg").exists()

    def test_through_the_installed_command(self, tmp_path: Path) -> None:
        """The `trackerkit` script itself prints the one line and no traceback."""
        path = _case_path(
            tmp_path, _scene_with({"action": "edit", "tracker": "Health", "set": [1]})
        )
        script = Path(sys.executable).parent / "trackerkit"
        done = subprocess.run(
            [str(script), "simulate", str(path), "--no-trace"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == (
            f"trackerkit: {path}: turns[1]: set must be an object of field values; found a list\n"
        )


class TestCheckOddPaths:
    """`check` on a path that is no regular file answers with a verdict and never opens it."""

    def test_a_fifo(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A FIFO is refused in one verdict line; exit 1 (opening it would block forever)."""
        fifo = tmp_path / "x.json"
        os.mkfifo(fifo)
        with never_opened(monkeypatch, fifo):
            assert _run(capsys, "check", str(fifo)) == (
                1,
                f"{fifo}: is a FIFO, not a regular file; it was not read\n"
                f"{fifo}: 1 of 1 tracker refused\n",
                "",
            )
