"""The Chip preview's default text: each sentence says what the markers after it become, resolved against the
sample course (unit 101 "Merge Sort and the Master Theorem" at attachment and video version 1, FAQ 1).

tests/test_preview_example.py checks every sentence against the chip report of the page's default text.
"""

from __future__ import annotations

CHIPS = (
    "A slide citation becomes a chip that opens its slide."
    "[cite:L:101:4:::Divide step:The array is split at its midpoint q.:va1] "
    "A slide and a video citation side by side become one chip with a pager."
    "[cite:L:101:6:::MERGE:Each iteration places one element after one comparison.:va1]"
    "[cite:L:101::125:131:Linear merge:Every step places one element, so merging takes linear time.:vt1] "
    "An FAQ citation becomes a chip that shows its question."
    "[cite:F:1::::Exam aids:One handwritten A4 sheet is allowed.] "
    "A citation stored with a newer deck version (va2) than the unit's becomes a chip that warns it comes from "
    "another copy of the material.[cite:L:101:6:::Merge:Merging places one element per step.:va2]"
)
TEXT = (
    "An intermediate marker stays text: [cite:L:101:4::!1] "
    "A marker with missing fields stays text: [cite:L:101:oops] "
    "A marker with a bracket in a field stays text: "
    "[cite:L:101:4:::Fonts [and] more:Needs [Fira Sans] installed.:va1] "
    "A marker in code stays code: `[cite:L:101:4:::Code:Not a chip]`"
)
EXAMPLE = f"{CHIPS}\n\n{TEXT}"
