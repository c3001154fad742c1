"""Material versions of markers: stamped onto final markers before an answer is stored (the stored form), and
how a stored version stands to the unit's current material."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from ..contract import Marker, StoredMarker, join_segments, segments
from ..errors import MarkerError
from ..material.models import MaterialVersions

VersionLookup = Callable[[str], MaterialVersions | None]
VersionStanding = Literal["current", "older", "newer"]
_VERSION_FIELD = re.compile(r"v([at])([0-9]+)")


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


def version_standing(version: str | None, current: MaterialVersions | None) -> VersionStanding:
    """How a stored marker's version field stands to its unit's ``current`` versions (``va<N>``: the attachment,
    ``vt<N>``: the video), as the chips compare them (chip_model.js, ``versionStanding``): "older" (stale: the
    material changed since the citation was written), "newer" (a citation from another copy of the material,
    newer than this one) or "current" (the same version, no version field, or no unit to compare with)."""
    m = _VERSION_FIELD.fullmatch(version or "")
    if m is None or current is None:
        return "current"
    stored, now = int(m[2]), current.attachment if m[1] == "a" else current.video
    if stored == now:
        return "current"
    return "older" if stored < now else "newer"
