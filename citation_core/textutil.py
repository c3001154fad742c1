"""Text handling shared by the offline model, the answer writer and retrieval, for 12 languages.

Supported: en de fr es it pt nl pl tr ru zh ja. The language work is done by maintained libraries, each
loaded on first use:

- sentences: pysbd (rule based; knows each language's abbreviations and ordinals, "14. Februar",
  "z. B.", "e.g."). Portuguese uses its Spanish rules and Turkish its English rules (pysbd has none).
- stems: PyStemmer (the Snowball stemmers); Chinese and Japanese are matched by character bigrams.
- stop words: the NLTK lists that bm25s ships (en, de, fr, es, it, pt, nl, ru, tr, zh), stopwords-iso
  for pl and ja. stopwords-iso's broad lists also mark the words a keyword must not end in.

Matching never needs the language to be given: ``detect_language`` guesses it from stop words and
scripts, falling back to a default. Markdown structure (blank lines, list items, headings, fenced
code) is respected by ``sentences``; slide text is read into whole bullets by ``slide_units``.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
import sys
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "pl", "tr", "ru", "zh", "ja")

_SNOWBALL = {"en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
             "pt": "portuguese", "nl": "dutch", "pl": "polish", "tr": "turkish", "ru": "russian"}
_PYSBD = {"en": "en", "de": "de", "fr": "fr", "es": "es", "it": "it", "pt": "es", "nl": "nl", "pl": "pl",
          "tr": "en", "ru": "ru", "zh": "zh", "ja": "ja"}
_BM25S_LISTS = {"en": "STOPWORDS_EN_PLUS", "de": "STOPWORDS_GERMAN", "fr": "STOPWORDS_FRENCH",
                "es": "STOPWORDS_SPANISH", "it": "STOPWORDS_ITALIAN", "pt": "STOPWORDS_PORTUGUESE",
                "nl": "STOPWORDS_DUTCH", "ru": "STOPWORDS_RUSSIAN", "tr": "STOPWORDS_TURKISH",
                "zh": "STOPWORDS_CHINESE"}

# Ordinal words that name a numbered item ("the second case" is case 2).
ORDINALS: dict[str, dict[str, str]] = {
    "en": {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5"},
    "de": {"erste": "1", "ersten": "1", "erster": "1", "zweite": "2", "zweiten": "2", "zweiter": "2",
           "dritte": "3", "dritten": "3", "dritter": "3", "vierte": "4", "vierten": "4"},
    "fr": {"premier": "1", "première": "1", "deuxième": "2", "second": "2", "seconde": "2", "troisième": "3"},
    "es": {"primer": "1", "primero": "1", "primera": "1", "segundo": "2", "segunda": "2", "tercer": "3",
           "tercero": "3", "tercera": "3"},
    "it": {"primo": "1", "prima": "1", "secondo": "2", "seconda": "2", "terzo": "3", "terza": "3"},
    "pt": {"primeiro": "1", "primeira": "1", "segundo": "2", "segunda": "2", "terceiro": "3", "terceira": "3"},
    "nl": {"eerste": "1", "tweede": "2", "derde": "3", "vierde": "4"},
    "pl": {"pierwszy": "1", "pierwszym": "1", "drugi": "2", "drugim": "2", "trzeci": "3", "trzecim": "3"},
    "tr": {"birinci": "1", "ikinci": "2", "üçüncü": "3"},
    "ru": {"первый": "1", "первом": "1", "второй": "2", "втором": "2", "третий": "3", "третьем": "3"},
    "zh": {"第一": "1", "第二": "2", "第三": "3"},
    "ja": {"第一": "1", "第二": "2", "第三": "3"},
}

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_WORD = re.compile(r"[^\W_]+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Formula-like words that identify a statement better than its letters: "T(n)", "2·T(n/2)", "Θ(n²)".
_MATH = re.compile(r"[^\s,;]*[(=^/·⌊⌈∑∏√≤≥≈→⇒][^\s,;]*")


# --- resources, loaded on first use ----------------------------------------------------------------------

def lang_code(code: str | None) -> str:
    """A supported language code for ``code`` ("de-CH" → "de"); unknown codes give "en"."""
    key = (code or "en").strip().lower().replace("_", "-").split("-")[0]
    return key if key in LANGUAGES else "en"


@functools.cache
def stop_words(lang: str) -> frozenset[str]:
    """The conservative stop-word list of ``lang`` (function words only, so that "case" or "keys" stay)."""
    lang = lang_code(lang)
    name = _BM25S_LISTS.get(lang)
    if name is not None:
        words = getattr(_bm25s_stop_word_lists(), name, None)
        if words:
            return frozenset(w.lower() for w in words)
    return frozenset(w.lower() for w in _iso_stop_words(lang))


@functools.cache
def weak_words(lang: str) -> frozenset[str]:
    """stopwords-iso's broad list of ``lang`` (frequent verbs, adverbs, quantifiers): no keyword ends in one."""
    return frozenset(w.lower() for w in _iso_stop_words(lang_code(lang))) | stop_words(lang)


