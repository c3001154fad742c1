"""Inline citing: the sources of one chat turn under short handles (``[cite:3]``) that the writer puts
behind its sentences while it streams, expanded here into final markers.

A source gets its handle when a tool of the writer returns it (the same source, the same handle). As soon
as a handle appears in the streamed text its keyword and summary are asked for in worker threads:
keywords one after another in order of first appearance (each call sees the keywords used so far, so they
stay unique), summaries side by side. ``expand`` turns every complete handle into its final marker; a
partial render hides a half-typed handle at the end and every handle whose enrichment is still running; an
invented handle is dropped and counted in the trace. The final render waits for running enrichments up to
``deadline_seconds`` and then keeps the marker with empty fields. The text outside handles never changes.

A handle written as code (in a code span or a fenced block, ``text.markdown_code``) is code text, not a
handle: it stays exactly as written. While the text streams, a handle behind an open code span is not
decided yet (the span may close later or never): a partial render hides it, and the readable stream holds
it back, until what follows decides it.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass

from ..contract import FinalMarker, SourceRef
from ..errors import ModelCallError
from ..sources import FaqSource, PageChunk, Source, TranscriptSegment
from ..text.markdown_code import CodeScanner, Run
from .citation_pipeline import Citation
from .enrich import clean_keyword, clean_summary, make_unique
from .evidence import find_evidence, sentence_before
from .languages import LanguageChoice, choose_language
from .model_calls import Deadline, RoleModel, call_model
from .prompts import Prompts
from .trace import Failure, Trace

HANDLE = re.compile(r"\[cite:([0-9]{1,9})\]")
# the end of a partial text that may still become a handle: "[", "[c", …, "[cite:", "[cite:12"
_HALF_TYPED = re.compile(r"\[(?:c(?:i(?:t(?:e(?::[0-9]{0,9})?)?)?)?)?\Z")
_CUT_HANDLE = re.compile(r"\[cite:[0-9]{0,9}\Z")  # a handle a stream cut short ended in
_LONGEST_HALF = len("[cite:123456789")


def uncited(text: str, final: bool = True) -> str:
    """``text`` without its handles: the writer's answer as a reader sees it before it is cited (while it
    streams, ``final=False``, without a half-typed handle at the end either, nor a handle not decided yet).
    Handles written as code stay."""
    runs, pending = CodeScanner.read(text, final)
    out = [run.text if run.code else HANDLE.sub("", run.text) for run in runs]
    if pending:
        out.append(HANDLE.sub("", pending))
    if out and (pending or not runs[-1].code):
        out[-1] = _without_half_handle(out[-1], final)
    return "".join(out)


def _without_half_handle(text: str, final: bool) -> str:
    """``text`` without the handle cut short at its end (``final``), or the one still being typed there."""
    cut = (_CUT_HANDLE if final else _HALF_TYPED).search(text)
    return text if cut is None else text[: cut.start()]


def prose_handles(runs: Iterable[Run]) -> Iterator[int]:
    """The handles written in the prose of ``runs``, in order."""
    for run in runs:
        if not run.code:
            for m in HANDLE.finditer(run.text):
                yield int(m.group(1))


def source_ref(source: Source) -> SourceRef:
    """The reference a marker of ``source`` carries (as the placement pipeline serializes it)."""
    if isinstance(source, PageChunk):
        return SourceRef.of_page(source.lecture_unit_id, source.page_number)
    if isinstance(source, TranscriptSegment):
        return SourceRef.of_span(source.lecture_unit_id, source.start, source.end)
    return SourceRef.of_faq(source.id)


def _content(source: Source) -> str:
    return source.content if isinstance(source, FaqSource) else source.text


_READ_BACK = 2000  # characters of text before a handle kept to find the sentence it stands behind


class UncitedStream:
    """``uncited`` piece by piece, in time linear in the text: ``feed`` returns the text that became readable.
    A possible handle at the end is held back until it is complete or turns out to be text, and so is a
    handle behind an open code span, until the span closes (code text: it is given as written) or the
    paragraph ends without closing it (a handle: left out). ``on_handle`` gets each handle of the prose (and the
    end of the text before it, without handles) as
    soon as it is read."""

    def __init__(self, on_handle: Callable[[int, str], None] | None = None) -> None:
        self._code = CodeScanner()
        self._held = ""  # prose at the end that may still become a handle
        self._sent = 0  # characters of the text not decided yet that were given out already
        self._on_handle = on_handle
        self._read = ""  # the end of the text given out so far (the sentence a handle stands behind is in it)

    def feed(self, piece: str) -> str:
        return self._take(self._code.feed(piece), final=False)

    def end(self) -> str:
        """What is still held back, without a handle cut short."""
        return self._take(self._code.end(), final=True)

    def _take(self, runs: list[Run], final: bool) -> str:
        out: list[str] = []
        for run in runs:
            text = run.text
            if self._sent:  # given out while it was not decided (it holds no handle)
                given = min(self._sent, len(text))
                text, self._sent = text[given:], self._sent - given
            if run.code:
                out += [self._held, text]
                self._held = ""
            else:
                out.append(self._prose(text, "".join(out)))
        pending = self._code.pending
        if pending:  # behind an open code span or at the start of a line: no handle goes on into it
            out.append(self._held)
            self._held = ""
            # its text up to the first handle (or what may become one) reads the same whichever it is
            handle = HANDLE.search(pending, self._sent)
            half = None if handle else _HALF_TYPED.search(pending, max(self._sent, len(pending) - _LONGEST_HALF))
            cut = handle.start() if handle else half.start() if half else len(pending)
            out.append(pending[self._sent: cut])
            self._sent = max(self._sent, cut)
        elif final:
            out.append(_without_half_handle(self._held, final=True))
            self._held = ""
        readable = "".join(out)
        self._read = (self._read + readable)[-_READ_BACK:]
        return readable

    def _prose(self, piece: str, given: str) -> str:
        """``piece`` of prose without its handles (``given``: what this feed gave out before it)."""
        text = self._held + piece
        if self._on_handle is not None:
            for m in HANDLE.finditer(text):
                before = self._read + given + HANDLE.sub("", text[: m.start()])
                self._on_handle(int(m.group(1)), before[-_READ_BACK:])
        text = HANDLE.sub("", text)
        half = _HALF_TYPED.search(text)
        cut = len(text) if half is None else half.start()
        self._held = text[cut:]
        return text[:cut]


@dataclass(frozen=True)
class Registered:
    """One source of the turn under its handle."""

    handle: int
    ref: SourceRef
    source: Source


@dataclass
class _Enrichment:
    keyword: Future[str]
    summary: Future[str]

    def done(self) -> bool:
        return self.keyword.done() and self.summary.done()


def _value(future: Future[str]) -> str:
    """A finished field's text; empty while it runs, and when it was cancelled or broke."""
    if not future.done() or future.cancelled() or future.exception() is not None:
        return ""
    return future.result()


