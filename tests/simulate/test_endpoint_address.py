"""A base URL no call could reach is refused before any turn is played (trial atk6, finding 9).

`--base-url 'http://[::1'` was accepted and every turn then failed with "Invalid port", while
`ftp://x` was refused up front; now both are said once, in words, and nothing is posted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from trackerkit.cli import main
from trackerkit.errors import BadRequestError
from trackerkit.evaluation.variants import Variant
from trackerkit.simulate.endpoint import address_problem

FIGHT = REPO / "data" / "scenes" / "fight.json"

MALFORMED = [
    ("http://[::1", "is not a well-formed address (Invalid port: ':1')"),
    ("http://[zz]/v1", "is not a well-formed address (Invalid IPv6 address: '[zz]')"),
    ("http://:8080/v1", "names no host"),
    ("https://", "names no host"),
    ("http://127.0.0.1:0/v1", "has the port 0; a port is from 1 to 65535"),
    ("http://127.0.0.1:99999/v1", "has the port 99999; a port is from 1 to 65535"),
]
MALFORMED_IDS = [
    "bracket-open",
    "bad-ipv6",
    "no-host",
    "nothing-after-scheme",
    "port-0",
    "port-big",
]


class TestAddressProblem:
    """`address_problem` says what is wrong with an address, or None when a call could be made."""

    @pytest.mark.parametrize(("url", "said"), MALFORMED, ids=MALFORMED_IDS)
    def test_malformed(self, url: str, said: str) -> None:
        """Each kind of malformed address is said in words."""
        assert address_problem(url) == said

    @pytest.mark.parametrize(
        "url",
        [
            "http://127.0.0.1:11434/v1",
            "https://api.openai.com/v1",
            "http://[::1]:8080/v1",
            "http://localhost:65535",
        ],
        ids=["ollama", "openai", "ipv6", "top-port"],
    )
    def test_well_formed(self, url: str) -> None:
        """An address a call could be made to has no problem."""
        assert address_problem(url) is None


class TestRefusedUpFront:
    """The CLI and a variant refuse a malformed base URL before anything runs."""

    @pytest.mark.parametrize(("url", "said"), MALFORMED, ids=MALFORMED_IDS)
    @pytest.mark.parametrize("command", ["simulate", "eval"])
    def test_the_cli(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, url: str, said: str
    ) -> None:
        """One line and exit 1, as for `ftp://x`; no turn is played."""
        argv = [command, str(FIGHT), "--model", "openai", "--base-url", url, "--model-name", "m"]
        extra = ["--no-trace"] if command == "simulate" else ["--out", str(tmp_path / "r.parquet")]
        assert main([*argv, *extra]) == 1
        out, err = capsys.readouterr()
        assert (out, err) == (
            "",
            f"trackerkit: --base-url {url!r} {said}; give the API root, such as "
            "http://127.0.0.1:11434/v1\n",
        )

    def test_a_variant(self) -> None:
        """A variant read from a file or made in the library is refused the same way."""
        with pytest.raises(BadRequestError) as caught:
            Variant(name="local", model="openai", base_url="http://[::1", model_name="m")
        assert (
            "base_url 'http://[::1' is not a well-formed address (Invalid port: ':1'); give the "
            "API root, such as http://127.0.0.1:11434/v1" in str(caught.value)
        )
