"""Small text helpers shared by the offline model and retrieval: tokens, stop words, sentences."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just let me more most my myself no nor
    not now of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves one two use used
    using uses get gets got may might must shall via per e g i e etc vs thus hence therefore
    der die das den dem des ein eine einer eines einem einen und oder aber ist sind war waren wird werden wurde
    wurden hat haben hatte mit von zu zum zur im in an am auf aus bei bis durch für gegen nach ohne um unter über
    vor wie was wer wo wenn dann dass da daß nicht kein keine keinen auch nur noch schon sehr so sich es er sie
    wir ihr ich du man diese dieser dieses diesem diesen jede jeder jedes jeden als also kann können muss müssen
    soll sollen wird zwei eins mehr
    le la les un une des du de et ou est sont pour dans sur avec par pas que qui
    el los las unos unas y o es son para con por que en
    """.split()
)


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits, inner hyphens/apostrophes kept)."""
    return [t.lower() for t in _TOKEN.findall(text)]


def content_tokens(text: str) -> list[str]:
    """Tokens without stop words and one-character noise."""
    return [t for t in tokens(text) if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]


_SUFFIXES = ("ing", "ed", "es", "en", "er", "s", "e", "n")


def stem(token: str) -> str:
    """A light, language-agnostic suffix strip so that "merging", "merges" and "merge" meet."""
    for suffix in _SUFFIXES:
        if len(token) - len(suffix) >= 4 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def stems(text: str) -> set[str]:
    """Stemmed content tokens of ``text``, for matching sentences against questions and sources."""
    return {stem(t) for t in content_tokens(text)}


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int  # end of the sentence text, after its closing punctuation (trailing space excluded)
    text: str


_SENTENCE_END = re.compile(
    r"(?<=[.!?。！？])(?=[\s\"')\]]|$)"  # after closing punctuation
    r"|\n\s*\n"  # a blank line
    r"|\n(?=\s*(?:[-*+]|\d+\.)\s)"  # before a list item
    r"|\n(?=#)"  # before a heading
)


def _prose_regions(text: str) -> list[tuple[int, int]]:
    """Character ranges outside fenced code blocks."""
    regions, pos = [], 0
    for m in re.finditer(r"^[ \t]*```.*?(?:^[ \t]*```[^\n]*$|\Z)", text, re.S | re.M):
        regions.append((pos, m.start()))
        pos = m.end()
    regions.append((pos, len(text)))
    return [(a, b) for a, b in regions if b > a]


def sentences(text: str) -> list[Sentence]:
    """Split prose into sentences with their character offsets; fenced code blocks are skipped."""
    out: list[Sentence] = []
    for a, b in _prose_regions(text):
        region = text[a:b]
        start = 0
        cuts = [m.start() for m in _SENTENCE_END.finditer(region)] + [len(region)]
        for cut in cuts:
            chunk = region[start:cut]
            lead = len(chunk) - len(chunk.lstrip())
            body = chunk.strip()
            if body:
                s = a + start + lead
                out.append(Sentence(s, s + len(body), body))
            start = cut
    return out


def first_sentences(text: str, max_sentences: int = 2, max_chars: int = 220) -> str:
    """The first sentences of ``text``, cut at a word boundary if too long."""
    flat = " ".join(text.split())
    parts = [s.text for s in sentences(flat)][:max_sentences] or [flat]
    summary = " ".join(parts)
    if len(summary) > max_chars:
        cut = summary[:max_chars].rsplit(" ", 1)[0].rstrip(",;:-")
        summary = cut + "…"
    return summary


_CODE_LINE = re.compile(r"^\d+\s{2,}|^[A-Z][A-Z0-9_-]*\(.*\)$")


def is_code_line(line: str) -> bool:
    """A numbered pseudo-code line ("3  while i ≤ n") or a signature line ("MERGE(A, p, q, r)")."""
    return bool(_CODE_LINE.search(line.strip()))


_BULLET = re.compile(r"^\s*[•▪‣◦*-]\s+")


def slide_lines(text: str) -> list[str]:
    """Slide lines with wrapped bullets joined back together (PDF text breaks long bullets)."""
    out: list[str] = []
    in_bullet = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            in_bullet = False
            continue
        if _BULLET.match(raw):
            out.append(_BULLET.sub("", raw).strip())
            in_bullet = True
        elif in_bullet and out and not line[:1].isupper():
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
            in_bullet = False
    return out


def clock(second: float) -> str:
    """A video position as people read it, the same as the chips show it: "2:05", "1:02:05" from an hour on.

    Fractions are dropped; a negative or non-finite position gives "".
    """
    if not math.isfinite(second) or second < 0:
        return ""
    s = int(second)
    hours, minutes, seconds = s // 3600, s // 60 % 60, s % 60
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
