"""The rules a chip's keyword and summary keep (what a reader would call broken)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .languages import detect_language, stop_words
from .sentences import sentences
from .tokens import ORDINALS, stem, tokens

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
    """Words the source uses as verbs: those right after a pronoun or "to" ("we split", "to divide"); after a
    participle "to" is a preposition ("compiled to bytecode", "mapped to a slot")."""
    context = set(_VERB_CONTEXT.get(lang, "").split())
    toks = tokens(source)
    return {b for before, a, b in zip(["", *toks], toks, toks[1:], strict=False)
            if a in context and b not in stop_words(lang)
            and not (lang == "en" and a == "to" and len(before) > 4 and before.endswith("ed"))}


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

