"""Trial findings on the model options: `--model openai` said one missing option at a time
(`needs --base-url`, then `needs --model-name`), and `eval --variants FILE --model openai`
refused the missing `--base-url` although `--variants` replaces the model options, as its help
says. All that is missing is said at once; with `--variants` the model options are not used,
and a line says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]
FIGHT = str(ROOT / "data" / "scenes" / "fight.json")
QUIET = str(ROOT / "data" / "scenes" / "eval-quiet.json")


class TestAllThatIsMissing:
    """`--model openai` needs both; the refusal names every one missing."""

    @pytest.mark.parametrize("command", ["simulate", "eval"])
    def test_both_at_once(self, command: str, capsys: pytest.CaptureFixture[str]) -> None:
        code, out, err = run_cli(capsys, command, FIGHT, "--no-trace", "--model", "openai")
        assert (code, out) == (1, "")
        assert err == (
            "trackerkit: --model openai needs --base-url and --model-name: the API root (such "
            "as http://127.0.0.1:11434/v1) and the model the server there knows (such as "
            "qwen2.5:7b on Ollama)\n"
        )

    def test_the_one_missing(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Given one, the refusal names only the other."""
        argv = ["eval", QUIET, "--no-trace", "--model", "openai"]
        err = run_cli(capsys, *argv, "--model-name", "m")[2]
        assert err.startswith("trackerkit: --model openai needs --base-url (")
        err = run_cli(capsys, *argv, "--base-url", "http://127.0.0.1:9/v1")[2]
        assert err.startswith("trackerkit: --model openai needs --model-name: ")


class TestVariantsReplaceTheModelOptions:
    """`--variants` wins, as its help says; the options it replaces are said unused."""

    @pytest.fixture
    def variants(self, tmp_path: Path) -> Path:
        path = tmp_path / "v.json"
        path.write_text(json.dumps([{"name": "s"}]))
        return path

    def test_model_options_given_are_not_used(
        self, variants: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        code, out, err = run_cli(
            capsys, "eval", QUIET, "--no-trace", "--variants", str(variants), "--model", "openai"
        )
        assert code == 0
        assert out.splitlines()[0].split() == ["s", "(free)"]
        assert err == (
            "trackerkit: --variants replaces the model options; --model is not used (each "
            f"variant in {variants} names its own)\n"
        )

    def test_each_option_is_named(self, variants: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A bad --base-url is not checked either: it is not used."""
        code, _, err = run_cli(
            capsys,
            *("eval", QUIET, "--no-trace", "--variants", str(variants)),
            *("--model", "openai", "--base-url", "nowhere", "--timeout", "5"),
        )
        assert code == 0
        assert "; --model, --base-url, --timeout are not used (" in err

    def test_nothing_said_without_them(
        self, variants: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        code, _, err = run_cli(capsys, "eval", QUIET, "--no-trace", "--variants", str(variants))
        assert (code, err) == (0, "")

    def test_the_help_says_so(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            run_cli(capsys, "eval", "--help")
        text = " ".join(capsys.readouterr().out.split())
        assert "replaces the model options and --timeout: given with it, they are not used" in text


class TestApiKeyEnv:
    """Trial finding: `--api-key-env TYPO_KEY` naming an unset variable went unsaid. Local
    servers take requests without a key (the bundled noisy server ignores it), so a line warns
    and the run goes on."""

    ARGV = ("simulate", FIGHT, "--no-trace", "--model", "openai", "--model-name", "m")

    @pytest.fixture
    def server(self, monkeypatch: pytest.MonkeyPatch) -> str:
        """An address nothing answers: the turns fail, after the options are checked."""
        import socket

        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        monkeypatch.delenv("TYPO_KEY", raising=False)
        return f"http://127.0.0.1:{port}/v1"

    def test_an_unset_variable_is_said(
        self, server: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        err = run_cli(capsys, *self.ARGV, "--base-url", server, "--api-key-env", "TYPO_KEY")[2]
        assert err.splitlines()[0] == (
            "trackerkit: --api-key-env TYPO_KEY: the variable is not set; requests go without a key"
        )

    def test_an_empty_one_too(
        self, server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setenv("TYPO_KEY", " ")
        err = run_cli(capsys, *self.ARGV, "--base-url", server, "--api-key-env", "TYPO_KEY")[2]
        assert err.splitlines()[0] == (
            "trackerkit: --api-key-env TYPO_KEY: the variable is empty; requests go without a key"
        )

    def test_a_set_one_and_the_default_are_quiet(
        self, server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The default unset is the local server's usual case: nothing to say."""
        monkeypatch.setenv("TYPO_KEY", "sk-1")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        for extra in (["--api-key-env", "TYPO_KEY"], []):
            err = run_cli(capsys, *self.ARGV, "--base-url", server, *extra)[2]
            assert "--api-key-env" not in err
            assert err.startswith("trackerkit: 6 of 6 turns failed")
