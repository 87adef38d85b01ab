"""Found by the "conn" trial of `trackerkit eval` (findings 3, 4 and 11); each fixed here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.evaluation.harness import evaluate

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "data" / "scenes"
TRACKERS = ROOT / "data" / "trackers"
NUMBERS = SCENES / "eval-numbers.json"


def _scene(tmp_path: Path, name: str, change: Any) -> Path:
    """eval-numbers, changed by `change(doc)`, written as scenes/`name`.json (id `name`)."""
    doc = json.loads(NUMBERS.read_text())
    doc["id"] = name
    change(doc)
    path = tmp_path / "scenes" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


class TestNoExpect:
    """Finding 4: a scenario with no `expect` is refused before anything is played."""

    def _bare(self, tmp_path: Path) -> Path:
        def strip(doc: dict[str, Any]) -> None:
            for step in doc["turns"]:
                step.pop("expect", None)

        return _scene(tmp_path, "bare", strip)

    def test_evaluate_refuses_it(self, tmp_path: Path) -> None:
        """The sentence names the scene; no turn is played."""
        path = self._bare(tmp_path)
        with pytest.raises(BadRequestError) as caught:
            evaluate([path], trackers=TRACKERS, trace=None)
        assert str(caught.value).startswith(f"no step of {path} carries expect: nothing to score")

    def test_the_cli_exits_1_and_writes_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """One line, exit 1, no table and no Parquet file (it printed an empty DataFrame, exit 0)."""
        path = self._bare(tmp_path)
        out = tmp_path / "r.parquet"
        argv = ["eval", str(path), "--trackers", str(TRACKERS), "--no-trace", "--out", str(out)]
        assert main(argv) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert f"no step of {path} carries expect: nothing to score" in captured.err
        assert "Traceback" not in captured.err
        assert not out.exists()