# The stop-word lists come from two packages whose import loads much more than the lists: bm25s loads numpy
# (about 20 MiB and 0.1 s), stopwordsiso importlib.metadata (5 MiB). Matching and the offline model need only
# the lists, so they are read from the packages' folders (found without running the packages) unless the
# packages are loaded anyway; the packages' own import is the fallback.

def _package_file(package: str, name: str) -> Path | None:
    spec = importlib.util.find_spec(package)  # a top-level package is found without running it
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(folders[0], name) if folders else None
    return path if path is not None and path.is_file() else None


@functools.cache
def _bm25s_stop_word_lists() -> Any:
    """bm25s's ``stopwords`` module (constant word lists only)."""
    loaded = sys.modules.get("bm25s.stopwords")
    path = _package_file("bm25s", "stopwords.py") if loaded is None else None
    spec = importlib.util.spec_from_file_location("_bm25s_stopwords", path) if path is not None else None
    if spec is None or spec.loader is None:
        from bm25s import stopwords

        return stopwords
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _iso_lists() -> dict[str, list[str]] | None:
    """stopwords-iso's lists by language code, as ``stopwordsiso`` ships them; None: ask the package."""
    path = _package_file("stopwordsiso", "stopwords-iso.json") if "stopwordsiso" not in sys.modules else None
    if path is None:
        return None
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


def _iso_stop_words(lang: str) -> set[str]:
    """``stopwordsiso.stopwords(lang)``."""
    lists = _iso_lists()
    if lists is None:
        import stopwordsiso

        return set(stopwordsiso.stopwords(lang))
    return set(lists.get(lang.lower(), []))


@functools.cache
def _all_stop_words() -> frozenset[str]:
    return frozenset().union(*(stop_words(lang) for lang in LANGUAGES))


@functools.cache
def _detector() -> dict[str, dict[str, float]]:
    """For each Latin-script language: its stop words, each weighted by how few languages share it."""
    latin = [lang for lang in LANGUAGES if lang not in ("ru", "zh", "ja")]
    owners: dict[str, int] = {}
    for lang in latin:
        for w in stop_words(lang):
            owners[w] = owners.get(w, 0) + 1
    return {lang: {w: 1.0 / owners[w] for w in stop_words(lang) if len(w) > 1} for lang in latin}


_local = threading.local()


def _stemmer(lang: str) -> Any:
    """One Snowball stemmer per language and thread (PyStemmer objects are not thread-safe)."""
    cache: dict[str, Any] | None = getattr(_local, "stemmers", None)
    if cache is None:
        cache = _local.stemmers = {}
    if lang not in cache:
        import Stemmer

        cache[lang] = Stemmer.Stemmer(_SNOWBALL[lang])
    return cache[lang]


def _segmenter(lang: str) -> Any:
    cache: dict[str, Any] | None = getattr(_local, "segmenters", None)
    if cache is None:
        cache = _local.segmenters = {}
    code = _PYSBD.get(lang, "en")
    if code not in cache:
        import pysbd

        cache[code] = pysbd.Segmenter(language=code, clean=False)
    return cache[code]


# --- language, tokens, stems ---------------------------------------------------------------------------

def normalize(text: str) -> str:
    """NFKC (ligatures such as "ﬁ" and subscripts become plain letters and digits)."""
    return unicodedata.normalize("NFKC", text)


