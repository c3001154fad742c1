"""The Iris citation pipeline."""

from ..errors import PlacementError
from .citation_pipeline import Citation, CitationPipeline, CitationResult, PassResult, cite, usage_of
from .phases import PHASES, PassRun, Phase, replace_phase
from .trace import Failure, ProgressEvent, Trace

__all__ = [
    "PHASES",
    "Citation",
    "CitationPipeline",
    "CitationResult",
    "Failure",
    "PassResult",
    "PassRun",
    "Phase",
    "PlacementError",
    "ProgressEvent",
    "Trace",
    "cite",
    "replace_phase",
    "usage_of",
]
