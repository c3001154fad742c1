"""Ask: open a slide or a video second, ask a question, get an answer whose chips jump back.

The page only draws the view state (``studio.view_state.ViewState`` under ``keys.VIEW``): what is
open, where, which conversation, which language and variant. Widgets and chips change it through
the pure transitions of ``studio.view_state`` in their callbacks, which run before the page does;
the URL mirrors it, so a reload opens the same place and conversation again.
"""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import streamlit as st

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.chat.chat_pipeline import ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.errors import CitationStudioError, StoreProblem
from citation_core.lms.render import MAX_ANSWER_CHARS, render_markdown
from citation_core.lms.sources_list import with_sources_list
from citation_core.lms.storable import storable
from citation_core.lms.store import Message
from citation_core.material.highlight import evidence_cues
from citation_core.material.library import CourseMaterial
from citation_core.pipeline.languages import LANGUAGES
from citation_core.pipeline.trace import ProgressEvent
from citation_core.text import clock
from citation_core.text.languages import lang_code
from studio import cached
from studio import view_state as vs
from studio.ask_status import status_line
from studio.asking import PENDING, PendingAsk, needs_whole_page, pending
from studio.audit_table import audit_table
from studio.keys import (
    HISTORY,
    VIEW,
    W_ANSWER_VIEW,
    W_COURSE,
    W_LANGUAGE,
    W_MODE,
    W_PASTED,
    W_PREVIEW,
    W_QUESTION,
    W_SECOND,
    W_SLIDE,
    W_UNIT,
    W_VARIANT,
)
from studio.services import (
    answer_views,
    catalog_of,
    chat_pipeline,
    conversation_place,
    history_key,
    latest_conversation,
    store_answer,
    turns_so_far,
    writer_cuts,
)
from studio.store_status import read_or_stop, stop_unavailable
from studio.text import internal_error, md_escape, plural, short_title
from studio.transcript import transcript_panel
from studio.widgets import chips, model_badges, models_line, slide_image, stored_chips, trace_panel

DRAFT_REDRAW = 0.1  # seconds between two redraws of the answer while it is written
# slots an answer cited inline is redrawn into by turns: a slot is drawn again only after the three drawings
# after it were sent, so the one shown is never the one replaced unless three chip components in a row
# have not drawn yet (each draws within a frame or two once the first has loaded the script)
PARTIAL_SLOTS = 4
CLEANED = ("Some characters of this turn could not be stored: each broken character (a lone surrogate) is shown "
           "as \ufffd and NUL characters were left out.")
LOG = logging.getLogger("citation_studio.ask")

# The viewer column stays in sight while the chat column scrolls: a chip clicked in a long
# conversation moves a viewer the user can see. Taller than the window, it scrolls inside.
VIEWER_CSS = """<style>
[data-testid="stColumn"]:has(.st-key-viewer) {
  position: sticky; top: 3.75rem; align-self: flex-start;
  max-height: calc(100vh - 4.5rem); overflow-y: auto; overscroll-behavior: contain;
  padding-bottom: 1.25rem; box-sizing: border-box;
}
@media (max-width: 640px) {
  [data-testid="stColumn"]:has(.st-key-viewer) { position: static; max-height: none; overflow: visible; }
}
</style>"""

ss = st.session_state
if HISTORY not in ss:
    # the history key lives in the URL, so a reload or an app restart finds the same conversations
    # while another browser (another key) never sees them; the key is random (192 bits), and one from
    # the URL is taken only when it has that form
    ss[HISTORY] = history_key(st.query_params.get("history"))

config = cached.config()
courses = cached.courses()
if not courses:
    st.error("No course found: check material.course_dirs in application.yml.")
    st.stop()
store = read_or_stop(cached.store)


def _courses_by_id() -> dict[int, CourseMaterial]:
    return {m.course.id: m for m in cached.courses().values()}


def _preview() -> bool:
    """Instructor preview: from the view state, or on a fresh load from the URL."""
    return ss[VIEW].preview if VIEW in ss else vs.preview_param(st.query_params.to_dict())


def _catalog() -> vs.Catalog:
    return catalog_of(cached.courses(), _preview())