def detect_language(text: str, default: str = "en") -> str:
    """The most likely of the 12 languages by script and stop words; ``default`` when nothing decides."""
    if _KANA.search(text):
        return "ja"
    if len(_CJK.findall(text)) >= 2:
        return "zh"
    if len(_CYRILLIC.findall(text)) >= 3:
        return "ru"
    scores: dict[str, float] = {}
    words = [w.lower() for w in _WORD.findall(text[:4000])]
    for lang, weights in _detector().items():
        scores[lang] = sum(weights.get(w, 0.0) for w in words)
    for lang, letters in _LETTERS:  # letters only one of the languages uses
        if letters.search(text):
            scores[lang] = scores.get(lang, 0.0) + 1.25
    ranked = sorted(scores, key=lambda k: (-scores[k], k != default))
    best, second = ranked[0], ranked[1]
    if scores[best] >= 0.75 and scores[best] > scores[second]:
        return best
    return lang_code(default)


_LETTERS = (("de", re.compile(r"[äöüÄÖÜß]")), ("pl", re.compile(r"[ąęłńśźżĄĘŁŃŚŹŻ]")),
            ("tr", re.compile(r"[ğışİĞŞ]")), ("es", re.compile(r"[ñ¿¡]")), ("pt", re.compile(r"[ãõ]")),
            ("fr", re.compile(r"[êëœ]")), ("it", re.compile(r"[ìò]")))


