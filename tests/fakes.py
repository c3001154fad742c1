"""Test doubles: a model factory whose models answer through a function and record every request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from citation_core.llm.base import LlmRequest, LlmResponse, Usage
from citation_core.llm.config import LlmConfig, ModelConfig, load_config
from citation_core.llm.offline import OfflineModel
from citation_core.pipeline import CitationPipeline
from citation_core.pipeline.prompts import Prompts
from citation_core.sources import FaqSource, PageChunk, TranscriptSegment

ROOT = Path(__file__).resolve().parents[1]


def config() -> LlmConfig:
    return load_config(ROOT, override="")


def prompts() -> Prompts:
    return Prompts.load(ROOT / "prompts")


class FakeFactory:
    """Each created model delegates to ``respond``; ``None`` from respond means: ask the offline model."""

    def __init__(self, respond: Callable[[LlmRequest], str | None] | None = None) -> None:
        self.respond = respond or (lambda r: None)
        self.requests: list[LlmRequest] = []
        self.created = 0
        self._lock = threading.Lock()

    def __call__(self, cfg: ModelConfig) -> FakeModel:
        with self._lock:
            self.created += 1
        return FakeModel(self, cfg)


class FakeModel:
    offline = False

    def __init__(self, factory: FakeFactory, cfg: ModelConfig) -> None:
        self.factory, self.model_id, self.model_name = factory, cfg.id, cfg.model

    def complete(self, request: LlmRequest) -> LlmResponse:
        with self.factory._lock:
            self.factory.requests.append(request)
        out = self.factory.respond(request)
        if out is None:
            return OfflineModel().complete(request)
        return LlmResponse(out, Usage(10, 2, 0.0, False), self.model_id, self.model_name)


def pipeline(factory: FakeFactory | None = None, strategy: str = "sequential") -> CitationPipeline:
    """The configured pipeline; keywords as in the seed (one sequential task) unless told otherwise."""
    kwargs = {} if factory is None else {"factory": factory}
    return CitationPipeline.from_config(config(), keyword_strategy=strategy, **kwargs)  # type: ignore[arg-type]


MERGE = PageChunk("p3", 12, 3, "Merge sort\nDivide the list into two halves, sort each half recursively, "
                  "then merge the sorted halves.", display_page_number="1")
MERGE_STEP = PageChunk("p4", 12, 4, "Merge step\nThe merge step combines two sorted lists in linear time "
                       "using two pointers.", display_page_number="2")
TREE = TranscriptSegment("t1", 12, 75.6, 92.9, "The recursion tree of merge sort has log n levels and every "
                         "level costs n, so the total running time is n log n.", page_number=5)
EMPTY = PageChunk("p9", 12, 9, "   ")
EXAM = FaqSource(17, "Is the exam open book?", "Yes, the final exam is open book; printed notes are allowed.")
LATE = FaqSource(18, "Can I submit homework late?", "Late homework loses ten percent per day, up to three days.")

ANSWER = (
    "Merge sort divides the list into two halves and sorts each half recursively. "
    "The merge step combines two sorted lists in linear time. "
    "The recursion tree has log n levels with cost n per level, so the total running time is n log n."
)
