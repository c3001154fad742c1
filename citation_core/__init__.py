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

from . import errors
from .llm.base import ChatModel
from .llm.config import LlmConfig, ModelConfig, default_config, load_config
from .pipeline import Citation, CitationPipeline, CitationResult, Failure, Trace, cite
from .pipeline.prompts import Prompts
from .sources import FaqSource, PageChunk, Sources, TranscriptSegment

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
