"""Languages: the supported codes, stop-word lists (read from bm25s and stopwords-iso) and a detector by
script and stop words."""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "pl", "tr", "ru", "zh", "ja")
LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
                  "pt": "Portuguese", "nl": "Dutch", "pl": "Polish", "tr": "Turkish", "ru": "Russian",
                  "zh": "Chinese", "ja": "Japanese"}  # the English name of each of the LANGUAGES

_SNOWBALL = {"en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
             "pt": "portuguese", "nl": "dutch", "pl": "polish", "tr": "turkish", "ru": "russian"}
_PYSBD = {"en": "en", "de": "de", "fr": "fr", "es": "es", "it": "it", "pt": "es", "nl": "nl", "pl": "pl",
          "tr": "en", "ru": "ru", "zh": "zh", "ja": "ja"}
_BM25S_LISTS = {"en": "STOPWORDS_EN_PLUS", "de": "STOPWORDS_GERMAN", "fr": "STOPWORDS_FRENCH",
                "es": "STOPWORDS_SPANISH", "it": "STOPWORDS_ITALIAN", "pt": "STOPWORDS_PORTUGUESE",
                "nl": "STOPWORDS_DUTCH", "ru": "STOPWORDS_RUSSIAN", "tr": "STOPWORDS_TURKISH",
                "zh": "STOPWORDS_CHINESE"}

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_WORD = re.compile(r"[^\W_]+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


# --- resources, loaded on first use ----------------------------------------------------------------------

def lang_code(code: str | None) -> str:
    """A supported language code for ``code`` ("de-CH" → "de"); unknown codes give "en"."""
    key = (code or "en").strip().lower().replace("_", "-").split("-")[0]
    return key if key in LANGUAGES else "en"


def language_name(code: str) -> str:
    """``German`` for "de" (and "de-CH"); any code that is not one of the LANGUAGES as it is."""
    known = LANGUAGE_NAMES.get(code.strip().lower().replace("_", "-").split("-")[0])
    return known if known is not None else code


def language_label(code: str) -> str:
    """``German (de)`` for a supported code (``German (de-CH)`` for "de-CH"); any other code as it is."""
    name = language_name(code)
    return f"{name} ({code})" if name != code else code


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


@functools.cache
def _detector_by_word() -> tuple[list[str], dict[str, tuple[tuple[int, float], ...]]]:
    """``_detector`` turned around: the languages in order, and per stop word (index of a language, its
    weight there) for each language it belongs to; a text's words are then looked up once, not once per
    language."""
    detector = _detector()
    langs = list(detector)
    by_word: dict[str, list[tuple[int, float]]] = {}
    for i, lang in enumerate(langs):
        for w, weight in detector[lang].items():
            by_word.setdefault(w, []).append((i, weight))
    return langs, {w: tuple(pairs) for w, pairs in by_word.items()}


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
    langs, weights = _detector_by_word()
    sums = [0.0] * len(langs)
    for w in _WORD.findall(text[:4000]):  # per word, the languages whose stop word it is (most words: none)
        for i, weight in weights.get(w.lower(), ()):
            sums[i] += weight
    scores = dict(zip(langs, sums, strict=True))
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



# --- the language of a whole text (a deck), by lingua ------------------------------------------------------

MIN_LETTERS = 20  # fewer letters than this cannot be judged
_TEXT_SAMPLE = 20_000  # characters of a long text that are read (lingua reads them in a few milliseconds)


@functools.cache
def _lingua() -> Any:
    """lingua's detector over the supported languages in its low-accuracy mode (trigrams only: about 0.4 s
    and 30 MiB to build, and as sure as the full mode on texts of a few sentences); None without lingua.

    Built on first use, once per process, and read-only afterwards."""
    try:
        from lingua import IsoCode639_1, Language, LanguageDetectorBuilder
    except ImportError:
        return None
    langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in LANGUAGES]
    return LanguageDetectorBuilder.from_languages(*langs).with_low_accuracy_mode().build()


def detect_text_language(text: str) -> str | None:
    """The language of a longer text (a deck's pages, a transcript) among the supported ``LANGUAGES``.

    lingua judges the text (its first 20,000 characters); without lingua (an install that left it out),
    the script and stop words do (``detect_language``). None when the text has fewer than 20 letters, or
    nothing decides.
    """
    sample = normalize(text[:_TEXT_SAMPLE])
    if sum(ch.isalpha() for ch in sample) < MIN_LETTERS:
        return None
    detector = _lingua()
    if detector is None:
        found = detect_language(sample, "en")
        return found if found == detect_language(sample, "de") else None  # the default decided nothing
    language = detector.detect_language_of(sample)
    if language is None:
        return None
    code = str(language.iso_code_639_1.name).lower()
    return code if code in LANGUAGES else None
