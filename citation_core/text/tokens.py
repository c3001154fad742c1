"""Tokens, Snowball stems, formula words and the terms the offline matching compares."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable
from typing import Any

from .languages import (
    _CJK,
    _CJK_RUN,
    _SNOWBALL,
    _WORD,
    _all_stop_words,
    detect_language,
    lang_code,
    normalize,
    stop_words,
    weak_words,
)

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

# Formula-like words that identify a statement better than its letters: "T(n)", "2·T(n/2)", "Θ(n²)": a word
# (split at spaces, commas and semicolons, in one pass) holding one of these signs, at most MAX_MATH_WORD long
_WORD_BREAKS = re.compile(r"[\s,;]+")
_MATH_SIGNS = frozenset("(=^/·⌊⌈∑∏√≤≥≈→⇒")
MAX_MATH_WORD = 80  # longer runs are URLs, paths or garbage, not formula words

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


@functools.cache
def weak_stems(lang: str) -> frozenset[str]:
    """The stems of ``lang``'s broad stop-word list (``weak_words``): frequent verbs, adverbs and fillers."""
    lang = lang_code(lang)
    words = weak_words(lang)
    stemmed = _stemmer(lang).stemWords(sorted(words)) if lang in _SNOWBALL else sorted(words)
    return frozenset(words) | frozenset(stemmed)


def math_terms(text: str) -> set[str]:
    """Formula words ("T(n)", "2·T(n/2)") as matching terms, marked with "§"; a lone bracket is none."""
    out = set()
    for word in _WORD_BREAKS.split(normalize(text)):
        if len(word) > MAX_MATH_WORD or _MATH_SIGNS.isdisjoint(word):
            continue
        term = word.strip(".:!?“”\"'")
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
    dlaczego jak co dlaczego neden nasıl почему как что
    okay ok alright yeah hmm""".split())  # conversational fillers: a transcript says "okay" every minute


@functools.cache
def question_noise(lang: str) -> frozenset[str]:
    """The stems of ``QUESTION_WORDS`` in ``lang``."""
    return frozenset(t for w in QUESTION_WORDS for t in stem_list(w, lang))

