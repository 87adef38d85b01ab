"""The public API is `trackerkit.__all__`: sorted, importable, and complete for the tracker side."""

from __future__ import annotations

import importlib
import inspect

import pytest

import trackerkit

#: Modules whose public classes and functions must all be exported by the package.
EXPORTED_MODULES = {
    "trackerkit.library": [
        "Library",
        "Links",
        "Verdict",
        "check_paths",
        "linked_in",
        "load_scenes",
        "piece_verdict",
        "read_piece",
    ],
    "trackerkit.tracker": [
        "Tracker",
        "TrackerBody",
        "blank_tracker",
        "decode_tracker",
        "encode_tracker",
    ],
    "trackerkit.values": ["accepts", "initial_value"],
    "trackerkit.scene": ["LeftOut", "Linked", "Scene", "SceneFile", "load_scene", "read_scene"],
    "trackerkit.steps": ["TurnPlan"],
    "trackerkit.state": ["Delta", "Message", "Take", "Version", "fold"],
    "trackerkit.chat": ["Chat", "PanelEntry"],
    "trackerkit.turn": ["Turn"],
    "trackerkit.changes": [
        "Bar",
        "Changes",
        "FieldChange",
        "MessageChanges",
        "RowChange",
        "TrackerChanges",
        "tracker_changes_between",
    ],
    "trackerkit.formats": [
        "ImportReport",
        "Imported",
        "ReportLine",
        "detect_format",
        "import_file",
        "import_marinara",
        "import_mvu",
        "import_rpg_companion",
        "import_sillytavern_tracker",
        "import_wtracker",
    ],
    "trackerkit.errors": ["ImportRefusedError"],
    "trackerkit.formats.providers": [
        "ExportCost",
        "anthropic_tool",
        "export_costs",
        "gemini_tool",
        "openai_tool",
        "provider_tool",
    ],
    "trackerkit.formats.card": ["card_from_data", "export_card"],
    "trackerkit.formats.checkers": ["check_provider_tool"],
    "trackerkit.formats.wtracker_export": ["WTrackerExport", "export_wtracker"],
    "trackerkit.formats.text_protocol": ["TextUpdates", "parse_text_updates", "text_instructions"],
}


def test_sorted() -> None:
    """`__all__` is in alphabetical order, without repeats."""
    assert trackerkit.__all__ == sorted(set(trackerkit.__all__))


def test_every_name_exists() -> None:
    """Every exported name can be imported from the package."""
    for name in trackerkit.__all__:
        assert hasattr(trackerkit, name), name


def test_no_private_names() -> None:
    """No exported name starts with an underscore."""
    assert [n for n in trackerkit.__all__ if n.startswith("_")] == []


def test_issue_two_names() -> None:
    """The names issue 2 fixes are all exported."""
    required = {
        "Field",
        "Library",
        "Links",
        "Problem",
        "Tracker",
        "TrackerDecodeError",
        "TrackerkitError",
        "accepts",
        "blank_tracker",
        "decode_tracker",
        "encode_tracker",
        "initial_value",
        "linked_in",
        "load_scenes",
    }
    assert required <= set(trackerkit.__all__)


@pytest.mark.parametrize("module_name", sorted(EXPORTED_MODULES))
def test_module_names_exported(module_name: str) -> None:
    """The listed public names of each module are exported, and are that module's own."""
    module = importlib.import_module(module_name)
    for name in EXPORTED_MODULES[module_name]:
        assert name in trackerkit.__all__, name
        assert getattr(trackerkit, name) is getattr(module, name)


def test_library_module_is_covered() -> None:
    """Every public class or function defined in `library.py` is in the mapping above."""
    module = importlib.import_module("trackerkit.library")
    defined = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    }
    assert defined == set(EXPORTED_MODULES["trackerkit.library"])


def test_errors_are_one_family() -> None:
    """Every exported error is a TrackerkitError."""
    exported = [getattr(trackerkit, n) for n in trackerkit.__all__]
    errors = [e for e in exported if isinstance(e, type) and issubclass(e, BaseException)]
    assert trackerkit.TrackerDecodeError in errors
    assert all(issubclass(e, trackerkit.TrackerkitError) for e in errors)


@pytest.mark.parametrize(
    ("issue", "names"),
    [
        (
            "state",
            {
                "Chat",
                "Scene",
                "Delta",
                "UpdateResult",
                "ToolDefinition",
                "apply_tracker_updates",
                "tracker_value",
                "update_trackers_tool",
            },
        ),
        (
            "prompt",
            {
                "line_of",
                "render_macros",
                "render_trackers_block",
                "count_tokens",
                "assemble_request",
                "tool_token_costs",
            },
        ),
        (
            "changes",
            {
                "tracker_changes_between",
                "history_frame",
                "bars_over_history",
                "changes_html",
                "panel_html",
            },
        ),
        (
            "simulator",
            {
                "Session",
                "TurnReport",
                "ScriptedModel",
                "OpenAIModel",
                "TurnPlan",
                "Model",
                "ReadTool",
            },
        ),
        ("editor", {"Draft", "Rail", "rail", "save_draft"}),
    ],
)
def test_names_later_work_relies_on(issue: str, names: set[str]) -> None:
    """The names each piece of work promised to the others are exported."""
    assert names <= set(trackerkit.__all__), sorted(names - set(trackerkit.__all__))
