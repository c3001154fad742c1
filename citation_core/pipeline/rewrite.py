"""Phase 5: every intermediate marker to its final form (sequence number dropped)."""

from __future__ import annotations

from collections.abc import Mapping

from ..contract import FinalMarker
from .enrich import Enrichment
from .serialize import SerializedSource


def final_markers(entries: Mapping[int, SerializedSource], seqs: tuple[int, ...], enr: Enrichment) -> dict[int, str]:
    return {
        seq: FinalMarker(entries[seq].ref, enr.keywords.get(seq, ""), enr.summaries.get(seq, "")).format()
        for seq in seqs
    }