def _find(conversation_id: int) -> vs.Place | None:
    """Where a conversation of this history was asked (None for any other conversation)."""
    def find() -> vs.Place | None:
        conv = next((c for c in store.conversations(ss[HISTORY]) if c.id == conversation_id), None)
        return conversation_place(store, conv) if conv is not None else None

    return read_or_stop(find)


def _apply(transition: Callable[..., vs.ViewState], *args: Any) -> None:
    """Run a transition that takes (state, catalog, *args) on the session's view state."""
    catalog = _catalog()
    ss[VIEW] = vs.normalize(transition(ss[VIEW], catalog, *args), catalog)


def _set(transition: Callable[..., vs.ViewState], *args: Any) -> None:
    """Run a transition that takes (state, *args)."""
    ss[VIEW] = transition(ss[VIEW], *args)


def _on_click(click: dict[str, Any]) -> None:
    _apply(vs.apply_click, click)


def _select_unit() -> None:
    """Another unit: it opens with its own latest conversation (or none), in the language that was asked in."""
    unit_id = ss[W_UNIT]
    latest = read_or_stop(lambda: latest_conversation(store, ss[HISTORY], ss[VIEW].course_id, unit_id))
    if latest is None:
        _apply(vs.select_unit, unit_id)
    else:
        _apply(vs.select_unit, unit_id, latest[0], latest[1].language)


def _open(conversation_id: int) -> None:
    place = _find(conversation_id)
    if place is not None:
        _apply(vs.open_conversation, conversation_id, place)


catalog = _catalog()
if VIEW not in ss:
    mine = read_or_stop(lambda: store.conversations(ss[HISTORY]))
    ss[VIEW] = vs.reload(catalog, st.query_params.to_dict(), _find, mine[0].id if mine else None, list(LANGUAGES))
ss[VIEW] = vs.normalize(ss[VIEW], catalog)
state: vs.ViewState = ss[VIEW]



def _mirror_in_url(state: vs.ViewState) -> None:
    """The URL mirrors the state (a bound parameter of another page, or a stale one, is replaced)."""
    wanted = {"history": ss[HISTORY], **vs.to_params(state)}
    for name in vs.PARAM_NAMES:
        if name not in wanted and name in st.query_params:
            del st.query_params[name]
    for name, value in wanted.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


_mirror_in_url(state)

by_id = _courses_by_id()
# what students see, or with the instructor preview every unit (hidden pages stay hidden either way):
# the pickers, retrieval and the chips all read this one material
material = by_id[state.course_id].preview(state.preview)
um = material.unit(state.unit_id)
st.html(VIEWER_CSS)

# --- what is open ---------------------------------------------------------------------------------
# at 800 px the View control ("Slides | Transcript", the longest) and the switch's label stay whole
top = st.columns([1.8, 2.4, 2.2, 2.4], vertical_alignment="bottom")
ss[W_COURSE] = state.course_id
top[0].selectbox("Course", [c.id for c in catalog.courses], key=W_COURSE,
                 format_func=lambda cid: f"{by_id[cid].course.name} (id {cid})",
                 on_change=lambda: _apply(vs.select_course, ss[W_COURSE]))
ss[W_UNIT] = state.unit_id
open_course = catalog.course(state.course_id)
unit_choices = open_course.units if open_course is not None else ()
top[1].selectbox("Lecture unit", [u.id for u in unit_choices], key=W_UNIT,
                 format_func=lambda uid: f"{material.units[uid].unit.lecture_name} › {material.units[uid].unit.name}"
                 + (f" ({by_id[state.course_id].withheld[uid].withheld})" if uid in by_id[state.course_id].withheld
                    else ""),
                 on_change=_select_unit)
unit_info = catalog.unit(state.course_id, state.unit_id)
assert unit_info is not None  # the state is normalised against this catalog
modes = unit_info.modes
withheld = len(by_id[state.course_id].withheld)
ss[W_PREVIEW] = state.preview
top[3].toggle("Instructor preview", key=W_PREVIEW,
              help=(f"Also offer the {plural(withheld, 'unit')} of this course that students do not see yet "
                    "(not released). Hidden slides stay hidden.") if withheld else
              "Also offer units that students do not see yet (not released); this course has none.",
              on_change=lambda: _set(vs.set_preview, ss[W_PREVIEW]))


def _mode_name(mode: str) -> str:
    """"Slides", "Video", or "Transcript" for a unit with a transcript but no video."""
    return "Transcript" if mode == "video" and not unit_info.has_video else mode.capitalize()


