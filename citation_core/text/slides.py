"""Slide text as PDF extraction gives it, read into a title and whole statements (bullets, lines, code)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CODE_LINE = re.compile(
    r"^\d+\s{2,}"  # numbered pseudo code: "3  while i ≤ n"
    r"|^[A-Z][A-Z0-9_-]*\([^()]*\)$"  # a pseudo-code signature: "MERGE(A, p, q, r)"
    r"|^(?:def|cdef|cpdef|class|import|from\s+\S+\s+import|return|print\(|raise|for\s+\w+\s+in|while\s|if\s.*:$"
    r"|elif\s|else:|try:|except\b|with\s.*:$|ctypedef|cimport|\\\w+\{|#\s*\w+\.(?:py|pyx|pxd|sh)\b)"
    r"|\s{2,}#\s|;\s*$|^[\w.]+\s*[+\-*/]?=\s*[\w.]+\(.*\)\s*$"
)
_BULLET = re.compile(r"^\s*(?:[•▪‣◦●■□◆◇►▸▹➢✓*]|[-–—](?=\s)|\d{1,2}[.)](?=\s+\S))\s*")
_SUB_BULLET = re.compile(r"^\s*[–◦▪▹-]\s")
_FOOTER = re.compile(r"^(?:(?:Folie|Slide|Seite|Page|Diapositiva|Diapositive|Dia|Slajd|Слайд)\s*)?\d{1,4}"
                     r"(?:\s*/\s*\d{1,4})?$", re.I)
_INLINE_BULLET = re.compile(r"(?<=[^\s●•])(?=[●•]\s)")
_CONNECTOR_END = re.compile(r"(?:[=+\-−–,;(·×⇒→≤≥<>≈∑∏/*^]|\b(?:and|or|of|the|a|an|to|with|as|for|in|is|und|oder"
                            r"|der|die|das|von|mit|zu|für|ist|als|et|de|la|le|y|el|en|que)\b)\s*$", re.I)
_CONTINUATION_START = re.compile(r"^[a-zäöüßàâçéèêëîïôûùüÿñæœ0-9(\[{)\]}=+\-−–·×⇒→≤≥<>≈∑∏/*^,.;:|⌊⌈Θθ∈]")


@dataclass
class SlideUnit:
    """One statement of a slide: a bullet with its wrapped lines (and its sub-bullets), a formula line or a
    prose paragraph."""

    text: str
    kind: str  # "bullet" | "line" | "code"
    children: list[str] = field(default_factory=list)

    def full(self) -> str:
        """The unit as one statement: "Fall 3: z hat zwei Kinder: Nachfolger …; y nimmt …"."""
        if not self.children:
            return self.text
        joiner = " " if self.text.endswith((":", "–", "-")) else ": "
        return self.text + joiner + "; ".join(c.rstrip(";,.") for c in self.children)


@dataclass
class Slide:
    title: str
    units: list[SlideUnit]


def is_code_line(line: str) -> bool:
    """A line of code: numbered pseudo code ("3  while i ≤ n"), a signature ("MERGE(A, p, q, r)"), or a
    line of a program ("def ddot(...):", "    cdef int k")."""
    stripped = line.strip()
    if not stripped:
        return False
    if line.startswith(("    ", "\t")) and re.match(r"[a-z_]\w*[\s.(\[=]", stripped) and re.search(
            r"[=(\[]|:$", stripped) and len(stripped.split()) <= 12:
        return True
    return bool(_CODE_LINE.search(stripped))


def is_footer(line: str) -> bool:
    """A printed page number ("12", "12 / 40", "Folie 7")."""
    return bool(_FOOTER.match(line.strip()))


BOILERPLATE = re.compile(r"\b(?:licen[sc]ed?\b|lizenz|copyright|all rights reserved|cc by)|©", re.I)
_NUMBERS_ONLY = re.compile(r"^[\d\s.,]+$")
_TABLE_ROW = re.compile(r"\S {3,}\S.* {3,}\S|\S {5,}\S")
_FORMULA_START = re.compile(r"^(?:[A-Za-zΑ-Ωα-ω]{1,3}\s?\(|[=≈≤≥·∑∏√⟨])")


def _continues(prev: str, line: str, long_line: int) -> bool:
    """Whether ``line`` continues ``prev`` (a PDF breaks long bullets and paragraphs into lines)."""
    if _BULLET.match(line) or is_code_line(line) or is_footer(line):
        return False
    if _TABLE_ROW.search(prev.strip()) or _TABLE_ROW.search(line.strip()):
        return False  # columns: a table row or an aligned formula, never a wrapped sentence
    stripped = line.strip()
    if _CONTINUATION_START.match(stripped):
        return True
    if _FORMULA_START.match(stripped) and not prev.rstrip().endswith((".", "!", "?")):
        return True
    if _CONNECTOR_END.search(prev):
        return True
    if prev.rstrip().endswith((".", "!", "?", ":")):
        return False
    return len(prev) >= long_line


def slide_units(text: str, has_title: bool = True) -> Slide:
    """Read slide text (as PDF extraction gives it) into a title and whole statements.

    Wrapped lines are joined back to their bullet or paragraph; sub-bullets stay with their bullet;
    printed page numbers are dropped; code lines are kept apart (kind "code").
    """
    raw = [ln.rstrip() for part in normalize_lines(text) for ln in _INLINE_BULLET.split(part)]
    lines = [ln for ln in raw if ln.strip() and ln.strip() != "."]
    lines = [ln for ln in lines if not is_footer(ln) and not BOILERPLATE.search(ln)]
    title = ""
    while has_title and len(lines) > 2 and len(lines[0].strip()) < 3:
        lines.pop(0)  # a logo letter before the title
    if has_title and len(lines) > 1 and not _BULLET.match(lines[0]) and len(lines[0]) <= 80:
        title = lines.pop(0).strip()
    widths = sorted(len(ln) for ln in lines)
    long_line = max(40, int(0.8 * widths[int(0.9 * (len(widths) - 1))])) if widths else 40
    units: list[SlideUnit] = []
    last_raw = ""
    for line in lines:
        stripped = line.strip()
        if is_code_line(line):
            units.append(SlideUnit(stripped, "code"))
            last_raw = ""
            continue
        if _NUMBERS_ONLY.match(stripped) and not (last_raw and _CONNECTOR_END.search(last_raw)):
            continue  # labels of a figure ("0 28", "3 17 31 10"), not text
        if units and last_raw and units[-1].kind != "code" and _continues(last_raw, line, long_line):
            unit = units[-1]
            if unit.children:
                unit.children[-1] = f"{unit.children[-1]} {stripped}"
            else:
                unit.text = f"{unit.text} {stripped}"
            last_raw = line
            continue
        if _BULLET.match(line):
            body = _BULLET.sub("", line, count=1).strip()
            if _SUB_BULLET.match(line) and units and units[-1].kind == "bullet":
                units[-1].children.append(body)
            else:
                units.append(SlideUnit(body, "bullet"))
        else:
            units.append(SlideUnit(stripped, "line"))
        last_raw = line
    for unit in units:
        if unit.kind != "code":
            unit.text = " ".join(unit.text.split())
            unit.children = [" ".join(c.split()) for c in unit.children]
    return Slide(title, [u for u in units if u.text])


_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st",
                            "\u00a0": " ", "\u202f": " "})


def unligature(text: str) -> str:
    """``text`` with typographic ligatures ("ﬁ") spelled out; formulas, sub- and superscripts stay."""
    return text.translate(_LIGATURES)


def normalize_lines(text: str) -> list[str]:
    """Lines of PDF text with ligatures spelled out."""
    return unligature(text).replace("\r\n", "\n").split("\n")


def slide_lines(text: str) -> list[str]:
    """Slide lines with wrapped bullets joined back together (the title first, code lines left out)."""
    slide = slide_units(text)
    out = [slide.title] if slide.title else []
    return out + [u.full() for u in slide.units if u.kind != "code"]

