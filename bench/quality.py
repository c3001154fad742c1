"""Measured citation quality of the offline pipeline on a labelled evaluation set (``tests/eval``).

``python -m bench.quality`` prints the table that README.md's "Quality" section shows and exits non-zero
when a target is missed. It measures, offline and deterministically:

* placement precision: of all citations placed behind the evaluation's answer sentences, the share that
  name one of the sentence's gold sources;
* placement recall: of the sentences that have gold sources, the share that got at least one of them;
* lead chip: of the cited sentences, the share whose first citation is a gold source;
* keyword and summary rule violations (``text.keyword_problems`` / ``summary_problems``) over every
  citation the evaluation produced;
* open-slide citing: of the questions asked about the open slide (or the open second of a video), the
  share whose written answer cites that slide (or the segment playing then, or the slide it shows);
* course questions: of the questions asked about another part of the unit than the open slide, the share
  whose answer cites a slide that answers them first (lead), and at all (hit).

The evaluation set: ``tests/eval/placement.yml`` (answers sentence by sentence, each with its gold
sources, over the sample course and the real decks and transcript copied into ``tests/material_real``) and
``tests/eval/open_view.yml`` (questions about the open view) and ``tests/eval/course_questions.yml``
(questions about other slides, each with the slides that answer it). Material that is absent is skipped
and reported as such.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from citation_core.chat.chat_pipeline import ChatPipeline
from citation_core.chat.offline_writer import PHRASES
from citation_core.chat.view import ViewPosition, segment_at
from citation_core.contract import Marker, Text, segments
from citation_core.llm.base import LlmRequest
from citation_core.llm.config import (
    CITATION_MODES,
    OFFLINE_MODEL,
    PLACEMENT_MODES,
    CitationMode,
    LlmConfig,
    PlacementMode,
    load_config,
)
from citation_core.material.library import CourseMaterial, load_material
from citation_core.material.timeline import page_at
from citation_core.pipeline import Citation, CitationPipeline
from citation_core.pipeline.model_calls import RoleModel
from citation_core.pipeline.prompts import Prompts
from citation_core.pipeline.registry import CitationRegistry, uncited
from citation_core.sources import FaqSource, LectureSource, PageChunk, Sources, TranscriptSegment
from citation_core.testing import ChatRequest, ScriptedModel, cooperative_handler
from citation_core.testing.cooperative import place
from citation_core.testing.server import TASK_HEADER
from citation_core.text import keyword_problems, summary_problems

ROOT = Path(__file__).resolve().parents[1]
EVAL_DIR = ROOT / "tests" / "eval"
SAMPLE = ROOT / "sample_decks"
REAL = ROOT / "tests" / "material_real"  # copies of the openly licensed real material (README there)

TARGETS = {"precision": 0.92, "recall": 0.95, "low_overlap_recall": 0.90, "violations": 0, "open_slide": 0.95,
           "course_lead": 0.85, "course_hit": 0.90}
LOW_OVERLAP = 0.34  # a sentence sharing at most a third of its content words with its source

# The real material as units of one course (read in place, never copied into the repository).
REAL_UNITS = {
    "metropolis": (901, "decks/en_metropolis_demo.pdf", None),
    "elte": (902, "decks/en_elte_nlp_4-ngram_lm.pdf", None),
    "python": (903, "decks/en_tut_python_lec8.pdf", None),
    "painless": (904, None, "transcripts/en_google_PainlessPython_part1.srt"),
}


@cache
def sample_material() -> CourseMaterial:
    return load_material(SAMPLE)


@cache
def real_material() -> CourseMaterial | None:
    """The real decks and transcript as a course in a temporary folder that links to them."""
    if not REAL.is_dir():
        return None
    folder = Path(tempfile.mkdtemp(prefix="citation-eval-"))
    units = []
    for name, (uid, deck, transcript) in REAL_UNITS.items():
        entry: dict[str, Any] = {"id": uid, "name": name, "language": "en"}
        for key, rel in (("deck", deck), ("transcript", transcript)):
            if rel is not None:
                link = folder / Path(rel).name
                link.symlink_to(REAL / rel)
                entry[key] = link.name
        units.append(entry)
    manifest = {"id": 9, "name": "Real material", "language": "en",
                "lectures": [{"id": 90, "name": "Real lectures", "units": units}]}
    (folder / "course.yml").write_text(yaml.safe_dump(manifest, allow_unicode=True), encoding="utf-8")
    return load_material(folder)


def material_of(name: str) -> CourseMaterial | None:
    return sample_material() if name == "sample" else real_material()


def unit_id(name: str, unit: int | None) -> int:
    return unit if unit is not None else REAL_UNITS[name][0]


def source_key(src: LectureSource | FaqSource) -> str:
    """How the evaluation names a source: p<deck index>, t<start second>, f<FAQ id>."""
    if isinstance(src, PageChunk):
        return f"p{src.page_number}"
    if isinstance(src, TranscriptSegment):
        return f"t{round(src.start, 1):g}"
    return f"f{src.id}"


def pool(material: CourseMaterial, uid: int, window: Sequence[float] | None = None,
         faqs: bool = False) -> list[LectureSource | FaqSource]:
    """All page chunks and transcript segments of a unit (segments only within ``window`` seconds)."""
    um = material.unit(uid)
    segs = [s for s in um.segments if window is None or window[0] <= s.start <= window[1]]
    out: list[LectureSource | FaqSource] = [*um.chunks, *segs]
    if faqs:
        out.extend(material.faqs)
    return out


# --- placement ------------------------------------------------------------------------------------------

@dataclass
class SentenceResult:
    case: str
    text: str
    style: str
    gold: list[str]
    cited: list[str]
    overlap: float | None = None  # share of the sentence's content stems its own source has (where recorded)
    language: str = "en"


@dataclass
class CourseAnswer:
    """A course question's answer: the slides it cites, in answer order (deck indexes of the asked unit)."""

    case: str
    gold: list[int]
    cited: list[int]
    answer: str