if modes:
    ss[W_MODE] = state.mode
    top[2].segmented_control("View", list(modes), key=W_MODE, required=True, format_func=_mode_name,
                             on_change=lambda: _apply(vs.select_mode, ss[W_MODE]))

viewer_col, chat_col = st.columns([11, 10], gap="large")

# --- the viewer -----------------------------------------------------------------------------------
# A fragment: the slide picker, ◀ ▶, the second and the transcript rerun the viewer only, so stepping through a
# deck costs the same in a long conversation as in a new one (the chat is not drawn again). Anything else
# (course, unit, view, a chip click, a question) reruns the whole page, this viewer included.
DRAWN = (state.course_id, state.unit_id, state.mode, state.preview)  # what the page around the viewer shows


@st.fragment
def viewer() -> None:
    state: vs.ViewState = ss[VIEW]
    if (state.course_id, state.unit_id, state.mode, state.preview) != DRAWN or needs_whole_page(ss):
        st.rerun(scope="app")  # the page around the viewer shows another place, or a question waits: draw it all
    _mirror_in_url(state)
    material = by_id[state.course_id].preview(state.preview)
    um = material.unit(state.unit_id)
    unit_info = catalog.unit(state.course_id, state.unit_id)
    assert unit_info is not None  # the state is normalised against this catalog
    with st.container(key="viewer"):
        if state.notice is not None:
            show = {"info": st.info, "warning": st.warning, "error": st.error}[state.notice.level]
            show(md_escape(state.notice.text))
            st.toast(md_escape(state.notice.text), icon="⚠️" if state.notice.level != "info" else "ℹ️")
            ss[VIEW] = vs.clear_notice(state)
        st.subheader(md_escape(um.unit.name))
        if state.mode == "slides" and um.deck is not None and unit_info.visible_pages:
            deck = um.deck
            ss[W_SLIDE] = state.page
            st.selectbox("Slide", list(unit_info.visible_pages), key=W_SLIDE, label_visibility="collapsed",
                         format_func=lambda p: f"{um.caption(p)} · {short_title(deck.page(p).title)}",
                         on_change=lambda: _apply(vs.select_page, ss[W_SLIDE]))
            lit = 0
            if state.evidence:
                png, lit = cached.highlighted_png(deck.path, state.page, state.evidence)
            else:
                png = cached.deck_png(deck.path, state.page)
            slide_image(png)
            if state.evidence:
                st.caption(("Lit up: the line the citation quotes." if lit == 1 else
                            f"Lit up: the {lit} lines the citation quotes.") if lit else
                           "The quoted lines could not be found on the rendered page; they read: "
                           + md_escape(" ".join(state.evidence.split())))
            nav = st.columns([1, 4, 1], vertical_alignment="center")
            visible = unit_info.visible_pages
            nav[0].button("◀", key="prev", disabled=state.page <= visible[0], width="stretch", help="Previous slide",
                          on_click=_apply, args=(vs.step_page, -1))
            nav[1].markdown(f"<div data-testid='viewer-caption' style='text-align:center;font-weight:600'>"
                            f"{html.escape(um.caption(state.page))}</div>", unsafe_allow_html=True)
            nav[2].button("▶", key="next", disabled=state.page >= visible[-1], width="stretch", help="Next slide",
                          on_click=_apply, args=(vs.step_page, 1))
        elif state.mode == "video" and um.unit.video is not None:
            # Streamlit seeks only when a player mounts or its start second changes: every jump mounts a
            # fresh player (the container key counts the jumps), which seeks again, also to the same second.
            # A chip click plays at once: muted, as browsers allow autoplay only without sound.
            with st.container(key=f"player-{state.seek}"):
                st.video(str(um.unit.video), start_time=int(state.second), autoplay=state.play, muted=state.play,
                         subtitles=str(um.unit.transcript) if um.unit.transcript and um.unit.transcript.suffix == ".vtt"
                         else None)
            caption = (f"Video · playing from {clock(state.second)} · muted, turn the sound on in the player"
                       if state.play else f"Video · opened at {clock(state.second)} · press play in the player")
            st.markdown(f"<div data-testid='viewer-caption' style='text-align:center;font-weight:600'>"
                        f"{html.escape(caption)}</div>", unsafe_allow_html=True)
            ss[W_SECOND] = float(state.second)
            last = vs.MAX_SECOND if unit_info.length is None else min(vs.MAX_SECOND, unit_info.length)
            st.number_input("Open at second", 0.0, max(last, float(state.second)), step=1.0, key=W_SECOND,
                            on_change=lambda: _apply(vs.select_second, ss[W_SECOND]))
            if um.transcript is not None:
                cited = (evidence_cues(um.transcript.cues, state.second, state.until, state.evidence)
                         if state.play else [])
                with st.expander("Transcript", expanded=bool(cited)):
                    if cited:
                        st.caption(("Lit up: the cue" if len(cited) == 1 else f"Lit up: the {len(cited)} cues")
                                   + " the citation quotes; the panel follows the video while it plays.")
                    transcript_panel(um.transcript.cues, cited, f"player-{state.seek}", key="transcript")
        elif state.mode == "video" and um.transcript is not None:
            # a transcript without a video (an uploaded deck with its transcript): the cues to read, a chip's lit up
            cited = evidence_cues(um.transcript.cues, state.second, state.until, state.evidence) if state.play else []
            caption = f"Transcript · opened at {clock(state.second)} · this unit has no video"
            st.markdown(f"<div data-testid='viewer-caption' style='text-align:center;font-weight:600'>"
                        f"{html.escape(caption)}</div>", unsafe_allow_html=True)
            if cited:
                st.caption("Lit up: the cue the citation quotes." if len(cited) == 1 else
                           f"Lit up: the {len(cited)} cues the citation quotes.")
            transcript_panel(um.transcript.cues, cited, f"player-{state.seek}", key="transcript")
        else:
            st.info("This unit has no deck or video.")


