"""Every parser against the shared contract test-vector file (also read by the JavaScript tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citation_core.contract import PATTERN_NAMES, parse

VECTORS = Path(__file__).resolve().parents[1] / "citation_core" / "contract" / "vectors.json"
CASES: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]


def test_vector_file_is_large_enough_and_covers_every_form() -> None:
    assert len(CASES) >= 40
    names = {c["name"] for c in CASES}
    assert len(names) == len(CASES), "case names are unique"
    for pattern in PATTERN_NAMES:
        assert any(c["expect"][pattern] for c in CASES), pattern
        assert any(not c["expect"][pattern] for c in CASES), pattern
    assert any(m["version"] for c in CASES for m in c["expect"]["stored"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize("pattern", PATTERN_NAMES)
def test_parser_matches_vector(case: dict[str, Any], pattern: str) -> None:
    got = [m.to_json() for m in parse(case["text"], pattern)]  # type: ignore[arg-type]
    assert got == case["expect"][pattern]
