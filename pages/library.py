"""Library: courses, units, decks page by page, transcripts, FAQs; upload a deck of your own, edit its name, add,
replace or remove its transcript."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import streamlit as st
from PIL import Image, ImageDraw, ImageFont, ImageOps

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.errors import CitationStudioError
from citation_core.material.deck import load_deck
from citation_core.material.library import UnitMaterial, decks_to_read
from citation_core.material.ocr import ocr_unavailable
from citation_core.material.upload_messages import removal_question, transcript_message, upload_message
from citation_core.material.uploads import (
    MAX_NAME_CHARS,
    TRANSCRIPT_SUFFIXES,
    UPLOAD_LECTURE_NAME,
    UnitSuggestion,
    Upload,
    add_upload,
    display_name,
    remove_transcript,
    set_transcript,
    suggest_unit,
    update_unit,
)
from citation_core.pipeline.languages import LANGUAGES
from citation_core.text.languages import language_label
from studio import cached
from studio.keys import LIBRARY_COURSE, LIBRARY_SAID, LIBRARY_TO_ASK, OPEN_UNIT, W_LIBRARY_COURSE
from studio.open_in_ask import open_in_ask
from studio.services import course_roots
from studio.text import md_escape, plural, short_title
from studio.widgets import slide_image

THUMBNAILS_PER_VIEW = 24  # a deck of thousands of pages shows them in ranges of this many

ss = st.session_state
if ss.pop(LIBRARY_TO_ASK, False):  # "Ask about …" was pressed under a change's message
    st.switch_page("pages/ask.py")  # the Ask page opens the unit (``done`` moved its view there)
st.title("Library")
settings = cached.settings()


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


class Said(NamedTuple):
    """What a change to a unit did, shown once after the rerun it asks for."""

    warned: bool
    text: str  # Markdown, escaped
    tab: int | None  # shown in this unit's tab; None: in the upload form
    unit_name: str


def done(message: str, warnings: tuple[str, ...], course_id: int, unit_id: int, unit_name: str, *,
         in_tab: bool) -> None:
    """After a change to a unit: its message (and warnings) to show once, its tab open here, and the Ask page
    opening it too."""
    text = md_escape(message) + "".join(f"\n\n⚠ {md_escape(w)}" for w in warnings)
    ss[LIBRARY_SAID] = Said(bool(warnings), text, unit_id if in_tab else None, unit_name)
    ss[OPEN_UNIT] = (course_id, unit_id)
    open_in_ask(ss, cached.courses(), cached.store(), course_id, unit_id)


def show_said(tab: int | None) -> None:
    """The message of the change that reran the page where it was made (the upload form: None, or a unit's
    tab), and a link to the Ask page, which now opens the unit."""
    said = ss.get(LIBRARY_SAID)
    if said is None or said.tab != tab:
        return
    del ss[LIBRARY_SAID]
    (st.warning if said.warned else st.success)(said.text)
    st.button(f"Ask about “{md_escape(said.unit_name)}”", key="ask_about", icon=":material/forum:",
              help="Opens the Ask page on this unit", on_click=lambda: ss.update({LIBRARY_TO_ASK: True}))


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


def suggestion(deck: Any) -> UnitSuggestion:
    """What the form offers for the chosen deck (its title and language), read once per chosen file."""
    key = f"up_suggestion_{deck.file_id}"
    if key not in ss:
        with st.spinner("Reading the deck's title and language…"):
            ss[key] = suggest_unit(settings.library_dir, Upload(deck.name, deck.getvalue()),
                                   settings.max_upload_mb * 1_000_000)
    found: UnitSuggestion = ss[key]
    return found


def unit_fields(deck: Any, generation: int) -> tuple[str, str, str, Any]:
    """Unit name, lecture and language: offered from the chosen deck, editable before it is added; and where
    the chosen deck's problem is said at once (None: it has none), which "Add to library" says again."""
    offer = suggestion(deck) if deck is not None else None
    cols = st.columns([3, 3, 2])
    if offer is None or offer.problem is not None:
        cols[0].text_input("Unit name", placeholder="from the PDF's title", disabled=True, key=f"up_name_{generation}")
        cols[1].text_input("Lecture", placeholder=UPLOAD_LECTURE_NAME, disabled=True, key=f"up_lecture_{generation}")
        cols[2].selectbox("Language", ["read from the deck"], disabled=True, key=f"up_lang_{generation}")
        if offer is None or offer.problem is None:
            st.caption("Choose a PDF: its title and the language of its text fill in the unit's name and language.")
            return "", "", "", None
        problem = st.empty()
        problem.error(md_escape(offer.problem))  # said when the file is chosen, not only once it is added
        if deck is not None and display_name(deck.name).lower().endswith(TRANSCRIPT_SUFFIXES):
            st.caption("A transcript goes under “Transcript” below, or into a unit already in the library with "
                       "“Add a transcript” in its tab.")
        return offer.name, offer.lecture_name, offer.language, problem  # adding says what is wrong with the file
    suffix = f"{generation}_{deck.file_id}"  # another file chosen: fresh fields with its own offer
    name = cols[0].text_input("Unit name", value=offer.name, key=f"up_name_{suffix}", max_chars=MAX_NAME_CHARS)
    lecture = cols[1].text_input("Lecture", value=offer.lecture_name, key=f"up_lecture_{suffix}",
                                 max_chars=MAX_NAME_CHARS)
    codes = list(LANGUAGES) + ([offer.language] if offer.language not in LANGUAGES else [])
    language = cols[2].selectbox("Language", codes, index=codes.index(offer.language), key=f"up_lang_{suffix}",
                                 format_func=language_label,
                                 help="The language of the deck's text: it decides stemming and stop words, and "
                                      "the language answers about the unit are compared with.")
    read = (f"title “{md_escape(offer.title)}”" if offer.title else "no title in the PDF (the file name is used)")
    told = (f"language {language_label(offer.detected)}" if offer.detected else
            "too little text to tell its language")
    st.caption(f"Read from the deck: {read}, {told}."
               + (f" It replaces the deck of unit {offer.existing}, whose name, lecture and language are offered."
                  if offer.existing is not None else ""))
    return name, lecture, language, None


