"""`trackerkit export`: exact output, each export's costs beside the others, errors as one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackerkit import Tracker, decode_tracker
from trackerkit.cli import main
from trackerkit.formats.card import card_from_data, card_from_png
from trackerkit.formats.providers import anthropic_tool, gemini_tool, openai_tool
from trackerkit.formats.wtracker_export import export_wtracker

ROOT = Path(__file__).resolve().parents[2]
TRACKERS = ROOT / "data" / "trackers"
SCENE = ROOT / "data" / "scenes" / "typical.json"
HEALTH = TRACKERS / "health.json"


def _tracker(name: str) -> Tracker:
    return decode_tracker(json.loads((TRACKERS / f"{name}.json").read_text()))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["export", *argv])
    out, err = capsys.readouterr()
    return code, out, err


class TestProviders:
    """A provider's tool on stdout, the cost table on stderr."""

    def test_anthropic_exact_output(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The tool as Anthropic takes it, and each export's cost in both OpenAI encodings."""
        code, out, err = _run(capsys, "--to", "anthropic", str(HEALTH))
        assert code == 0
        assert json.loads(out) == [anthropic_tool([_tracker("health")])]  # the tools list
        assert err == (
            "token cost of each export (OpenAI encodings; for Anthropic and Gemini, estimates):\n"
            "                                                              cl100k_base   o200k_base\n"
            "  update_trackers, one line per tracker (OpenAI, not strict)          186          189\n"
            "  anyOf variant: each tracker's fields in the schema                  192          198\n"
            "  OpenAI strict: every field listed, required, nullable               263          267\n"
            "> Anthropic input_schema (estimate)                                   181          183\n"
            "  Gemini functionDeclarations (estimate)                              247          248\n"
        )

    @pytest.mark.parametrize(
        ("target", "make"),
        [("openai", openai_tool), ("gemini", gemini_tool)],
        ids=["openai", "gemini"],
    )
    def test_a_scene_exports_its_linked_trackers(
        self, target: str, make: object, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A scene gives its linked trackers in link order; the chosen export is marked."""
        code, out, err = _run(capsys, "--to", target, str(SCENE))
        assert code == 0
        linked = [_tracker(n) for n in ("health", "pack", "scene-mood")]
        assert json.loads(out) == [make(linked)]  # type: ignore[operator]
        marked = [line for line in err.splitlines() if line.startswith(">")]
        assert len(marked) == 1
        assert ("OpenAI strict" if target == "openai" else "Gemini") in marked[0]


class TestOtherTools:
    """WTracker presets and cards."""

    def test_wtracker_says_what_it_left_behind(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The presets on stdout; each thing left behind, one line each on stderr."""
        code, out, err = _run(capsys, "--to", "wtracker", str(HEALTH))
        assert code == 0
        assert json.loads(out) == export_wtracker([_tracker("health")]).settings
        assert err == (
            "trackerkit: left behind: Health.hp: its top from hp_max (a JSON Schema has no limit "
            "taken from another field); written into its description, and not enforced\n"
            "trackerkit: left behind: Health: its icons (hp lucide:heart)\n"
            "trackerkit: left behind: Health: its changes style chips\n"
        )

    def test_card_keeps_the_given_card(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """--card carries the trackers in that card, every other key kept, and reads back equal."""
        card = {
            "spec": "chara_card_v2",
            "spec_version": "2.0",
            "data": {"name": "Vera", "extensions": {"depth_prompt": {"depth": 4}}, "x-odd": [1]},
            "unknown_top": True,
        }
        path = tmp_path / "vera.json"
        path.write_text(json.dumps(card))
        code, out, err = _run(capsys, "--to", "card", "--card", str(path), str(TRACKERS))
        assert code == 0
        written = json.loads(out)
        assert written["unknown_top"] is True
        assert written["data"]["x-odd"] == [1]
        assert written["data"]["extensions"]["depth_prompt"] == {"depth": 4}
        back = card_from_data(written, "out.json").trackers
        assert list(back) == [
            decode_tracker(json.loads(p.read_text())) for p in sorted(TRACKERS.glob("*.json"))
        ]
        assert err == "trackerkit: 9 trackers under data.extensions.trackerkit\n"


class TestRefused:
    """Every refusal is one line on stderr and exit 1, never a traceback."""

    @pytest.mark.parametrize(
        ("argv", "message"),
        [
            (["--to", "openai", "--card", "c.json", str(HEALTH)], "trackerkit: --card is only for --to card, not --to openai\n"),
            (["--to", "openai", "missing.json"], "trackerkit: no scene or tracker file at missing.json\n"),
            (["--to", "card", "--card", "missing.json", str(HEALTH)], "trackerkit: no card file at missing.json\n"),
            (["--to", "openai", str(HEALTH), str(HEALTH)], "trackerkit: two trackers share the name Health; a tool names trackers by name, so export them apart or rename one\n"),
        ],
        ids=["card-for-provider", "missing-source", "missing-card", "same-name"],
    )  # fmt: skip
    def test_refusals(
        self, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The message names what is wrong and where."""
        assert _run(capsys, *argv) == (1, "", message)

    def test_not_json_and_not_a_card(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A broken file and a card that is neither V2 nor V1 are named by path."""
        broken = tmp_path / "broken.json"
        broken.write_text("[")
        code, out, err = _run(capsys, "--to", "gemini", str(broken))
        assert (code, out) == (1, "")
        assert err.startswith(f"trackerkit: {broken}: not valid JSON (")
        old = tmp_path / "old.json"
        old.write_text('{"name": "Vera"}')
        code, out, err = _run(capsys, "--to", "card", "--card", str(old), str(HEALTH))
        assert (code, out) == (1, "")
        assert err == (
            f'trackerkit: {old}: is not a Character Card V2: spec must be "chara_card_v2" (or '
            '"chara_card_v3") with a data object (found spec None), or a V1 card with name, '
            "description, personality, scenario, first_mes and mes_example\n"
        )

    def test_a_refused_tracker_names_its_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A tracker the strict decoder refuses is named by file and path."""
        doc = json.loads(HEALTH.read_text())
        doc["body"]["fields"][0]["type"] = "colour"
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(doc))
        code, out, err = _run(capsys, "--to", "anthropic", str(bad))
        assert (code, out) == (1, "")
        assert err.startswith(f"trackerkit: {bad}: tracker refused with 1 problem: body.fields[0]")


class TestScenes:
    """A scene's linked trackers, from the folder beside it or --trackers."""

    def test_a_missing_linked_tracker_is_left_out_and_said(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The export carries the trackers that load, and stderr names the one left out."""
        folder = tmp_path / "mine"
        folder.mkdir()
        (folder / "health.json").write_text(HEALTH.read_text())
        scene = json.loads(SCENE.read_text())
        scene["prompting"]["trackers"] = ["health", "ghost"]
        path = tmp_path / "scene.json"
        path.write_text(json.dumps(scene))
        code, out, err = _run(capsys, "--to", "anthropic", "--trackers", str(folder), str(path))
        assert code == 0
        assert json.loads(out) == [anthropic_tool([_tracker("health")])]  # the tools list
        assert err.splitlines()[0].startswith("trackerkit: left out ghost: ")

    def test_no_tracker_folder(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A scene with no tracker folder beside it asks for --trackers."""
        path = tmp_path / "scene.json"
        path.write_text(SCENE.read_text())
        code, out, err = _run(capsys, "--to", "openai", str(path))
        assert (code, out) == (1, "")
        assert err.endswith("; pass --trackers DIR\n")

    def test_every_linked_tracker_left_out(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """When no linked tracker loads, the one-line error says why each was left out."""
        code, out, err = _run(capsys, "--to", "openai", "--trackers", str(tmp_path), str(SCENE))
        assert (code, out) == (1, "")
        assert err.startswith(
            "trackerkit: nothing to export: no tracker was read (left out health: "
        )
        assert "left out scene-mood: " in err


class TestOut:
    """--out writes the document atomically; a PNG card needs it."""

    def test_json_to_a_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """The file holds what stdout would have; stdout stays empty."""
        out = tmp_path / "tool.json"
        code, printed, err = _run(capsys, "--to", "anthropic", "--out", str(out), str(HEALTH))
        assert (code, printed) == (0, "")
        assert json.loads(out.read_text()) == [anthropic_tool([_tracker("health")])]
        assert err.startswith(f"trackerkit: wrote {out}\ntoken cost of each export")

    def test_a_png_card(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A PNG card comes back as a PNG with the trackers inside; without --out it is refused."""
        from test_card import _chara, _png

        card = tmp_path / "vera.png"
        card.write_bytes(_png(_chara({"spec": "chara_card_v2", "data": {"name": "Vera"}})))
        code, printed, err = _run(capsys, "--to", "card", "--card", str(card), str(HEALTH))
        assert (code, printed) == (1, "")
        assert err == (
            "trackerkit: the card is a PNG image, which is not printed; pass --out FILE.png to "
            "write it\n"
        )
        out = tmp_path / "tracked.png"
        code, printed, err = _run(
            capsys, "--to", "card", "--card", str(card), "--out", str(out), str(HEALTH)
        )
        assert (code, printed) == (0, "")
        back = card_from_data(card_from_png(out.read_bytes(), "tracked.png"), "tracked.png")
        assert list(back.trackers) == [_tracker("health")]
        assert err == (
            f"trackerkit: wrote {out}\ntrackerkit: 1 tracker under data.extensions.trackerkit\n"
        )


class TestOutNames:
    """--out's name says what the file holds: JSON is never written under a .png name."""

    def test_a_json_card_under_a_png_name(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`--to card --out x.png` without --card: refused, nothing written."""
        out = tmp_path / "x.png"
        assert _run(capsys, "--to", "card", "--out", str(out), str(HEALTH)) == (
            1,
            "",
            f"trackerkit: --out {out}: without --card the card is JSON, not a PNG image; pass "
            "--card CARD.png (the picture to write the trackers into) or name the file x.json\n",
        )
        assert not out.exists()

    def test_a_tool_under_a_png_name(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Any JSON export under a .PNG name is refused alike."""
        out = tmp_path / "tool.PNG"
        code, printed, err = _run(capsys, "--to", "openai", "--out", str(out), str(HEALTH))
        assert (code, printed, err) == (
            1,
            "",
            f"trackerkit: --out {out}: --to openai writes JSON, not a PNG image; name the file "
            "tool.json\n",
        )
        assert not out.exists()

    def test_a_png_card_under_a_json_name(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A PNG card's picture under a .json name is refused."""
        from test_card import _chara, _png

        card = tmp_path / "vera.png"
        card.write_bytes(_png(_chara({"spec": "chara_card_v2", "data": {"name": "Vera"}})))
        out = tmp_path / "tracked.json"
        code, printed, err = _run(
            capsys, "--to", "card", "--card", str(card), "--out", str(out), str(HEALTH)
        )
        assert (code, printed, err) == (
            1,
            "",
            f"trackerkit: --out {out}: the card is a PNG image (its --card is a PNG); name the "
            "file tracked.png\n",
        )
        assert not out.exists()

    def test_a_folder(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """--out naming a folder is refused before anything is read."""
        assert _run(capsys, "--to", "gemini", "--out", str(tmp_path), str(HEALTH)) == (
            1,
            "",
            f"trackerkit: --out {tmp_path} is a folder; give a file name, such as "
            f"{tmp_path / 'trackers.json'}\n",
        )


@pytest.mark.parametrize("target", ["gemini", "openai", "wtracker"])
def test_another_tools_file_is_sent_to_import_first(
    capsys: pytest.CaptureFixture[str], target: str
) -> None:
    """Found when tried: a WTracker settings file given to export got the scene decoder's list of
    unknown keys. It is named for what it is, with the command that brings its trackers in."""
    settings = Path(__file__).parent / "fixtures" / "wtracker_settings.json"
    code, out, err = _run(capsys, "--to", target, str(settings))
    assert (code, out) == (1, "")
    assert err == (
        f"trackerkit: {settings}: is a WTracker file, not a trackerkit scene or tracker; import it "
        f"first (trackerkit import {settings}), then export what it wrote\n"
    )
