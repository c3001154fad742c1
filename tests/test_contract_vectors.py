"""Every parser against the shared contract test-vector file (also read by the JavaScript tests)."""

from __future__ import annotations

from typing import Any

import pytest

from citation_core.contract import PATTERN_NAMES, parse


def test_vector_file_is_large_enough_and_covers_every_form(contract_cases: list[dict[str, Any]]) -> None:
    assert len(contract_cases) >= 40
    names = {c["name"] for c in contract_cases}
    assert len(names) == len(contract_cases), "case names are unique"
    for pattern in PATTERN_NAMES:
        assert any(c["expect"][pattern] for c in contract_cases), pattern
        assert any(not c["expect"][pattern] for c in contract_cases), pattern
    assert any(m["version"] for c in contract_cases for m in c["expect"]["stored"])


@pytest.mark.parametrize("pattern", PATTERN_NAMES)
def test_parser_matches_vector(contract_case: dict[str, Any], pattern: str) -> None:
    got = [m.to_json() for m in parse(contract_case["text"], pattern)]  # type: ignore[arg-type]
    assert got == contract_case["expect"][pattern]
