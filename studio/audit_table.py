"""The support audit as a table: sentence · chip · evidence · verdict, unsupported citations flagged.

Rows come from the per-marker audits stored with an answer (``Audit.to_json()`` plus ``index``) or
from a fresh ``ChatResult.audits``; the table is HTML whose every text is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citation_core.lms.evidence_view import elide
from citation_core.material.library import CourseMaterial
from citation_core.text import clock

VERDICT_LABEL = {"supported": "Supported", "partial": "Partial", "unsupported": "Unsupported"}


@dataclass(frozen=True)
class AuditRow:
    sentence: str
    chip: str  # keyword and where, as the chip names it
    evidence: str
    verdict: str
    score: float
    reason: str

    @property
    def flagged(self) -> bool:
        return self.verdict == "unsupported"


def _where(citation: Mapping[str, Any], material: CourseMaterial | None) -> str:
    kind, entity = citation.get("type"), str(citation.get("entity_id") or "")
    if kind == "F":
        faq = next((f for f in material.faqs if str(f.id) == entity), None) if material else None
        return f"FAQ “{faq.question}”" if faq else f"FAQ {entity}"
    page, start, end = citation.get("page"), citation.get("start"), citation.get("end")
    um = material.units.get(int(entity)) if material and entity.isdigit() else None
    unit = f" of “{um.unit.name}”" if um else f" of unit {entity}"
    if isinstance(page, int):
        name = um.page_label(page) if um else f"page {page}"
        return f"{name[0].upper()}{name[1:]}{unit}"
    if isinstance(start, int):
        span = f"{clock(start)}–{clock(end)}" if isinstance(end, int) and end > start else clock(start)
        return f"{(um.timed_source if um else 'video').capitalize()} {span}{unit}"
    return f"Source{unit}"


def audit_rows(audits: Sequence[Mapping[str, Any]], material: CourseMaterial | None = None) -> list[AuditRow]:
    rows = []
    for a in audits:
        citation = a.get("citation") if isinstance(a.get("citation"), Mapping) else {}
        evidence = a.get("evidence") if isinstance(a.get("evidence"), Mapping) else {}
        keyword = str(citation.get("keyword") or "").strip()
        where = _where(citation, material)
        rows.append(AuditRow(
            sentence=str(a.get("sentence") or ""),
            chip=f"{keyword} · {where}" if keyword else where,
            evidence=elide(str(evidence.get("text") or "")) if evidence else "",
            verdict=str(a.get("verdict") or "unsupported"),
            score=float(a.get("score") or 0.0),
            reason=str(a.get("reason") or ""),
        ))
    return rows


TABLE_CSS = """<style>
.audit-table { width: 100%; border-collapse: collapse; font-size: 0.86rem; line-height: 1.45; }
.audit-table th, .audit-table td { border-bottom: 1px solid rgba(128, 128, 128, 0.25); padding: 6px 8px;
  text-align: left; vertical-align: top; }
.audit-table th { font-weight: 600; opacity: 0.75; }
.audit-table tr.is-flagged td { background: rgba(255, 75, 75, 0.1); }
.audit-table td.audit-evidence { font-style: italic; }
.audit-table .audit-reason { display: block; opacity: 0.7; font-size: 0.8rem; }
.audit-table .audit-verdict { font-weight: 600; white-space: nowrap; }
.audit-table .audit-verdict::before { content: ""; display: inline-block; width: 0.6em; height: 0.6em;
  margin-right: 0.35em; border-radius: 50%; background: currentColor; }
.audit-table .audit-verdict--supported { color: #1f8a4c; }
.audit-table .audit-verdict--partial { color: #b26b00; }
.audit-table .audit-verdict--unsupported { color: #d03b3b; }
</style>"""


def audit_table_html(rows: Sequence[AuditRow]) -> str:
    """The rows as an HTML table (every text escaped); flagged rows carry ``is-flagged``."""
    e = html.escape
    body = "".join(
        f"<tr class='{'is-flagged' if r.flagged else ''}' data-verdict='{e(r.verdict)}'>"
        f"<td>{e(r.sentence)}</td><td>{e(r.chip)}</td>"
        f"<td class='audit-evidence'>{e(f'“{r.evidence}”') if r.evidence else '—'}</td>"
        f"<td><span class='audit-verdict audit-verdict--{e(r.verdict)}'>"
        f"{e(VERDICT_LABEL.get(r.verdict, r.verdict))}</span> · {r.score:.2f}"
        f"<span class='audit-reason'>{e(r.reason)}</span></td></tr>"
        for r in rows)
    return (f"{TABLE_CSS}<table class='audit-table' data-testid='audit-table'><thead><tr><th>Sentence</th>"
            f"<th>Chip</th><th>Evidence</th><th>Verdict</th></tr></thead><tbody>{body}</tbody></table>")


def audit_table(audits: Sequence[Mapping[str, Any]], material: CourseMaterial | None = None) -> list[AuditRow]:
    """Draw the audit of an answer: a one-line summary (how many flagged) and the table. Returns the rows."""
    import streamlit as st

    rows = audit_rows(audits, material)
    if not rows:
        st.caption("No citation to audit.")
        return rows
    flagged = sum(r.flagged for r in rows)
    summary = (f"{flagged} of {len(rows)} citations flagged as unsupported: the cited source may not say what "
               "its sentence says." if flagged else f"All {len(rows)} citations are supported or partly supported.")
    (st.warning if flagged else st.caption)(summary)
    st.html(audit_table_html(rows))
    return rows
