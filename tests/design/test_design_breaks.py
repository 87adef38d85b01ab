"""What a save breaks in the scenes that link the tracker (a warning beside Save, never a refusal)."""

from __future__ import annotations

from pathlib import Path

from trackerkit import Draft, Library, load_scenes
from trackerkit.design import scene_breaks
from trackerkit.scene import Scene

DATA = Path(__file__).parents[2] / "data"


def _health() -> Draft:
    return Draft.open(Library(DATA / "trackers").get("health"))


def _scene(sid: str, links: list[str], turns: list[dict[str, object]], **more: object) -> Scene:
    return Scene.model_validate(
        {"id": sid, "title": sid, "prompting": {"trackers": links}, "turns": turns, **more}
    )


def test_an_unchanged_draft_breaks_nothing() -> None:
    assert scene_breaks(_health(), load_scenes(DATA / "scenes")) == []


def test_the_trial_rename_and_deletes_name_each_scene_with_its_counts() -> None:
    draft = _health().rename_tracker("Здоровье 😀").add_field("wounds")
    for name in ("hp", "hp_max", "mood"):
        draft = draft.delete_field(draft.key(name))
    lines = scene_breaks(draft, load_scenes(DATA / "scenes"))
    assert lines[0].startswith(
        'Renaming Health to "Здоровье 😀" breaks 5 linked scenes that call or expect it by name: '
    )
    assert "fight (7 calls, 6 expectations)" in lines[0]
    assert lines[1].startswith("Deleting hp breaks 5 linked scenes that set or expect it: ")
    assert "fight (6 sets, 6 expectations)" in lines[1]
    assert [line.split(" breaks")[0] for line in lines] == [
        'Renaming Health to "Здоровье 😀"',
        "Deleting hp",
        "Deleting hp_max",
        "Deleting mood",
    ]


def test_calls_rounds_edits_and_list_rows_count_and_unlinked_or_deleted_scenes_do_not() -> None:
    call = {
        "name": "update_trackers",
        "arguments": {"updates": [{"tracker": "health", "set": {"HP": 1}}]},
    }
    turns: list[dict[str, object]] = [
        {"user": "a", "calls": [call], "expect": {"Health": {"hp": 1}}},
        {"user": "b", "rounds": [[call], [call]], "expect": {"Stamina": {}}},
        {"action": "edit", "tracker": "Health", "set": {"mood": "calm"}},
    ]
    scenes = [
        _scene("one", ["health"], turns),
        _scene("unlinked", ["stamina"], turns),
        _scene("gone", ["health"], turns, deleted=True),
    ]
    draft = _health()
    renamed = draft.rename_tracker("Vitals").rename_field(draft.key("hp"), "life")
    assert scene_breaks(renamed, scenes) == [
        'Renaming Health to "Vitals" breaks 1 linked scene that calls or expects it by name: one (4 calls, 1 expectation).',
        'Renaming hp to "life" breaks 1 linked scene that sets or expects it: one (3 sets, 1 expectation).',
    ]
    # A field deleted and another given its name breaks nothing that names it.
    swapped = draft.delete_field(draft.key("hp")).rename_field(draft.key("mood"), "hp")
    assert all("Deleting hp " not in line for line in scene_breaks(swapped, scenes))
    assert any(line.startswith('Renaming mood to "hp"') for line in scene_breaks(swapped, scenes))


def test_a_list_tracker_reads_its_expected_rows() -> None:
    ties = Draft.open(Library(DATA / "trackers").get("relationships"))
    lines = scene_breaks(ties.delete_field(ties.key("trust")), load_scenes(DATA / "scenes"))
    assert lines == [
        "Deleting trust breaks 3 linked scenes that set or expect it: branching (5 sets, 12 expectations), "
        "eval-flags (3 sets, 4 expectations), eval-quiet (2 sets, 8 expectations)."
    ]


def test_calls_are_read_as_the_scripted_model_plays_them() -> None:
    """The rounds the scripted model plays (`rounds`, else `calls`), arguments given as JSON
    text as well as objects: each counts once."""
    text = '{"updates": [{"tracker": "Health", "set": {"hp": 3}}]}'
    call = {
        "name": "update_trackers",
        "arguments": {"updates": [{"tracker": "Health", "set": {"hp": 2}}]},
    }
    scene = _scene(
        "s",
        ["health"],
        [
            {"user": "a", "reply": "b", "calls": [{"name": "update_trackers", "arguments": text}]},
            {"user": "c", "reply": "d", "rounds": [[call], [call]]},
        ],
    )
    draft = _health().rename_tracker("Vigour")
    assert scene_breaks(draft, [scene]) == [
        'Renaming Health to "Vigour" breaks 1 linked scene that calls or expects it by name: s (3 calls).'
    ]


