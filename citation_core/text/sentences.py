"""Sentences with their character offsets: pysbd inside Markdown blocks, fenced code skipped."""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from typing import Any

from .fences import prose_regions
from .languages import _PYSBD, detect_language, lang_code, stop_words
from .tokens import _MEMO

_local = threading.local()


def _segmenter(lang: str) -> Any:
    cache: dict[str, Any] | None = getattr(_local, "segmenters", None)
    if cache is None:
        cache = _local.segmenters = {}
    code = _PYSBD.get(lang, "en")
    if code not in cache:
        import pysbd

        cache[code] = pysbd.Segmenter(language=code, clean=False)
    return cache[code]



@dataclass(frozen=True)
class Sentence:
    start: int
    end: int  # end of the sentence text, after its closing punctuation (trailing space excluded)
    text: str


_BLOCK_BREAK = re.compile(
    r"\n[ \t]*\n"  # a blank line
    r"|\n(?=[ \t]*(?:[-*+•]|\d+[.)])[ \t])"  # before a list item
    r"|\n(?=[ \t]*#)"  # before a heading
    r"|\n(?=[ \t]*>)"  # before a quote line
)
_TERMINAL = re.compile(r"[.!?](?=[\s\"')\]”’»]|$)|[。！？]")
_ENDS_SENTENCE = re.compile(r"[.!?。！？:;…][\"')\]”’»」]*$")
# Titles and reference words that pysbd misses in some languages ("El Sr. García", "Dhr. Jansen").
_ENDS_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:sr|sra|srta|dr|dra|prof|dhr|mevr|hr|fr|mme|mlle|sig|sig\.ra|nr|bd|kap|abs|abb|tab|fig|vol|ed"
    r"|hrsg|ing|dipl|mgr|inż|doç|yrd|av|sn|st|vgl|bzw|ca|usw|etc|ggf|inkl|ul|np|tzn|itd|itp|др|проф|г|т\.е|см)"
    r"\.$", re.I)
_MARKER = re.compile(r"\[cite:[^\[\]\n]{0,600}\]")
_PYSBD_WINDOW = 1500


