"""Trial des8, finding 4: `trackerkit eval` says a designer rename as the simulator page says it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from designer_saves import designer_save, fight_copy

from trackerkit import Draft
from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.evaluation import evaluate


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A copy of the bundled data; its fight scene (Health, Stamina)."""
    return fight_copy(tmp_path)


def _hp_max_to_hp_top(draft: Draft) -> Draft:
    return draft.rename_field(draft.key("hp_max"), "hp_top")


def _renamed_sentence(scene: Path) -> str:
    return (
        "Scene fight: its own scripted steps 1, 4 and 5 set Health.hp_max, which a designer save "
        "renamed to hp_top (the save that made revision 1): their calls are refused, so nothing "
        "of those batches is written; the expectations of steps 1, 2, 3, 4, 5 and 6 name it and "
        "are not met. A scene's steps are played as written (its file does not say which "
        "revision of Health they were written for, so they are not renamed for it). Edit the "
        f"scene: in {scene}, write hp_top for hp_max in those steps' calls and expectations."
    )


class TestARenamedFieldIsSaid:
    """Found in trial des8: after a designer save renamed a field, eval said only `Health has no
    field hp_max` for every expectation, with no word of the rename."""

    def test_the_cli_refusal_says_the_rename_and_the_fix(
        self, scene: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The simulator page's sentence comes first, then the expectations refused."""
        designer_save(scene, "health", _hp_max_to_hp_top)
        code = main(["eval", str(scene), "--no-trace"])
        err = capsys.readouterr().err
        assert code == 1
        assert err.startswith(
            f"trackerkit: {scene}: 6 expectations the trackers in "
            f"{scene.parent.parent / 'trackers'} cannot score or meet, so nothing was played. "
            + _renamed_sentence(scene)
            + " The 6 expectations: turns[0].expect.Health.hp_max: Health has no field hp_max"
        )
        assert "Traceback" not in err

    def test_a_refusal_without_a_rename_reads_as_before(self, scene: Path) -> None:
        """A field no save renamed is refused in the words it was."""
        data = json.loads(scene.read_text())
        data["turns"][0]["expect"]["Health"]["luck"] = 3
        scene.write_text(json.dumps(data))
        with pytest.raises(BadRequestError) as caught:
            evaluate([scene])
        assert ": 1 expectation the trackers in" in str(caught.value)
        assert "so nothing was played: turns[0].expect.Health.luck: Health has no field luck" in (
            str(caught.value)
        )
        assert "designer save" not in str(caught.value)

    def test_calls_only_naming_the_old_name_are_said_beside_the_results(
        self, scene: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Expectations that leave the renamed field out play; the calls' refusals are said."""
        designer_save(scene, "health", _hp_max_to_hp_top)
        data = json.loads(scene.read_text())
        for step in data["turns"]:
            if isinstance(step.get("expect"), dict) and "Health" in step["expect"]:
                step["expect"]["Health"].pop("hp_max", None)
        scene.write_text(json.dumps(data))
        results = evaluate([scene])
        (note,) = results.notes
        assert note.startswith(
            "Scene fight: its own scripted steps 1, 4 and 5 set Health.hp_max, which a designer "
            "save renamed to hp_top (the save that made revision 1): their calls are refused, so "
            "nothing of those batches is written. A scene's steps are played as written"
        )
        code = main(["eval", str(scene), "--no-trace"])
        assert f"trackerkit: {note}\n" in capsys.readouterr().err
        assert code == 0
