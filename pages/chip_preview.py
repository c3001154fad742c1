"""Chip preview: paste marker text in any form, see the chips and what each parser reads."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.contract import PATTERN_NAMES, parse
from studio import cached
from studio.widgets import chips

VECTORS = Path(__file__).resolve().parents[1] / "citation_core" / "contract" / "vectors.json"
EXAMPLE = (
    "Merge sort splits the array in half.[cite:L:101:4:::Divide step:The array is split at its midpoint q.:va1] "
    "Merging is linear.[cite:L:101:6:::MERGE:Each iteration places one element after one comparison.:va1]"
    "[cite:L:101::125:131:Linear merge:Every step places one element, so merging takes linear time.:vt1] "
    "You may bring one sheet of notes.[cite:F:1::::Exam aids:One handwritten A4 sheet is allowed.]\n\n"
    "A broken group stays text: [cite:L:101:4:::A:B][cite:L:101:oops] and code stays code: "
    "`[cite:L:101:4:::Code:Not a chip]`"
)

st.title("Chip preview")
st.caption("Paste text with markers in any form: intermediate, final, stored, broken. The chips render exactly as "
           "in the LMS client; the three parsers' readings are listed side by side.")
courses = cached.courses()
course = st.selectbox("Resolve units and FAQs against", list(courses))
material = courses[course]

text = st.text_area("Marker text", EXAMPLE, height=160, key="preview_text")
with st.container(border=True):
    chips(text, material, key="preview-chips")

st.subheader("What each parser reads")
cols = st.columns(len(PATTERN_NAMES))
for col, pattern in zip(cols, PATTERN_NAMES, strict=True):
    found = [m.to_json() for m in parse(text, pattern)]
    col.markdown(f"**{pattern}** · {len(found)} match{'es' if len(found) != 1 else ''}")
    rows = [{k: v for k, v in m.items() if v is not None and k != "span"} | {"span": str(m["span"])}
            for m in found]
    if rows:
        col.dataframe(rows, hide_index=True)
    else:
        col.caption("no match")

vector = {"name": "pasted text", "text": text,
          "expect": {p: [m.to_json() for m in parse(text, p)] for p in PATTERN_NAMES}}
exp = st.columns(2)
exp[0].download_button("Export this text as a test vector", json.dumps(vector, ensure_ascii=False, indent=1),
                       file_name="vector.json", mime="application/json")
exp[1].download_button("Download all contract vectors", VECTORS.read_text(encoding="utf-8"),
                       file_name="vectors.json", mime="application/json")

st.subheader("Gallery of edge cases")
st.caption("Every case of the contract test-vector file, rendered.")
cases = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]
for i, case in enumerate(cases):
    with st.container(border=True):
        st.markdown(f"**{case['name']}**" + (f" — {case['note']}" if case["note"] else ""))
        st.code(case["text"], language="markdown", wrap_lines=True)
        chips(case["text"], material, key=f"gallery-{i}")
