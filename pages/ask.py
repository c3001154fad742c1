"""Ask: open a slide or a video second, ask a question, get an answer whose chips jump back."""

from __future__ import annotations

import html
import time
from typing import Any

import streamlit as st

import studio.boot  # noqa: F401  (deep links on a fresh server)
from citation_core.chat.chat_pipeline import ChatResult
from citation_core.chat.view import ViewPosition
from citation_core.errors import CitationStudioError
from citation_core.lms.sources_list import with_sources_list
from citation_core.material.library import CourseMaterial, UnitMaterial
from citation_core.pipeline.languages import LANGUAGES
from citation_core.pipeline.trace import ProgressEvent
from citation_core.textutil import clock
from studio import cached
from studio.services import chat_pipeline, history_key, store_answer
from studio.text import md_escape
from studio.widgets import chips, model_badges, trace_panel

ss = st.session_state
if "session_id" not in ss:
    # the history key lives in the URL, so a reload or an app restart finds the same conversations
    # while another browser (another key) never sees them; the key is random (192 bits), and one from
    # the URL is taken only when it has that form
    ss["session_id"] = history_key(st.query_params.get("history"))
if st.query_params.get("history") != ss["session_id"]:
    st.query_params["history"] = ss["session_id"]
ss.setdefault("seek_parity", 0)

config = cached.config()
courses = cached.courses()
if not courses:
    st.error("No course found: check material.course_dirs in application.yml.")
    st.stop()


def _reset_view() -> None:
    ss["page"] = 1
    ss["second"] = 0.0
    ss.pop("conversation_id", None)
    ss.pop("last_result", None)


top = st.columns([2, 3, 2])
course_label = top[0].selectbox("Course", list(courses), key="course_label", on_change=_reset_view)
material: CourseMaterial = courses[course_label]
units = {f"{um.unit.lecture_name} › {um.unit.name}": uid for uid, um in material.units.items()}
if ss.get("unit_id") not in material.units:
    ss["unit_id"] = next(iter(material.units))
    _reset_view()
labels = list(units)
unit_label = top[1].selectbox("Lecture unit", labels, index=labels.index(
    next(lbl for lbl, uid in units.items() if uid == ss["unit_id"])), on_change=_reset_view)
if units[unit_label] != ss["unit_id"]:
    ss["unit_id"] = units[unit_label]
um: UnitMaterial = material.unit(ss["unit_id"])
modes = (["Slides"] if um.deck else []) + (["Video"] if um.unit.video else [])
if ss.get("mode") not in modes:
    ss["mode"] = modes[0] if modes else "Slides"
top[2].segmented_control("View", modes, key="mode")
ss.setdefault("page", 1)
ss.setdefault("second", 0.0)

viewer_col, chat_col = st.columns([11, 10], gap="large")


def _apply_click(click: dict[str, Any]) -> None:
    """A chip was clicked: move the viewer (again, even when it is the same target)."""
    if click.get("nonce") == ss.get("last_click"):
        return
    ss["last_click"] = click.get("nonce")
    unit_id = int(click.get("unitId", ss["unit_id"]))
    if unit_id in material.units:
        ss["unit_id"] = unit_id
    ss["stale_notice"] = bool(click.get("stale"))
    if click.get("kind") == "slide":
        ss["mode"], ss["page"] = "Slides", int(click["page"])
    elif click.get("kind") == "video":
        ss["mode"], ss["second"] = "Video", float(click["start"])
        ss["seek_parity"] ^= 1  # the same second again still seeks
    elif click.get("kind") == "unit":
        target = material.unit(unit_id)
        ss["mode"] = "Slides" if target.deck else "Video"
        ss["page"], ss["second"] = 1, 0.0


