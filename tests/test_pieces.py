"""Piece files: the one id rule, reads that never hang, atomic saves that keep the mode (TR-50)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from unopened import never_opened

from trackerkit._pieces import (
    MAX_PIECE_BYTES,
    check_tracker_id,
    read_piece_file,
    replace_atomically,
    sweep_temporaries,
    write_atomically,
)
from trackerkit.errors import BadRequestError


class TestIdRule:
    """One id rule for every way in: letters, digits, - and _, starting with a letter or digit."""

    @pytest.mark.parametrize("good", ["health", "scene-mood", "a", "A_1", "x" * 128])
    def test_accepted(self, good: str) -> None:
        """A good id comes back as it is."""
        assert check_tracker_id(good) == good

    @pytest.mark.parametrize(
        "bad",
        ["", "../x", "a/b", "a\\b", "a\x00b", ".x", "-x", "x y", "x.json", "x" * 129, "é"],
        ids=["empty", "dot-dot", "slash", "backslash", "nul", "dot", "dash-first", "space", "dot-json", "too-long", "non-ascii"],
    )  # fmt: skip
    def test_refused(self, bad: str) -> None:
        """Anything else is a BadRequestError that shows at most 60 characters of it."""
        with pytest.raises(BadRequestError, match="is not a tracker id") as caught:
            check_tracker_id(bad)
        assert len(str(caught.value)) < 200

    def test_not_text(self) -> None:
        """An id that is not text is named by its type."""
        with pytest.raises(BadRequestError, match=r"^5 is not a tracker id"):
            check_tracker_id(5)


class TestRead:
    """A piece file is read only when it is a regular file of bounded size."""

    def test_missing(self, tmp_path: Path) -> None:
        """No file: neither bytes nor a reason."""
        assert read_piece_file(tmp_path / "x.json") == (None, None)

    def test_regular(self, tmp_path: Path) -> None:
        """A regular file is read whole."""
        (tmp_path / "x.json").write_bytes(b"{}")
        assert read_piece_file(tmp_path / "x.json", tmp_path) == (b"{}", None)

    def test_a_dangling_link(self, tmp_path: Path) -> None:
        """A link to nothing is refused in words."""
        (tmp_path / "x.json").symlink_to(tmp_path / "gone.json")
        assert read_piece_file(tmp_path / "x.json") == (
            None,
            "is a link to nothing readable; it was not read",
        )

    def test_a_fifo_named_directly(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Even with no folder to stay in, a FIFO is refused from its metadata, never opened."""
        fifo = tmp_path / "x.json"
        os.mkfifo(fifo)
        with never_opened(monkeypatch, fifo):
            assert read_piece_file(fifo) == (None, "is a FIFO, not a regular file; it was not read")

    def test_the_size_limit_is_exact(self, tmp_path: Path) -> None:
        """A file of exactly MAX_PIECE_BYTES is read; one byte more is not (sparse files)."""
        at, past = tmp_path / "at.json", tmp_path / "past.json"
        with at.open("wb") as handle:
            handle.truncate(MAX_PIECE_BYTES)
        with past.open("wb") as handle:
            handle.truncate(MAX_PIECE_BYTES + 1)
        data, _ = read_piece_file(at)
        assert data is not None
        assert len(data) == MAX_PIECE_BYTES
        assert read_piece_file(past)[0] is None


class TestWrite:
    """TR-50: a save goes through a temporary that is renamed; the mode is the piece's own."""

    def test_keeps_the_mode(self, tmp_path: Path) -> None:
        """An existing file keeps its permission bits."""
        path = tmp_path / "x.json"
        path.write_bytes(b"old")
        path.chmod(0o640)
        write_atomically(path, b"new")
        assert path.read_bytes() == b"new"
        assert stat.S_IMODE(path.stat().st_mode) == 0o640

    def test_a_new_file_follows_the_umask(self, tmp_path: Path) -> None:
        """A new file is 0666 less the umask, as `open` would make it."""
        before = os.umask(0o027)
        try:
            write_atomically(tmp_path / "x.json", b"{}")
        finally:
            os.umask(before)
        assert stat.S_IMODE((tmp_path / "x.json").stat().st_mode) == 0o640
        assert [p.name for p in tmp_path.iterdir()] == ["x.json"]

    def test_a_link_is_written_through(self, tmp_path: Path) -> None:
        """A link at the path stays a link; the file it names gets the payload."""
        target = tmp_path / "real.json"
        target.write_bytes(b"old")
        link = tmp_path / "out.json"
        link.symlink_to(target)
        assert write_atomically(link, b"new") == target
        assert link.is_symlink()
        assert target.read_bytes() == b"new"

    @pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
    def test_a_special_file_is_refused_and_left_alone(self, tmp_path: Path, kind: str) -> None:
        """Found when tried: `export --out /dev/null` replaced the device with a file, and a
        FIFO (or a device) at an output's name was replaced too, or hung the writer."""
        if kind == "fifo":
            path = tmp_path / "out.json"
            os.mkfifo(path)
        elif kind == "directory":
            path = tmp_path / "out.json"
            path.mkdir()
        else:
            path = Path("/dev/null")
        before = os.stat(path)
        with pytest.raises(BadRequestError, match="not a regular file; nothing was written"):
            write_atomically(path, b"x")
        after = os.stat(path)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    def test_a_failed_write_keeps_the_old_file(self, tmp_path: Path) -> None:
        """A write that fails partway (a full disk) leaves the old file whole, no temporary."""
        path = tmp_path / "day.parquet"
        path.write_bytes(b"old")

        def fail(out: object) -> None:
            raise OSError(28, "No space left on device")

        with pytest.raises(OSError, match="No space left"):
            replace_atomically(path, fail)
        assert path.read_bytes() == b"old"
        assert [p.name for p in tmp_path.iterdir()] == ["day.parquet"]


class TestSweep:
    """Only a save's own temporaries are removed, and only regular files."""

    def test_a_link_named_like_a_temporary_is_kept(self, tmp_path: Path) -> None:
        """A link (or a folder) with a temporary's name is not ours to remove."""
        target = tmp_path / "target"
        target.write_text("keep")
        (tmp_path / ".x.abcdefgh.tmp").symlink_to(target)
        (tmp_path / ".y.abcdefgh.tmp").write_text("stale")
        assert sweep_temporaries(tmp_path) == [".y.abcdefgh.tmp"]
        assert target.read_text() == "keep"
        assert (tmp_path / ".x.abcdefgh.tmp").is_symlink()

    def test_a_missing_folder(self, tmp_path: Path) -> None:
        """A folder that is not there has nothing to sweep."""
        assert sweep_temporaries(tmp_path / "nope") == []