def _cjk_grams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens; hyphens and apostrophes split words, CJK runs give character bigrams."""
    out: list[str] = []
    for word in _WORD.findall(normalize(text)):
        low = word.lower()
        if _CJK.search(low):
            pos = 0
            for m in _CJK_RUN.finditer(low):
                if m.start() > pos:
                    out.append(low[pos : m.start()])
                out.extend(_cjk_grams(m.group(0)))
                pos = m.end()
            if pos < len(low):
                out.append(low[pos:])
        else:
            out.append(low)
    return out


def content_tokens(text: str, lang: str | None = None) -> list[str]:
    """Tokens without the stop words of ``lang`` (all languages' when not given) and one-letter noise."""
    stops = stop_words(lang) if lang else _all_stop_words()
    return [t for t in tokens(text) if t not in stops and (len(t) > 1 or t.isdigit() or _CJK.match(t))]


def stem(token: str, lang: str = "en") -> str:
    """The Snowball stem of one lower-cased token (CJK tokens and numbers stay as they are)."""
    lang = lang_code(lang)
    if lang not in _SNOWBALL or token.isdigit() or _CJK.match(token):
        return token
    return str(_stemmer(lang).stemWord(token))


# Texts are stemmed again and again (the evidence of each citation compares its sentence with every window of
# lines of its source); a pure function of the text, so the last few thousand results are kept. Bounded,
# thread-safe, and it holds nothing but strings.
_MEMO = 4096


def stem_list(text: str, lang: str | None = None) -> list[str]:
    """Stems of the content tokens in order (repeats kept; for BM25); ordinal words also give their digit."""
    return list(_stem_tuple(text, lang))


@functools.lru_cache(maxsize=_MEMO)
def _stem_tuple(text: str, lang: str | None) -> tuple[str, ...]:
    lang = lang or detect_language(text)
    toks = content_tokens(text, lang)
    if not toks:
        return ()
    words = toks if lang not in _SNOWBALL else list(_stemmer(lang).stemWords(toks))
    ordinals = ORDINALS.get(lang, {})
    extra = [ordinals[t] for t in toks if t in ordinals]
    return tuple(w for w in words if w) + tuple(extra)


def stems(text: str, lang: str | None = None) -> set[str]:
    """The set of content stems of ``text``, for matching sentences against questions and sources."""
    return set(_stem_tuple(text, lang))


def math_terms(text: str) -> set[str]:
    """Formula words ("T(n)", "2·T(n/2)") as matching terms, marked with "§"; a lone bracket is none."""
    out = set()
    for m in _MATH.finditer(normalize(text)):
        term = m.group(0).strip(".:!?“”\"'")
        if len(term) >= 3 and any(c.isalnum() for c in term):
            out.add("§" + term.lower())
    return out


def terms(text: str, lang: str | None = None) -> set[str]:
    """Stems and formula words: what the offline placement and the writer compare."""
    return stems(text, lang) | math_terms(text)


def conflate(term: str, vocabulary: Iterable[str] | set[str], lang: str) -> str:
    """``term`` or, when only a variant occurs in ``vocabulary``, that variant.

    Snowball leaves some verb forms apart from their noun ("löscht" → "loscht", "Löschen" → "losch");
    a term missing from the vocabulary is tried without a final "t", "st", "e" or a "ge-" prefix.
    """
    vocab = vocabulary if isinstance(vocabulary, set | frozenset | dict) else set(vocabulary)
    if term in vocab or len(term) < 5 or term.startswith("§"):
        return term
    candidates = [term[:-1], term[:-2]] if lang in ("de", "nl") else [term[:-1]]
    if lang in ("de", "nl") and term.startswith("ge"):
        candidates += [term[2:], term[2:-1]]
    for cand in candidates:
        if len(cand) >= 4 and cand in vocab:
            return cand
    return term


# Words of a question that say how to answer, not what about ("explain this slide", "erkläre die Folie").
QUESTION_WORDS = frozenset("""slide slides page pages explain explains explaining explained lecture lecturer video
    talk talking say saying says mean means meaning tell show shown describe work works does happen happens
    passiert geschieht passe sucede succede acontece gebeurt dzieje происходит
    folie folien seite seiten erkläre erklären erklärt erklärung vorlesung bedeutet bedeutung sagt zeigt
    funktioniert diapositive diapositiva expliquer explique explica spiega explicar uitleg wyjaśnij açıkla
    объясни слайд why how what which when where who warum wieso weshalb wie was wann wo welche welcher welches
    pourquoi comment quoi quel quelle por qué cómo qué cuál perché come cosa quale porque como waarom hoe wat
    dlaczego jak co dlaczego neden nasıl почему как что""".split())


@functools.cache
def question_noise(lang: str) -> frozenset[str]:
    """The stems of ``QUESTION_WORDS`` in ``lang``."""
    return frozenset(t for w in QUESTION_WORDS for t in stem_list(w, lang))


# --- sentences -------------------------------------------------------------------------------------------

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


def _prose_regions(text: str) -> list[tuple[int, int]]:
    """Character ranges outside fenced code blocks."""
    regions, pos = [], 0
    for m in re.finditer(r"^[ \t]*```.*?(?:^[ \t]*```[^\n]*$|\Z)", text, re.S | re.M):
        regions.append((pos, m.start()))
        pos = m.end()
    regions.append((pos, len(text)))
    return [(a, b) for a, b in regions if b > a]


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
    for a, b in _prose_regions(masked):
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


# --- slides ----------------------------------------------------------------------------------------------

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


# --- rules for keywords and summaries --------------------------------------------------------------------

GENERIC_TITLES = frozenset(
    """agenda outline overview contents summary conclusion conclusions questions references thanks
    übersicht gliederung inhalt inhaltsverzeichnis zusammenfassung fragen literatur danke
    sommaire plan résumé índice resumen sommario indice sumário resumo inhoud overzicht samenvatting
    spis podsumowanie içindekiler özet содержание заключение вопросы 目录 总结 目次 まとめ""".split()
)
_MANGLED = re.compile(r"\( -|- -|\w -\w|\(\s*-\s*\)")
SELF_REFERENCE = re.compile(
    r"\bth(?:is|ese) (?:slides?|paragraphs?|passages?|text|section|segment|excerpt|sources?)\b"
    r"|\bdiese[rsmn]? (?:Folie|Absatz|Abschnitt|Text|Passage|Quelle)\b"
    r"|\bcette (?:diapositive|page|section)\b|\besta diapositiva\b", re.I)


# Words no sentence ends in: articles, prepositions, conjunctions.
DANGLING: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "en": "the an and or nor of to for with by from than but into onto via",
    "de": "der die das den dem des einen einem einer und oder von für als wie",
    "fr": "le la les un une des et ou de du à au aux pour avec par",
    "es": "el la los las un una unos unas y o de del a al para con por",
    "it": "il lo la i gli le un una e o di del della a al per con da",
    "pt": "o a os as um uma e ou de do da para com por",
    "nl": "de het een en of van voor met door",
}.items()}
_VERB_CONTEXT = {"en": "we you they i to can will must should may does do did cannot", "de": "wir sie er es ich man zu",
                 "fr": "nous vous ils on", "es": "se", "nl": "we wij je ze"}


