"""An integrator's report: a provider name that is not `openai`, `anthropic` or `gemini` gave
Gemini's tool or a raw `KeyError`, and `check_provider_tool` refused the `tools` list that
`trackerkit export --to PROVIDER` writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit import decode_tracker
from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.formats.checkers import check_provider_tool
from trackerkit.formats.providers import PROVIDERS, openai_tool, provider_tool

DATA = Path(__file__).resolve().parents[2] / "data"
SCENE = DATA / "scenes" / "typical.json"
TRACKERS = [
    decode_tracker(json.loads(p.read_text())) for p in sorted((DATA / "trackers").glob("*.json"))
]
UNKNOWN = ["OpenAI", "claude", "mistral", "", "gemini ", None]
UNKNOWN_IDS = ["capitalised", "claude", "mistral", "empty", "trailing-space", "none"]


def _message(provider: object) -> str:
    return f"^unknown provider {provider!r}; use openai, anthropic or gemini$"


class TestUnknownProvider:
    """A name that is none of the three is refused in words, never read as another provider."""

    @pytest.mark.parametrize("provider", UNKNOWN, ids=UNKNOWN_IDS)
    def test_provider_tool_refuses_it(self, provider: object) -> None:
        """`provider_tool` raises BadRequestError naming the name and the three it takes."""
        with pytest.raises(BadRequestError, match=_message(provider)):
            provider_tool(provider, [])  # type: ignore[arg-type]

    @pytest.mark.parametrize("provider", UNKNOWN, ids=UNKNOWN_IDS)
    def test_check_provider_tool_refuses_it(self, provider: object) -> None:
        """`check_provider_tool` raises BadRequestError, not KeyError, for an unknown name."""
        with pytest.raises(BadRequestError, match=_message(provider)):
            check_provider_tool(provider, {})  # type: ignore[arg-type]


class TestToolsList:
    """`check_provider_tool` reads the `tools` list the CLI writes as well as one tool."""

    @pytest.mark.parametrize("provider", PROVIDERS)
    def test_the_cli_file_passes(
        self, provider: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The file `export --to PROVIDER --out FILE` writes has no problem."""
        out = tmp_path / "tools.json"
        assert main(["export", "--to", provider, "--out", str(out), str(SCENE)]) == 0
        capsys.readouterr()
        assert check_provider_tool(provider, json.loads(out.read_text())) == []  # type: ignore[arg-type]

    def test_each_tool_is_checked_under_its_index(self) -> None:
        """A bad second tool's problems are named from `[1]`, the good first tool's none."""
        good = openai_tool(TRACKERS[:1])
        bad = {"type": "function", "function": {**good["function"], "name": "no spaces"}}
        problems = check_provider_tool("openai", [good, bad])
        assert [p.path for p in problems] == ["[1].function.name"]

    def test_an_empty_list_is_a_problem(self) -> None:
        """An empty `tools` list gets one problem at the root, not a pass."""
        assert [str(p) for p in check_provider_tool("anthropic", [])] == [
            "must list at least one tool; found []"
        ]