def _played(draft: Draft) -> list[str]:
    return scene_breaks(draft, load_scenes(DATA / "scenes"), Library(DATA / "trackers").trackers())


def test_an_unchanged_draft_plays_alike_and_breaks_nothing() -> None:
    assert _played(_health()) == []
    assert _played(_health().set_field(_health().key("hp"), description="Life.")) == []


def test_a_type_change_names_the_calls_now_refused_and_the_expectations_now_missed() -> None:
    """A trial's leftover: a field's type, choices or range break nothing by name, yet the linked
    scenes' scripted calls are refused and their expectations missed after the save."""
    draft = _health()
    lines = _played(draft.set_type(draft.key("hp"), "text"))
    assert (
        "The change breaks the play of fight: 5 calls now refused (the first: item 1 (Health, hp): "
        "must be text; found 30); 15 expectations now missed (the first: step 1: Health.hp: "
        "expected 30, found '')." in lines
    )
    # branching's scripted edit sets hp to 999: refused now, so its play stops there.
    assert (
        "The change stops the play of branching at a scripted step: item 1 (Health, hp): must be "
        "text; found 999." in lines
    )
    assert len(lines) == 5  # the five scenes that link Health


def test_choices_and_ranges_are_played_and_only_what_changes_is_said() -> None:
    ties = Draft.open(Library(DATA / "trackers").get("relationships"))
    lines = _played(ties.set_field(ties.key("status"), choices=["stranger", "friend"]))
    assert lines == [
        "The change breaks the play of branching: 2 calls now refused (the first: item 1 "
        "(Relationships, row 'Oswin', status): must be one of stranger|friend; found \"ally\"); "
        "6 expectations now missed (the first: step 2: Relationships has no row 'Oswin')."
    ]
    draft = _health()
    capped = _played(draft.set_field(draft.key("hp"), max=10))
    assert capped[0].startswith(
        "The change breaks the play of branching: 13 expectations now missed"
    )
    assert all("calls now refused" not in line for line in capped)  # clamped, not refused


def test_scenes_named_by_a_rename_are_not_played_again_and_a_broken_draft_is_not_played() -> None:
    draft = _health()
    renamed = _played(
        draft.rename_field(draft.key("hp"), "life").set_type(draft.key("mood"), "text")
    )
    assert len(renamed) == 1
    assert renamed[0].startswith('Renaming hp to "life" breaks 5 linked scenes')
    broken = draft.set_type(draft.key("mood"), "choice").set_field(draft.key("mood"), choices=[])
    assert not broken.verdict().ok
    assert _played(broken) == scene_breaks(broken, load_scenes(DATA / "scenes"))


def test_a_name_another_tracker_has_is_said_with_the_scenes_that_link_both() -> None:
    """A new-user trial: Health renamed "Stamina" saved with no word of the clash, and fight then
    left the real Stamina out of every turn."""
    draft = _health()
    lines = _played(draft.rename_tracker("stamina"))
    assert lines[0] == (
        'Renaming Health to "stamina" clashes with the tracker Stamina (stamina), which 3 linked '
        "scenes also link: eval-long, eval-numbers, fight; a turn leaves one of two trackers of "
        "one name out."
    )
    assert _played(draft.rename_tracker("Weather"))[0] == (
        'Another tracker of the library is named "Weather" (weather); a scene that links both '
        "leaves one of them out."
    )
    assert not any("clashes" in line for line in _played(draft.rename_tracker("HEALTH")))


def test_after_a_save_a_rename_is_named_by_the_field_not_its_place() -> None:
    """A field added at the top and saved, then hp_max renamed: the warning names hp_max's new
    name (it paired the stored fields with the keys by place, and said hp_max became mood)."""
    draft = _health().add_field("armor")
    draft = draft.move_field(draft.key("armor"), 0)
    saved = draft.rebased(draft.tracker().model_copy(update={"revision": 1}))
    renamed = saved.rename_field(saved.key("hp_max"), "hp_top")
    lines = scene_breaks(renamed, load_scenes(DATA / "scenes"))
    assert [line.split(" breaks")[0] for line in lines] == ['Renaming hp_max to "hp_top"']