def _windows(block: str) -> list[tuple[int, int]]:
    """``block`` cut into pieces pysbd can take (its cost grows with the square of the length): at line
    breaks, else after a sentence end that is followed by a capital letter."""
    if len(block) <= _PYSBD_WINDOW:
        return [(0, len(block))]
    out, start = [], 0
    while len(block) - start > _PYSBD_WINDOW:
        limit = start + _PYSBD_WINDOW
        cut = block.rfind("\n", start + _PYSBD_WINDOW // 3, limit)
        if cut < 0:
            ends = [m.end() for m in re.finditer(r"[a-zäöüß]{3}[.!?] (?=[A-ZÄÖÜ])", block[start:limit])]
            cut = start + ends[-1] if ends else limit
        out.append((start, cut))
        start = cut
    out.append((start, len(block)))
    return out


def _split_block(block: str, lang: str) -> list[tuple[int, int]]:
    """Sentence spans inside one block of prose (no blank lines, no list items)."""
    if not _TERMINAL.search(block.rstrip()[:-1] if block.rstrip() else ""):
        return [(0, len(block))]  # no sentence end before the last character: one sentence
    spans: list[tuple[int, int]] = []
    for a, b in _windows(block):
        piece = block[a:b]
        pos = 0
        try:
            parts = _segmenter(lang).segment(piece)
        except Exception:  # noqa: BLE001 - a segmenter failure falls back to one sentence per window
            parts = [piece]
        for part in parts:
            body = str(part).strip()
            if not body:
                continue
            at = piece.find(body, pos)
            if at < 0:  # the segmenter changed the text: keep the rest as one sentence
                spans.append((a + pos, b))
                pos = len(piece)
                break
            spans.append((a + at, a + at + len(body)))
            pos = at + len(body)
    spans = [part for span in spans for part in _split_after_variables(block, span, lang)]
    # A boundary needs a sentence end before it (or a line break): pysbd sometimes cuts before a
    # one-letter word followed by a period ("… Kind von | y. Der …"); such pieces are joined again.
    merged: list[tuple[int, int]] = []
    for span in spans:
        prev = block[merged[-1][0] : merged[-1][1]] if merged else ""
        if merged and (not _ENDS_SENTENCE.search(prev) or _ENDS_ABBREVIATION.search(prev)) and "\n" not in block[
                merged[-1][1] : span[0]]:
            merged[-1] = (merged[-1][0], span[1])
        else:
            merged.append(span)
    return merged


_VARIABLE_END = re.compile(r"(?<=[\s(])[A-Za-z]\.(?=\s+([A-ZÄÖÜ][a-zäöüß]+)\b)")


def _split_after_variables(block: str, span: tuple[int, int], lang: str) -> list[tuple[int, int]]:
    """pysbd reads a one-letter word before a period as an initial ("arrays L and R. In every step"); in
    lecture text it is a variable, and a sentence ends there when the next word is a function word."""
    a, b = span
    cuts = []
    for m in _VARIABLE_END.finditer(block, a, b):
        before = block[max(a, m.start() - 3) : m.start()]
        if "." in before:
            continue  # "z. B.", "e. g.": an abbreviation of several letters
        if m.group(1).lower() in stop_words(lang):
            cuts.append(m.end())
    out, start = [], a
    for cut in cuts:
        out.append((start, cut))
        start = cut + len(block[cut:b]) - len(block[cut:b].lstrip())
    out.append((start, b))
    return out


def sentences(text: str, lang: str | None = None) -> list[Sentence]:
    """Split prose into sentences with their character offsets; fenced code blocks are skipped.

    Markdown blocks (paragraphs, list items, headings, quote lines) always end a sentence; inside a block
    pysbd decides. Citation markers already in the text count as part of the sentence before them.
    """
    return list(_sentence_tuple(text, lang))


@functools.lru_cache(maxsize=_MEMO)  # a source's sentences are asked for once per citation of it
def _sentence_tuple(text: str, lang: str | None) -> tuple[Sentence, ...]:
    masked = _MARKER.sub(lambda m: " " * len(m.group(0)), text)
    lang = lang_code(lang) if lang else detect_language(masked)
    out: list[Sentence] = []
    for a, b in prose_regions(masked):
        region = masked[a:b]
        start = 0
        cuts = [m.start() for m in _BLOCK_BREAK.finditer(region)] + [len(region)]
        for cut in cuts:
            block = region[start:cut]
            for s, e in _split_block(block, lang):
                chunk = block[s:e]
                lead = len(chunk) - len(chunk.lstrip())
                body = chunk.strip()
                if body:
                    begin = a + start + s + lead
                    out.append(Sentence(begin, begin + len(body), text[begin : begin + len(body)]))
            start = cut
    return tuple(_with_markers(text, s) for s in out)


def _with_markers(text: str, sent: Sentence) -> Sentence:
    """``sent`` extended over markers directly behind it, so that new markers go after existing ones."""
    end = sent.end
    while True:
        m = _MARKER.match(text, end)
        if m is None:
            break
        end = m.end()
    if end == sent.end:
        return sent
    return Sentence(sent.start, end, text[sent.start : end])


_FENCED_AFTER = re.compile(r"(?:\[cite:[^\[\]\n]{0,600}\]|[ \t])*\n(?:[ \t]*\n)*([ \t]*)(`{3,}|~{3,})[^\n]*\n(.*?)"
                           r"(?:\n[ \t]*\2[`~]*[ \t]*(?=\n|$)|\Z)", re.S)


def fenced_block_after(text: str, offset: int) -> tuple[str, int] | None:
    """The code of the fenced block that starts on the line after ``offset`` (markers and blank lines
    between aside), without its fences and indentation, and where the block ends; None when the next line
    is no fence. It is what a sentence ending at ``offset`` introduces ("Folie 7 sagt:", "Git markiert den
    Konflikt in der Datei:")."""
    m = _FENCED_AFTER.match(text, offset)
    if m is None:
        return None
    indent = len(m.group(1))
    code = "\n".join(line[indent:] if line[:indent].isspace() else line.lstrip() for line in m.group(3).split("\n"))
    return code, m.end()


def first_sentences(text: str, max_sentences: int = 2, max_chars: int = 220, lang: str | None = None) -> str:
    """The first whole sentences of ``text`` that fit in ``max_chars`` (at least one, never cut in a word)."""
    flat = " ".join(text.split())
    parts = [s.text for s in sentences(flat, lang)] or [flat]
    out = parts[0]
    for part in parts[1:max_sentences]:
        if len(out) + 1 + len(part) > max_chars:
            break
        out = f"{out} {part}"
    return out

