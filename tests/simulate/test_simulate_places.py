"""Where the simulator writes its trace (TC-1) and which time zone names its day files (TC-2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from trackerkit.errors import BadRequestError
from trackerkit.simulate import BUNDLED_DATA, check_data_dir, data_dir, time_zone
from trackerkit.workspace import user_workspace


class TestDataDir:
    """TC-1: the data folder's rule (trackerkit.workspace): --data, else TRACKERKIT_DATA, else
    ASSISTANT_DATA_DIR, else the per-user workspace; never ./data."""

    def test_the_option_first(self, tmp_path: Path) -> None:
        """A given directory wins over both variables."""
        env = {"ASSISTANT_DATA_DIR": "/elsewhere", "TRACKERKIT_DATA": "/mine"}
        assert data_dir(tmp_path, env) == tmp_path

    def test_then_trackerkit_data(self) -> None:
        """TRACKERKIT_DATA, the data folder of every app and command, comes before the
        assistant's variable: `TRACKERKIT_DATA=DIR trackerkit simulate` writes to DIR/trace."""
        env = {"TRACKERKIT_DATA": "/mine", "ASSISTANT_DATA_DIR": "/srv/assistant"}
        assert data_dir(None, env) == Path("/mine")

    def test_then_the_assistants_variable(self) -> None:
        """ASSISTANT_DATA_DIR names it when neither the option nor TRACKERKIT_DATA is given."""
        env = {"ASSISTANT_DATA_DIR": "/srv/assistant", "TRACKERKIT_DATA": ""}
        assert data_dir(None, env) == Path("/srv/assistant")

    @pytest.mark.parametrize("env", [{}, {"ASSISTANT_DATA_DIR": ""}], ids=["unset", "empty"])
    def test_else_the_per_user_workspace(
        self, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With none, the per-user workspace (the apps' own), not the working directory's data/."""
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
        found = data_dir(None, env)
        assert found == user_workspace()
        assert found == tmp_path / "trackerkit" / "workspace"

    def test_an_empty_option_counts_as_none(self) -> None:
        """`--data ""` is no option: the rule goes on to the variables."""
        assert data_dir("", {"TRACKERKIT_DATA": "/mine"}) == Path("/mine")

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