@dataclass
class Report:
    sentences: list[SentenceResult] = field(default_factory=list)
    keyword_violations: list[str] = field(default_factory=list)
    summary_violations: list[str] = field(default_factory=list)
    citations: int = 0
    open_questions: list[tuple[str, bool, str]] = field(default_factory=list)
    course_questions: list[CourseAnswer] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def precision(self) -> float:
        cited = sum(len(s.cited) for s in self.sentences)
        correct = sum(sum(c in s.gold for c in s.cited) for s in self.sentences)
        return correct / cited if cited else 1.0

    def recall(self) -> float:
        labelled = [s for s in self.sentences if s.gold]
        return sum(any(c in s.gold for c in s.cited) for s in labelled) / len(labelled) if labelled else 1.0

    def lead(self) -> float:
        cited = [s for s in self.sentences if s.cited and s.gold]
        return sum(s.cited[0] in s.gold for s in cited) / len(cited) if cited else 1.0

    def open_slide(self) -> float:
        return sum(ok for _, ok, _ in self.open_questions) / len(self.open_questions) if self.open_questions else 1.0

    def course_lead(self) -> float:
        done = self.course_questions
        return sum(a.cited[:1] != [] and a.cited[0] in a.gold for a in done) / len(done) if done else 1.0

    def course_hit(self) -> float:
        done = self.course_questions
        return sum(bool(set(a.cited) & set(a.gold)) for a in done) / len(done) if done else 1.0

    def said_none(self) -> int:
        """Answers that say nothing was found although a slide answers the question (every course question has
        an answering slide, every open-view question the open one)."""
        answers = [a.answer for a in self.course_questions] + [answer for _, _, answer in self.open_questions]
        return sum(any(ph["none"] in answer for ph in PHRASES.values()) for answer in answers)

    def violations(self) -> int:
        return len(self.keyword_violations) + len(self.summary_violations)

    def by_overlap(self, low: float, high: float) -> tuple[int, float]:
        """Recall on the sentences whose recorded overlap with their source lies in (low, high]."""
        chosen = [s for s in self.sentences if s.gold and s.overlap is not None and low < s.overlap <= high]
        return len(chosen), _recall(chosen)

    def by_style(self, style: str) -> tuple[int, float]:
        chosen = [s for s in self.sentences if s.style == style and s.gold]
        hit = sum(any(c in s.gold for c in s.cited) for s in chosen)
        return len(chosen), (hit / len(chosen) if chosen else 1.0)

    def passed(self) -> bool:
        return (self.precision() >= TARGETS["precision"] and self.recall() >= TARGETS["recall"]
                and self.violations() <= TARGETS["violations"] and self.open_slide() >= TARGETS["open_slide"]
                and self.course_lead() >= TARGETS["course_lead"] and self.course_hit() >= TARGETS["course_hit"])


