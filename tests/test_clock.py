"""Video positions read the same in Python (answers, Sources list, viewer) as on the chips (JavaScript)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from citation_core.text import clock

VECTORS = json.loads((Path(__file__).parent / "clock_vectors.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", VECTORS, ids=[str(c["seconds"]) for c in VECTORS])
def test_clock_matches_the_shared_vectors(case: dict[str, object]) -> None:
    assert clock(float(case["seconds"])) == case["text"]  # type: ignore[arg-type]


def test_clock_of_a_non_finite_position_is_empty() -> None:
    assert clock(math.nan) == "" and clock(math.inf) == ""
