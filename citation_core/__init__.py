"""Citation Studio: the Iris citation pipeline and the LMS client's source markers, as a library.

    >>> from citation_core import cite, Sources
    >>> result = cite(answer, Sources.load(Path("sources.json")), language="de")
    >>> result.answer, result.citations, result.failures, result.traces

``sources`` is a ``Sources``, a list of source records, or the sources JSON mapping (``{"lecture":
{"pages": […], "transcriptions": […]}, "faqs": […]}``); ``Sources.load`` takes a ``Path`` or a ``str``.
``CitationPipeline(placement=…, enrichment=…, prompts=…)`` takes the models of its roles;
``CitationPipeline.from_config(load_config(folder), variant)`` builds it from ``llm_config.yml`` and
``application.yml``. Every error the library raises is in ``citation_core.errors``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import errors
    from .llm.base import ChatModel
    from .llm.config import LlmConfig, ModelConfig, default_config, load_config
    from .pipeline import Citation, CitationPipeline, CitationResult, Failure, Trace, cite
    from .pipeline.prompts import Prompts
    from .sources import FaqSource, PageChunk, Sources, TranscriptSegment

# Loaded on first use (PEP 562): ``citation-studio ask`` sends its first request to the model before the
# citation stage is imported, and ``import citation_core.contract`` does not pull in the pipeline.
_HOMES = {
    "errors": ".errors", "ChatModel": ".llm.base", "LlmConfig": ".llm.config", "ModelConfig": ".llm.config",
    "default_config": ".llm.config", "load_config": ".llm.config", "Citation": ".pipeline",
    "CitationPipeline": ".pipeline", "CitationResult": ".pipeline", "Failure": ".pipeline", "Trace": ".pipeline",
    "cite": ".pipeline", "Prompts": ".pipeline.prompts", "FaqSource": ".sources", "PageChunk": ".sources",
    "Sources": ".sources", "TranscriptSegment": ".sources",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(home, __name__)
    value = module if name == "errors" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "ChatModel",
    "Citation",
    "CitationPipeline",
    "CitationResult",
    "Failure",
    "FaqSource",
    "LlmConfig",
    "ModelConfig",
    "PageChunk",
    "Prompts",
    "Sources",
    "Trace",
    "TranscriptSegment",
    "cite",
    "default_config",
    "errors",
    "load_config",
]
