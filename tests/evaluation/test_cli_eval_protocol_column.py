"""Trial des8, finding 5: `trackerkit eval --protocol text` names its column by the protocol, as
the evaluate page names the same variant (`trackerkit.evaluation.page.variations`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from designer_saves import fight_copy

from trackerkit.cli import main


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene."""
    return fight_copy(tmp_path)


class TestTheProtocolNamesTheColumn:
    """Found in trial des8: `eval --protocol text` headed its column `scripted (free)`, as a tools
    run; the evaluate page names it `scripted · text (free)`."""

    @pytest.mark.parametrize(
        ("protocol", "column"),
        [("text", ["scripted", "·", "text", "(free)"]), ("tools", ["scripted", "(free)"])],
        ids=["text", "tools"],
    )
    def test_the_column(
        self, scene: Path, capsys: pytest.CaptureFixture[str], protocol: str, column: list[str]
    ) -> None:
        """The text protocol is in the column's name; the tools protocol's name is as it was."""
        assert main(["eval", str(scene), "--no-trace", "--protocol", protocol]) == 0
        assert capsys.readouterr().out.splitlines()[0].split() == column
