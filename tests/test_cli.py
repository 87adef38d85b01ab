"""The `trackerkit check` command: exact output, exit codes, one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from cli_run import run_cli as _run
from conftest import DATA_TRACKERS, HEALTH, REPO
from unopened import never_opened

from trackerkit.cli import build_parser, main


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
        """`--json` prints a list of `{file, ok, id, problems, warnings}`; exit 1 when any is
        refused (warnings, `test_check_hints.py`, leave the exit code alone)."""
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
                "warnings": [],
            },
            {
                "file": str(folder / "health.json"),
                "ok": True,
                "id": "health",
                "problems": [],
                "warnings": [],
            },
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


SCENES = REPO / "data" / "scenes"
FIGHT = str(SCENES / "fight.json")
TYPICAL = str(SCENES / "typical.json")
SCENE_NOT_TRACKER = (
    "is a scene, not a tracker; check reads tracker files (trackerkit prompt SCENE reads a scene)"
)


class TestTheOtherKindOfPiece:
    """A scene given for a tracker, or a tracker for a scene, is said in one line."""

    def test_a_folder_of_scenes(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`check data/scenes`: one line naming the mistake, not each scene's unknown keys."""
        count = len(list(SCENES.glob("*.json")))
        assert _run(capsys, "check", str(SCENES)) == (
            1,
            f"{SCENES}: is a folder of scenes ({count} scene files), not trackers; check reads "
            f"tracker files: try {DATA_TRACKERS}\n",
            "",
        )

    def test_one_scene_file(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A scene file: its one line, no summary repeating it."""
        assert _run(capsys, "check", FIGHT) == (1, f"{FIGHT}: {SCENE_NOT_TRACKER}\n", "")

    def test_a_scene_among_trackers(self, capsys: pytest.CaptureFixture[str], folder: Path) -> None:
        """A scene in a tracker folder: its one line; the real tracker's problems in full."""
        (folder / "fight.json").write_bytes((SCENES / "fight.json").read_bytes())
        bad, fight = folder / "bad.json", folder / "fight.json"
        assert _run(capsys, "check", str(folder)) == (
            1,
            f"{bad}: body.layout: must be one of 'record' or 'list'; found the text \"grid\"\n"
            f"{bad}: extra: is not a known key\n"
            f"{fight}: {SCENE_NOT_TRACKER}\n"
            f"{folder}: 2 of 3 files refused (1 is a scene, not a tracker)\n",
            "",
        )

    def test_json_says_it_in_one_problem(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--json`: the scene's verdict holds the one problem."""
        code, out, _ = _run(capsys, "check", "--json", FIGHT)
        assert code == 1
        assert orjson.loads(out) == [
            {
                "file": FIGHT,
                "ok": False,
                "id": "fight",
                "problems": [{"path": "", "message": SCENE_NOT_TRACKER}],
                "warnings": [],
            }
        ]

    @pytest.mark.parametrize("command", ["prompt", "simulate", "changes"])
    def test_a_tracker_for_a_scene(self, capsys: pytest.CaptureFixture[str], command: str) -> None:
        """`prompt data/trackers/health.json`: it is a tracker, said first and alone."""
        health = str(DATA_TRACKERS / "health.json")
        assert _run(capsys, command, health) == (
            1,
            "",
            f"trackerkit: {health}: is a tracker, not a scene; {command} reads a scene file, "
            "which links trackers (such as data/scenes/fight.json)\n",
        )


class TestSimulateRefusesUpFront:
    """`simulate` and `changes` say what is wrong before playing, in one line."""

    def test_no_linked_tracker_in_the_folder(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--trackers data/scenes`: which files were looked for, not a line per expectation."""
        assert _run(capsys, "simulate", FIGHT, "--trackers", str(SCENES), "--no-trace") == (
            1,
            "",
            f"trackerkit: {FIGHT}: no linked tracker was found in {SCENES} (looked for "
            "health.json, stamina.json); pass --trackers DIR, the folder holding them\n",
        )

    def test_linked_trackers_that_do_not_load(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """The files are there but refused: each one's reason."""
        (tmp_path / "health.json").write_text("{")
        (tmp_path / "stamina.json").write_text("[]")
        code, out, err = _run(capsys, "changes", FIGHT, "--trackers", str(tmp_path))
        assert (code, out) == (1, "")
        assert err.startswith(
            f"trackerkit: {FIGHT}: none of its linked trackers loads from {tmp_path} (health: "
        )
        assert "; stamina: the decoder refused it: " in err
        assert err.count("\n") == 1

    @pytest.mark.parametrize("command", ["simulate", "changes"])
    def test_no_scripted_turns(self, capsys: pytest.CaptureFixture[str], command: str) -> None:
        """A scene without scripted turns is said, not an empty table."""
        argv = [command, TYPICAL] + (["--no-trace"] if command == "simulate" else [])
        assert _run(capsys, *argv) == (
            1,
            "",
            f"trackerkit: {TYPICAL}: has no scripted turns to play; {command} plays a scene's "
            "scripted turns (the simulator app plays any scene by hand)\n",
        )

    def test_an_unreachable_server_is_said_once(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Failed turns: the failure and a count of expectations, not a line for each."""
        import socket

        with socket.socket() as free:  # a port nothing listens on: connection refused
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        url = f"http://127.0.0.1:{port}/v1"
        code, out, err = _run(
            capsys,
            *("simulate", FIGHT, "--no-trace", "--model", "openai", "--base-url", url),
            *("--model-name", "local"),
        )
        assert code == 1
        assert out.count("FAILED: The model failed: could not reach") == 6
        assert err == (
            f"trackerkit: 6 of 6 turns failed: The model failed: could not reach the model "
            f"server at {url}/chat/completions: [Errno 111] Connection refused.\n"
            "trackerkit: 16 expectations not met (not listed, as turns failed)\n"
        )

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            (
                ["--base-url", "http://127.0.0.1:1/v1"],
                "--base-url is for --model openai; the scripted model plays the scene's own "
                "calls (add --model openai to use the server)",
            ),
            (
                ["--model", "openai", "--base-url", "127.0.0.1:11434/v1"],
                "--base-url '127.0.0.1:11434/v1' is not an http(s) address; give the API root, "
                "such as http://127.0.0.1:11434/v1",
            ),
            (
                ["--model", "openai", "--base-url", "http://x/v1", "--model-name", " "],
                "--model-name needs a name, not an empty text",
            ),
            (  # simulate asked a local server for gpt-4o-mini, eval's column was named so
                ["--model", "openai", "--base-url", "http://x/v1"],
                "--model openai needs --model-name: the model the server at http://x/v1 knows "
                "(such as qwen2.5:7b on Ollama); it also names the results and the trace's model",
            ),
        ],
    )
    def test_model_options(
        self, capsys: pytest.CaptureFixture[str], options: list[str], message: str
    ) -> None:
        """Model options that cannot work are refused before any turn (the same for eval)."""
        for command in ("simulate", "eval"):
            assert _run(capsys, command, FIGHT, "--no-trace", *options) == (
                1,
                "",
                f"trackerkit: {message}\n",
            )


class TestBrokenPipe:
    """A reader that stops reading (`| head`) ends the command quietly, for every command."""

    def test_through_the_installed_command(self) -> None:
        """The script writing into a closed pipe: no message, no traceback, exit 1."""
        script = Path(sys.executable).parent / "trackerkit"
        for argv in (["changes", "--json", FIGHT], ["check", str(DATA_TRACKERS)]):
            read, write = os.pipe()
            os.close(read)  # every write now meets EPIPE
            try:
                done = subprocess.run(
                    [str(script), *argv],
                    stdout=write,
                    capture_output=False,
                    stderr=subprocess.PIPE,
                    text=True,
                    check=False,
                )
            finally:
                os.close(write)
            assert (done.returncode, done.stderr) == (1, ""), argv

    def test_in_process(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A stdout whose write breaks: exit 1, nothing on stderr."""

        class Gone:
            def write(self, text: str) -> int:
                raise BrokenPipeError(32, "Broken pipe")

            def flush(self) -> None:
                raise BrokenPipeError(32, "Broken pipe")

        monkeypatch.setattr(sys, "stdout", Gone())
        assert main(["check", str(DATA_TRACKERS)]) == 1
        monkeypatch.undo()
        assert capsys.readouterr().err == ""


def test_changes_with_the_range_reversed_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """Found when tried: `changes --from m4 --to m2` printed "no changes" and exited 0."""
    code, out, err = _run(capsys, "changes", FIGHT, "--from", "m4", "--to", "m2")
    assert code == 1
    assert out == ""
    assert err == (
        "trackerkit: --from m4 comes after --to m2 on this take; "
        "give the earlier message first (--from m2 --to m4)\n"
    )


class TestFolderEntriesThatAreNoFile:
    """Found when tried: a folder holding only a dangling link and a FIFO named `*.json` said
    "no tracker files" with exit 0; given one by one, the same entries were refused."""

    def test_they_are_refused_in_a_folder_too(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
        os.mkfifo(tmp_path / "fifo.json")
        (tmp_path / "sub.json").mkdir()  # a folder named like a file is no entry
        code, out, _ = _run(capsys, "check", str(tmp_path))
        assert code == 1
        assert out.splitlines() == [
            f"{tmp_path / 'dangling.json'}: is a link to nothing readable; it was not read",
            f"{tmp_path / 'fifo.json'}: is a FIFO, not a regular file; it was not read",
            f"{tmp_path}: 2 of 2 trackers refused",
        ]

    def test_a_name_with_a_line_break_stays_on_its_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A file named `a\\nb.json` printed raw looked like two files' lines."""
        (tmp_path / "a\nb.json").write_text("{", encoding="utf-8")
        code, out, _ = _run(capsys, "check", str(tmp_path))
        assert code == 1
        first, summary = out.splitlines()
        assert first.startswith(repr(str(tmp_path / "a\nb.json")) + ": is not valid JSON")
        assert summary == f"{tmp_path}: 1 of 1 tracker refused"