with viewer_col:
    viewer()


def _answer_views(msg: Message, answer_material: CourseMaterial) -> None:
    """The last answer as a Sources list, its trace or its raw stored text (from what was stored with it)."""
    shown = st.segmented_control("Last answer as", ["Sources list", "Trace", "Raw answer"], key=W_ANSWER_VIEW,
                                 required=True, default="Sources list")
    if shown == "Sources list":
        st.text(with_sources_list(msg.content, answer_material))
    elif shown == "Trace":
        meta = msg.meta
        if not isinstance(meta.get("traces"), dict):
            st.caption("This answer was stored without its trace.")
            return
        st.caption(md_escape(models_line(meta.get("models") or {})))
        if meta.get("context_switched"):
            st.info(f"The writer switched context to unit {meta.get('switched_to')}: the open view was not cited.")
        if isinstance(meta.get("audits"), list):
            st.markdown("**Support audit** · each citation's sentence, the evidence found in its source, the verdict")
            audit_table(meta["audits"], answer_material)
        trace_panel(meta["traces"], key=str(msg.id))
    elif shown == "Raw answer":
        st.code(msg.content, language="markdown", wrap_lines=True)


def material_language(code: str) -> str:
    """A unit's language as people read it, e.g. "German (de)"; a code the app does not know, as it is."""
    known = LANGUAGES.get(code.replace("_", "-").split("-")[0].lower())
    return f"{known.name} ({code})" if known is not None else code