def answer_of(case: dict[str, Any]) -> tuple[str, list[tuple[int, int]]]:
    """The case's answer text (a paragraph, or a list with ``format: list``) and each sentence's span."""
    texts = [str(s["text"]) for s in case["sentences"]]
    joiner, prefix = ("\n", "- ") if case.get("format") == "list" else (" ", "")
    answer, spans = "", []
    for i, t in enumerate(texts):
        if i:
            answer += joiner
        answer += prefix
        spans.append((len(answer), len(answer) + len(t)))
        answer += t
    return answer, spans


def cited_per_sentence(final: str, spans: Sequence[tuple[int, int]],
                       by_marker: dict[str, Citation], runs: Mapping[tuple[bool, int, int], int] | None = None,
                       ) -> list[list[str]]:
    """The sources cited behind each sentence, in marker order (a marker belongs to the sentence it follows,
    and a marker that stands for a run of list items to every sentence of the run: ``runs`` maps (FAQ pass,
    seq, offset) to where the run starts, as the validate phase traces it)."""
    out: list[list[str]] = [[] for _ in spans]
    offset = 0
    for piece in segments(final, "stored"):
        if isinstance(piece, Text):
            offset += len(piece.text)
            continue
        assert isinstance(piece, Marker)
        cite = by_marker.get(piece.raw)
        if cite is None:
            continue
        start = (runs or {}).get((isinstance(cite.source, FaqSource), cite.seq, offset))
        owners = [i for i, (s, _) in enumerate(spans) if s < offset and (start is None or s >= start)]
        for owner in owners if start is not None else owners[-1:]:
            out[owner].append(source_key(cite.source))
    return out


def traced_runs(result: Any) -> dict[tuple[bool, int, int], int]:
    """The runs of list items each pass cited once (validate phase): (FAQ pass, seq, offset) -> run start."""
    runs: dict[tuple[bool, int, int], int] = {}
    for kind, trace in result.traces.items():
        for phase in trace.to_json()["phases"]:
            for run in (phase.get("outputs") or {}).get("runs", []) if phase["name"] == "validate" else []:
                runs[(kind == "faq", int(run["seq"]), int(run["end"]))] = int(run["start"])
    return runs


def check_enrichment(report: Report, citations: Sequence[Citation], where: str) -> None:
    used: list[str] = []
    for c in citations:
        report.citations += 1
        text = c.source.content if isinstance(c.source, FaqSource) else c.source.text
        for p in keyword_problems(c.keyword, text, used):
            report.keyword_violations.append(f"{where}: keyword {c.keyword!r}: {p}")
        for p in summary_problems(c.summary, text):
            report.summary_violations.append(f"{where}: summary {c.summary!r}: {p}")
        used.append(c.keyword)


PLACEMENT_MODELS = ("offline", "scripted")


def placement_pipeline(mode: PlacementMode = "iris", model: str = "offline") -> CitationPipeline:
    """The pipeline placement is measured with: the offline model, or a scripted model for placement (the
    cooperative test LLM of ``citation_core.testing``: per sentence, the source sharing most words with it)
    with the offline model's keywords and summaries."""
    if model == "offline":
        return CitationPipeline(placement_mode=mode)
    handler = cooperative_handler()

    def reply(request: LlmRequest) -> str:
        body = {"messages": [{"role": m.role, "content": m.content} for m in request.messages]}
        return handler(ChatRequest(body, {TASK_HEADER: request.task})).content

    return CitationPipeline(ScriptedModel({"placement": reply, "placement_places": reply}), OFFLINE_MODEL,
                            placement_mode=mode)


Cited = tuple[str, Sequence[Citation], Mapping[tuple[bool, int, int], int] | None]


