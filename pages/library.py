"""Library: courses, units, decks page by page, transcripts, FAQs; upload a deck of your own, edit its name."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import streamlit as st
from PIL import Image, ImageDraw, ImageFont, ImageOps

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.errors import CitationStudioError
from citation_core.material.deck import load_deck
from citation_core.material.library import UnitMaterial, decks_to_read
from citation_core.material.ocr import ocr_unavailable
from citation_core.material.uploads import Upload, UploadResult, add_upload, display_name, update_unit
from studio import cached
from studio.services import course_roots
from studio.text import md_escape, plural
from studio.widgets import slide_image

THUMBNAILS_PER_VIEW = 24  # a deck of thousands of pages shows them in ranges of this many

st.title("Library")
settings = cached.settings()
ss = st.session_state


def reading_progress(bar: Any, what: str) -> Any:
    """A progress callback that shows pages read of all pages in ``bar``."""

    def show(done: int, total: int) -> None:
        bar.progress(done / max(total, 1),
                     text=f"Reading slide numbers from the page images of {what}: page {done} of {total}")

    return show


def read_pending_decks() -> None:
    """Decks whose printed numbers are only drawn are read once (OCR); show that with a progress bar."""
    for root in course_roots(settings):
        for unit in decks_to_read(root):
            if unit.deck is None:
                continue
            bar = st.progress(0.0, text=f"Reading slide numbers from the page images of {md_escape(unit.deck.name)}…")
            try:
                load_deck(unit.deck, unit.display_overrides, progress=reading_progress(bar, md_escape(unit.deck.name)))
            except CitationStudioError:
                pass  # loading the course below reports it
            finally:
                bar.empty()


def upload_message(res: UploadResult) -> str:
    name = md_escape(res.unit_name)
    where = f"unit {res.unit_id}, {res.pages} pages, attachment version {res.attachment_version}"
    if not res.replaced:
        return f"Added “{name}” ({where})."
    if res.stales_answers:
        return f"Replaced “{name}” ({where}). Answers stored for an older version now show as stale."
    return (f"“{name}” is unchanged: the deck is the same file as the stored one, so its version stays "
            f"({where}).")


def bad_file_hint(message: str, chosen: dict[str, str]) -> str:
    """Which chosen file the error is about, and what stays chosen."""
    for what, name in chosen.items():
        if message.startswith(display_name(name) + ":"):
            others = [w for w in chosen if w != what]
            kept = ""
            if others:
                kept = f" {' and '.join(others).capitalize()} stay{'s' if len(others) == 1 else ''} chosen."
            return f"Fix {what} ({md_escape(display_name(name))}) and choose it again, or remove it.{kept}"
    return "The files stay chosen: fix the problem and press “Add to library” again."


def upload_form() -> None:
    generation = ss.setdefault("upload_generation", 0)  # a new generation clears the form after a success
    limit = settings.max_upload_mb
    with st.form(f"upload_{generation}", clear_on_submit=False):
        deck = st.file_uploader("Deck (PDF)", type=None, key=f"up_deck_{generation}", max_upload_size=limit)
        transcript = st.file_uploader("Transcript (WebVTT or SubRip, optional)", type=None,
                                      key=f"up_tr_{generation}", max_upload_size=limit)
        faqs = st.file_uploader("FAQs (YAML, optional)", type=None, key=f"up_faq_{generation}",
                                max_upload_size=limit)
        go = st.form_submit_button("Add to library", type="primary")
    if not go:
        if "upload_result" in ss:  # the message of the upload that cleared the form
            kind, text = ss.pop("upload_result")
            (st.success if kind == "success" else st.warning)(text)
        return
    if deck is None:
        chosen = [w for w, f in (("a transcript", transcript), ("an FAQ file", faqs)) if f is not None]
        st.warning("Choose a PDF first." + (f" ({' and '.join(chosen).capitalize()} stay chosen.)" if chosen else ""))
        return
    names = {"the deck": deck.name, **({"the transcript": transcript.name} if transcript else {}),
             **({"the FAQ file": faqs.name} if faqs else {})}
    bar = st.progress(0.0, text="Checking the upload…")
    try:
        res = add_upload(
            settings.library_dir, Upload(deck.name, deck.getvalue()),
            Upload(transcript.name, transcript.getvalue()) if transcript else None,
            Upload(faqs.name, faqs.getvalue()) if faqs else None,
            max_bytes=limit * 1_000_000, progress=reading_progress(bar, md_escape(display_name(deck.name))),
        )
    except CitationStudioError as exc:
        bar.empty()
        st.error(md_escape(exc))
        st.caption(bad_file_hint(str(exc), names))
    except OSError as exc:  # the library folder cannot be written (permissions, a full disk)
        bar.empty()
        st.error(md_escape(f"The upload could not be stored: {exc.strerror or exc}"))
        st.caption("The files stay chosen: press “Add to library” again once the folder can be written.")
    else:
        bar.empty()
        text = upload_message(res) + "".join(f"\n\n⚠ {md_escape(w)}" for w in res.warnings)
        ss["upload_result"] = ("success" if not res.warnings else "warning", text)
        ss["upload_generation"] = generation + 1
        st.rerun()


@st.cache_data(show_spinner=False, max_entries=256)
def greyed(png: bytes, label: str) -> bytes:
    """A thumbnail faded to grey with ``label`` across it: material students do not see."""
    with Image.open(io.BytesIO(png)) as image:
        faded = Image.blend(ImageOps.grayscale(image).convert("RGB"), Image.new("RGB", image.size, (225, 225, 225)),
                            0.55)
    draw = ImageDraw.Draw(faded, "RGBA")
    font = ImageFont.load_default(size=max(12, faded.width // 14))
    left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
    band = (bottom - top) + 12
    y = (faded.height - band) // 2
    draw.rectangle((0, y, faded.width, y + band), fill=(60, 60, 60, 200))
    draw.text(((faded.width - (right - left)) / 2 - left, y + 6 - top), label, font=font, fill=(255, 255, 255, 255))
    out = io.BytesIO()
    faded.save(out, format="PNG")
    return out.getvalue()


def metadata_form(um: UnitMaterial, library: Path) -> None:
    """Name, lecture and language of an uploaded unit; saving leaves its material versions alone."""
    u = um.unit
    with st.expander("Edit name, lecture and language"), st.form(f"meta_{u.id}"):
        name = st.text_input("Unit name", value=u.name, key=f"meta_name_{u.id}")
        lecture = st.text_input("Lecture name", value=u.lecture_name, key=f"meta_lecture_{u.id}")
        language = st.text_input("Language", value=u.language, key=f"meta_lang_{u.id}",
                                 help="A language code such as en, de or pt-BR")
        if st.form_submit_button("Save", key=f"meta_save_{u.id}"):
            try:
                update_unit(library, u.id, name=name, lecture_name=lecture, language=language)
            except CitationStudioError as exc:
                st.error(md_escape(exc))
            else:
                ss["meta_saved"] = f"Saved unit {u.id}; its versions are unchanged."
                st.rerun()


def page_caption(um: UnitMaterial, page_number: int) -> str:
    assert um.deck is not None
    p = um.deck.page(page_number)
    text = (f"page {p.page_number} · printed **{md_escape(p.display_page_number or '—')}** "
            f"({p.display_source}) · {md_escape(p.title[:40])}")
    if um.is_hidden(page_number):
        text = (f"page {p.page_number} · printed **{md_escape(p.display_page_number or '—')}** "
                f"({p.display_source}) · :gray[hidden from students (hidden\\_pages in course.yml)]")
    return text


def withheld_note(um: UnitMaterial) -> str:
    u = um.unit
    field = "released: false" if not u.released else f"release\\_date: {u.release_date}"
    return f"Students do not see this unit: {md_escape(um.withheld)} ({field} in course.yml)."


with st.expander("Upload a deck", expanded=False):
    upload_form()

unavailable = ocr_unavailable()
if unavailable:
    st.caption(md_escape(f"Printed numbers drawn as images on slides are not read: {unavailable}."))
read_pending_decks()

courses = cached.courses()
material = courses[st.selectbox("Course", list(courses))]
every = material.all_units
hidden_total = sum(len(um.unit.hidden_pages) for um in every.values())
st.caption(f"{plural(len(every), 'unit')} ({len(material.withheld)} not released, "
           f"{plural(hidden_total, 'hidden page')}) · {plural(len(material.faqs), 'FAQ')} · "
           f"language {material.course.language}")
for w in material.warnings:
    st.warning(md_escape(w))
if "meta_saved" in ss:
    st.success(ss.pop("meta_saved"))

editable = material.course.root.resolve() == settings.library_dir.resolve()
unit_tabs = st.tabs([md_escape(um.unit.name) + ("" if um.released else " (not released)") for um in every.values()]
                    + ["FAQs"])
for tab, um in zip(unit_tabs, every.values(), strict=False):
    with tab:
        u = um.unit
        st.markdown(f"**{md_escape(u.lecture_name)} › {md_escape(u.name)}** · unit {u.id} · language "
                    f"{md_escape(u.language)} · versions: attachment {u.versions.attachment}, video {u.versions.video}")
        if not um.released:
            st.info(withheld_note(um))
        if editable:
            metadata_form(um, settings.library_dir)
        if um.deck is not None:
            hidden = sorted(u.hidden_pages)
            st.markdown(f"Deck {md_escape(um.deck.path.name)} · {len(um.deck.pages)} pages"
                        + (f" · hidden from students: {', '.join(map(str, hidden))}" if hidden else ""))
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
                        png = cached.deck_png(um.deck.path, p.page_number, 320)
                        if um.is_hidden(p.page_number):
                            png = greyed(png, "Hidden")
                        elif not um.released:
                            png = greyed(png, "Not released")
                        slide_image(png)
                        st.caption(page_caption(um, p.page_number))
        if um.transcript is not None:
            with st.expander(f"Transcript `{um.transcript.path.name}` · {len(um.transcript.cues)} cues"):
                st.dataframe([{"start": c.start, "end": c.end, "text": c.text} for c in um.transcript.cues],
                             hide_index=True)
with unit_tabs[-1]:
    st.dataframe([{"id": f.id, "question": f.question, "answer": f.answer} for f in material.faqs],
                 hide_index=True)
