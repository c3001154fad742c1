"""Formatting, sanitizing and round-tripping markers through all three parsers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citation_core.contract import (
    FinalMarker,
    IntermediateMarker,
    SourceRef,
    StoredMarker,
    parse,
    parse_final,
    parse_intermediate,
    parse_stored,
    sanitize_field,
    strip_markers,
)


def test_sanitize_replaces_delimiters_and_collapses_whitespace() -> None:
    assert sanitize_field("Time:  n log n [avg]\n\tcase") == "Time - n log n (avg) case"
    assert sanitize_field("  a::b ") == "a - -b"


def test_intermediate_forms_of_each_kind() -> None:
    assert IntermediateMarker(SourceRef.of_page(12, 3), 1).format() == "[cite:L:12:3::!1]"
    assert IntermediateMarker(SourceRef.of_span(12, 75.9, 92.2), 2).format() == "[cite:L:12::75:92!2]"
    assert IntermediateMarker(SourceRef.of_faq(17), 3).format() == "[cite:F:17:::!3]"


def test_seconds_drop_fractions_like_int() -> None:
    ref = SourceRef.of_span(1, 59.999, 60.5)
    assert (ref.start, ref.end) == (59, 60)


def test_a_lecture_citation_is_never_on_page_and_span() -> None:
    with pytest.raises(ValueError):
        SourceRef("L", "1", page=2, start=3, end=4)
    with pytest.raises(ValueError):
        SourceRef("F", "1", page=2)


def test_final_and_stored_round_trip() -> None:
    fm = FinalMarker(SourceRef.of_page(12, 3), "Merge: step", "Joins [two] halves")
    text = fm.format()
    assert text == "[cite:L:12:3:::Merge - step:Joins (two) halves]"
    assert parse_final(text) == FinalMarker(SourceRef.of_page(12, 3), "Merge - step", "Joins (two) halves")
    stored = fm.stored(4)
    assert stored.format() == "[cite:L:12:3:::Merge - step:Joins (two) halves:va4]"
    assert parse_stored(stored.format()) == stored
    video = StoredMarker(SourceRef.of_span(12, 5, 9), "k", "s", 2)
    assert video.format().endswith(":vt2]")
    assert StoredMarker(SourceRef.of_faq(3), "k", "s", None).format() == "[cite:F:3::::k:s]"


def test_parse_intermediate_rejects_other_forms() -> None:
    assert parse_intermediate("[cite:F:17:::!3]") == IntermediateMarker(SourceRef.of_faq(17), 3)
    with pytest.raises(ValueError):
        parse_intermediate("[cite:F:17::::k:s]")
    with pytest.raises(ValueError):
        parse_final("[cite:L:1:2:::k:s:va1]")


def test_strip_markers_removes_every_form() -> None:
    text = "A.[cite:L:1:2::!1] B.[cite:L:1:2:::k:s] C.[cite:L:1::3:4:k:s:vt1]"
    assert strip_markers(text) == "A. B. C."


any_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


@given(keyword=any_text, summary=any_text, entity=st.integers(0, 10**9), page=st.integers(1, 999))
def test_any_keyword_and_summary_parse_back_sanitized(keyword: str, summary: str, entity: int, page: int) -> None:
    marker = FinalMarker(SourceRef.of_page(entity, page), keyword, summary).format()
    expect_kw, expect_sum = sanitize_field(keyword), sanitize_field(summary)
    for pattern in ("server", "client", "stored"):
        found = parse(marker, pattern)
        assert len(found) == 1, pattern
        m = found[0]
        assert m.span == (0, len(marker))
        assert (m.entity_id, m.page, m.keyword) == (str(entity), str(page), expect_kw)
        if pattern == "stored" and m.version is not None:
            # a summary ending in ":va3"-like text cannot occur: sanitize removed every colon
            raise AssertionError("sanitized summary read as a version field")
        assert m.summary == expect_sum


@given(keyword=any_text, summary=any_text, faq=st.integers(0, 10**6))
def test_faq_markers_parse_back_on_the_client(keyword: str, summary: str, faq: int) -> None:
    marker = FinalMarker(SourceRef.of_faq(faq), keyword, summary).format()
    (m,) = parse(marker, "client")
    assert (m.type, m.entity_id, m.page, m.start, m.end) == ("F", str(faq), "", "", "")
    assert (m.keyword, m.summary) == (sanitize_field(keyword), sanitize_field(summary))
    assert parse(marker, "server") == []