# --- chat column first: a chip click must move the viewer in this same run ---------------------
with chat_col:
    st.subheader("Ask about what you see")
    q_cols = st.columns([3, 2])
    language = q_cols[0].selectbox(
        "Answer language", list(LANGUAGES), format_func=lambda c: f"{LANGUAGES[c].native} ({c})", key="lang")
    variant = q_cols[1].segmented_control("Variant", ["default", "advanced"], default="default", key="variant")
    offline = model_badges(config, variant or "default")
    if offline and language != um.unit.language:
        st.info(f"The offline model cannot write {LANGUAGES[language].name}: keywords and summaries stay in the "
                f"language of the material ({um.unit.language}). Point a role at an LLM in application.yml "
                "to get them translated.")

    store = cached.store()
    conversation_id = ss.get("conversation_id")
    if conversation_id is not None:
        for msg in store.messages(conversation_id):
            with st.chat_message(msg.role):
                if msg.role == "user":
                    st.markdown(md_escape(msg.content))
                else:
                    chips(msg.content, material, key=f"msg-{msg.id}", on_click=_apply_click)

    with st.form("ask", clear_on_submit=False, border=True):
        question = st.text_area("Question", placeholder="e.g. How does the merge step work?", height=80)
        with st.expander("Paste an answer instead of writing one (QA mode)"):
            pasted = st.text_area("Answer to cite", height=120, key="pasted")
        submitted = st.form_submit_button("Ask", type="primary", use_container_width=True)

    if submitted:
        if not question.strip():
            st.warning("Type a question first.")
        else:
            position = (ViewPosition(um.unit.id, page=int(ss["page"])) if ss["mode"] == "Slides"
                        else ViewPosition(um.unit.id, second=float(ss["second"])))
            with st.status("Running the pipeline…", expanded=True) as status:
                def progress(ev: ProgressEvent) -> None:
                    if ev.status != "start":
                        status.write(f"{'✅' if ev.status == 'done' else '⚠️'} {ev.pass_name} · {ev.phase}")
                    status.update(label=f"{ev.pass_name} pass · {ev.phase}…")

                try:
                    status.write("✍️ writing the answer")
                    result: ChatResult = chat_pipeline(config, material)(
                        question.strip(), position, language=language, variant=variant or "default",
                        pasted_answer=pasted.strip() or None, progress=progress)
                except CitationStudioError as exc:
                    status.update(label="Failed", state="error")
                    st.error(md_escape(exc))
                    st.stop()
                failed = bool(result.failures)
                status.update(label=f"Done · {len(result.citations)} citations" + (" · with failures" if failed
                              else ""), state="error" if failed else "complete", expanded=False)
            # one transaction: the conversation (when new), the question and the answer
            try:
                conversation_id, _ = store_answer(store, material, ss["session_id"], conversation_id, um.unit.id,
                                                  result, {"unit": um.unit.id, "page": position.page,
                                                           "second": position.second, "language": language,
                                                           "variant": variant})
            except CitationStudioError as exc:
                st.error(md_escape(exc))
                st.stop()
            ss["conversation_id"] = conversation_id
            ss["last_result"] = result
            st.rerun()

    result = ss.get("last_result")
    if isinstance(result, ChatResult):
        # only the chosen view is rendered: the trace is large and every rerun would redraw it
        shown = st.segmented_control("Last answer as", ["Sources list", "Trace", "Raw answer"],
                                     default="Sources list", key="answer_view")
        if shown == "Sources list":
            st.text(with_sources_list(result.answer, material))
        elif shown == "Trace":
            st.caption(" · ".join(f"{role}: {md_escape(m)}" for role, m in result.models.items()))
            if result.context_switched:
                st.info(f"The writer switched context to unit {result.switched_to}: the open view was not cited.")
            trace_panel(result.traces)
        elif shown == "Raw answer":
            st.code(result.answer, language="markdown", wrap_lines=True)

    mine = store.conversations(ss["session_id"])
    if mine:
        with st.expander(f"History ({len(mine)} conversations)"):
            if conversation_id is not None and st.button("New conversation", icon=":material/add:"):
                ss.pop("conversation_id", None)
                ss.pop("last_result", None)
                st.rerun()
            for conv in mine[:20]:
                when = time.strftime("%d %b %H:%M", time.localtime(conv.created))
                unit_name = material.units[conv.unit_id].unit.name if conv.unit_id in material.units else ""
                label = f"{conv.title} · {unit_name} · {when}"
                if st.button(label, key=f"conv-{conv.id}", disabled=conv.id == conversation_id):
                    ss["conversation_id"] = conv.id
                    ss.pop("last_result", None)
                    if conv.unit_id in material.units:
                        ss["unit_id"] = conv.unit_id
                    st.rerun()

# --- the viewer ----------------------------------------------------------------------------------
um = material.unit(ss["unit_id"])
with viewer_col:
    if ss.pop("stale_notice", False):
        st.warning("This source changed since the answer was written: opened the unit without the exact position.")
    st.subheader(md_escape(um.unit.name))
    if ss["mode"] == "Slides" and um.deck is not None:
        total = len(um.deck.pages)
        ss["page"] = max(1, min(int(ss["page"]), total))
        nav = st.columns([1, 4, 1])
        if nav[0].button("◀", key="prev", disabled=ss["page"] <= 1, use_container_width=True):
            ss["page"] -= 1
        if nav[2].button("▶", key="next", disabled=ss["page"] >= total, use_container_width=True):
            ss["page"] += 1
        pages = list(range(1, total + 1))
        nav[1].selectbox("Slide", pages, index=ss["page"] - 1, label_visibility="collapsed",
                         format_func=lambda p: f"{um.caption(p)} · {um.deck.page(p).title[:40]}",  # type: ignore[union-attr]
                         key=f"slide-pick-{um.unit.id}-{ss['page']}",
                         on_change=lambda: ss.update(page=ss[f"slide-pick-{um.unit.id}-{ss['page']}"]))
        st.image(cached.deck_png(um.deck.path, ss["page"]), use_container_width=True)
        st.markdown(f"<div data-testid='viewer-caption' style='text-align:center;font-weight:600'>"
                    f"{html.escape(um.caption(ss['page']))}</div>", unsafe_allow_html=True)
    elif ss["mode"] == "Video" and um.unit.video is not None:
        start = float(ss["second"])
        # Streamlit seeks only when a player mounts or its start second changes: a chip clicked again
        # for the same second mounts a fresh player (the container key alternates), which seeks again.
        with st.container(key=f"player-{ss['seek_parity']}"):
            st.video(str(um.unit.video), start_time=int(start),
                     subtitles=str(um.unit.transcript) if um.unit.transcript and um.unit.transcript.suffix == ".vtt"
                     else None)
        st.markdown(f"<div data-testid='viewer-caption' style='text-align:center;font-weight:600'>"
                    f"Video · opened at {clock(start)}</div>", unsafe_allow_html=True)
        st.number_input("Open at second", 0.0, step=1.0, key="second")
        if um.transcript is not None:
            with st.expander("Transcript"):
                for cue in um.transcript.cues:
                    st.markdown(f"`{clock(cue.start)}` {md_escape(cue.text)}")
    else:
        st.info("This unit has no deck or video.")
