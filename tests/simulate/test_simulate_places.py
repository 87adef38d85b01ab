"""Where the simulator writes its trace (TC-1) and which time zone names its day files (TC-2)."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest
from conftest import REPO

from trackerkit.errors import BadRequestError
from trackerkit.simulate import BUNDLED_DATA, check_data_dir, data_dir, time_zone


class TestDataDir:
    """TC-1: --data, else ASSISTANT_DATA_DIR, else the per-user data directory; never ./data."""

    def test_the_option_first(self, tmp_path: Path) -> None:
        """A given directory wins over the environment."""
        env = {"ASSISTANT_DATA_DIR": "/elsewhere"}
        assert data_dir(tmp_path, env) == tmp_path

    def test_then_the_environment(self) -> None:
        """ASSISTANT_DATA_DIR names it when no option is given."""
        assert data_dir(None, {"ASSISTANT_DATA_DIR": "/srv/assistant"}) == Path("/srv/assistant")

    @pytest.mark.parametrize("env", [{}, {"ASSISTANT_DATA_DIR": ""}], ids=["unset", "empty"])
    def test_else_the_per_user_directory(
        self, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With neither, the platform's per-user data directory, not the working directory's data/."""
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
        found = data_dir(None, env)
        assert found == Path(platformdirs.user_data_dir("trackerkit", appauthor=False))
        assert found == tmp_path / "trackerkit"

    def test_the_bundled_data_is_refused(self) -> None:
        """The repository's data/ (its trace/ holds the sample days) is never the simulator's."""
        assert BUNDLED_DATA == REPO / "data"
        with pytest.raises(
            BadRequestError, match="bundled data, whose trace/ holds the sample days"
        ):
            check_data_dir(REPO / "data" / "trace" / "..")

    def test_any_other_folder_is_kept(self, tmp_path: Path) -> None:
        """Another folder passes as it is."""
        assert check_data_dir(tmp_path) == tmp_path


class TestTimeZone:
    """TC-2: --timezone, else ASSISTANT_TIMEZONE, else UTC; an unknown name is one sentence."""

    @pytest.mark.parametrize(
        ("given", "env", "name"),
        [
            (None, {}, "UTC"),
            (None, {"ASSISTANT_TIMEZONE": "Europe/Moscow"}, "Europe/Moscow"),
            ("Asia/Tokyo", {"ASSISTANT_TIMEZONE": "Europe/Moscow"}, "Asia/Tokyo"),
        ],
        ids=["utc", "environment", "option-wins"],
    )
    def test_the_order(self, given: str | None, env: dict[str, str], name: str) -> None:
        """The option, then the variable, then UTC."""
        assert time_zone(given, env).key == name

    @pytest.mark.parametrize(
        ("given", "env", "source"),
        [
            ("Mars/Olympus", {}, "--timezone"),
            (None, {"ASSISTANT_TIMEZONE": "Mars/Olympus"}, "ASSISTANT_TIMEZONE"),
            ("../../etc/passwd", {}, "--timezone"),
            ("a\x00b", {}, "--timezone"),
            ("America", {}, "--timezone"),
            ("x" * 5000, {}, "--timezone"),
        ],
        ids=["unknown", "unknown-in-env", "a-path", "nul", "a-folder", "very-long"],
    )
    def test_unknown_names(self, given: str | None, env: dict[str, str], source: str) -> None:
        """A name this machine does not know is a BadRequestError naming where it came from."""
        with pytest.raises(BadRequestError) as caught:
            time_zone(given, env)
        message = str(caught.value)
        assert message.startswith(f"{source}: ")
        assert message.endswith(
            "is not a time zone this machine knows; use an IANA name such as Europe/Moscow or UTC"
        )
        assert len(message) < 300
