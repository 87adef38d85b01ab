"""A key given twice in one object of a tracker file is a problem, not a silent last-wins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trackerkit._json import repeated_keys
from trackerkit.library import Library, read_piece

HEALTH = Path(__file__).parents[1] / "data" / "trackers" / "health.json"


def test_a_repeated_key_refuses_the_piece_with_its_path(tmp_path: Path) -> None:
    """An attack trial: a tracker's `id` given twice read as the last without a word."""
    text = HEALTH.read_text()
    twice = text.replace('"min": 1,', '"min": 1, "min": 2,', 1).replace(
        '"id": "health",', '"id": "health", "id": "health",', 1
    )
    assert twice != text
    (tmp_path / "health.json").write_text(twice)
    verdict = read_piece(tmp_path / "health.json")
    assert verdict.tracker is None
    assert [str(p) for p in verdict.problems] == [
        'gives the key "id" twice (a JSON reader keeps the last); give it once',
        'body.fields[1]: gives the key "min" twice (a JSON reader keeps the last); give it once',
    ]
    assert Library(tmp_path).trackers() == []


def test_every_bundled_piece_gives_each_key_once() -> None:
    for path in sorted(HEALTH.parent.glob("*.json")):
        assert repeated_keys(path.read_bytes()) == [], path.name


_KEYS = st.text(alphabet="abc", min_size=1, max_size=2)
_TREES = st.recursive(
    st.integers() | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12,
)


@given(_TREES)
def test_json_written_once_per_key_has_none_and_a_doubled_key_is_found(tree: object) -> None:
    """What json.dumps writes never repeats a key; doubling the first member is found."""
    text = json.dumps(tree)
    assert repeated_keys(text) == []
    if isinstance(tree, dict) and tree:
        key = next(iter(tree))
        doubled = "{" + json.dumps(key) + ":0," + text[1:]
        assert ((), key) in repeated_keys(doubled)


def test_a_scene_that_repeats_a_key_is_refused_at_its_path(tmp_path: Path) -> None:
    """A call's `set` with hp twice played the second without a word."""
    from trackerkit import TrackerkitError, load_scene

    text = (HEALTH.parents[1] / "scenes" / "fight.json").read_text()
    at = text.index('"hp": 30')
    (tmp_path / "fight.json").write_text(text[:at] + '"hp": 31, ' + text[at:])
    with pytest.raises(TrackerkitError) as caught:
        load_scene(tmp_path / "fight.json")
    assert str(caught.value).endswith(
        'turns[0].calls[0].arguments.updates[0].set: gives the key "hp" twice (a JSON reader '
        "keeps the last); give it once"
    )


def test_every_bundled_scene_gives_each_key_once() -> None:
    for path in sorted((HEALTH.parents[1] / "scenes").glob("*.json")):
        assert repeated_keys(path.read_bytes()) == [], path.name
