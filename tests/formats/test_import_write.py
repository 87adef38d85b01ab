"""`trackerkit import` writes all or nothing, says what it wrote, and reads every wrong shape.

Each test here failed on the code before: an import that wrote a piece then said nothing was
written, a raw `[Errno 17]`, JSON past the reader's limits blamed on YAML, and a TypeError on a
Marinara character whose `stats` is no list.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from cli_run import run_cli as _run
from conftest import DATA_TRACKERS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackerkit.errors import ImportWriteError, TrackerkitError
from trackerkit.formats.card import export_card
from trackerkit.formats.importers import IMPORTERS, import_file, write_import
from trackerkit.library import Library

FIXTURES = Path(__file__).parent / "fixtures"
LOREBOOK = FIXTURES / "mvu_lorebook.json"


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


class TestAllOrNothing:
    def test_a_folder_where_a_piece_goes_takes_the_next_id(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A folder named `shi-jian.json` is no free name: the piece is written as shi-jian-2, and
        every file written is said (before, li.json was written and the error said nothing was)."""
        data = tmp_path / "d"
        (data / "trackers" / "shi-jian.json").mkdir(parents=True)
        code, out, err = _run(capsys, "import", str(LOREBOOK), "--into", str(data))
        assert (code, err) == (0, "")
        assert f"wrote {data / 'trackers' / 'li.json'} (Li)\n" in out
        assert f"wrote {data / 'trackers' / 'shi-jian-2.json'} (时间)\n" in out
        assert 'scene links: ["li","shi-jian-2"]\n' in out
        assert _files(data / "trackers") == ["li.json", "shi-jian-2.json", "shi-jian.json"]

    @pytest.mark.parametrize(
        ("blocked", "what"), [("scenes", "scene file"), ("trackers", "trackers")]
    )
    def test_a_file_for_a_folder_writes_nothing(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, blocked: str, what: str
    ) -> None:
        """`--into X` where X/trackers or X/scenes is a file: one clear sentence (not a raw
        `[Errno 17] File exists`), checked before the first tracker is written."""
        (tmp_path / blocked).write_text("a file")
        code, out, err = _run(capsys, "import", str(LOREBOOK), "--into", str(tmp_path))
        assert code == 1
        assert "wrote" not in out
        assert err == (
            f"trackerkit: {tmp_path / blocked} is a file, so the imported {what} cannot be "
            "written there; move it away or import into another folder (--into DIR); nothing "
            "was written\n"
        )
        assert _files(tmp_path) == [blocked]

    def test_a_failure_partway_names_what_was_written(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """A save failing after the first piece: the error names the written file and the rest."""
        real = Library.save
        calls = 0

        def failing(self: Library, tracker: Any, base_revision: int) -> Any:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise OSError(28, "No space left on device")
            return real(self, tracker, base_revision)

        monkeypatch.setattr(Library, "save", failing)
        trackers, scenes = tmp_path / "trackers", tmp_path / "scenes"
        with pytest.raises(ImportWriteError) as caught:
            write_import(import_file(LOREBOOK), trackers, scenes)
        assert caught.value.written == (trackers / "li.json",)
        assert str(caught.value) == (
            f"the import stopped partway: cannot write {trackers / 'shi-jian.json'}: No space "
            f"left on device. Written (kept, whole): {trackers / 'li.json'}; not written: "
            f"{trackers / 'shi-jian.json'}, the scene file in {scenes}"
        )
        assert _files(trackers) == ["li.json"]
        assert _files(scenes) == []

    def test_a_scene_failure_names_the_trackers_written(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """The scene file failing last: both trackers are named as written."""
        import trackerkit.formats.importers as importers

        real = importers.save_imported_scene

        def failing(imported: Any, scenes: Any, *, dry_run: bool = False) -> Any:
            if dry_run:
                return real(imported, scenes, dry_run=True)
            raise OSError(13, "Permission denied")

        monkeypatch.setattr(importers, "save_imported_scene", failing)
        trackers, scenes = tmp_path / "trackers", tmp_path / "scenes"
        with pytest.raises(ImportWriteError) as caught:
            write_import(import_file(LOREBOOK), trackers, scenes)
        assert caught.value.written == (trackers / "li.json", trackers / "shi-jian.json")
        assert str(caught.value).startswith(
            f"the import stopped partway: cannot write the scene file in {scenes}: Permission "
            "denied."
        )


class TestJsonPastLimits:
    """Well-formed JSON the JSON reader stops on is told as JSON, not as a YAML error."""

    def test_deep(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        path = tmp_path / "deep.json"
        path.write_text("[" * 5000 + "]" * 5000)
        assert _run(capsys, "import", str(path), "--dry-run") == (
            1,
            "",
            f"trackerkit: {path}: is JSON nested more than 1,024 levels deep (at line 1, column "
            "1026); trackerkit reads at most 100 levels\n",
        )

    def test_huge_integer(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        path = tmp_path / "big.json"
        path.write_text('{"a": ' + "9" * 5000 + "}")
        assert _run(capsys, "import", str(path), "--dry-run") == (
            1,
            "",
            f"trackerkit: {path}: is JSON holding a number too large to read at line 1, column 7\n",
        )


def test_marinara_stats_not_a_list(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A character's `stats` that is no list is a report line, not a TypeError."""
    path = tmp_path / "m.json"
    path.write_text('{"presentCharacters":[{"name":"A","stats":5}]}')
    code, out, err = _run(capsys, "import", "--from", "marinara", "--dry-run", str(path))
    assert code == 0, err
    assert "  unmapped: presentCharacters[0].stats: stats that is not a list\n" in out


# --- every wrong type at every level of each importer's own input ----------------------------


def _sources() -> dict[str, tuple[str, object]]:
    """A valid input of each importer: the fixtures, and a card of three bundled trackers."""

    def read(name: str) -> object:
        return orjson.loads((FIXTURES / name).read_bytes())

    return {
        "marinara": ("marinara", read("marinara_state.json")),
        "mvu lorebook": ("mvu", read("mvu_lorebook.json")),
        "mvu initvar": ("mvu", yaml.safe_load((FIXTURES / "mvu_initvar.yaml").read_text())),
        "rpg-companion": ("rpg-companion", read("rpg_companion_settings.json")),
        "sillytavern-tracker": ("sillytavern-tracker", read("st_tracker_preset.json")),
        "wtracker": ("wtracker", read("wtracker_settings.json")),
        "card": ("card", export_card(Library(DATA_TRACKERS).trackers()[:3], name="V")),
    }


SOURCES = _sources()
assert set(IMPORTERS) == {format for format, _ in SOURCES.values()}


def _paths(node: object, at: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield at
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*at, index))


def _replaced(document: object, at: tuple[str | int, ...], value: object) -> object:
    if not at:
        return value
    copied = copy.deepcopy(document)
    node: Any = copied
    for step in at[:-1]:
        node = node[step]
    node[at[-1]] = value
    return copied


def _imports_or_refuses(format: str, document: object) -> None:
    """The importer returns or raises one of trackerkit's own errors, nothing else."""
    with contextlib.suppress(TrackerkitError):
        IMPORTERS[format](document, "fuzzed.json")


WRONG = [None, True, 5, -1, 1.5, "x", "", [], {}, [5], ["x"], [None], {"a": 5}, {"name": 5}]


@pytest.mark.parametrize("source", list(SOURCES))
def test_every_wrong_type_at_every_key(source: str) -> None:
    """Each value of each importer's valid input, in turn, replaced by each kind of JSON value."""
    format, document = SOURCES[source]
    for at in _paths(document):
        for value in WRONG:
            _imports_or_refuses(format, _replaced(document, at, value))


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["name", "value", "max", "type"]) | st.text(max_size=5),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(SOURCES)), st.data())
def test_random_json_at_any_key(source: str, data: st.DataObject) -> None:
    """Hypothesis: up to three values anywhere in an importer's valid input replaced by random
    JSON; only trackerkit's documented errors come out (never a TypeError, KeyError, ...)."""
    format, document = SOURCES[source]
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.sampled_from(list(_paths(document))))
        document = _replaced(document, at, data.draw(JSON))
    _imports_or_refuses(format, document)
