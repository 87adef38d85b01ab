"""Tracker pieces on disk: verdicts, saves on a revision, patches, the blank, where linked (TR-46, TR-50)."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import DATA_TRACKERS, HEALTH
from unopened import never_opened

from trackerkit import (
    Library,
    Links,
    Problem,
    StaleRevisionError,
    TrackerDecodeError,
    decode_tracker,
    linked_in,
    load_scenes,
)
from trackerkit.errors import BadRequestError, NotFoundError
from trackerkit.library import check_paths, read_piece


def _write(path: Path, data: object) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


@pytest.fixture
def lib(tmp_path: Path, bag: dict[str, Any]) -> Library:
    """A library holding `health` and `bag`."""
    _write(tmp_path / "health.json", HEALTH)
    _write(tmp_path / "bag.json", bag)
    return Library(tmp_path)


def _stored(lib: Library, tracker_id: str) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads((lib.path / f"{tracker_id}.json").read_bytes())
    return data


class TestReading:
    """Every file gets a verdict; one bad file never hides the others."""

    def test_lists_every_piece(self, lib: Library) -> None:
        """Ids and trackers come sorted by id."""
        assert lib.ids() == ["bag", "health"]
        assert [t.id for t in lib.trackers()] == ["bag", "health"]
        assert [t.id for t in lib] == ["bag", "health"]
        assert "health" in lib
        assert "nope" not in lib

    def test_get(self, lib: Library) -> None:
        """`get` decodes one piece."""
        assert lib.get("health") == decode_tracker(HEALTH)

    def test_get_missing(self, lib: Library) -> None:
        """A piece that is not there is NotFoundError, naming it."""
        with pytest.raises(NotFoundError, match="no tracker 'nope'"):
            lib.get("nope")

    def test_get_bad_id(self, lib: Library) -> None:
        """An id that cannot name a file (`../x`) is a bad request, never a path outside the folder."""
        with pytest.raises(BadRequestError, match="is not a tracker id"):
            lib.get("../health")

    def test_bad_files_do_not_hide_others(self, lib: Library) -> None:
        """Bad JSON, a refused tracker and a mismatched id each get a verdict naming every problem."""
        (lib.path / "broken.json").write_text("{not json")
        refused = dict(HEALTH, id="refused", extra=1, name="")
        _write(lib.path / "refused.json", refused)
        _write(lib.path / "moved.json", HEALTH)
        (lib.path / "notes.txt").write_text("not a piece")
        verdicts = {v.id: v for v in lib.verdicts()}
        assert sorted(verdicts) == ["bag", "broken", "health", "moved", "refused"]
        assert verdicts["health"].ok
        assert verdicts["bag"].tracker is not None
        broken = verdicts["broken"]
        assert not broken.ok
        assert broken.tracker is None
        assert broken.file == str(lib.path / "broken.json")
        assert broken.problems[0].path == ""
        assert broken.problems[0].message.startswith("is not valid JSON: ")
        assert [p.path for p in verdicts["refused"].problems] == ["extra", "name"]  # TR-12: both
        assert verdicts["moved"].problems == (
            Problem(
                ("id",),
                'is "health" but the file is named moved.json; a piece\'s id must match its file name',
                "id_not_file_name",
            ),
        )
        assert [t.id for t in lib.trackers()] == ["bag", "health"]

    def test_refused_piece_through_get(self, lib: Library) -> None:
        """`get` on a refused piece raises TrackerDecodeError naming the file."""
        _write(lib.path / "moved.json", HEALTH)
        with pytest.raises(TrackerDecodeError, match=r"moved\.json: tracker refused"):
            lib.get("moved")

    def test_verdict_lines_and_json(self, tmp_path: Path) -> None:
        """A verdict prints `file: path: message` lines and plain JSON."""
        path = _write(tmp_path / "x.json", dict(HEALTH, id="x", revision=-1))
        verdict = read_piece(path)
        assert verdict.lines() == [f"{path}: revision: must be a whole number, 0 or more; found -1"]
        assert verdict.to_json() == {
            "file": str(path),
            "ok": False,
            "id": "x",
            "problems": [
                {"path": "revision", "message": "must be a whole number, 0 or more; found -1"}
            ],
        }

    def test_missing_folder_is_empty(self, tmp_path: Path) -> None:
        """A folder that is not there holds no pieces."""
        assert Library(tmp_path / "nope").verdicts() == []

    def test_check_paths(self, lib: Library) -> None:
        """Files and folders are read in the order given; a missing path is NotFoundError."""
        checked = check_paths([lib.path / "health.json", lib.path])
        assert [(p, len(v)) for p, v in checked] == [
            (str(lib.path / "health.json"), 1),
            (str(lib.path), 2),
        ]
        with pytest.raises(NotFoundError, match="no such file or folder"):
            check_paths([lib.path / "nope.json"])


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_piece_is_named_for_what_it_is(tmp_path: Path, encoding: str) -> None:
    """Found when tried: a UTF-16 tracker file was refused as "surrogates not allowed"."""
    path = tmp_path / "health.json"
    path.write_bytes(json.dumps(HEALTH).encode(encoding))
    verdict = read_piece(path)
    assert [p.message for p in verdict.problems] == [
        "is UTF-16 text, not UTF-8; save it as UTF-8 (JSON files are UTF-8, RFC 8259)"
    ]


class TestSave:
    """TR-50: atomic saves on the revision opened; a stale revision is refused, nothing lost."""

    def test_save_bumps_revision(self, lib: Library) -> None:
        """TR-50: a save on the current revision writes the piece at the next one."""
        tracker = lib.get("health")
        renamed = decode_tracker(dict(HEALTH, name="Vitals"))
        saved = lib.save(renamed, tracker.revision)
        assert (saved.revision, saved.name) == (1, "Vitals")
        assert lib.get("health") == saved
        assert _stored(lib, "health")["revision"] == 1

    @pytest.mark.parametrize(
        "text", ['{"revision": 7,, "name": "x"}', "[1, 2]", ""], ids=["broken", "a-list", "empty"]
    )
    def test_a_file_holding_no_piece_is_not_saved_over(self, lib: Library, text: str) -> None:
        """Found when tried: a hand edit gone wrong read as revision 0, so a save on revision 0
        replaced it and the edit was lost. Only the repair view's save may replace it."""
        path = lib.path / "health.json"
        path.write_text(text)
        tracker = decode_tracker(HEALTH)
        with pytest.raises(BadRequestError, match="holds no readable tracker piece"):
            lib.save(tracker, 0)
        assert path.read_text() == text
        assert lib.save(tracker, 0, replace_unreadable=True).revision == 1

    def test_stale_revision_refused(self, lib: Library) -> None:
        """TR-50: a save on a revision that moved is refused and the file is untouched."""
        tracker = lib.get("health")
        lib.save(tracker, 0)
        before = (lib.path / "health.json").read_bytes()
        with pytest.raises(StaleRevisionError) as caught:
            lib.save(decode_tracker(dict(HEALTH, name="Lost?")), 0)
        assert (caught.value.base_revision, caught.value.current_revision) == (0, 1)
        assert "nothing was written" in str(caught.value)
        assert (lib.path / "health.json").read_bytes() == before

    def test_save_refuses_a_bad_tracker(self, lib: Library) -> None:
        """A tracker built without the decoder is checked before it is written."""
        bad = decode_tracker(HEALTH).model_copy(update={"name": "  "})
        with pytest.raises(TrackerDecodeError, match="name: must not be blank"):
            lib.save(bad, 0)
        assert lib.get("health").name == "Health"

    @pytest.mark.parametrize(
        ("base", "found"),
        [(None, "null"), ("0", 'the text "0"'), (True, "true"), (-2, "-2"), (1.0, "1.0")],
        ids=["none", "text", "bool", "below-minus-one", "float"],
    )
    def test_save_refuses_a_base_revision_that_is_no_revision(
        self, lib: Library, base: Any, found: str
    ) -> None:
        """Found when tried: None raised TypeError, "0" a self-contradicting stale refusal, True saved at revision 2."""
        with pytest.raises(
            BadRequestError,
            match=re.escape(
                "base_revision must be a whole number: the revision the piece was opened at "
                f"(0 or more), or -1 for a new piece; found {found}"
            ),
        ):
            lib.save(decode_tracker(HEALTH), base)
        with pytest.raises(BadRequestError):
            lib.save(decode_tracker(dict(HEALTH, id="fresh")), base)
        assert lib.get("health").revision == decode_tracker(HEALTH).revision
        assert not (lib.path / "fresh.json").exists()

    def test_minus_one_saves_only_a_new_piece(self, lib: Library) -> None:
        """-1 creates a new piece at revision 0, and refuses as stale where a file is."""
        assert lib.save(decode_tracker(dict(HEALTH, id="fresh")), -1).revision == 0
        with pytest.raises(StaleRevisionError):
            lib.save(decode_tracker(HEALTH), -1)

    def test_save_new_piece(self, lib: Library) -> None:
        """A piece with no file yet is created at base_revision + 1."""
        saved = lib.save(decode_tracker(dict(HEALTH, id="fresh")), 0)
        assert saved.revision == 1
        assert lib.get("fresh") == saved

    def test_atomic_leaves_no_temp_files(self, lib: Library) -> None:
        """TR-50: the write goes through a temp file that is renamed; none is left behind."""
        for revision in range(3):
            lib.save(lib.get("health"), revision)
        assert sorted(p.name for p in lib.path.iterdir()) == ["bag.json", "health.json"]

    def test_failed_write_keeps_the_old_file(
        self, lib: Library, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """TR-50: if the rename fails, the old file is whole and the temp file is removed."""
        before = (lib.path / "health.json").read_bytes()

        def boom(src: str, dst: str) -> None:
            raise OSError("disk full")

        monkeypatch.setattr("trackerkit._pieces.os.replace", boom)
        with pytest.raises(OSError, match="disk full"):
            lib.save(lib.get("health"), 0)
        assert (lib.path / "health.json").read_bytes() == before
        assert sorted(p.name for p in lib.path.iterdir()) == ["bag.json", "health.json"]


class TestPatch:
    """TR-50: a save is a patch of the edits; nothing edited, nothing sent."""

    def test_patch_head_and_body(self, lib: Library) -> None:
        """TR-50: only the edited keys change; every other key is kept as stored."""
        saved = lib.patch(
            "health", 0, {"name": "Vitals", "body": {"note": "Track it.", "changes": "card"}}
        )
        assert (saved.name, saved.body.note, saved.style, saved.revision) == (
            "Vitals",
            "Track it.",
            "card",
            1,
        )
        assert saved.fields == decode_tracker(HEALTH).fields
        assert saved.description == HEALTH["description"]

    def test_patch_clears_with_null(self, lib: Library) -> None:
        """A null clears an optional key."""
        lib.patch("health", 0, {"body": {"template": "{{tracker::Health::hp}}"}})
        saved = lib.patch("health", 1, {"body": {"template": None}})
        assert saved.body.template is None
        assert "template" not in _stored(lib, "health")["body"]

    @pytest.mark.parametrize("changes", [{}, {"body": {}}], ids=["empty", "empty-body"])
    def test_nothing_edited_nothing_sent(self, lib: Library, changes: dict[str, Any]) -> None:
        """TR-50: an empty patch writes nothing and returns the piece unchanged."""
        before = (
            (lib.path / "health.json").stat().st_mtime_ns,
            (lib.path / "health.json").read_bytes(),
        )
        result = lib.patch("health", 0, changes)
        assert result == lib.get("health")
        assert result.revision == 0
        assert (
            (lib.path / "health.json").stat().st_mtime_ns,
            (lib.path / "health.json").read_bytes(),
        ) == before

    def test_same_values_write_nothing(self, lib: Library) -> None:
        """TR-50: a patch that sets keys to what is stored edits nothing, so nothing is written."""
        result = lib.patch("health", 0, {"name": "Health", "body": {"layout": "record"}})
        assert result.revision == 0
        assert _stored(lib, "health")["revision"] == 0

    def test_stale_patch_refused(self, lib: Library) -> None:
        """TR-50: a patch on a stale revision is refused; the newer edit is not lost."""
        lib.patch("health", 0, {"name": "First"})
        with pytest.raises(StaleRevisionError):
            lib.patch("health", 0, {"description": "Second"})
        assert (lib.get("health").name, lib.get("health").description) == (
            "First",
            HEALTH["description"],
        )

    def test_undecodable_patch_refused(self, lib: Library) -> None:
        """TR-50: a patch that breaks the piece is refused with the decoder's problems, nothing written."""
        before = (lib.path / "health.json").read_bytes()
        with pytest.raises(TrackerDecodeError) as caught:
            lib.patch("health", 0, {"body": {"layout": "grid", "colour": "red"}})
        assert {p.path for p in caught.value.problems} == {"body.layout", "body.colour"}
        assert (lib.path / "health.json").read_bytes() == before

    @pytest.mark.parametrize(
        ("changes", "fragment"),
        [
            ({"id": "x"}, "cannot change id"),
            ({"revision": 5}, "cannot change revision"),
            ({"body": []}, "must be an object"),
        ],
        ids=["id", "revision", "body-list"],
    )
    def test_bad_patch(self, lib: Library, changes: dict[str, Any], fragment: str) -> None:
        """A patch may not move the id or revision, and its body is an object."""
        with pytest.raises(BadRequestError, match=fragment):
            lib.patch("health", 0, changes)

    def test_patch_missing(self, lib: Library) -> None:
        """A patch of a piece that is not there is NotFoundError."""
        with pytest.raises(NotFoundError):
            lib.patch("nope", 0, {"name": "X"})

    def test_patch_repairs_a_refused_piece(self, lib: Library) -> None:
        """A patch can fix a piece the decoder refuses."""
        _write(lib.path / "health.json", dict(HEALTH, name=""))
        assert lib.patch("health", 0, {"name": "Health"}).revision == 1


class TestNewBlank:
    """TR-10: "New tracker" saves the blank record under a fresh id."""

    def test_new_blank(self, lib: Library) -> None:
        """TR-10: the blank is saved under an id made from its name, never over another piece."""
        first = lib.new_blank()
        second = lib.new_blank()
        named = lib.new_blank("Spell Slots!")
        assert (first.id, second.id, named.id) == ("tracker", "tracker-2", "spell-slots")
        assert [f.name for f in lib.get("tracker").fields] == ["value"]
        assert lib.get("spell-slots").name == "Spell Slots!"
        assert first.revision == 0

    def test_new_blank_in_new_folder(self, tmp_path: Path) -> None:
        """TR-10: the folder is made when it is not there yet."""
        lib = Library(tmp_path / "fresh" / "trackers")
        assert lib.new_blank("???").id == "tracker"
        assert lib.ids() == ["tracker"]


@dataclass
class SceneObject:
    id: str
    title: str
    trackers: list[str] = field(default_factory=list)
    deleted: bool = False


def _scene(scene_id: str, title: str, trackers: list[str], **extra: Any) -> dict[str, Any]:
    return {"id": scene_id, "title": title, "prompting": {"trackers": trackers}, **extra}


class TestLinkedIn:
    """TR-46: where a tracker is linked, from the scenes' settings alone; deleted scenes left out."""

    def test_two_scenes(self) -> None:
        """TR-46: "linked in 2 scenes", listing them in order."""
        scenes = [
            _scene("s1", "Harbour", ["health", "quest"]),
            _scene("s2", "Chapel", ["quest"]),
            _scene("s3", "Tavern", ["health"]),
        ]
        links = linked_in("health", scenes)
        assert str(links) == "linked in 2 scenes"
        assert links.scenes == (("s1", "Harbour"), ("s3", "Tavern"))
        assert len(links) == 2

    def test_one_scene(self) -> None:
        """TR-46: "linked in 1 scene"."""
        assert str(linked_in("quest", [_scene("s2", "Chapel", ["quest"])])) == "linked in 1 scene"

    def test_none(self) -> None:
        """TR-46: "not linked to a scene"."""
        assert (
            str(linked_in("health", [_scene("s1", "Harbour", ["quest"])]))
            == "not linked to a scene"
        )
        assert str(linked_in("health", [])) == "not linked to a scene"
        assert linked_in("health", []) == Links()

    def test_deleted_scene_left_out(self) -> None:
        """TR-46: a deleted scene does not count."""
        scenes = [
            _scene("s1", "Harbour", ["health"], deleted=True),
            _scene("s2", "Chapel", ["health"]),
        ]
        assert linked_in("health", scenes).scenes == (("s2", "Chapel"),)

    def test_objects(self) -> None:
        """TR-46: scenes may be objects with .id, .title and .trackers."""
        scenes = [
            SceneObject("a", "A", ["health"]),
            SceneObject("b", "B", ["health"], deleted=True),
        ]
        assert linked_in("health", scenes).scenes == (("a", "A"),)

    def test_malformed_scenes_are_not_links(self) -> None:
        """TR-46: a scene without an id, prompting or tracker list links nothing; a repeat counts once."""
        scenes: list[Any] = [
            {"title": "no id", "prompting": {"trackers": ["health"]}},
            {"id": "s1"},
            {"id": "s2", "prompting": {"trackers": "health"}},
            {"id": "s3", "prompting": None},
            _scene("s4", "Twice", ["health", "health"]),
            _scene("s4", "Twice", ["health"]),
            {"id": "s5", "prompting": {"trackers": ["health"]}},
            5,
        ]
        assert linked_in("health", scenes).scenes == (("s4", "Twice"), ("s5", ""))

    def test_load_scenes(self, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
        """TR-46: scenes load from a folder; unreadable files are skipped and reported."""
        _write(tmp_path / "s1.json", _scene("s1", "Harbour", ["health"]))
        _write(tmp_path / "s2.json", _scene("s2", "Gone", ["health"], deleted=True))
        (tmp_path / "bad.json").write_text("{")
        _write(tmp_path / "list.json", [1])
        skipped: list[Problem] = []
        with caplog.at_level(logging.WARNING, logger="trackerkit.library"):
            scenes = load_scenes(tmp_path, skipped=skipped)
        assert [s.id for s in scenes] == ["s1", "s2"]
        assert [p.path for p in skipped] == [
            str(tmp_path / "bad.json"),
            str(tmp_path / "list.json"),
        ]
        assert skipped[1].message == "must be an object; found a list"
        assert len(caplog.records) == 2
        assert str(linked_in("health", scenes)) == "linked in 1 scene"

    def test_load_scenes_reports_every_problem_and_keeps_the_links(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """TR-46: every problem of every scene file is reported with its path; a scene whose steps do not decode still links."""
        _write(
            tmp_path / "s1.json",
            {**_scene("s1", "Steps", ["health"]), "turns": [{"action": "fork"}, {"user": 5}]},
        )
        _write(tmp_path / "s2.json", {**_scene("s2", "Keys", ["health"]), "window": 0, "x": 1})
        skipped: list[Problem] = []
        with caplog.at_level(logging.WARNING, logger="trackerkit.library"):
            scenes = load_scenes(tmp_path, skipped=skipped)
        assert [(s.id, s.turns) for s in scenes] == [("s1", [])]
        assert [p.path for p in skipped] == [
            f"{tmp_path / 's1.json'}.turns[0].message",
            f"{tmp_path / 's1.json'}.turns[1].user",
            f"{tmp_path / 's2.json'}.window",
            f"{tmp_path / 's2.json'}.x",
        ]
        assert [skipped[1].message, skipped[3].message] == [
            "must be text; found 5",
            "is not a known key",
        ]
        assert len(caplog.records) == 4
        assert str(linked_in("health", scenes)) == "linked in 1 scene"

    def test_load_scenes_missing_folder(self, tmp_path: Path) -> None:
        """No scenes folder means no scenes."""
        assert load_scenes(tmp_path / "none") == []


class TestBundled:
    """The bundled library decodes and, together, uses every feature of the model."""

    def test_all_decode(self) -> None:
        """Every bundled tracker decodes; there are at least seven."""
        verdicts = Library(DATA_TRACKERS).verdicts()
        assert len(verdicts) >= 7
        assert [v.lines() for v in verdicts if not v.ok] == []

    def test_every_feature_used(self) -> None:
        """Layouts, types, ranges, a top, icons, a template and all four change styles appear."""
        trackers = Library(DATA_TRACKERS).trackers()
        fields = [f for t in trackers for f in t.fields]
        assert {t.layout for t in trackers} == {"record", "list"}
        assert {f.type for f in fields} == {"text", "number", "boolean", "choice"}
        assert {t.style for t in trackers} == {"chips", "card", "toast", "hidden"}
        assert any(getattr(f, "min", None) is not None for f in fields)
        assert any(getattr(f, "max", None) is not None for f in fields)
        assert any(getattr(f, "max_field", None) for f in fields)
        assert any(f.icon for f in fields)
        assert any(t.body.icon for t in trackers)
        assert any(t.body.template for t in trackers)

    def test_health_is_the_issue_piece(self) -> None:
        """The bundled `health` is exactly the piece of issue 2."""
        assert Library(DATA_TRACKERS).get("health") == decode_tracker(HEALTH)


class TestFileSafety:
    """A library reads only regular files of bounded size in its folder (TR-25's one id rule)."""

    def test_a_link_out_of_the_folder_is_refused_unread(
        self,
        lib: Library,
        tmp_path_factory: pytest.TempPathFactory,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """A piece file linking outside the folder gets a verdict, never the outside file's keys."""
        outside = tmp_path_factory.mktemp("outside") / "secret.json"
        _write(outside, {"secretKey": "hunter2"})
        (lib.path / "secret.json").symlink_to(outside)
        with never_opened(monkeypatch, outside):
            verdicts = {v.id: v for v in lib.verdicts()}
        assert [str(p) for p in verdicts["secret"].problems] == [
            f"is a link to a file outside {lib.path}; it was not read"
        ]
        assert verdicts["health"].ok

    def test_a_fifo_is_never_opened(self, lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
        """A FIFO in the folder is no piece: listing, reading and checking never open it."""
        fifo = lib.path / "x.json"
        os.mkfifo(fifo)
        with never_opened(monkeypatch, fifo):
            assert lib.ids() == ["bag", "health"]
            assert "x" not in lib
            with pytest.raises(NotFoundError):
                lib.get("x")
            assert [str(p) for p in read_piece(fifo).problems] == [
                "is a FIFO, not a regular file; it was not read"
            ]

    @pytest.mark.parametrize(
        "bad_id", ["../../secret", "a\x00b", "a/b"], ids=["dot-dot", "nul", "slash"]
    )
    def test_the_one_id_rule(self, lib: Library, bad_id: str) -> None:
        """get, save and patch refuse an id that breaks the rule with BadRequestError, not ValueError."""
        with pytest.raises(BadRequestError, match="is not a tracker id"):
            lib.get(bad_id)
        with pytest.raises(BadRequestError, match="is not a tracker id"):
            lib.patch(bad_id, 0, {"name": "X"})
        assert bad_id not in lib


class TestFileModes:
    """A save keeps the piece's file mode; a new piece gets the umask's (never the temp's 0600)."""

    @pytest.fixture
    def umask_022(self) -> Iterator[None]:
        """The umask 022 for the test, restored after."""
        before = os.umask(0o022)
        try:
            yield
        finally:
            os.umask(before)

    @pytest.mark.parametrize("mode", [0o644, 0o640, 0o664], ids=["0644", "0640", "0664"])
    def test_save_keeps_the_mode(self, lib: Library, mode: int) -> None:
        """save and patch leave the file's permission bits as they were."""
        path = lib.path / "health.json"
        path.chmod(mode)
        saved = lib.save(lib.get("health"), 0)
        assert stat.S_IMODE(path.stat().st_mode) == mode
        lib.patch("health", saved.revision, {"name": "Vitals"})
        assert stat.S_IMODE(path.stat().st_mode) == mode

    @pytest.mark.usefixtures("umask_022")
    def test_a_new_piece_follows_the_umask(self, lib: Library) -> None:
        """A new piece (save or new_blank) is 0644 under umask 022, as `open` would make it."""
        lib.save(decode_tracker(dict(HEALTH, id="fresh")), 0)
        blank = lib.new_blank("Notes")
        for tracker_id in ("fresh", blank.id):
            assert stat.S_IMODE((lib.path / f"{tracker_id}.json").stat().st_mode) == 0o644


class TestStaleTemporaries:
    """Opening a library removes the temporaries killed saves left; nothing else is touched."""

    def test_cleaned_on_open(self, lib: Library) -> None:
        """`.<id>.<8 chars>.tmp` files go (the old mkstemp names too); other files stay."""
        stale = [".health.1a2b3c4d.tmp", ".bag.k3j_x9zq.tmp", ".new-piece.00000000.tmp"]
        for name in stale:
            (lib.path / name).write_text("{half a save")
        kept = ["notes.tmp", ".health.tmp", ".health.1a2b3c4d.tmp.bak", "health.1a2b3c4d.tmp"]
        for name in kept:
            (lib.path / name).write_text("mine")
        (lib.path / ".dir.12345678.tmp").mkdir()
        Library(lib.path)
        assert sorted(p.name for p in lib.path.iterdir()) == sorted(
            ["bag.json", "health.json", ".dir.12345678.tmp", *kept]
        )

    def test_a_killed_save_leaves_a_temporary_the_next_open_removes(
        self, lib: Library, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A save killed between write and rename leaves its temp file; the next open removes it."""

        def killed(src: str, dst: str) -> None:
            raise KeyboardInterrupt

        with monkeypatch.context() as patched:
            patched.setattr("trackerkit._pieces.os.replace", killed)
            patched.setattr("trackerkit._pieces.os.unlink", lambda path: None)  # no cleanup ran
            with pytest.raises(KeyboardInterrupt):
                lib.save(lib.get("health"), 0)
        assert len([p for p in lib.path.iterdir() if p.name.endswith(".tmp")]) == 1
        Library(lib.path)
        assert sorted(p.name for p in lib.path.iterdir()) == ["bag.json", "health.json"]
