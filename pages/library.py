"""Library: courses, units, decks page by page, transcripts, FAQs; upload a deck of your own."""

from __future__ import annotations

import streamlit as st

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.errors import CitationStudioError
from citation_core.material.uploads import Upload, add_upload
from studio import cached
from studio.text import md_escape

THUMBNAILS_PER_VIEW = 24  # a deck of thousands of pages shows them in ranges of this many

st.title("Library")
settings = cached.settings()

with st.expander("Upload a deck", expanded=False):
    with st.form("upload", clear_on_submit=True):
        deck = st.file_uploader("Deck (PDF)", type=None, key="up_deck")
        transcript = st.file_uploader("Transcript (WebVTT or SubRip, optional)", type=None, key="up_tr")
        faqs = st.file_uploader("FAQs (YAML, optional)", type=None, key="up_faq")
        go = st.form_submit_button("Add to library", type="primary")
    if go:
        if deck is None:
            st.warning("Choose a PDF first.")
        else:
            try:
                res = add_upload(
                    settings.library_dir, Upload(deck.name, deck.getvalue()),
                    Upload(transcript.name, transcript.getvalue()) if transcript else None,
                    Upload(faqs.name, faqs.getvalue()) if faqs else None,
                    max_bytes=settings.max_upload_mb * 1_000_000,
                )
            except CitationStudioError as exc:
                st.error(md_escape(exc))
            except OSError as exc:  # the library folder cannot be written (permissions, a full disk)
                st.error(md_escape(f"The upload could not be stored: {exc.strerror or exc}"))
            else:
                verb = "Replaced" if res.replaced else "Added"
                name = md_escape(res.unit_name)
                st.success(f"{verb} “{name}” (unit {res.unit_id}, {res.pages} pages, attachment version "
                           f"{res.attachment_version}). Answers stored for an older version now show as stale.")
                for w in res.warnings:
                    st.warning(md_escape(w))

courses = cached.courses()
material = courses[st.selectbox("Course", list(courses))]
st.caption(f"{len(material.units)} units · {len(material.faqs)} FAQs · language {material.course.language}")
for w in material.warnings:
    st.warning(md_escape(w))

unit_tabs = st.tabs([md_escape(um.unit.name) for um in material.units.values()] + ["FAQs"])
for tab, um in zip(unit_tabs, material.units.values(), strict=False):
    with tab:
        u = um.unit
        st.markdown(f"**{md_escape(u.lecture_name)} › {md_escape(u.name)}** · unit {u.id} · versions: attachment "
                    f"{u.versions.attachment}, video {u.versions.video}")
        if um.deck is not None:
            st.markdown(f"Deck {md_escape(um.deck.path.name)} · {len(um.deck.pages)} pages")
            per_row = 4
            pages = list(um.deck.pages)
            if len(pages) > THUMBNAILS_PER_VIEW:
                ranges = [(i, min(i + THUMBNAILS_PER_VIEW, len(pages)))
                          for i in range(0, len(pages), THUMBNAILS_PER_VIEW)]
                first, last = st.selectbox("Pages shown", ranges, format_func=lambda r: f"pages {r[0] + 1}–{r[1]}",
                                           key=f"thumbnails_{material.course.id}_{u.id}")
                pages = pages[first:last]
            for i in range(0, len(pages), per_row):
                cols = st.columns(per_row)
                for col, p in zip(cols, pages[i:i + per_row], strict=False):
                    with col:
                        st.image(cached.deck_png(um.deck.path, p.page_number, 320), width="stretch")
                        st.caption(f"page {p.page_number} · printed **{md_escape(p.display_page_number or '—')}** "
                                   f"({p.display_source}) · {md_escape(p.title[:40])}")
        if um.transcript is not None:
            with st.expander(f"Transcript `{um.transcript.path.name}` · {len(um.transcript.cues)} cues"):
                st.dataframe([{"start": c.start, "end": c.end, "text": c.text} for c in um.transcript.cues],
                             hide_index=True)
with unit_tabs[-1]:
    st.dataframe([{"id": f.id, "question": f.question, "answer": f.answer} for f in material.faqs],
                 hide_index=True)