def run_cases(report: Report, cases: Sequence[dict[str, Any]],
              cite: Callable[[str, list[LectureSource | FaqSource], str], Cited]) -> None:
    """Each case's answer cited by ``cite(answer, sources, language)`` -> (cited answer, its citations, the
    runs of list items cited once), scored sentence by sentence against the case's gold sources."""
    for case in cases:
        material = material_of(case["material"])
        if material is None:
            report.skipped.append(case["id"])
            continue
        uid = unit_id(case["material"], case.get("unit"))
        sources = pool(material, uid, case.get("window"), bool(case.get("faqs")))
        answer, spans = answer_of(case)
        final, citations, runs = cite(answer, sources, case.get("language", "en"))
        per_sentence = cited_per_sentence(final, spans, {c.marker: c for c in citations}, runs)
        for sent, cited in zip(case["sentences"], per_sentence, strict=True):
            overlap = sent.get("overlap")
            report.sentences.append(SentenceResult(case["id"], str(sent["text"]), str(sent.get("style", "copied")),
                                                   [str(g) for g in sent.get("gold") or []], cited,
                                                   float(overlap) if overlap is not None else None,
                                                   str(case.get("language", "en"))))
        check_enrichment(report, citations, case["id"])


def run_placement(report: Report, cases: Sequence[dict[str, Any]], pipe: CitationPipeline | None = None) -> None:
    placement = pipe or CitationPipeline()

    def cite(answer: str, sources: list[LectureSource | FaqSource], language: str) -> Cited:
        result = placement(answer, Sources.of(sources), language=language)
        return result.answer, result.citations, traced_runs(result)

    run_cases(report, cases, cite)


def run_inline(report: Report, cases: Sequence[dict[str, Any]]) -> None:
    """The evaluation's answers cited inline: a scripted writer writes each answer with handles, behind each
    sentence the handle of the source sharing most words with it (the cooperative test LLM's rule, as the
    scripted placement model decides: ``testing.cooperative.place``), and the turn's ``CitationRegistry``
    expands them, keywords and summaries by the offline model."""

    def cite(answer: str, sources: list[LectureSource | FaqSource], language: str) -> Cited:
        with CitationRegistry(RoleModel.of(OFFLINE_MODEL), Prompts.default(), language=language,
                              deadline_seconds=None) as registry:
            entries = [{"id": f"[cite:{registry.register(s)}]", "content": s.content if isinstance(s, FaqSource)
                        else s.text} for s in sources]
            written = place(answer, entries)
            if uncited(written) != answer:
                raise AssertionError(f"the scripted writer changed the answer {answer[:60]!r}")
            return registry.expand(written, final=True), registry.citations(), None

    run_cases(report, cases, cite)


# --- questions about the open view ----------------------------------------------------------------------

def chat_config(citation_mode: CitationMode = "placement") -> LlmConfig:
    """The packaged configuration (offline model) with every answer cited by ``citation_mode``."""
    return dataclasses.replace(load_config(ROOT, override=""), citation_mode=citation_mode)


def run_open_view(report: Report, questions: Sequence[dict[str, Any]],
                  citation_mode: CitationMode = "placement") -> None:
    for q in questions:
        material = material_of(q["material"])
        if material is None:
            report.skipped.append(q["id"])
            continue
        uid = unit_id(q["material"], q.get("unit"))
        chat = ChatPipeline(chat_config(citation_mode), material)
        position = ViewPosition(uid, page=q.get("page"), second=q.get("second"))
        history = [(str(h[0]), str(h[1])) for h in q.get("history") or []]
        result = chat(str(q["question"]), position, language=q.get("language", "en"), history=history)
        wanted = set()
        if q.get("page") is not None:
            wanted.add(f"p{q['page']}")
        else:
            seg = segment_at(material.unit(uid), float(q["second"]))
            if seg is not None:
                wanted.add(source_key(seg))
            if result.current_view.page is not None:
                wanted.add(f"p{result.current_view.page}")
        cited = {source_key(c.source) for c in result.citations
                 if not isinstance(c.source, FaqSource) and int(c.source.lecture_unit_id) == uid}
        report.open_questions.append((q["id"], bool(wanted & cited), result.answer))
        check_enrichment(report, result.citations, q["id"])


