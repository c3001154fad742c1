"""Chip preview: paste marker text in any form, see the chips and what each parser reads."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.contract import PATTERN_NAMES, parse
from citation_core.material.models import MaterialVersions
from studio import cached
from studio.chip_report import CandidateRow, chip_report
from studio.keys import PREVIEW_CLICK
from studio.parser_readings import NOT_CARRIED, reading_columns
from studio.preview_example import EXAMPLE
from studio.text import md_escape, plural
from studio.widgets import chips

VECTORS = Path(__file__).resolve().parents[1] / "citation_core" / "contract" / "vectors.json"

# st.table renders each cell as Markdown: cells get md_escape (text as written). In the columns that hold pasted
# text (the marker and the chips drawn for it; the fields the parsers read) a long word wraps in its cell instead
# of hiding in the cell's own scroll box; the other columns keep their words whole.
TABLE_CSS = """<style>
.st-key-chip-table td:is(:nth-child(1), :nth-child(4), :nth-child(5)) [data-testid=stMarkdownContainer] *,
.st-key-readings-table td:nth-child(n+3):nth-child(-n+10) [data-testid=stMarkdownContainer] * {
  overflow-wrap: anywhere; }
</style>"""
PARSERS = {"iris": "Iris (intermediate)", "server": "Artemis server", "client": "Artemis client",
           "stored": "stored form (client + version)"}

st.title("Chip preview")
st.html(TABLE_CSS)
st.caption(f"Paste text with markers in any form: intermediate, final, stored, broken. The chips render exactly as "
           f"in the LMS client; below them, which markers became chips, what a click sends, and the "
           f"{len(PATTERN_NAMES)} parsers' readings next to each other.")
courses = cached.courses()
course = st.selectbox("Resolve units and FAQs against", list(courses))
material = courses[course]


def _remember_click(value: dict[str, object]) -> None:
    st.session_state[PREVIEW_CLICK] = value


@st.cache_data(show_spinner=False, max_entries=64)
def _report(text: str, versions: tuple[tuple[int, int, int], ...]) -> list[CandidateRow]:
    """The table's rows, the chips' stored versions compared with the units' current ``versions`` (unit id,
    attachment version, video version)."""
    return chip_report(text, {str(uid): MaterialVersions(a, v) for uid, a, v in versions}.get)


@st.cache_data(show_spinner=False, max_entries=64)
def _readings(text: str) -> dict[str, list[dict[str, object]]]:
    """Each parser's matches of ``text`` (``to_json``), in ``PATTERN_NAMES`` order."""
    return {p: [m.to_json() for m in parse(text, p)] for p in PATTERN_NAMES}


@st.cache_resource(show_spinner=False)
def _vectors(stamp: float) -> tuple[str, tuple[dict[str, str], ...]]:
    """The contract vectors file as text, and its cases (read once per version of the file)."""
    text = VECTORS.read_text(encoding="utf-8")
    return text, tuple(json.loads(text)["cases"])


text = st.text_area("Marker text", EXAMPLE, height=160, key="preview_text")
with st.container(border=True):
    chips(text, material, key="preview-chips", on_click=_remember_click)

clicked = st.session_state.get(PREVIEW_CLICK)
if isinstance(clicked, dict):
    st.markdown("**What the last click sent to the app**")
    st.code(json.dumps(clicked, ensure_ascii=False), language="json", wrap_lines=True)
else:
    st.caption("Click a chip: the value the Ask page would receive shows here. FAQ chips, and chips whose unit is "
               "unknown or unreleased or whose slide is hidden, send nothing.")

report = _report(text, tuple((uid, um.unit.versions.attachment, um.unit.versions.video)
                             for uid, um in material.units.items()))
made = len({r.group for r in report if r.chip})
st.markdown(f"**Which markers became chips** · {plural(len(report), 'marker')}, {plural(made, 'chip')}")
if report:
    with st.container(key="chip-table"):
        st.table({"marker": [md_escape(r.marker) for r in report],
                  "rendered as chip?": [f"yes · chip {r.group + 1}" if r.chip and r.group is not None else "no"
                                        for r in report],
                  "reason": [md_escape(r.why or "—") for r in report],
                  "ours": [md_escape(r.ours + (f" · click does nothing: {r.cannot_act}" if r.cannot_act else ""))
                           for r in report],
                  "as the Artemis client draws it": [md_escape(r.artemis) for r in report],
                  "same?": ["yes" if not r.differs else "DIFFERS" for r in report]},
                 hide_index=True, border="horizontal")
    drift = [r for r in report if r.differs]
    if drift:
        st.warning(f"{plural(len(drift), 'marker')} drawn differently from the Artemis client: "
                   + ", ".join(md_escape(f"{r.marker} (ours: {r.ours}; Artemis: {r.artemis})") for r in drift))
else:
    st.caption("No marker in this text.")

st.subheader("What each parser reads")
cols = st.columns(len(PATTERN_NAMES))
readings = _readings(text)
for col, pattern in zip(cols, PATTERN_NAMES, strict=True):
    found = readings[pattern]
    col.markdown(f"**{pattern}** · {PARSERS.get(pattern, pattern)} · {plural(len(found), 'match')}")
if any(readings.values()):
    columns = reading_columns(readings, PATTERN_NAMES)
    with st.container(key="readings-table"):
        st.table({name: [md_escape(v) for v in values] for name, values in columns.items()}, hide_index=True,
                 border="horizontal")
    st.caption(f"One row per match of each parser, in the order of the text. {NOT_CARRIED}: the parser's pattern "
               "has no such field; an empty cell: the field is empty. span: where the match starts and ends in the "
               "text (characters).")
else:
    st.caption("No parser finds a marker in this text.")

vector = {"name": "pasted text", "text": text, "expect": readings}
vectors_text, cases = _vectors(VECTORS.stat().st_mtime)
exp = st.columns(2)
exp[0].download_button("Export this text as a test vector", json.dumps(vector, ensure_ascii=False, indent=1),
                       file_name="vector.json", mime="application/json", on_click="ignore")
exp[1].download_button("Download all contract vectors", vectors_text,
                       file_name="vectors.json", mime="application/json", on_click="ignore")

st.subheader("Gallery of edge cases")
st.caption("Every case of the contract test-vector file, rendered.")
for i, case in enumerate(cases):
    with st.container(border=True):
        st.markdown(f"**{case['name']}**" + (f" — {case['note']}" if case["note"] else ""))
        st.code(case["text"], language="markdown", wrap_lines=True)
        chips(case["text"], material, key=f"gallery-{i}")
