"""Stamping material versions onto final markers before an answer is stored (the stored form)."""

from __future__ import annotations

from collections.abc import Callable

from ..contract import Marker, StoredMarker, join_segments, segments
from ..errors import MarkerError
from ..material.models import MaterialVersions

VersionLookup = Callable[[str], MaterialVersions | None]


def stamp_versions(answer: str, versions_of: VersionLookup) -> str:
    """Every final marker gets ``va<N>`` (slide) or ``vt<N>`` (video) from its unit's current versions.

    FAQ markers, markers already carrying a version and markers of unknown units are left as they are;
    the text between markers is never touched.
    """
    return join_segments([_stamped(seg, versions_of) if isinstance(seg, Marker) else seg
                          for seg in segments(answer, "stored")])


def _stamped(marker: Marker, versions_of: VersionLookup) -> Marker:
    m = marker.match
    try:
        ref = m.source_ref()
    except MarkerError:
        return marker
    current = versions_of(m.entity_id) if m.type == "L" else None
    if m.version is not None or current is None or ref.kind not in ("slide", "video"):
        return marker
    n = current.video if ref.kind == "video" else current.attachment
    return Marker(StoredMarker(ref, m.keyword or "", m.summary or "", n).format(), m)
