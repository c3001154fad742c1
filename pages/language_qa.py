"""Language QA: one question across several user languages, with the language of every keyword and summary."""

from __future__ import annotations

import streamlit as st

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.chat.view import ViewPosition
from citation_core.errors import CitationStudioError
from citation_core.pipeline.languages import LANGUAGES
from studio import cached
from studio.audit_table import audit_table
from studio.language_check import check_citations, detector, detector_loaded
from studio.services import chat_pipeline
from studio.text import md_escape, plural
from studio.widgets import chips, literal_table, model_badges

VERDICTS = {"ok": "✓ ok", "mismatch": "✗ mismatch", "uncertain": "? too short", "empty": "∅ empty"}

# lingua loads on the first detection of the server process (a few seconds): the page says so meanwhile
LOADING_DETECTOR = "Loading the language detector (first use, a few seconds)…"

st.title("Language QA")
st.caption("Runs one question (or a pasted answer) once per language. Every prompt of a run starts with the "
           "language line; the detected language of each keyword and summary is compared with the requested one. "
           "A keyword of a few words that could be several languages is too short to judge, in every column.")
config = cached.config()
courses = cached.courses()
top = st.columns(3)
material = courses[top[0].selectbox("Course", list(courses))]
unit_id = top[1].selectbox("Unit", list(material.units), format_func=lambda u: material.units[u].unit.name)
um = material.unit(unit_id)
page = top[2].number_input("Open deck page", 1, len(um.deck.pages) if um.deck else 1, 3) if um.deck else None
second = None if um.deck else top[2].number_input("Open second", 0.0, value=30.0)
offline = model_badges(config, "default")

with st.form("qa"):
    question = st.text_input("Question", "How does the merge step combine two sorted halves?")
    pasted = st.text_area("Or paste an answer to cite (QA mode)", height=90)
    languages = st.multiselect("Languages", list(LANGUAGES), default=["en", "de", "fr"],
                               format_func=lambda c: f"{LANGUAGES[c].native} ({c})")
    run = st.form_submit_button("Run", type="primary")

if run and languages:
    if offline:
        st.info("The offline model cannot translate: expect mismatches for languages other than the material's "
                f"({um.unit.language}). That is the check working, not a bug.")
    pipeline = chat_pipeline(config, material)
    cols = st.columns(len(languages))
    position = ViewPosition(unit_id, page=int(page)) if page else ViewPosition(unit_id, second=float(second or 0))
    for col, code in zip(cols, languages, strict=True):
        with col:
            st.markdown(f"### {LANGUAGES[code].native} `{code}`")
            try:
                with st.spinner("running…"):
                    result = pipeline(question, position, language=code, pasted_answer=pasted.strip() or None)
            except CitationStudioError as exc:
                st.error(md_escape(exc))
                continue
            if not detector_loaded():
                with st.spinner(LOADING_DETECTOR):
                    detector()
            rows = check_citations(result.citations, code)
            bad = sum(r.verdict == "mismatch" for r in rows)
            short = sum(r.verdict == "uncertain" for r in rows)
            (st.error if bad else st.success)(f"{plural(bad, 'mismatch')} in {plural(len(rows), 'field')}"
                                              + (f" · {short} too short to judge" if short else ""))
            audits = [{**a.to_json(), "index": a.index} for a in result.audits]
            chips(result.answer, material, key=f"qa-{code}", audits=audits)
            # a static table: its text wraps, so the verdict stays in sight in a third of the window
            literal_table([{"seq": r.seq, "field": r.field, "text": r.text,
                           "detected": f"{r.detected} ({r.confidence:.2f})" if r.detected else "—",
                           "verdict": VERDICTS[r.verdict]} for r in rows], hide_index=True)
            with st.expander("Support audit", expanded=any(a["verdict"] == "unsupported" for a in audits)):
                audit_table(audits, material)
            with st.expander("Prompts (first lines)"):
                for name, trace in result.traces.items():
                    for call in trace.calls:
                        st.caption(f"{name} · {call.task}")
                        st.code("\n".join(call.prompt.splitlines()[:2]), language="text", wrap_lines=True)
