"""Every parser against the shared contract test-vector file (also read by the JavaScript tests)."""

from __future__ import annotations

from typing import Any

import pytest

from citation_core.contract import PATTERN_NAMES, artemis_groups, parse


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


def _chip_cases() -> list[dict[str, Any]]:
    import json

    from tests.conftest import CONTRACT_VECTORS

    doc = json.loads(CONTRACT_VECTORS.read_text(encoding="utf-8"))
    return [*doc["cases"], *doc["artemis_cases"]]


CHIP_CASES = _chip_cases()


@pytest.mark.parametrize("case", CHIP_CASES, ids=[c["name"] for c in CHIP_CASES])
def test_chips_match_the_artemis_client(case: dict[str, Any]) -> None:
    """Kind, label, grouping and pinned version of every chip, as the Artemis client draws them."""
    assert artemis_groups(case["text"]) == case["expect"]["artemis"]


def test_every_artemis_case_names_its_source() -> None:
    doc_cases = [c for c in CHIP_CASES if c["name"].startswith("artemis: ")]
    assert len(doc_cases) >= 50
    for c in doc_cases:
        assert c["source"]["file"].endswith("iris-citation-text.component.spec.ts") and c["source"]["test"]
        assert "@ " in c["source"]["parser"]
    kinds = {chip["kind"] for c in CHIP_CASES for g in c["expect"]["artemis"] for chip in g["chips"] or []}
    assert kinds == {"faq", "video", "slide", "source"}
