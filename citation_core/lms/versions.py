"""Stamping material versions onto final markers before an answer is stored (the stored form)."""

from __future__ import annotations

from collections.abc import Callable

from ..contract import StoredMarker, parse
from ..material.models import MaterialVersions

VersionLookup = Callable[[str], MaterialVersions | None]


def stamp_versions(answer: str, versions_of: VersionLookup) -> str:
    """Every final marker gets ``va<N>`` (slide) or ``vt<N>`` (video) from its unit's current versions.

    FAQ markers, markers already carrying a version and markers of unknown units are left as they are;
    the text between markers is never touched.
    """
    out: list[str] = []
    pos = 0
    for m in parse(answer, "stored"):
        start, end = m.span
        out.append(answer[pos:start])
        pos = end
        raw = answer[start:end]
        try:
            ref = m.source_ref()
        except ValueError:
            out.append(raw)
            continue
        current = versions_of(m.entity_id) if m.type == "L" else None
        if m.version is not None or current is None or ref.kind not in ("slide", "video"):
            out.append(raw)
            continue
        n = current.video if ref.kind == "video" else current.attachment
        out.append(StoredMarker(ref, m.keyword or "", m.summary or "", n).format())
    out.append(answer[pos:])
    return "".join(out)
