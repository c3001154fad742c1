"""The Iris citation pipeline."""

from .citation_pipeline import Citation, CitationPipeline, CitationResult, PlacementError
from .trace import Failure, ProgressEvent, Trace

__all__ = ["Citation", "CitationPipeline", "CitationResult", "Failure", "PlacementError", "ProgressEvent", "Trace"]
