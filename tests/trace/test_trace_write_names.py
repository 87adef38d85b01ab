"""The writer writes the contract's kinds and sources only (TC-4).

Found by the integrator trial: `TraceWriter.write(kind="nonsense", ...)` wrote the line, and the
reader then classed its turn by guesswork. Now such an event is refused as any other write error
is (TC-20): False, one log line naming the value and the contract's list, nothing written.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from trackerkit.trace import TraceWriter, read_trace
from trackerkit.trace.write import KINDS, SOURCES


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"kind": "nonsense"}, "the event's kind 'nonsense' is not one of the contract's (bridge,"),
        ({"kind": "EVE"}, "the event's kind 'EVE' is not one of the contract's"),
        (
            {"source": "mistral"},
            "the event's source 'mistral' is not one of the contract's (bridge, brief,",
        ),
        ({"source": ["web"]}, "the event's source ['web'] is not one of the contract's"),
    ],
)
def test_a_kind_or_source_not_in_the_contract_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, fields: dict[str, Any], said: str
) -> None:
    """False, one log line with the value and the list, and no day file."""
    writer = TraceWriter(tmp_path, keep_days=None)
    event = {"kind": "eve", "source": "web", "name": "turn.started", **fields}
    with caplog.at_level(logging.WARNING, logger="trackerkit.trace"):
        assert writer.write(**event) is False
    writer.close()
    [record] = caplog.records
    assert record.getMessage().startswith(f"trace write failed: {said}")
    assert not (tmp_path / "trace").exists()


def test_every_kind_and_source_of_the_contract_is_written(tmp_path: Path) -> None:
    """Each of the eight kinds and each source (the old `digest` too) is written and read back."""
    writer = TraceWriter(tmp_path, keep_days=None)
    pairs = [(kind, "web") for kind in sorted(KINDS)] + [("eve", s) for s in sorted(SOURCES)]
    assert all(writer.write(kind=k, source=s, name="x") for k, s in pairs)
    writer.close()
    events, errors = read_trace(tmp_path / "trace")
    assert errors == []
    assert sorted(zip(events["kind"], events["source"], strict=True)) == sorted(pairs)
    assert len(KINDS) == 8
    assert "digest" in SOURCES
