"""`trackerkit check` warns of trackers that decode but will not read as meant (`tracker_hints`).

A hand-made rename left the old name in the prompt line's macros and `check` said the file
decodes; a name with outer spaces or macro marks decoded and its line read blank. The warnings
leave the exit code alone: the files are valid pieces.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from cli_run import run_cli
from conftest import DATA_TRACKERS

from trackerkit import Draft
from trackerkit.design import tracker_hints
from trackerkit.library import Library


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code, out, _err = run_cli(capsys, *argv)
    return code, out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the bundled trackers."""
    out = tmp_path / "trackers"
    shutil.copytree(DATA_TRACKERS, out)
    return out


def _edit(path: Path, **changes: Any) -> None:
    piece = orjson.loads(path.read_bytes())
    body = changes.pop("body", {})
    piece.update(changes)
    piece["body"].update(body)
    path.write_bytes(orjson.dumps(piece))


def _warnings(out: str) -> list[str]:
    return [line for line in out.splitlines() if ": warning: " in line]


def test_the_bundled_trackers_have_no_warning(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "check", str(DATA_TRACKERS))
    assert code == 0
    assert _warnings(out) == []
    assert "warning" not in out


def test_a_rename_by_hand_is_told_where_the_old_name_is_used(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stamina renamed in its file: its own template still names "Stamina" (TR-32)."""
    _edit(folder / "stamina.json", name="Endurance")
    code, out = _run(capsys, "check", str(folder))
    assert code == 0
    found = _warnings(out)
    assert len(found) == 3
    assert found[0] == (
        f"{folder / 'stamina.json'}: warning: body.template: {{{{tracker::Stamina::stamina}}}} "
        'names "Stamina", and no tracker checked with it is called that (renamed, or in '
        "another folder?)"
    )
    assert out.splitlines()[-1] == f"{folder}: 9 trackers, all decode (3 warnings above)"


def test_fields_of_records_and_list_rows_are_checked(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A list row's field is checked on the row the macro names; the row itself is warned of
    (a list starts with no rows, so the macro writes nothing until a reply adds it); a macro
    whose arguments are macros is not judged."""
    template = (
        "{{tracker::Pack::Rope::qty}} {{tracker::Pack::Rope::weight}} {{tracker::Health::hpp}} "
        "{{tracker::{{char}}::hp}} {{oops}} {{tracker::Pack::Rope}}"
    )
    _edit(folder / "weather.json", body={"template": template})
    code, out = _run(capsys, "check", str(folder))
    assert code == 0
    reasons = [line.split("body.template: ", 1)[1] for line in _warnings(out)]
    assert reasons == [
        'Pack has no field "weight" (in {{tracker::Pack::Rope::weight}})',
        'Health has no field "hpp" (in {{tracker::Health::hpp}})',
        'unknown macro "oops"; it was left as written (in {{oops}})',
        "Pack is a list: use {{tracker::Pack::row::field}} (in {{tracker::Pack::Rope}})",
        *(
            f'{{{{tracker::Pack::Rope::{field}}}}} reads the row "Rope" of Pack, and a list starts '
            "with no rows: until a reply adds that row the macro writes nothing, and a prompt "
            "line left empty leaves Weather out of the ### Trackers block"
            for field in ("qty", "weight")
        ),
    ]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Stamina ", "must not start or end with a space"),
        ("Sta::mina", 'must not hold "::"'),
        ("{{Stamina}}", 'must not hold "{{", "}}"'),
    ],
)
def test_a_name_no_macro_can_write(
    folder: Path, capsys: pytest.CaptureFixture[str], name: str, reason: str
) -> None:
    _edit(folder / "stamina.json", name=name, body={"template": None})
    code, out = _run(capsys, "check", str(folder / "stamina.json"))
    assert code == 0
    [line] = _warnings(out)
    assert line.startswith(f"{folder / 'stamina.json'}: warning: name: {reason}")
    assert line.endswith("(no macro can name this tracker)")


def test_namesakes_whatever_the_case(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two trackers called Health and HEALTH: the update tool matches names folded (TR-20)."""
    piece = orjson.loads((folder / "health.json").read_bytes())
    (folder / "health2.json").write_bytes(orjson.dumps(dict(piece, id="health2", name="HEALTH")))
    code, out = _run(capsys, "check", str(folder))
    assert code == 0
    found = _warnings(out)
    assert len(found) == 2
    assert f'matches the name of {folder / "health2.json"} ("HEALTH") whatever the case' in found[0]
    assert f'matches the name of {folder / "health.json"} ("Health")' in found[1]


def test_the_same_name_twice_reaches_only_the_first(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two trackers called Health exactly: no spelling reaches the second (found when tried:
    the warning said its exact spelling would)."""
    piece = orjson.loads((folder / "health.json").read_bytes())
    (folder / "health-copy.json").write_bytes(orjson.dumps(dict(piece, id="health-copy")))
    _code, out = _run(capsys, "check", str(folder))
    found = _warnings(out)
    assert len(found) == 2
    assert found[1] == (
        f"{folder / 'health.json'}: warning: name: is the name of {folder / 'health-copy.json'} "
        "too: the update tool finds a tracker by its name, so in a scene linking both it reaches "
        "only the first linked"
    )


def test_a_file_named_twice_is_no_namesake_of_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`check data/trackers data/trackers/health.json` (found when tried: health.json was
    called a namesake of itself)."""
    code, out = _run(capsys, "check", str(DATA_TRACKERS), str(DATA_TRACKERS / "health.json"))
    assert code == 0
    assert _warnings(out) == []


def test_json_lists_warnings_beside_problems(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(folder / "stamina.json", name="Endurance")
    (folder / "broken.json").write_text("{", encoding="utf-8")
    code, out = _run(capsys, "check", "--json", str(folder))
    assert code == 1  # the broken file, not the warnings
    verdicts = {Path(v["file"]).name: v for v in orjson.loads(out)}
    assert verdicts["broken.json"]["warnings"] == []
    assert not verdicts["broken.json"]["ok"]
    stamina = verdicts["stamina.json"]
    assert stamina["ok"]
    assert stamina["problems"] == []
    assert [w["path"] for w in stamina["warnings"]] == ["body.template"] * 3
    assert verdicts["health.json"]["warnings"] == []


def test_the_designer_verdict_holds_back_the_same_names() -> None:
    """One rule for the names: the designer's verdict and `check` share `name_problems`."""
    tracker = Library(DATA_TRACKERS).get("stamina")
    plain = tracker.model_copy(update={"body": tracker.body.model_copy(update={"template": None})})
    verdict = Draft.open(plain).rename_tracker("Sta::mina").verdict()
    held = [p for p in verdict.problems if p.where == ("tracker name",)]
    assert [p.code for p in held] == ["macro_marks"]
    assert verdict.tracker is not None
    [[hint]] = tracker_hints([verdict.tracker])
    assert hint.code == "macro_marks"
    assert hint.message.startswith(held[0].message)