def verbs_in(source: str, lang: str) -> set[str]:
    """Words the source uses as verbs: those right after a pronoun or "to" ("we split", "to divide")."""
    context = set(_VERB_CONTEXT.get(lang, "").split())
    toks = tokens(source)
    return {b for a, b in zip(toks, toks[1:], strict=False) if a in context and b not in stop_words(lang)}


def keyword_problems(keyword: str, source: str, used: Sequence[str] = (), lang: str | None = None) -> list[str]:
    """What is wrong with ``keyword`` as the chip label of ``source`` (empty: nothing).

    A keyword has 1–4 words, starts with a capital letter (scripts without case aside), has no Markdown,
    occurs in the source up to inflection, differs from the keywords used before it, and does not end in
    a stop word or a verb or adverb fragment (in German: a lower-case word).
    """
    problems: list[str] = []
    words = keyword.split()
    lang = lang or detect_language(source)
    if not 1 <= len(words) <= 4:
        problems.append(f"{len(words)} words")
    first = keyword[:1]
    if first.isalpha() and first.lower() != first.upper() and not first.isupper():
        problems.append("does not start with a capital letter")
    if re.search(r"[*_`#\[\]]", keyword):
        problems.append("Markdown or brackets")
    kw_terms = tokens(keyword)
    if kw_terms:
        if not _occurs(kw_terms, tokens(source), lang):
            problems.append("does not occur in the source (up to inflection)")
        last = kw_terms[-1]
        if last in stop_words(lang) or last in FRAGMENT_ENDS.get(lang, ()) or last in ORDINALS.get(lang, {}) or (
                lang == "en" and len(last) > 4 and last.endswith("ly")):
            problems.append(f"ends in the stop word, adverb or number {last!r}")
        if lang == "de":
            problems += _german_word_problems(words, source)
        problems += _inner_word_problems(kw_terms, lang)
        verbs = verbs_in(source, lang)
        if kw_terms[-1] in verbs:
            problems.append(f"the source uses {kw_terms[-1]!r} as a verb")
        if lang == "en" and (re.search(r"..ed$", last) or last in _EN_VERB_FORMS):
            problems.append(f"ends in the verb form {last!r}")
        if kw_terms[0] in stop_words(lang):
            problems.append(f"starts with the stop word {kw_terms[0]!r}")
    key = keyword_key(keyword, lang)
    if any(keyword_key(u, lang) == key for u in used):
        problems.append("repeats an earlier keyword")
    return problems


# Words a keyword must not end in besides stop words: adverbs, quantifiers and number words ("Leader still",
# "Knoten höchstens", "Löschen drei").
FRAGMENT_ENDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "en": """still also always never often just only even already yet again however thus hence therefore quite
        rather very really simply usually sometimes instead too almost nearly exactly directly together first
        last next then now here there well much many more most less least few several every each both either
        one two three four five six seven eight nine ten""",
    "de": """noch schon immer nie oft nur sogar bereits wieder jedoch also daher deshalb sehr einfach meist
        manchmal stattdessen auch fast genau direkt zusammen zuerst zuletzt dann jetzt hier dort höchstens
        mindestens wenigstens etwa viel viele mehr meist wenig wenige mehrere jede jeder beide eins zwei drei
        vier fünf sechs sieben acht neun zehn""",
}.items()}

# Words that may join the words of a keyword ("Divide and Conquer", "Analysis of Algorithms"); any other
# stop word inside a keyword makes it part of a sentence ("Sort is stable", "Split the subarray").
_CONNECTORS = frozenset("""and or of for with in on to vs und oder von für mit im in zum zur der des et de des du
    la le à en y del el di della e da do van het voor met i w z na ve ile и в с""".split())
_EN_VERB_FORMS = frozenset("""held made done given taken seen shown known found built run set put get gets got
    solve solves terminate terminates handle handles split splits use uses work works need needs""".split())


def _occurs(phrase: Sequence[str], text: Sequence[str], lang: str) -> bool:
    """Whether the tokens of ``phrase`` stand in ``text`` one after another, up to inflection."""
    want = [stem(t, lang) for t in phrase]
    have = [stem(t, lang) for t in text]
    n = len(want)
    return any(have[i : i + n] == want for i in range(len(have) - n + 1))


