"""Trial finding: `changes data/scenes/shop.json --from m99` said `take 't1' has no live message
'm99'`, the library's terms, and not which ids there are. The refusal names the option and the
chat's ids, exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from trackerkit.commands.simulate import _refuse_unknown_ids
from trackerkit.errors import BadRequestError

ROOT = Path(__file__).resolve().parents[1]
SHOP = str(ROOT / "data" / "scenes" / "shop.json")


class TestTheCommand:
    @pytest.mark.parametrize("option", ["--from", "--to"])
    def test_an_id_the_chat_lacks(self, option: str, capsys: pytest.CaptureFixture[str]) -> None:
        assert run_cli(capsys, "changes", SHOP, option, "m99") == (
            1,
            "",
            f"trackerkit: {option} m99: the chat the scene plays has no message m99; its 10 "
            "messages run from m1 to m10\n",
        )

    def test_an_id_it_has_still_shows(self, capsys: pytest.CaptureFixture[str]) -> None:
        code, out, err = run_cli(capsys, "changes", SHOP, "--from", "m9")
        assert (code, err) == (0, "")
        assert out


class TestTheIdsListed:
    """A short chat lists every id; an empty one says it has none."""

    @pytest.mark.parametrize(
        ("ids", "there"),
        [
            (["m1"], "its message is m1"),
            (["m1", "m2", "m4"], "its messages are m1, m2, m4"),
            ([], "it has none"),
        ],
        ids=["one", "few", "none"],
    )
    def test_listed(self, ids: list[str], there: str) -> None:
        with pytest.raises(BadRequestError) as refused:
            _refuse_unknown_ids(ids, None, "m9")
        assert str(refused.value) == (
            f"--to m9: the chat the scene plays has no message m9; {there}"
        )