# --- the chat -------------------------------------------------------------------------------------
with chat_col:
    st.subheader("Ask about what you see")
    q_cols = st.columns([3, 2], vertical_alignment="bottom")  # selectboxes: they fit a narrow column
    ss[W_LANGUAGE] = state.language
    q_cols[0].selectbox("Answer language", list(LANGUAGES), key=W_LANGUAGE,
                        format_func=lambda c: f"{LANGUAGES[c].native} ({c})",
                        on_change=lambda: _set(vs.select_language, ss[W_LANGUAGE]))
    ss[W_VARIANT] = state.variant
    q_cols[1].selectbox("Variant", ["default", "advanced"], key=W_VARIANT,
                        on_change=lambda: _set(vs.select_variant, ss[W_VARIANT]))
    offline = model_badges(config, state.variant)
    if state.language != lang_code(um.unit.language):
        asked = LANGUAGES[state.language].name
        st.warning(f"The answer language, {asked}, differs from this unit's material, which is in "
                   f"{material_language(um.unit.language)}. "
                   + ("The offline model cannot translate: keywords and summaries stay in the material's language. "
                      "Point a role at an LLM in application.yml to get them translated." if offline else
                      f"Keywords and summaries are written in {asked}, and sentences are matched to slides in "
                      "another language, which finds fewer of them."))

    messages = (read_or_stop(partial(cached.messages, state.conversation_id))
                if state.conversation_id is not None else ())
    payloads = cached.conversation_payloads(messages, material)
    for msg in messages:
        with st.chat_message(msg.role):
            if msg.role == "user":
                st.markdown(md_escape(msg.content))
            else:
                stored_chips(payloads[msg.id], key=f"msg-{msg.id}", on_click=_on_click)
                for cut in writer_cuts(msg.meta):
                    st.warning(md_escape(f"This answer was cut short and is cited as far as it came: {cut}"),
                               icon=":material/content_cut:")

    # the turn being asked shows here, above the form: the question, then the writer's draft, then the status
    pending_slot = st.container()

    with st.form("ask", clear_on_submit=True, border=True):
        question = st.text_area("Question", placeholder="e.g. How does the merge step work?", height=80,
                                key=W_QUESTION)
        with st.expander("Paste an answer instead of writing one (QA mode)"):
            pasted = st.text_area("Answer to cite", height=120, key=W_PASTED)
        submitted = st.form_submit_button("Ask", type="primary", width="stretch")

    if submitted:
        question, pasted = (question or "").strip(), (pasted or "").strip()
        if len(pasted) > MAX_ANSWER_CHARS:
            st.error(f"The pasted answer has {len(pasted):,} characters, more than the limit of "
                     f"{MAX_ANSWER_CHARS:,}: not cited.")
        elif not question:
            st.warning("Type a question first.")
        else:
            ss[PENDING] = PendingAsk(
                question, pasted or None, material.course.id, state.preview,
                ViewPosition(um.unit.id, page=state.page) if state.mode == "slides"
                else ViewPosition(um.unit.id, second=float(state.second)),
                state.language, state.variant, state.conversation_id, tuple(turns_so_far(messages)))

    asking = pending(ss)
    if asking is not None:  # asked in this run, or in one that ended before its answer was stored
        asked_in = by_id.get(asking.course_id)
        if asked_in is None:
            del ss[PENDING]
            st.error("The course of the question is no longer in the library: not answered.")
            st.stop()
        asked_material = asked_in.preview(asking.preview)
        with pending_slot:
            with st.chat_message("user"):
                st.markdown(md_escape(asking.question))
            reply = st.chat_message("assistant")
        draft_slot = reply.empty()
        with reply:
            status = st.status("Writing the answer…", expanded=False)

        written: list[str] = []
        shown_at = [0.0]

        def show_words(piece: str) -> None:
            """The answer as the writer writes it, redrawn at most every DRAFT_REDRAW seconds: rendered as the
            stored answers are (escaped; half-written Markdown such as an open code fence stays readable)."""
            written.append(piece)
            now = time.monotonic()
            if now - shown_at[0] < DRAFT_REDRAW:
                return
            shown_at[0] = now
            text = storable("".join(written)[:MAX_ANSWER_CHARS])  # shown as it will be stored
            with draft_slot.container():
                st.caption("Writing · the citations are added when the answer is complete")
                st.html(f'<div class="draft-stream">{render_markdown(text)}</div>')

        def show_draft(text: str) -> None:
            """The writer's answer at once, uncited, until the cited answer replaces it (after the rerun)."""
            with draft_slot.container():
                st.caption("Draft · the citations are being added")
                chips(storable(text), asked_material, key="draft")
            status.update(label="Adding citations…")

        partials = [0]
        drawn_chips = [0]
        writing = [True]  # the writer is still writing (an inline turn's status says when it is done)
        # an inline answer is redrawn into a ring of slots: a new chip component is empty until its script has
        # drawn it, so the drawings before it stay in their slots, the newest drawn one shown, until then (the
        # component shows the newest drawing and hides the others: chips.js, supersedeEarlierDraft). One slot
        # redrawn in place flashed empty at every redraw; with two, a first drawing whose script came late
        # hid the newer one, whose slot was then redrawn while it was the one shown
        drawn: list[Any] = []  # the caption's slot and the answer's slots, made at the first redraw

        def show_partial(text: str) -> None:
            """An answer cited inline, as far as it is written: its text and the chips that are ready (a
            half-typed handle or one whose keyword and summary are still being made shows nothing yet)."""
            now = time.monotonic()
            chips_now = text.count("[cite:")
            if writing[0] and now - shown_at[0] < DRAFT_REDRAW and chips_now <= drawn_chips[0]:
                return  # (a new chip is drawn at once, and so is every render once the text is complete)
            shown_at[0], drawn_chips[0] = now, chips_now
            partials[0] += 1
            if not drawn:
                area = draft_slot.container()
                drawn.extend(area.empty() for _ in range(1 + PARTIAL_SLOTS))
            doing = "Writing" if writing[0] else "Written"
            drawn[0].caption(f"{doing} · each chip appears as soon as its source is ready")
            with drawn[1 + partials[0] % PARTIAL_SLOTS]:
                chips(storable(text), asked_material, key=f"partial-{partials[0]}")

        inline = False  # cited inline (citation.mode: inline): chips appear while it is written, no draft swap

        def progress(ev: ProgressEvent) -> None:
            if ev.pass_name == "chat" and ev.status != "start":
                writing[0] = False
            line = status_line(ev, inline)
            if line.log is not None:
                status.write(line.log)
            status.update(label=line.label)

        try:
            chat = chat_pipeline(config, asked_material)
            inline = asking.pasted is None and chat.cites_inline(asking.variant)
            result: ChatResult = chat(
                asking.question, asking.position, language=asking.language, variant=asking.variant,
                pasted_answer=asking.pasted, progress=progress, history=asking.history,
                on_draft=None if inline else show_draft, on_delta=None if inline else show_words,
                on_partial=show_partial if inline else None)
        except CitationStudioError as exc:
            del ss[PENDING]
            status.update(label="Failed", state="error")
            st.error(md_escape(exc))
            st.stop()
        except Exception as exc:  # noqa: BLE001  (a bug: one line here, its traceback in the app's log)
            del ss[PENDING]
            LOG.exception("answering %r failed", asking.question[:200])
            status.update(label="Failed", state="error")
            st.error(md_escape(internal_error(exc, "The question could not be answered")))
            st.stop()
        failed = bool(result.failures)
        status.update(label=f"Done · {plural(len(result.citations), 'citation')}"
                      + (" · with failures" if failed else ""),
                      state="error" if failed else "complete", expanded=False)
        # one transaction: the conversation (when new), the question and the answer; the question is done
        # once it is stored (nothing between the two can end the run)
        try:
            saved = store_answer(
                store, asked_material, ss[HISTORY], asking.conversation_id, asking.position.unit_id, result,
                {"course": asking.course_id, "unit": asking.position.unit_id, "page": asking.position.page,
                 "second": asking.position.second, "language": asking.language, "variant": asking.variant},
                extra_answer_meta=answer_views(result))
        except StoreProblem as exc:
            del ss[PENDING]
            stop_unavailable(exc)
        except CitationStudioError as exc:
            del ss[PENDING]
            st.error(md_escape(exc))
            st.stop()
        del ss[PENDING]
        ss[VIEW] = vs.conversation_started(ss[VIEW], saved.conversation_id)
        if saved.cleaned:  # the answer shows as stored (after the rerun), so say why it differs
            ss[VIEW] = vs.with_notice(ss[VIEW], "warning", CLEANED)
        st.rerun()

    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if last is not None:
        _answer_views(last, material)

    mine = read_or_stop(lambda: store.conversations(ss[HISTORY]))
    if mine:
        with st.expander(f"History ({plural(len(mine), 'conversation')})"):
            if state.conversation_id is not None:
                st.button("New conversation", icon=":material/add:", on_click=_set, args=(vs.new_conversation,))
            for conv in mine[:20]:
                when = time.strftime("%d %b %H:%M", time.localtime(conv.created))
                course = by_id.get(conv.course_id)
                if course is None:
                    where = f"course {conv.course_id} (no longer in the library)"
                else:
                    unit = course.units.get(conv.unit_id)
                    where = f"{course.course.name} › {unit.unit.name if unit else f'unit {conv.unit_id}'}"
                st.button(md_escape(f"{conv.title} · {where} · {when}"), key=f"conv-{conv.id}",
                          disabled=conv.id == state.conversation_id or course is None,
                          on_click=_open, args=(conv.id,))