class CitationRegistry:
    """The sources of one turn, their handles and their enrichment. Thread-safe: the writer's tools
    register sources and the stream expands text from one thread, enrichment runs in others.

    ``enrichment`` is the role model of keywords and summaries (``keyword`` and ``summary`` prompts);
    ``deadline_seconds`` bounds each enrichment call and how long the final render waits (None: no bound).
    ``close`` ends the worker threads (a hanging call is left to its own timeout).
    """

    def __init__(self, enrichment: RoleModel, prompts: Prompts, *, language: str | None = None,
                 deadline_seconds: float | None = 60.0, trace: Trace | None = None, workers: int = 4) -> None:
        self.role = enrichment
        self.prompts = prompts
        self.language: LanguageChoice = choose_language(language)
        self.deadline_seconds = deadline_seconds
        self.trace = trace if trace is not None else Trace("inline")
        self.trace.info.update(language=self.language.language.code, citation_mode="inline",
                               deadline_seconds=deadline_seconds,
                               models={"keyword_summary": enrichment.label})
        self._lock = threading.RLock()
        self._by_ref: dict[SourceRef, Registered] = {}
        self._by_handle: dict[int, Registered] = {}
        self._enrichments: dict[int, _Enrichment] = {}
        self._order: list[int] = []  # handles in order of first appearance
        self._keywords_used: list[str] = []
        self._finish_by: float | None = None  # when the final render stops waiting for enrichment
        self._late_told = False  # the enrichment not done by then is in the trace
        self._invented: dict[int, int] = {}  # handle -> times dropped from the final text
        self._summaries = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="inline-summary")
        self._keywords = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inline-keyword")  # in order

    # --- sources ---------------------------------------------------------------------------------------

    def register(self, source: Source) -> int:
        """The handle of ``source``: a new one, or the one it already has (same reference, same handle)."""
        ref = source_ref(source)
        with self._lock:
            known = self._by_ref.get(ref)
            if known is not None:
                return known.handle
            entry = Registered(len(self._by_ref) + 1, ref, source)
            self._by_ref[ref] = entry
            self._by_handle[entry.handle] = entry
            return entry.handle

    def registered(self) -> tuple[Registered, ...]:
        with self._lock:
            return tuple(self._by_handle.values())

    # --- enrichment ------------------------------------------------------------------------------------

    def _start(self, handle: int, before: str = "") -> None:
        """Start the keyword and summary of ``handle`` (once; called under the lock). ``before``: the text
        the handle first stands behind, whose last sentence the summary is about (as in placement mode)."""
        if handle in self._enrichments:
            return
        entry = self._by_handle[handle]
        self._order.append(handle)
        sentence = sentence_before(before, len(before)) if before.strip() else ""
        self._enrichments[handle] = _Enrichment(self._keywords.submit(self._keyword, entry),
                                                self._summaries.submit(self._summary, entry, sentence))

    def _keyword(self, entry: Registered) -> str:
        with self._lock:
            used = list(self._keywords_used)
        prompt = self.prompts.render("keyword", self.language.line_for("keyword"),
                                     UsedKeywords=", ".join(used) if used else "(none yet)",
                                     Paragraph=_content(entry.source))
        try:
            resp = call_model(self.trace, self.role, "keyword", prompt,
                              {"paragraph": _content(entry.source), "used_keywords": used}, entry.handle,
                              Deadline.after(self.deadline_seconds))
        except ModelCallError as exc:
            self.trace.fail(Failure("keyword_task", f"keyword call failed: {exc}", entry.handle,
                                    "keyword left empty"))
            return ""
        cleaned = clean_keyword(resp.content)
        with self._lock:
            keyword = make_unique(cleaned, self._keywords_used) if cleaned else ""
            if keyword:
                self._keywords_used.append(keyword)
        return keyword

    def _summary(self, entry: Registered, sentence: str = "") -> str:
        """The summary of a source, about the passage of it that ``sentence`` (the sentence its handle first
        stands behind) quotes or says, as placement mode makes it; of the whole source without one."""
        found = find_evidence(sentence, entry.source) if sentence else None
        passage = found.text if found is not None else ""
        prompt = self.prompts.render("summary", self.language.line_for("summary"),
                                     Paragraph=_content(entry.source), Evidence=passage)
        inputs = {"paragraph": _content(entry.source), **({"evidence": passage} if passage else {})}
        try:
            resp = call_model(self.trace, self.role, "summary", prompt, inputs,
                              entry.handle, Deadline.after(self.deadline_seconds))
        except ModelCallError as exc:
            self.trace.fail(Failure("summary", f"summary call failed: {exc}", entry.handle, "summary left empty"))
            return ""
        return clean_summary(resp.content)

    def begin(self, handle: int, before: str = "") -> None:
        """Start the enrichment of ``handle`` when it is registered (once): it was read in the answer, behind
        the text ``before`` (its end, as far as the reader has it)."""
        with self._lock:
            if handle in self._by_handle:
                self._start(handle, before)

    # --- rendering -------------------------------------------------------------------------------------

    def _marker(self, handle: int, wait: bool) -> str | None:
        """The final marker of ``handle``; None while its enrichment runs (unless ``wait``: then a field
        not done is left empty)."""
        with self._lock:
            entry = self._by_handle[handle]
            job = self._enrichments[handle]
        if not wait and not job.done():
            return None
        return FinalMarker(entry.ref, _value(job.keyword), _value(job.summary)).format()

    def expand(self, text: str, final: bool) -> str:
        """``text`` with every complete handle replaced by its final marker and every invented one dropped;
        handles written as code stay as they are.

        A partial render (``final=False``) also hides a half-typed handle at the end, every handle whose
        enrichment is still running and every handle not decided yet (behind an open code span). The final
        render waits for running enrichments up to ``deadline_seconds``; a keyword or summary not done by
        then is left empty. Invented handles are counted in the trace at the final render.
        """
        runs, pending = CodeScanner.read(text, final)
        for handle in prose_handles(runs):
            self.begin(handle)
        if final:
            self._wait()
        out: list[str] = []
        invented: dict[int, int] = {}
        for i, run in enumerate(runs):
            if run.code:
                out.append(run.text)
                continue
            prose = run.text
            if i == len(runs) - 1 and not pending:  # the end of the text
                prose = _without_half_handle(prose, final)
            out.append(self._expand_prose(prose, final, invented))
        if pending:
            out.append(_without_half_handle(HANDLE.sub("", pending), final=False))
        if final:
            self._count_invented(invented)
        return "".join(out)

    def _expand_prose(self, text: str, final: bool, invented: dict[int, int]) -> str:
        out: list[str] = []
        last = 0
        for m in HANDLE.finditer(text):
            out.append(text[last: m.start()])
            last = m.end()
            handle = int(m.group(1))
            with self._lock:
                known = handle in self._by_handle
            if not known:
                invented[handle] = invented.get(handle, 0) + 1
                continue
            marker = self._marker(handle, wait=final)
            if marker is not None:
                out.append(marker)
        out.append(text[last:])
        return "".join(out)

    def finish(self, text: str, on_change: Callable[[], None] | None = None) -> None:
        """Wait for the enrichment of the handles of ``text`` (complete), up to ``deadline_seconds`` from the
        first call. While chips are still being made the trace's progress hears of it on this thread:
        ``finish`` started, its detail how many chips are not done yet (again whenever that number falls),
        then ``finish`` done; ``on_change`` is called whenever a chip is done (a partial render shows it)."""
        for handle in prose_handles(CodeScanner.read(text, final=True)[0]):
            self.begin(handle)
        self._wait(on_change)

    def _wait(self, on_change: Callable[[], None] | None = None) -> None:
        """Wait for every enrichment begun so far (``finish``)."""
        with self._lock:
            if self._finish_by is None and self.deadline_seconds is not None:
                self._finish_by = time.monotonic() + self.deadline_seconds
            finish_by, jobs = self._finish_by, dict(self._enrichments)
        told: int | None = None
        while True:
            late = sorted(h for h, job in jobs.items() if not job.done())
            if told is not None and len(late) < told and on_change is not None:
                on_change()
            left = None if finish_by is None else finish_by - time.monotonic()
            if not late or (left is not None and left <= 0 and self._late_told):
                break
            if told != len(late):
                told = len(late)
                self.trace.emit("finish", "start", str(told))
            if left is not None and left <= 0:
                self._late_told = True
                self.trace.fail(Failure("enrichment_or_rewrite",
                                        f"enrichment not done within the deadline of {self.deadline_seconds:g} s",
                                        late[0], f"keyword or summary left empty for handles {late}"))
                break
            running = [f for h in late for f in (jobs[h].keyword, jobs[h].summary) if not f.done()]
            wait_futures(running, timeout=left, return_when=FIRST_COMPLETED)
        if told is not None:
            self.trace.emit("finish", "done")

    def _count_invented(self, invented: dict[int, int]) -> None:
        with self._lock:
            self._invented = invented
        for handle, times in sorted(invented.items()):
            self.trace.fail(Failure("validation", f"invented handle [cite:{handle}] ({times}x)", None,
                                    "removed from the answer"))

    def citations(self) -> tuple[Citation, ...]:
        """The cited sources in order of first appearance, with their keyword and summary as rendered
        (empty while not done)."""
        with self._lock:
            order = list(self._order)
        out = []
        for handle in order:
            marker = self._marker(handle, wait=True)
            assert marker is not None
            entry = self._by_handle[handle]
            job = self._enrichments[handle]
            out.append(Citation(handle, entry.ref, _value(job.keyword), _value(job.summary), entry.source, marker))
        return tuple(out)

    def invented(self) -> dict[int, int]:
        """Invented handles of the final render and how often each was dropped."""
        with self._lock:
            return dict(self._invented)

    def close(self) -> None:
        """End the worker threads without waiting for a hanging call."""
        self._keywords.shutdown(wait=False, cancel_futures=True)
        self._summaries.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> CitationRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