def _inner_word_problems(words: Sequence[str], lang: str) -> list[str]:
    stops = stop_words(lang)
    return [f"the word {w!r} inside makes it a sentence" for w in words[1:-1] if w in stops and w not in _CONNECTORS]


def _german_word_problems(words: Sequence[str], source: str) -> list[str]:
    """German nouns are capitalised: a keyword ends in one (as the source writes it), and a lower-case word
    before it is an inflected adjective ("linkes Kind", "binärer Suchbaum"), never a verb or adverb
    ("Knoten höchstens", "nimmt")."""
    out = []
    plain = [w.strip(".,;:()") for w in words]
    last = plain[-1] if plain else ""
    lower_only = bool(re.search(rf"(?<![\w]){re.escape(last.lower())}(?!\w)", source)) and not re.search(
        rf"(?<![\w]){re.escape(last[:1].upper() + last[1:])}(?!\w)", source)
    if last.isalpha() and len(plain) > 1 and (last[:1].islower() or lower_only):
        out.append(f"ends in the lower-case (non-noun) word {last!r}")
    elif last.isalpha() and lower_only and last.lower().endswith(("t", "st")):
        out.append(f"the word {last!r} is a verb form")
    for before, w in zip(plain, plain[1:], strict=False):
        if before[:1].isupper() and w[:1].islower() and w.isalpha() and w.lower() not in stop_words("de"):
            out.append(f"the lower-case word {w!r} after a noun is a verb")
    for w in plain[:-1]:
        if w[:1].islower() and w.isalpha() and w.lower() not in stop_words("de") and not re.search(
                r"(?:e|er|es|en|em)$", w):
            out.append(f"the lower-case word {w!r} is no adjective")
    return out


def keyword_key(keyword: str, lang: str = "en") -> str:
    """What makes two keywords the same to a reader: case and inflection aside."""
    return " ".join(stem(t, lang) for t in tokens(keyword))


def summary_problems(summary: str, source: str = "") -> list[str]:
    """What is wrong with ``summary`` as a tooltip (empty: nothing): it must be one or two complete
    sentences about the content, never about "this slide", never cut in a word, a formula or code, and
    carry no page numbers or Markdown."""
    problems: list[str] = []
    text = summary.strip()
    if not text:
        return ["empty"]
    if text.endswith(("…", "...")) or not re.search(r"[.!?。！？)\]”\"»」]$", text):
        problems.append("does not end a sentence")
    if re.search(r"\b(?:e\.g|i\.e|z\.\s?B|d\.\s?h|etc|bzw|vgl|cf)\.$", text, re.I):
        problems.append("ends in an abbreviation")
    n = len(sentences(text))
    if n > 2:
        problems.append(f"{n} sentences")
    if SELF_REFERENCE.search(text):
        problems.append("speaks about the source instead of its content")
    flat_source = " ".join(source.split())
    if any(m.group(0) not in flat_source for m in _MANGLED.finditer(text)):
        problems.append("code or a formula mangled by the field sanitizer")
    last = re.sub(r"[.!?。！？]+$", "", text).split()[-1:] if text else []
    if last and last[0].lower() in DANGLING.get(detect_language(text), frozenset()):
        problems.append(f"ends mid-sentence ({last[0]!r})")
    if re.search(r"[=+\-−–·×⇒→(,]\s*[.!?]$", text) or text.count("(") > text.count(")"):
        problems.append("cut inside a formula")
    if re.search(r"(?:^|\s)\d{1,3}[.!?]$", text) and source and re.search(r"(?m)^\s*\d{1,3}\s*$", source):
        problems.append("ends in a page number")
    if re.search(r"\*\*|__|`|^#|\n", text):
        problems.append("Markdown")
    return problems


def clock(second: float) -> str:
    """A video position as people read it, the same as the chips show it: "2:05", "1:02:05" from an hour on.

    Fractions are dropped; a negative or non-finite position gives "".
    """
    if not math.isfinite(second) or second < 0:
        return ""
    s = int(second)
    hours, minutes, seconds = s // 3600, s // 60 % 60, s % 60
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