def run_course_questions(report: Report, questions: Sequence[dict[str, Any]],
                         citation_mode: CitationMode = "placement") -> None:
    for q in questions:
        material = material_of(q.get("material", "sample"))
        if material is None:
            report.skipped.append(q["id"])
            continue
        uid = int(q["unit"])
        chat = ChatPipeline(chat_config(citation_mode), material)
        result = chat(str(q["question"]), ViewPosition(uid, page=q["page"]), language=q.get("language", "en"))
        timeline = material.unit(uid).unit.timeline
        cited: list[int] = []
        for c in result.citations:
            src = c.source
            if isinstance(src, FaqSource) or int(src.lecture_unit_id) != uid:
                continue
            # a transcript cue counts as the slide the video shows when it starts
            page = src.page_number if isinstance(src, PageChunk) else page_at(timeline, src.start)
            if page is not None and page not in cited:
                cited.append(page)
        report.course_questions.append(CourseAnswer(q["id"], [int(g) for g in q["gold"]], cited, result.answer))
        check_enrichment(report, result.citations, q["id"])


SPLITS = ("dev", "test")


def eval_files(kind: str, split: str) -> list[Path]:
    """The files of one kind (placement, open_view, course_questions) in one split ("dev", "test" or "all")."""
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be dev, test or all, not {split!r}")
    splits = SPLITS if split == "all" else (split,)
    return [f for s in splits for f in sorted((EVAL_DIR / s).glob(f"{kind}*.yml"))]


def load_eval(kind: str, split: str = "dev") -> list[dict[str, Any]]:
    """Every case of ``kind`` in ``split``: dev is what the offline heuristics were tuned on, test is not."""
    out: list[dict[str, Any]] = []
    for path in eval_files(kind, split):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        out.extend(data or [])
    return out


def evaluate(split: str = "dev", citation_mode: CitationMode = "placement") -> Report:
    """The evaluation of ``split``; the written answers (open view, course questions) cited by
    ``citation_mode`` (inline: the offline writer puts handles behind what it quotes)."""
    report = Report()
    run_placement(report, load_eval("placement", split))
    run_open_view(report, load_eval("open_view", split), citation_mode)
    run_course_questions(report, load_eval("course_questions", split), citation_mode)
    return report


def evaluate_cross_language(split: str = "dev") -> Report:
    """Placement of answers written in another language than their sources (``cross_language_placement*``):
    a German answer about the English units, an English one about the German unit."""
    report = Report()
    run_placement(report, load_eval("cross_language_placement", split))
    return report


def compare_modes(split: str = "dev") -> str:
    """Placement of the evaluation's answers (same-language and cross-language cases) in both placement modes,
    by the offline model and by the scripted one: a Markdown table."""
    cases = load_eval("placement", split) + load_eval("cross_language_placement", split)
    lines = ["| placement model | mode | sentences (with gold) | precision | recall | lead chip is gold |",
             "|---|---|---:|---:|---:|---:|"]
    for model in PLACEMENT_MODELS:
        for mode in PLACEMENT_MODES:
            report = Report()
            run_placement(report, cases, placement_pipeline(mode, model))
            labelled = sum(bool(s.gold) for s in report.sentences)
            lines.append(f"| {model} | {mode} | {len(report.sentences)} ({labelled}) | {report.precision():.3f} | "
                         f"{report.recall():.3f} | {report.lead():.3f} |")
    report = Report()
    run_inline(report, cases)
    labelled = sum(bool(s.gold) for s in report.sentences)
    lines.append(f"| scripted writer | inline | {len(report.sentences)} ({labelled}) | {report.precision():.3f} | "
                 f"{report.recall():.3f} | {report.lead():.3f} |")
    return "\n".join(lines)


