"""Trial nu3, finding 5: `export --to openai|anthropic|gemini` printed one tool object, while the
README and `export --help` say "as that provider's tools list takes it"; the file is now the
list a provider's `tools` parameter takes, passed as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit.cli import main

SCENE = Path(__file__).resolve().parents[2] / "data" / "scenes" / "typical.json"


class TestToolsList:
    """The document of a provider export is that provider's `tools` list."""

    @pytest.mark.parametrize(
        ("target", "keys"),
        [
            ("openai", {"type", "function"}),
            ("anthropic", {"name", "description", "input_schema"}),
            ("gemini", {"functionDeclarations"}),
        ],
        ids=["openai", "anthropic", "gemini"],
    )
    def test_stdout_is_the_tools_list(
        self, target: str, keys: set[str], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """One entry, shaped as research/formats.md says each provider's `tools` takes it."""
        assert main(["export", "--to", target, str(SCENE)]) == 0
        tools = json.loads(capsys.readouterr().out)
        assert isinstance(tools, list)
        assert [set(entry) for entry in tools] == [keys]

    def test_the_file_is_the_tools_list_too(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`--out` writes what stdout would have: `tools=json.load(open(file))` works as is."""
        out = tmp_path / "tools.json"
        assert main(["export", "--to", "gemini", "--out", str(out), str(SCENE)]) == 0
        capsys.readouterr()
        tools = json.loads(out.read_text())
        assert tools[0]["functionDeclarations"][0]["name"] == "update_trackers"

    def test_the_help_says_so(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`export --help` says the file is the provider's tools list, ready to pass."""
        with pytest.raises(SystemExit):
            main(["export", "--help"])
        said = " ".join(capsys.readouterr().out.split())
        assert "a list of one tool, passed to the provider as its tools parameter" in said
