"""`make floors` (TRACKERKIT_FLOORS=1) runs the core tests again on the lowest versions
pyproject.toml allows. It checks the versions, not the properties, which `make test` draws in
full: there each property test draws at most `CAP` examples (tests/conftest.py calls `cap`).

The cap rewrites what `@settings` left on the test (hypothesis keeps it on the wrapped function);
a hypothesis release that kept it elsewhere would leave the floors drawing in full, slower but not
wrong (tests/test_floors_examples.py says which it is).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import settings

CAP = 10
ON = os.environ.get("TRACKERKIT_FLOORS") == "1"


def cap(items: Sequence[object]) -> None:
    """Cap the examples of every property test among `items` (pytest items) at CAP."""
    for item in items:
        test = getattr(item, "obj", None)
        test = getattr(test, "__func__", test)  # a test method's function
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)  # what @settings gave
        if isinstance(chosen, settings) and chosen.max_examples > CAP:
            test._hypothesis_internal_use_settings = settings(chosen, max_examples=CAP)  # type: ignore[union-attr]