def table(report: Report) -> str:
    labelled = [s for s in report.sentences if s.gold]
    n_para, r_para = report.by_style("paraphrase")
    n_copy, r_copy = report.by_style("copied")
    de = [s for s in labelled if s.language == "de"]
    n_low, r_low = report.by_overlap(-1.0, LOW_OVERLAP)
    n_mid, r_mid = report.by_overlap(LOW_OVERLAP, 1.0)
    rows = [
        ("answer sentences (with gold sources / without)", f"{len(report.sentences)} ({len(labelled)} / "
                                                            f"{len(report.sentences) - len(labelled)})", ""),
        ("placement precision", f"{report.precision():.3f}", f"≥ {TARGETS['precision']:.2f}"),
        ("placement recall", f"{report.recall():.3f}", f"≥ {TARGETS['recall']:.2f}"),
        ("  recall on copied sentences", f"{r_copy:.3f} ({n_copy})", ""),
        ("  recall on paraphrased sentences", f"{r_para:.3f} ({n_para})", ""),
        ("  recall on German sentences", f"{_recall(de):.3f} ({len(de)})", ""),
        (f"  recall on sentences sharing ≤ {LOW_OVERLAP:.2f} of their words with their source",
         f"{r_low:.3f} ({n_low})", f"≥ {TARGETS['low_overlap_recall']:.2f}"),
        (f"  recall on sentences sharing > {LOW_OVERLAP:.2f} (recorded overlap)", f"{r_mid:.3f} ({n_mid})", ""),
        ("lead chip is a gold source", f"{report.lead():.3f}", ""),
        ("keyword rule violations", f"{len(report.keyword_violations)} of {report.citations}", "0"),
        ("summary rule violations", f"{len(report.summary_violations)} of {report.citations}", "0"),
        ("open-view questions whose answer cites the open slide", f"{report.open_slide():.3f} "
                                                                  f"({len(report.open_questions)})",
         f"≥ {TARGETS['open_slide']:.2f}"),
        ("course questions whose answer cites an answering slide first", f"{report.course_lead():.3f} "
                                                                         f"({len(report.course_questions)})",
         f"≥ {TARGETS['course_lead']:.2f}"),
        ("course questions whose answer cites an answering slide", f"{report.course_hit():.3f}",
         f"≥ {TARGETS['course_hit']:.2f}"),
        ("answers saying nothing was found although a slide answers",
         f"{report.said_none()} of {len(report.course_questions) + len(report.open_questions)}", "0"),
    ]
    lines = ["| measure | offline | target |", "|---|---:|---:|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


def _recall(chosen: Sequence[SentenceResult]) -> float:
    return sum(any(c in s.gold for c in s.cited) for s in chosen) / len(chosen) if chosen else 1.0


def details(report: Report) -> Iterator[str]:
    for s in report.sentences:
        if set(s.cited) - set(s.gold) or (s.gold and not set(s.cited) & set(s.gold)):
            yield f"{s.case}: gold {s.gold} cited {s.cited}: {s.text[:90]}"
    yield from report.keyword_violations
    yield from report.summary_violations
    for qid, ok, answer in report.open_questions:
        if not ok:
            yield f"{qid}: the open view is not cited: {answer[:120]!r}"
    for a in report.course_questions:
        if not a.cited or a.cited[0] not in a.gold:
            yield f"{a.case}: gold slides {a.gold}, cited {a.cited}: {a.answer[:120]!r}"
    for a in report.course_questions:
        if any(ph["none"] in a.answer for ph in PHRASES.values()):
            yield f"{a.case}: said nothing was found (gold slides {a.gold})"
    for sid in report.skipped:
        yield f"{sid}: skipped (material absent)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--details", action="store_true", help="list every miss and violation")
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"],
                        help="dev: what the heuristics were tuned on; test: held out")
    parser.add_argument("--compare-modes", action="store_true",
                        help="placement only, in both placement modes (iris, places), offline and scripted")
    parser.add_argument("--citation-mode", default="placement", choices=list(CITATION_MODES),
                        help="how the written answers (open view, course questions) are cited")
    args = parser.parse_args(argv)
    if args.compare_modes:
        print(compare_modes(args.split))
        return 0
    report = evaluate(args.split, args.citation_mode)
    print(table(report))
    across = evaluate_cross_language(args.split)
    print(f"\nanswers in another language than their sources: precision {across.precision():.3f}, "
          f"recall {across.recall():.3f} ({sum(bool(s.gold) for s in across.sentences)} sentences with gold)")
    if args.details:
        for line in details(report):
            print(line)
    if report.skipped:
        print(f"skipped (material absent): {len(report.skipped)}", file=sys.stderr)
    return 0 if report.passed() else 1


if __name__ == "__main__":
    sys.exit(main())
