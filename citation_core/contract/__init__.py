"""The citation marker contract shared by Iris, the Artemis server and the Artemis client."""

from .markers import (
    FinalMarker,
    IntermediateMarker,
    SourceRef,
    StoredMarker,
    parse_version_field,
    sanitize_field,
)
from .patterns import (
    PATTERN_NAMES,
    Marker,
    MarkerMatch,
    PatternName,
    Segment,
    Text,
    insert_at,
    join_segments,
    parse,
    parse_final,
    parse_intermediate,
    parse_stored,
    segments,
    strip_markers,
)

__all__ = [
    "PATTERN_NAMES",
    "Marker",
    "Segment",
    "Text",
    "insert_at",
    "join_segments",
    "segments",
    "FinalMarker",
    "IntermediateMarker",
    "MarkerMatch",
    "PatternName",
    "SourceRef",
    "StoredMarker",
    "parse",
    "parse_final",
    "parse_intermediate",
    "parse_stored",
    "parse_version_field",
    "sanitize_field",
    "strip_markers",
]