def upload_form() -> None:
    generation = ss.setdefault("upload_generation", 0)  # a new generation clears the form after a success
    limit = settings.max_upload_mb
    # no st.form: the unit's name and language are offered from the chosen deck before it is added
    with st.container(border=True, key="upload_form"):
        deck = st.file_uploader("Deck (PDF)", type=None, key=f"up_deck_{generation}", max_upload_size=limit)
        name, lecture, language, problem = unit_fields(deck, generation)
        transcript = st.file_uploader("Transcript (WebVTT or SubRip, optional)", type=None,
                                      key=f"up_tr_{generation}", max_upload_size=limit)
        faqs = st.file_uploader("FAQs (YAML, optional)", type=None, key=f"up_faq_{generation}",
                                max_upload_size=limit)
        go = st.button("Add to library", type="primary", key=f"up_go_{generation}")
    if not go:
        show_said(None)  # the message of the upload that cleared the form
        return
    if deck is None:
        st.warning(missing_deck(transcript is not None, faqs is not None))
        return
    if problem is not None:
        problem.empty()  # adding says it again, with what stays chosen
    names = {"the deck": deck.name, **({"the transcript": transcript.name} if transcript else {}),
             **({"the FAQ file": faqs.name} if faqs else {})}
    bar = st.progress(0.0, text="Checking the upload…")
    try:
        res = add_upload(
            settings.library_dir, Upload(deck.name, deck.getvalue()),
            Upload(transcript.name, transcript.getvalue()) if transcript else None,
            Upload(faqs.name, faqs.getvalue()) if faqs else None,
            max_bytes=limit * 1_000_000, progress=reading_progress(bar, md_escape(display_name(deck.name))),
            name=name, lecture_name=lecture, language=language,
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
        done(upload_message(res), res.warnings, res.course_id, res.unit_id, res.unit_name, in_tab=False)
        ss["upload_generation"] = generation + 1
        st.rerun()


def missing_deck(transcript: bool, faqs: bool) -> str:
    """"Add to library" without a PDF: a new unit needs its deck; what stays chosen, and where a transcript
    goes on its own."""
    kept = [what for what, chosen in (("the transcript", transcript), ("the FAQ file", faqs)) if chosen]
    text = "Choose a PDF first: a new unit needs its deck."
    if kept:
        text += f" {' and '.join(kept).capitalize()} {'stays' if len(kept) == 1 else 'stay'} chosen."
    if transcript:
        text += " To add a transcript to a unit already in the library, use “Add a transcript” in that unit's tab."
    return text


def transcript_form(um: UnitMaterial, course_id: int) -> None:
    """Add, replace or remove the unit's transcript on its own; the deck stays as it is. Removing asks first: a
    misclick on "Remove transcript" only asks, and "Keep it" leaves everything as it was."""
    u, has = um.unit, um.transcript is not None
    generation = ss.setdefault("transcript_generation", 0)  # a new generation clears the chosen file
    asked = f"tr_remove_asked_{u.id}"  # "Remove transcript" was pressed: the question shows until answered
    if not has:
        ss.pop(asked, None)
    limit = settings.max_upload_mb
    with st.expander("Replace or remove the transcript" if has else "Add a transcript"):
        chosen = st.file_uploader("Transcript (WebVTT or SubRip)", type=None, key=f"tr_file_{u.id}_{generation}",
                                  max_upload_size=limit,
                                  help="Its language is read from its text and compared with the deck's.")
        cols = st.columns(2 if has else 1)
        go = cols[0].button("Replace transcript" if has else "Add transcript", key=f"tr_go_{u.id}",
                            type="primary", disabled=chosen is None)
        if has:
            cols[1].button("Remove transcript", key=f"tr_remove_{u.id}", on_click=ss.__setitem__, args=(asked, True),
                           help="Asks first. The deck stays; only the transcript is removed.")
        remove = False
        if has and ss.get(asked) and um.transcript is not None:
            st.warning(md_escape(removal_question(u.id, u.name, um.transcript.path.name)),
                       icon=":material/delete:")
            yes, keep = st.columns(2)
            remove = yes.button("Yes, remove it", key=f"tr_remove_yes_{u.id}", type="primary")
            keep.button("Keep it", key=f"tr_remove_no_{u.id}", on_click=ss.pop, args=(asked, None))
        if not (go or remove):
            return
        ss.pop(asked, None)  # answered (or a replacement chosen instead): asked again next time
        try:
            if chosen is not None and go:
                res = set_transcript(settings.library_dir, u.id, Upload(chosen.name, chosen.getvalue()),
                                     max_bytes=limit * 1_000_000)
            else:
                res = remove_transcript(settings.library_dir, u.id)
        except CitationStudioError as exc:
            st.error(md_escape(exc))
            return
        except OSError as exc:  # the library folder cannot be written (permissions, a full disk)
            st.error(md_escape(f"The transcript could not be stored: {exc.strerror or exc}"))
            return
    done(transcript_message(res), res.warnings, course_id, u.id, res.unit_name, in_tab=True)
    ss["transcript_generation"] = generation + 1
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


def metadata_form(um: UnitMaterial, library: Path, course_id: int) -> None:
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
                ss[OPEN_UNIT] = (course_id, u.id)  # its tab stays open, whatever it is called now
                st.rerun()


def page_caption(um: UnitMaterial, page_number: int) -> str:
    assert um.deck is not None
    p = um.deck.page(page_number)
    text = (f"page {p.page_number} · printed **{md_escape(p.display_page_number or '—')}** "
            f"({p.display_source}) · {md_escape(short_title(p.title))}")
    if um.is_hidden(page_number):
        text = (f"page {p.page_number} · printed **{md_escape(p.display_page_number or '—')}** "
                f"({p.display_source}) · :gray[hidden from students (hidden\\_pages in course.yml)]")
    return text


def tab_labels(units: Iterable[UnitMaterial]) -> dict[int, str]:
    """Each unit's tab label: its name, "(not released)" when students do not see it, and its id when
    another unit has the same label (a tab is found again by its label)."""
    plain = {um.unit.id: md_escape(um.unit.name) + ("" if um.released else " (not released)") for um in units}
    seen = Counter(plain.values())
    return {uid: label if seen[label] == 1 and label != "FAQs" else f"{label} · unit {uid}"
            for uid, label in plain.items()}


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
opening = ss.pop(OPEN_UNIT, None)  # (course id, unit id) just uploaded or edited: show it
if opening is not None:
    label = next((label for label, m in courses.items() if m.course.id == opening[0]), None)
    if label is not None:
        ss[W_LIBRARY_COURSE] = label
elif W_LIBRARY_COURSE not in ss and ss.get(LIBRARY_COURSE) in courses:
    ss[W_LIBRARY_COURSE] = ss[LIBRARY_COURSE]  # back from another page: the course chosen before
chosen = st.selectbox("Course", list(courses), key=W_LIBRARY_COURSE)
ss[LIBRARY_COURSE] = chosen
material = courses[chosen]
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
labels = tab_labels(every.values())
tabs_key = f"library_tabs_{material.course.id}"
if opening is not None and opening[0] == material.course.id and opening[1] in labels:
    ss[tabs_key] = labels[opening[1]]
if ss.get(tabs_key) not in [*labels.values(), "FAQs"]:
    ss.pop(tabs_key, None)  # the open unit is gone
# the tabs keep which one is open across reruns (a save, an upload), by key
unit_tabs = st.tabs([*labels.values(), "FAQs"], key=tabs_key, on_change="rerun")
for tab, um in zip(unit_tabs, every.values(), strict=False):
    with tab:
        u = um.unit
        st.markdown(f"**{md_escape(u.lecture_name)} › {md_escape(u.name)}** · unit {u.id} · language "
                    f"{md_escape(language_label(u.language))} · versions: attachment {u.versions.attachment}, "
                    f"video {u.versions.video}")
        if not um.released:
            st.info(withheld_note(um))
        show_said(u.id)
        if editable:
            metadata_form(um, settings.library_dir, material.course.id)
            transcript_form(um, material.course.id)
        if um.transcript is not None:  # above the deck's pages, which may run long
            # the label is Markdown: the file's name is escaped (a name may hold an image link or emphasis)
            with st.expander(f"Transcript {md_escape(um.transcript.path.name)} · "
                             f"{plural(len(um.transcript.cues), 'cue')}"):
                st.dataframe([{"start": c.start, "end": c.end, "text": c.text} for c in um.transcript.cues],
                             hide_index=True)
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
                        title = "" if um.is_hidden(p.page_number) else " ".join(p.title.split())
                        # a title cut short shows whole in the tooltip
                        st.caption(page_caption(um, p.page_number),
                                   help=md_escape(title) if short_title(title) != title else None)
with unit_tabs[-1]:
    st.dataframe([{"id": f.id, "question": f.question, "answer": f.answer} for f in material.faqs],
                 hide_index=True)
