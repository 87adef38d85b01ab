"""The workspace: which data folder an app reads, and where its first save goes (issue 13, item 14)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from trackerkit.errors import BadRequestError
from trackerkit.simulate import data_dir
from trackerkit.workspace import (
    ASSISTANT_ENV,
    BUNDLED,
    DATA_ENV,
    Workspace,
    user_workspace,
    workspace,
)
from trackerkit.workspace import trace_root as trace_root_of

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user data directory; returns where the workspace would be."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(DATA_ENV, raising=False)
    return tmp_path / "xdg" / "trackerkit" / "workspace"


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    """A small bundled data folder: one tracker, one scene, and a trace that is never copied."""
    data = tmp_path / "bundled"
    for name, text in {
        "trackers/health.json": "{}",
        "scenes/fight.json": "{}",
        "trace/d.jsonl": "",
    }.items():
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text(text)
    return data


def test_the_bundled_data_is_the_repositorys() -> None:
    """BUNDLED is the checkout's data/ folder."""
    assert BUNDLED == REPO / "data"
    assert (BUNDLED / "trackers").is_dir()


def test_the_user_workspace_follows_the_platform(home: Path) -> None:
    """The per-user workspace is <user data dir>/trackerkit/workspace."""
    assert user_workspace() == home


def test_by_default_the_bundled_data_is_read_in_place(home: Path, bundled: Path) -> None:
    """With no option, no variable and no workspace yet, the bundled data is read where it is."""
    chosen = workspace({}, bundled=bundled)
    assert chosen == Workspace(bundled, "bundled", copy_to=home)
    assert chosen.trackers == bundled / "trackers"
    assert chosen.scenes == bundled / "scenes"
    assert not chosen.writable
    assert not home.exists(), "just looking makes no files"
    assert str(home) in chosen.describe()
    # Trial nu3: the library page (which saves nothing) spoke of "the first save" alone.
    assert "the designer and the simulator save" in chosen.describe()


def test_the_first_save_copies_the_bundled_library_into_the_workspace(
    home: Path, bundled: Path
) -> None:
    """for_writing() copies trackers/ and scenes/ (not the trace) and points at the copy."""
    written = workspace(None, bundled=bundled).for_writing()
    assert written == Workspace(home, "workspace")
    assert written.writable
    assert (home / "trackers" / "health.json").read_text() == "{}"
    assert (home / "scenes" / "fight.json").is_file()
    assert not (home / "trace").exists()
    assert sorted(p.name for p in home.parent.iterdir()) == ["workspace"], "no scratch folder left"
    # From then on the workspace is what an app reads, and saving there copies nothing again.
    (home / "trackers" / "mana.json").write_text("{}")
    again = workspace(None, bundled=bundled)
    assert again == Workspace(home, "workspace")
    assert again.for_writing() is again
    assert (home / "trackers" / "mana.json").is_file()


def test_a_missing_folder_of_the_bundled_data_is_made_empty(home: Path, tmp_path: Path) -> None:
    """A bundled data folder without scenes/ still gives a workspace with an empty scenes/."""
    data = tmp_path / "only-trackers"
    (data / "trackers").mkdir(parents=True)
    workspace(None, bundled=data).for_writing()
    assert (home / "scenes").is_dir()
    assert list((home / "scenes").iterdir()) == []


