"""Trial atk6, finding 8: `changes --from ''` was taken as no --from at all (and `--to ''` as
none), where every other malformed id is refused; an empty id is refused in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackerkit.cli import main

FIGHT = str(Path(__file__).resolve().parents[1] / "data" / "scenes" / "fight.json")


@pytest.mark.parametrize(
    ("option", "rest"),
    [("--from", "start at the first message"), ("--to", "end at the tip")],
    ids=["from", "to"],
)
def test_an_empty_id_is_refused(option: str, rest: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 1, one line saying what to give, nothing printed."""
    assert main(["changes", FIGHT, option, ""]) == 1
    assert capsys.readouterr() == (
        "",
        f"trackerkit: {option} needs a message id such as m2, not an empty text; leave "
        f"{option} out to {rest}\n",
    )


def test_a_malformed_id_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["changes", FIGHT, "--from", "m 1"]) == 1
    assert capsys.readouterr().err == (
        "trackerkit: 'm 1' is not a message id (ids look like m12)\n"
    )
