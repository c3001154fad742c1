"""The Chip preview's table of which markers became chips (studio/chip_report.py), without a browser.

tests/test_chips_browser.py checks the chip column against the renderer in Chromium; these tests check
that every marker-looking text gets its row and the reason it stays text.
"""

from __future__ import annotations

from typing import Any

from citation_core.material.models import MaterialVersions
from studio.chip_report import chip_report

BRACKETS = "[cite:L:9003:4:::Fonts [and] more:Needs [Fira Sans] installed.:va1]"


def test_a_marker_with_brackets_in_its_fields_is_listed_whole_with_its_reason() -> None:
    rows = chip_report(f"The slides need a font.{BRACKETS} The rest is plain.")
    assert [(r.marker, r.chip, r.why) for r in rows] == [
        (BRACKETS, False, "a field holds '[' or ']': stays text")]
    assert rows[0].ours == rows[0].artemis == "text"


def test_an_opening_bracket_in_the_summary_is_listed_up_to_its_last_closing_bracket() -> None:
    (row,) = chip_report("x [cite:L:12:3:::Split:Div[ides.] y")
    assert (row.marker, row.chip, row.why) == ("[cite:L:12:3:::Split:Div[ides.]", False,
                                              "a field holds '[' or ']': stays text")


def test_a_marker_without_a_closing_bracket_is_listed_up_to_the_end_of_its_line() -> None:
    rows = chip_report("Cut short [cite:L:12:3:::Split:Divides\nNext line.[cite:L:12:4:::Merge:Joins.]")
    assert [(r.marker, r.chip, r.why) for r in rows] == [
        ("[cite:L:12:3:::Split:Divides", False, "no ']' closes it: stays text"),
        ("[cite:L:12:4:::Merge:Joins.]", True, "")]


def test_a_chip_inside_a_bracketed_marker_gets_a_row_of_its_own() -> None:
    inner = "[cite:L:12:3:::Split:Divides.]"
    rows = chip_report(f"See [cite:L:1:{inner} here] now.")
    assert [(r.marker, r.chip) for r in rows] == [(f"[cite:L:1:{inner} here]", False), (inner, True)]
    assert rows[0].why == "a field holds '[' or ']': stays text"


def test_every_cite_opening_of_every_contract_vector_gets_a_row(contract_case: dict[str, Any]) -> None:
    text = contract_case["text"]
    rows = chip_report(text)
    assert len(rows) == text.count("[cite:"), [r.marker for r in rows]
    for row in rows:
        assert row.marker.startswith("[cite:") and row.marker in text
        assert row.chip or row.why, row


def test_openings_by_the_thousand_are_each_listed() -> None:
    text = "[cite:" * 5_000 + "]" + " [cite:L:12:3" * 5_000
    rows = chip_report(text)
    assert len(rows) == 10_000
    assert all(not r.chip and r.why for r in rows)


def test_a_chip_stored_with_a_newer_version_comes_from_another_copy_and_an_older_one_is_stale() -> None:
    versions = {"101": MaterialVersions(attachment=1, video=1)}.get
    rows = chip_report("New.[cite:L:101:4:::Split:Halves.:va2] Old.[cite:L:101::125:131:Merge:Linear.:vt0] "
                       "Now.[cite:L:101:6:::Merge:Linear.:va1] Elsewhere.[cite:L:555:6:::Other:Unit.:va9]", versions)
    assert [r.chip for r in rows] == [True, True, True, True]
    assert [r.why for r in rows] == [
        "va2 is newer than this unit's attachment version 1: a citation from another copy of the material, "
        "newer than this one; a click opens the unit",
        "stale: vt0 is older than this unit's video version 1: the material changed since it was cited; "
        "a click opens the unit",
        "",
        "",
    ]