def _saved_at_once(chosen: Workspace, apps: int) -> list[Workspace]:
    """`chosen.for_writing()` called by `apps` threads at once; what each got."""
    results: list[Workspace] = []
    threads = [
        threading.Thread(target=lambda: results.append(chosen.for_writing())) for _ in range(apps)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_two_apps_saving_at_once_share_one_workspace(home: Path, bundled: Path) -> None:
    """The designer and the simulator making the workspace together end with one whole copy."""
    chosen = workspace(None, bundled=bundled)
    assert _saved_at_once(chosen, 4) == [Workspace(home, "workspace")] * 4
    assert (home / "trackers" / "health.json").is_file()
    assert sorted(p.name for p in home.parent.iterdir()) == ["workspace"]


def test_without_bundled_data_the_workspace_is_used(home: Path, tmp_path: Path) -> None:
    """An installed wheel has no bundled data: the (empty, not yet made) workspace is read."""
    chosen = workspace(None, bundled=tmp_path / "absent")
    assert chosen == Workspace(home, "workspace")
    assert chosen.for_writing() is chosen


def test_the_data_option_is_used_in_place(home: Path, bundled: Path, tmp_path: Path) -> None:
    """--data DIR is read and written in place, even the bundled folder (to edit the library)."""
    mine = tmp_path / "mine"
    chosen = workspace({"data": str(mine)}, bundled=bundled)
    assert chosen == Workspace(mine, "option")
    assert chosen.writable
    assert chosen.for_writing() is chosen
    assert "--data" in chosen.describe()
    assert workspace({"data": str(bundled)}, bundled=bundled) == Workspace(bundled, "option")
    assert not home.exists()


def test_the_option_given_twice_keeps_the_last(home: Path, tmp_path: Path) -> None:
    """`-- --data A --data B` (a list in mo.cli_args()) means B."""
    assert workspace({"data": ["a", str(tmp_path)]}).root == tmp_path


def test_a_numeric_folder_name_is_a_folder(home: Path) -> None:
    """marimo reads `--data 2027` as the number 2027; it is still the folder `2027`."""
    assert workspace({"data": 2027}).root == Path("2027")


@pytest.mark.parametrize("value", ["", "  ", True, [], None])
def test_the_option_needs_a_folder(home: Path, value: object) -> None:
    """`--data` with no folder (marimo gives "" or True) is refused; None means not given."""
    if value is None:
        assert workspace({"data": None}).origin in {"bundled", "workspace"}
        return
    with pytest.raises(BadRequestError, match="--data needs a folder"):
        workspace({"data": value})


def test_the_option_must_not_name_a_file(home: Path, tmp_path: Path) -> None:
    """A file is not a data folder."""
    afile = tmp_path / "a.json"
    afile.write_text("{}")
    with pytest.raises(BadRequestError, match="is not a folder"):
        workspace({"data": str(afile)})


def test_the_variable_is_used_without_the_option(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TRACKERKIT_DATA names the folder when no --data is given; the option wins over it."""
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    assert workspace(None) == Workspace(tmp_path / "env", "environment")
    assert DATA_ENV in workspace(None).describe()
    assert workspace({"data": str(tmp_path / "opt")}).origin == "option"
    assert workspace(None, {DATA_ENV: str(tmp_path / "given")}).root == tmp_path / "given"
    assert workspace(None, {}).origin == "bundled"


def test_marimo_cli_args_are_accepted(home: Path, tmp_path: Path) -> None:
    """The app passes mo.cli_args() as it is (marimo's CLIArgs, not a dict)."""
    from marimo._runtime.params import CLIArgs

    assert workspace(CLIArgs({"data": str(tmp_path)})).root == tmp_path
    assert workspace(CLIArgs({})).origin == "bundled"


def test_a_workspace_that_cannot_be_made_is_a_clear_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundled: Path
) -> None:
    """A user data directory that is a file: the refusal names the folder and the way out."""
    blocker = tmp_path / "xdg"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    monkeypatch.delenv(DATA_ENV, raising=False)
    chosen = workspace(None, bundled=bundled)
    with pytest.raises(BadRequestError, match=r"cannot make the workspace .*--data DIR"):
        chosen.for_writing()


A, M, S = "/opt/given", "/srv/mine", "/srv/assistant"


@pytest.mark.parametrize(
    ("option", "environ", "root", "trace_root", "why"),
    [
        (A, {DATA_ENV: M, ASSISTANT_ENV: S}, A, A, "the --data option"),
        (None, {DATA_ENV: M, ASSISTANT_ENV: S}, M, M, DATA_ENV),
        (None, {DATA_ENV: "", ASSISTANT_ENV: S}, "bundled", S, ASSISTANT_ENV),
        (None, {ASSISTANT_ENV: ""}, "bundled", "home", "your workspace"),
        (None, {}, "bundled", "home", "your workspace"),
    ],
    ids=["option", "trackerkit-data", "assistant-data-dir", "empty-is-unset", "per-user"],
)
def test_the_rule_in_order(
    home: Path,
    bundled: Path,
    option: str | None,
    environ: dict[str, str],
    root: str,
    trace_root: str,
    why: str,
) -> None:
    """--data, else TRACKERKIT_DATA, else (the trace only) ASSISTANT_DATA_DIR, else the per-user
    workspace; the trace is `<that folder>/trace`, never the bundled data's."""
    named = {"bundled": bundled, "home": home}
    chosen = workspace({"data": option} if option else None, environ, bundled=bundled)
    assert chosen.root == named.get(root, Path(root))
    assert chosen.trace_root == named.get(trace_root, Path(trace_root))
    assert chosen.trace == chosen.trace_root / "trace"
    assert chosen.trace_source == why
    assert chosen.describe_trace() == f"Trace folder `{chosen.trace}` ({why})."
    assert not chosen.trace.is_relative_to(bundled)
    assert trace_root_of({"data": option} if option else None, environ) == chosen.trace_root
    assert data_dir(option, environ) == chosen.trace_root, "the simulator follows the same rule"


def test_the_assistant_variable_names_the_trace_of_the_workspace_too(
    home: Path, bundled: Path
) -> None:
    """Once the workspace holds a library, ASSISTANT_DATA_DIR still names the trace's folder only,
    and a first save keeps it."""
    chosen = workspace(None, {ASSISTANT_ENV: "/srv/assistant"}, bundled=bundled)
    saved = chosen.for_writing()
    assert (saved.root, saved.trace_root) == (home, Path("/srv/assistant"))
    again = workspace(None, {ASSISTANT_ENV: "/srv/assistant"}, bundled=bundled)
    assert (again.origin, again.trace) == ("workspace", Path("/srv/assistant/trace"))


def test_a_trace_alone_does_not_make_the_workspace(home: Path, bundled: Path) -> None:
    """A simulated session's trace in the per-user folder leaves the bundled library read in place;
    the first save then copies trackers and scenes in beside the trace, which stays."""
    (home / "trace").mkdir(parents=True)
    (home / "trace" / "2027-01-05.jsonl").write_text("{}\n")
    chosen = workspace(None, bundled=bundled)
    assert (chosen.origin, chosen.root, chosen.trace) == ("bundled", bundled, home / "trace")
    written = chosen.for_writing()
    assert written == Workspace(home, "workspace")
    assert (home / "trackers" / "health.json").is_file()
    assert (home / "scenes" / "fight.json").is_file()
    assert (home / "trace" / "2027-01-05.jsonl").read_text() == "{}\n"
    assert sorted(p.name for p in home.iterdir()) == ["scenes", "trace", "trackers"]
    assert sorted(p.name for p in home.parent.iterdir()) == ["workspace"], "no scratch folder left"
    assert workspace(None, bundled=bundled) == Workspace(home, "workspace")


def test_two_apps_saving_at_once_beside_a_trace(home: Path, bundled: Path) -> None:
    """Four first saves into a folder holding only the trace end with one whole copy."""
    (home / "trace").mkdir(parents=True)
    chosen = workspace(None, bundled=bundled)
    assert _saved_at_once(chosen, 4) == [Workspace(home, "workspace")] * 4
    assert sorted(p.name for p in home.iterdir()) == ["scenes", "trace", "trackers"]
    assert sorted(p.name for p in (home / "trackers").iterdir()) == ["health.json"]
    assert sorted(p.name for p in home.parent.iterdir()) == ["workspace"]
