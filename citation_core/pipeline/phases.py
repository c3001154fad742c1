"""The phases of one citation pass (DESIGN 4.2) as data: functions over one run state, run by one loop.

Each phase reads and writes the ``PassRun`` and returns what the trace shows of it. The loop in
``run_phases`` opens and closes the trace record of every phase and applies the failure policy of the
seed (DESIGN 4.3) by the phase's ``on_error``:

- ``placement``: the pass fails with ``PlacementError`` (the caller keeps the answer so far);
- ``keep_placed``: the placement result is returned with its ``!seq`` markers;
- ``keep_answer``: the answer is returned unchanged, without citations;
- ``keep_going``: the failure is recorded and the pass goes on without what the phase would have added
  (evidence is an extra: without it a summary is made from the whole source).

A phase can be swapped (``replace_phase``) to test the loop and the policy without patching modules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import PlacementError
from ..llm.config import KeywordStrategy, PlacementMode
from ..sources import FaqSource, Source
from ..text import sentences
from ..text.sentences import fenced_block_after
from . import enrich as enrich_mod
from . import places as places_mod
from .evidence import Evidence, Support, evidence_and_support, meaning_matcher, sentence_before, term_weights
from .judge import ModelJudge
from .languages import LanguageChoice
from .model_calls import NO_DEADLINE, Deadline, ModelCall, ModelCalls, RoleModel
from .placement import Placement, claim_text, render_insertions, validate_placement
from .prompts import Prompts
from .rewrite import final_markers
from .serialize import Serialized, serialize_faqs, serialize_lecture
from .trace import Failure, Trace

PassKind = Literal["lecture", "faq"]
OnError = Literal["placement", "keep_placed", "keep_answer", "keep_going"]


@dataclass
class PassRun:
    """Everything one pass knows; it lives in the run, never in the pipeline object."""

    kind: PassKind
    answer: str
    sources: Sequence[Source]
    language: LanguageChoice
    prompts: Prompts
    placement_model: RoleModel
    enrichment_model: RoleModel
    keyword_strategy: KeywordStrategy
    trace: Trace
    deadline: Deadline = NO_DEADLINE
    judge: ModelJudge | None = None
    calls: ModelCalls = field(default_factory=ModelCalls)  # closed by whoever runs the pass
    serialized: Serialized = field(default_factory=lambda: Serialized("[]", ()))
    placement: Placement = field(default_factory=lambda: Placement(()))
    raw_output: str = ""
    placed: str = ""  # the answer with intermediate markers
    enrichment: enrich_mod.Enrichment = field(default_factory=lambda: enrich_mod.Enrichment({}, {}))
    final: str | None = None  # the answer with final markers, once rewritten
    finals: dict[int, str] = field(default_factory=dict)
    # seq -> (the answer sentence it first stands behind, the supporting passage, the verdict)
    evidence: dict[int, tuple[str, Evidence | None, Support]] = field(default_factory=dict)
    stopped: bool = False  # nothing (more) to do: no sources, or nothing was cited
    placement_mode: PlacementMode = "iris"  # iris: the model writes the answer again; places: sentence numbers
    units: tuple[places_mod.Unit, ...] = ()  # places mode: the numbered sentences and code blocks
    places_reply: places_mod.PlacesReply | None = None

    @property
    def used(self) -> tuple[int, ...]:
        return self.placement.used_seqs


PhaseRun = Callable[[PassRun], dict[str, Any]]


@dataclass(frozen=True)
class Phase:
    name: str
    run: PhaseRun
    on_error: OnError


def serialize(run: PassRun) -> dict[str, Any]:
    faqs = [s for s in run.sources if isinstance(s, FaqSource)]
    lecture = [s for s in run.sources if not isinstance(s, FaqSource)]
    run.serialized = serialize_faqs(faqs) if run.kind == "faq" else serialize_lecture(lecture)
    run.stopped = not run.serialized.entries
    shown = (places_mod.sources_json(run.serialized.entries) if run.placement_mode == "places"
             else run.serialized.json_text)  # as the placement model is given them
    return {"sources": len(run.sources), "entries": len(run.serialized.entries), "sources_json": shown}


def place(run: PassRun) -> dict[str, Any]:
    if run.placement_mode == "places":
        return _place_by_numbers(run)
    ser = run.serialized
    prompt = run.prompts.render(f"placement_{run.kind}", run.language.line, Paragraphs=ser.json_text,
                                Answer=run.answer)
    inputs = {"answer": run.answer, "sources": [{"id": e.marker, "content": e.content} for e in ser.entries]}
    run.raw_output = run.calls.call(run.trace, run.placement_model, ModelCall("placement", prompt, inputs),
                                    run.deadline).content
    return {"prompt": prompt, "raw_output": run.raw_output}


def _place_by_numbers(run: PassRun) -> dict[str, Any]:
    """Places mode: the numbered units and sources out, a JSON object of unit numbers to ids back; a reply
    that cannot be read fails placement (``places.read_reply``)."""
    ser = run.serialized
    run.units = places_mod.number_units(run.answer)
    prompt = run.prompts.render(f"placement_places_{run.kind}", run.language.line,
                                Paragraphs=places_mod.sources_json(ser.entries),
                                Sentences=places_mod.units_json(run.answer, run.units))
    inputs = {"answer": run.answer,
              "units": [{"n": u.number, "start": u.start, "end": u.end, "code": u.code} for u in run.units],
              "sources": [{"id": e.marker, "n": e.seq, "content": e.content} for e in ser.entries]}
    run.raw_output = run.calls.call(run.trace, run.placement_model, ModelCall("placement_places", prompt, inputs),
                                    run.deadline).content
    run.places_reply = places_mod.read_reply(run.raw_output, len(run.units), {e.seq for e in ser.entries})
    return {"prompt": prompt, "raw_output": run.raw_output, "placement_mode": "places", "units": len(run.units)}


def validate(run: PassRun) -> dict[str, Any]:
    if run.places_reply is not None:
        p = run.placement = places_mod.placement(run.answer, run.units, run.places_reply)
    else:
        allowed = {e.marker: e.seq for e in run.serialized.entries}
        p = run.placement = validate_placement(run.answer, run.raw_output, allowed)
    corrections = p.corrections()
    if corrections or p.text_changed:
        found = ", ".join(f"{kind}: {n}" for kind, n in corrections.items())
        run.trace.fail(Failure(
            "validation",
            f"placement output corrected: {found or 'nothing removed'}; text changed: {p.text_changed}",
            None, "answer text kept exactly as written",
        ))
    return {"removed_markers": list(p.removed_markers), "final_form_markers": list(p.final_form),
            "malformed_markers": list(p.malformed), "text_changed": p.text_changed,
            "reanchored": list(p.reanchored), "dropped": list(p.dropped),
            "moved_out_of_code": list(p.moved_out_of_code), "moved_out_of_words": list(p.moved_out_of_words),
            "merged_in_lists": list(p.merged),
            **({"unknown_sentence_numbers": list(p.unknown_units), "wrong_types": list(p.wrong_types),
                "repeated": list(p.repeated), "fenced_reply": p.fenced_reply, "no_place": list(p.no_place)}
               if run.places_reply is not None else {}),
            "runs": [{"seq": i.seq, "start": i.claim_start, "end": i.offset} for i in p.insertions
                     if i.claim_start is not None],
            "corrections": corrections}


def collect(run: PassRun) -> dict[str, Any]:
    run.placed = render_insertions(run.answer, run.placement.insertions,
                                   {e.seq: e.marker for e in run.serialized.entries})
    run.stopped = not run.used
    return {"used_sequence_numbers": list(run.used), "placed_answer": run.placed}


def enrich(run: PassRun) -> dict[str, Any]:
    entries = run.serialized.by_seq()
    ctx = enrich_mod.EnrichContext(run.trace, run.prompts, run.language.line, run.enrichment_model,
                                   run.keyword_strategy, run.deadline, run.calls)
    passages = {seq: found.text for seq, (_, found, _) in run.evidence.items() if found is not None}
    run.enrichment = enrich_mod.enrich(ctx, [entries[s] for s in run.used], passages)
    return {"used": len(run.used), "strategy": run.keyword_strategy,
            "keywords": {str(k): v for k, v in run.enrichment.keywords.items()},
            "summaries": {str(k): v for k, v in run.enrichment.summaries.items()}}


def rewrite(run: PassRun) -> dict[str, Any]:
    run.finals = final_markers(run.serialized.by_seq(), run.used, run.enrichment)
    run.final = render_insertions(run.answer, run.placement.insertions, run.finals)
    return {"answer": run.final}


def evidence(run: PassRun) -> dict[str, Any]:
    """Per used source, the passage its chip quotes: what supports the claim its first marker stands behind
    (a sentence, or the run of list items it stands for). It comes before enrichment: a chip's summary is
    about that passage."""
    entries = run.serialized.by_seq()
    weight = term_weights(e.source for e in run.serialized.entries)
    matcher = meaning_matcher(e.source for e in run.serialized.entries)
    parts = sentences(run.answer)  # once per answer, not once per marker
    for ins in run.placement.insertions:
        if ins.seq in run.evidence:
            continue
        sentence = (claim_text(run.answer, ins.claim_start, ins.offset) if ins.claim_start is not None
                    else sentence_before(run.answer, ins.offset, parts))
        block = fenced_block_after(run.answer, ins.offset) if sentence.rstrip().endswith((":", "：")) else None
        if block:  # "Slide 7 says:" and the code it introduces: the claim is the code
            sentence = f"{sentence} {' '.join(block[0].split())}"
        source = entries[ins.seq].source
        found, verdict = evidence_and_support(sentence, source, weight, matcher)
        if run.judge is not None:
            verdict = run.judge.judge(run.trace, sentence, found, source, verdict)
        run.evidence[ins.seq] = (sentence, found, verdict)
    return {"evidence": {str(seq): {"sentence": s, "evidence": e.to_json() if e else None, "support": v.to_json()}
                         for seq, (s, e, v) in run.evidence.items()}}


PHASES: tuple[Phase, ...] = (
    Phase("serialize", serialize, "keep_answer"),
    Phase("place", place, "placement"),
    Phase("validate", validate, "keep_answer"),
    Phase("collect", collect, "keep_answer"),
    Phase("evidence", evidence, "keep_going"),
    Phase("enrich", enrich, "keep_placed"),
    Phase("rewrite", rewrite, "keep_placed"),
)


def replace_phase(phases: Sequence[Phase], name: str, run: PhaseRun) -> tuple[Phase, ...]:
    """``phases`` with the phase called ``name`` running ``run`` instead (same failure policy)."""
    if name not in {p.name for p in phases}:
        raise ValueError(f"no phase called {name!r}")
    return tuple(dataclasses.replace(p, run=run) if p.name == name else p for p in phases)


def run_phases(run: PassRun, phases: Sequence[Phase]) -> None:
    """Run ``phases`` in order until one stops the pass; trace each and apply its failure policy."""
    for phase in phases:
        rec = run.trace.begin(phase.name)
        try:
            outputs = phase.run(run)
        except Exception as exc:  # the one boundary: whatever went wrong, the answer text is kept
            run.trace.end(rec, "failed", error=f"{type(exc).__name__}: {exc}")
            _fail(run, phase, exc)
            if run.stopped:
                return
            continue
        run.trace.end(rec, **outputs)
        if run.stopped:
            return


def _fail(run: PassRun, phase: Phase, exc: Exception) -> None:
    if phase.on_error == "placement":
        run.trace.fail(Failure("placement", f"placement failed: {exc}", None, "raised to the chat pipeline"))
        raise PlacementError(f"citation placement failed: {exc}", run.trace) from exc
    if phase.on_error == "keep_going":
        run.trace.fail(Failure("internal", f"internal error in phase {phase.name}: {type(exc).__name__}: {exc}", None,
                               "the citations are kept without it"))
        return
    run.stopped = True
    run.final = None
    if phase.on_error == "keep_placed":
        run.trace.fail(Failure("enrichment_or_rewrite", f"unexpected error: {type(exc).__name__}: {exc}", None,
                               "returned the placement result with its !seq markers"))
        return
    run.placement = Placement(())
    run.placed = ""
    run.trace.fail(Failure("internal", f"internal error in phase {phase.name}: {type(exc).__name__}: {exc}", None,
                           "returned the answer without citations"))
