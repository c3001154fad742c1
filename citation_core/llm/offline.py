"""The embedded offline model: deterministic, no network, no weights (DESIGN 4.6).

It reads the task name and inputs of the request (the rendered prompt is only counted for the
token estimate). It places ids behind the answer sentences the sources support (stemmed, per-language
term overlap; asked for the places mode's reply, it names those sentences by number, with the same
decisions), picks keywords with YAKE (``yake_rust``) among the phrases of the source (never one already used), and
summarises by extracting whole statements. It cannot translate: output stays in the language of the
source.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..contract import insert_at
from ..errors import ModelCallError
from ..text import (
    BOILERPLATE,
    DANGLING,
    GENERIC_TITLES,
    SELF_REFERENCE,
    conflate,
    content_tokens,
    detect_language,
    is_code_line,
    keyword_key,
    keyword_problems,
    sentences,
    slide_units,
    stop_words,
    terms,
    tokens,
    unligature,
    weak_words,
)
from ..text.sentences import fenced_block_after
from ..text.slides import SlideUnit
from .base import LlmRequest, LlmResponse, Usage, estimate_tokens
from .offline_meaning import SourceMeaning

# A sentence names a slide ("Slide 7", "Folie 7", "page 3"): those words say where, not what.
_SLIDE_WORDS = (r"(?:slides?|folien?|pages?|seiten?|diapositivas?|diapositives?|dias?|slajd\w*|slayt\w*|слайд\w*"
                r"|pagina|página|strona|sayfa|страниц\w*)")
# ... and its place in the deck when it prints no number ("page 12 of 20", "Seite 12 von 20", "第 12 页（共 20 页）")
SLIDE_REFERENCE = re.compile(
    rf"\b{_SLIDE_WORDS}\s*\d+(?:\s*(?:of|von|sur|de|di|van|z|из|/)\s*\d+)?\b|スライド\s*\d+"
    r"|第\s*\d+\s*(?:张幻灯片|页)(?:（共\s*\d+\s*页）)?|(?:\d+\s*ページ中\s*)?\d+\s*ページ目?", re.I)
MAX_IDS_PER_SENTENCE = 3
MIN_SCORE = 0.5  # a source must explain this much (mean of sentence share and smaller-side share)
MIN_SCORE_FAQ = 0.7  # FAQs are few and general: a pass over FAQs only asks for more
MIN_OWN = 0.25  # and at least this share of the sentence
MIN_OWN_FAQ = 0.5  # (of an FAQ: it must answer most of the sentence)
NEAR_BEST = 0.8  # every source within this ratio of the best is cited too
UNSEEN = 0.6  # weight of a sentence word no source has, relative to a word only one source has
# Meaning (text.similarity): a sentence's cosine with a source is that of its closest statement.
SEM_POOL = 40  # sources a sentence is compared with by meaning: all of a small pool, else those sharing most terms
SEM_MAX_CHARS = 300_000  # sources longer in all, or more of them, are placed by their terms alone
SEM_MAX_SOURCES = 150
SEM_ALONE = 0.33  # a source cited by meaning alone has a statement at least this close (Matcher's F)
SEM_MARGIN = 0.035  # and is that much closer than any source saying something else (not the topic, the claim)
# Meaning across languages (text.encoder): a sentence no source supports by its terms is cited to the source
# whose closest statement stands out clearly, without a shared term (a German sentence about an English slide)
ENC_ALONE = 0.3  # the statement is at least this close (encoder cosine) ...
ENC_MARGIN = 0.03  # ... and this much closer than that of any source saying something else


def _read_sources(sources: Sequence[Mapping[str, str]]) -> list[tuple[str, set[str], str]]:
    """Per source: its id, its terms and its language."""
    sample = " ".join(str(s.get("content", ""))[:400] for s in sources[:20])
    default = detect_language(sample)
    out = []
    for s in sources:
        content = str(s.get("content", ""))
        lang = detect_language(content, default)
        out.append((str(s["id"]), terms(content, lang), lang))
    return out


@dataclass
class _Claim:
    """One answer sentence on its way to its citations: the sources that support it by their terms
    (``lexical`` score of every source sharing one, ``passed`` those that pass) and, where they found nothing,
    how close each source comes in meaning (token by token: ``cosines``; ``across``: the encoder is to
    decide, ``encoded`` its cosines)."""

    end: int  # where its markers go
    text: str
    lang: str
    lexical: dict[int, float] = field(default_factory=dict)
    passed: set[int] = field(default_factory=set)
    cosines: dict[int, float] = field(default_factory=dict)
    across: bool = False
    encoded: dict[int, float] = field(default_factory=dict)


def place_citations(answer: str, sources: Sequence[Mapping[str, str]], min_score: float | None = None) -> str:
    """Insert source ids behind the answer sentences (or list items) they support; change nothing else
    (``cited_sentences`` decides which)."""
    return insert_at(answer, [(end, "".join(ids)) for end, ids in cited_sentences(answer, sources, min_score)])


def place_by_numbers(answer: str, units: Sequence[Mapping[str, Any]], sources: Sequence[Mapping[str, Any]]) -> str:
    """The places-mode reply: a JSON object of unit numbers to source numbers, with the decisions that
    ``place_citations`` makes (each source's ``id`` is its marker, ``n`` its number; a unit is ``{"n",
    "start", "end", "code"}`` on ``answer``). A decision stands behind a sentence: it goes to the sentence
    that ends there."""
    number = {str(s["id"]): int(s["n"]) for s in sources}
    ends = {int(u["end"]): int(u["n"]) for u in units if not u.get("code")}
    out: dict[str, list[int]] = {}
    for end, ids in cited_sentences(answer, [{"id": str(s["id"]), "content": str(s.get("content", ""))}
                                             for s in sources]):
        unit = ends.get(end)
        if unit is None:  # not a sentence end of the numbering: the sentence it falls in
            unit = next((int(u["n"]) for u in units if int(u["start"]) <= end <= int(u["end"])), None)
        if unit is not None:
            given = out.setdefault(str(unit), [])
            given += [number[i] for i in ids if number[i] not in given]
    return json.dumps(out)


def cited_sentences(answer: str, sources: Sequence[Mapping[str, str]],
                    min_score: float | None = None) -> list[tuple[int, list[str]]]:
    """The ids of the sources that support each answer sentence (or list item), best first, with where the
    sentence ends: (offset, ids) in the answer's order, sentences without support left out.

    A sentence is compared with each source sharing at least two terms (stems or formula words) with it.
    Its score is the mean of two idf-weighted shares of what they have in common: of the sentence, and of
    the smaller side (so a short transcript cue inside a long sentence counts, and the sentence's own slide
    ranks first). Every source within ``NEAR_BEST`` of the best is cited, best first, identical sources
    once. Words that name a slide ("Slide 7") do not count; a word no source has counts less than a rare
    one (a paraphrase brings its own words). A pass over FAQs only needs a higher score. Term weights are
    computed once and a sentence only meets the sources that share a term with it (an inverted index):
    linear in answer and sources.
    """
    read = _read_sources(sources)
    docs = [(sid, toks) for sid, toks, _ in read]
    doc_lang = [lang for _, _, lang in read]
    if not docs:
        return []
    faq_only = all(sid.startswith("[cite:F:") for sid, _ in docs)
    if min_score is None:
        min_score = MIN_SCORE_FAQ if faq_only else MIN_SCORE
    min_own = MIN_OWN_FAQ if faq_only else MIN_OWN
    df: Counter[str] = Counter(t for _, toks in docs for t in toks)
    n = len(docs)
    unseen = UNSEEN * (math.log(1 + n / 2) + 0.1)
    idf = {t: math.log(1 + n / (1 + c)) + 0.1 for t, c in df.items()}
    weight = [math.fsum(idf[t] for t in toks) for _, toks in docs]  # fsum: a set's order never counts
    postings: dict[str, list[int]] = {}
    for i, (_, toks) in enumerate(docs):
        for t in toks:
            postings.setdefault(t, []).append(i)
    answer_lang = detect_language(answer)
    meaning = SourceMeaning(sources, tokens=_small(sources))

    claims: list[_Claim] = []
    for sent in sentences(answer, answer_lang):
        text = SLIDE_REFERENCE.sub(" ", sent.text)
        if _lead_in(text):
            # a lead-in says where, not what; one that announces nothing but a code block is cited for it
            block = fenced_block_after(answer, sent.end)
            if block is None or not _ends_part(answer, block[1]):
                continue
            text = block[0]
        lang = detect_language(text, answer_lang)
        words = {conflate(t, postings, lang) for t in terms(text, lang)}
        if len(words) < 2:
            continue
        total = math.fsum(idf.get(t, unseen) for t in words)
        hits: Counter[int] = Counter(i for t in words for i in postings.get(t, ()))
        claim = _Claim(sent.end, text, lang)
        for i, count in hits.items():
            shared = math.fsum(idf[t] for t in words & docs[i][1])
            own = shared / total
            overlap = shared / min(total, weight[i])
            claim.lexical[i] = (own + overlap) / 2
            if count >= 2 and claim.lexical[i] >= min_score and own >= min_own:
                claim.passed.add(i)
        if not claim.passed:  # meaning is asked only where the terms found nothing
            if not faq_only:
                claim.cosines = meaning.closeness(text, _semantic_pool(claim.lexical, len(docs)))
            # across languages the token path finds nothing: the encoder decides there (on dev, same-language
            # paraphrases lost more precision to it than they gained recall, and an FAQ found by it alone was
            # wrong more often than right); an announcement ("…says:") is no claim
            claim.across = (not faq_only and any(dl != lang for dl in doc_lang)
                            and not text.rstrip().endswith((":", "：")))
        claims.append(claim)

    # the sentences the encoder decides, all at once; each meets first the sources in another language
    asked = [c for c in claims if c.across]
    others = {lang: {i for i, dl in enumerate(doc_lang) if dl != lang} for lang in {c.lang for c in asked}}
    # it is weighed against the sources sharing a term with it (in its own language, a source sharing none was
    # read by the terms already and says something else)
    for claim, encoded in zip(asked, meaning.encoded([c.text for c in asked], [others[c.lang] for c in asked],
                                                     ENC_ALONE, [set(c.lexical) for c in asked]), strict=True):
        claim.encoded = encoded

    inserts: list[tuple[int, list[str]]] = []
    for claim in claims:
        scored = _supporting(claim.lexical, claim.passed, claim.cosines, docs, SEM_ALONE, claim.encoded,
                             _written_in_other_than(doc_lang, claim.lang))
        if not scored:
            continue
        best = scored[0][0]
        chosen: list[int] = []
        for score, i in scored:
            if score < NEAR_BEST * best or len(chosen) == MAX_IDS_PER_SENTENCE:
                break
            if any(docs[i][1] == docs[j][1] for j in chosen):
                continue  # the same text again (an overlay page, a repeated cue): one chip is enough
            chosen.append(i)
        inserts.append((claim.end, [docs[i][0] for i in chosen]))
    return inserts


def _small(sources: Sequence[Mapping[str, str]]) -> bool:
    """Whether the sources are few enough to be read by meaning (a call with a whole course of material is
    placed by its terms alone: reading it token by token would cost seconds)."""
    return len(sources) <= SEM_MAX_SOURCES and sum(len(str(s.get("content", ""))) for s in sources) <= SEM_MAX_CHARS


def _semantic_pool(lexical: Mapping[int, float], n: int) -> list[int]:
    """The sources a sentence is compared with by meaning: every one of a small pool, else the ``SEM_POOL``
    sharing most of its terms (a source cited by meaning alone shares a term with the sentence)."""
    if n <= SEM_POOL:
        return list(range(n))
    return sorted(lexical, key=lambda i: (-lexical[i], i))[:SEM_POOL]


def _supporting(lexical: Mapping[int, float], passed: set[int], cosines: Mapping[int, float],
                docs: Sequence[tuple[str, set[str]]], alone: float,
                encoded: Mapping[int, float] | None = None,
                other_language: Callable[[int], bool] = lambda i: True) -> list[tuple[float, int]]:
    """The sources that support a sentence, best first.

    Shared terms decide which sources pass and in which order, as without meaning. A sentence no source
    passes by its terms (a paraphrase) is cited to the one source one of whose statements says what it
    says: at least ``alone`` close in meaning token by token, ``SEM_MARGIN`` closer than every source that
    says something else, and sharing at least one term with the sentence; or, by the multilingual encoder
    (``encoded``), at least ``ENC_ALONE`` close and ``ENC_MARGIN`` closer than every other source, and in
    another language than the sentence (``other_language``), with no shared term needed (it shares none).
    Topic-level closeness (every slide of a deck is "about" its topic) passes neither.
    """
    chosen = set(passed)
    if not chosen and cosines:
        best = _stands_out(cosines, docs, alone, SEM_MARGIN)
        if best is not None and lexical.get(best, 0.0) > 0:
            chosen.add(best)
    if not chosen and encoded:
        best = _stands_out(encoded, docs, ENC_ALONE, ENC_MARGIN)
        if best is not None and other_language(best):
            chosen.add(best)
    return sorted(((lexical.get(i, 0.0), i) for i in chosen), key=lambda s: (-s[0], s[1]))


def _written_in_other_than(doc_lang: Sequence[str], lang: str) -> Callable[[int], bool]:
    """Whether the source at an index is written in another language than ``lang``."""
    return lambda i: doc_lang[i] != lang


def _stands_out(cosines: Mapping[int, float], docs: Sequence[tuple[str, set[str]]], alone: float,
                margin: float) -> int | None:
    """The source closest in meaning when it is at least ``alone`` close and ``margin`` closer than every
    source with another text; else None."""
    best = max(cosines, key=lambda i: (cosines[i], -i))
    rivals = [c for j, c in cosines.items() if j != best and docs[j][1] != docs[best][1]]
    if cosines[best] >= alone and cosines[best] - max(rivals, default=0.0) >= margin:
        return best
    return None


_QUOTED = re.compile(r"“[^”]*”|„[^“”]*[“”]|«[^»]*»|\"[^\"]*\"|「[^」]*」|‚[^‘]*‘")


def _ends_part(answer: str, offset: int) -> bool:
    """Whether nothing but the next lead-in (or the end) follows ``offset``: a code block quoted alone."""
    rest = answer[offset:].lstrip()
    first = rest.split("\n", 1)[0].strip()
    return not first or _lead_in(SLIDE_REFERENCE.sub(" ", first))


# The word for a slide, without a number: an unnumbered slide is announced by its title alone.
_SLIDE_WORD = re.compile(rf"\b{_SLIDE_WORDS}\b|スライド|幻灯片|ページ目?|页", re.I)


def _lead_in(text: str) -> bool:
    """A sentence that only announces a slide and its title ("Slide 8 (“The Master Theorem”) says:", "The
    slide “Cython” says:"). Its few words are counted without the stop words of any language: the writer
    announces in the answer's language what it quotes in the material's, so the sentence's own language
    is easily misread."""
    return text.rstrip().endswith((":", "：")) and len(content_tokens(_SLIDE_WORD.sub(" ", _QUOTED.sub(" ", text)))) < 2


# --- keywords -------------------------------------------------------------------------------------------

_TITLE_PREFIX = re.compile(
    r"^(?:(?:part|teil|partie|parte|deel|część|bölüm|часть)\s+\d+|example|beispiel|exemple|ejemplo|esempio"
    r"|exemplo|voorbeeld|przykład|örnek|пример)\s*[:.\-–]\s*", re.I)
_TITLE_SUFFIX = re.compile(r"\s*(?:\(?(?:cont|contd|continued|fortsetzung|forts|suite|cont\.?\s*\d*)\.?\)?|[?!.])\s*$",
                           re.I)
_yake_local = threading.local()
_HIRAGANA = re.compile(r"[\u3040-\u309f]")


def _cjk_stop(char: str, lang: str) -> bool:
    """A grammatical character (a particle, a pronoun, hiragana in Japanese) that does not start or end a term."""
    return char in stop_words(lang) or bool(_HIRAGANA.match(char))


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _yake_phrases(text: str, lang: str) -> list[str]:
    """YAKE's 40 best key phrases of ``text`` (up to three words), best first.

    ``yake_rust`` (a compiled YAKE, the reference implementation's algorithm and segtok's tokens) costs
    no numpy or networkx to load, so a small ``cite`` starts in a fraction of the time. A lone
    surrogate (text read with ``surrogateescape``) counts as an unknown character, as it did for
    Python YAKE.
    """
    cache: dict[str, Any] | None = getattr(_yake_local, "extractors", None)
    if cache is None:
        cache = _yake_local.extractors = {}
    if lang not in cache:
        import yake_rust

        cache[lang] = yake_rust.Yake(stopwords=set(weak_words(lang)), ngrams=3)
    return [kw for kw, _ in cache[lang].get_n_best(_SURROGATE.sub("\ufffd", text), n=40)]


def _cap(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]


def _clean_phrase(phrase: str) -> str:
    phrase = " ".join(unligature(phrase).split()).strip(" ,;:.·•-–—()[]\"'“”„«»")
    return phrase


def _trim_stop_words(phrase: str, lang: str) -> str:
    words = phrase.split()
    stops = stop_words(lang)
    while words and words[0].lower() in stops:
        words.pop(0)
    while words and words[-1].lower() in stops:
        words.pop()
    return " ".join(words)


def _title_candidates(title: str, lang: str) -> list[str]:
    title = _TITLE_SUFFIX.sub("", _TITLE_PREFIX.sub("", title.strip()))
    if not title or title.lower() in GENERIC_TITLES:
        return []
    parts = [p.strip() for p in re.split(r"\s*[:–—|]\s+|\s+-\s+|\s+vs?\.\s+", title) if p.strip()]
    out = [title] if len(parts) == 1 else []
    out += [p for p in parts if p.lower() not in GENERIC_TITLES]
    return [_trim_stop_words(_clean_phrase(p), lang) for p in out if p]


def _cjk_candidates(text: str, lang: str) -> list[str]:
    runs = re.findall(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+", text)
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    pos = 0
    for run in runs:
        for size in (4, 3, 2):
            for i in range(len(run) - size + 1):
                gram = run[i : i + size]
                if _cjk_stop(gram[0], lang) or _cjk_stop(gram[-1], lang):
                    continue
                counts[gram] += 1
                first.setdefault(gram, pos + i)
        pos += len(run)
    ranked = sorted(counts, key=lambda g: (-counts[g] * len(g), first[g]))
    return ranked[:20]


def prose_language(paragraph: str) -> str:
    """The language of a source's words: its code, console output and diagrams left out (a German slide
    showing git's English output is German)."""
    slide = slide_units(paragraph)
    prose = " ".join([slide.title, *(u.full() for u in slide.units if u.kind != "code")]).strip()
    return detect_language(prose or paragraph)


def keyword_candidates(paragraph: str, lang: str | None = None) -> list[str]:
    """Phrases of the paragraph that could label it, best first: its title (or the parts of it), then
    YAKE's key phrases. Every candidate occurs in the paragraph."""
    lang = lang or prose_language(paragraph)
    faq_question, faq_answer = _faq_parts(paragraph, lang)
    slide = slide_units(faq_answer if faq_question else paragraph)
    head = _TITLE_SUFFIX.sub("", slide.title) if not faq_question else ""
    lines = [u.full() for u in slide.units if u.kind != "code"]
    body = "\n".join(lines)
    out: list[str] = []
    if head:
        out += _title_candidates(head, lang)
    if lang in ("zh", "ja"):
        out += _cjk_candidates(paragraph, lang)
        return out
    text = "\n".join(p for p in (head, faq_question, body) if p) or paragraph
    try:
        found = _yake_phrases(text, lang)
    except Exception:  # noqa: BLE001 - YAKE failing on odd text only costs candidates
        found = []
    # a phrase must stand in one line of the source as it is (YAKE reads across line breaks)
    flat_lines = [" ".join(ln.split()).lower() for ln in [head, faq_question, *lines] if ln]
    phrases = [_clean_phrase(str(kw)) for kw in found]
    phrases = [p for p in phrases if any(p.lower() in ln for ln in flat_lines)]
    # phrases from the title, or an FAQ question's phrases that its answer repeats, name the topic best
    if faq_question:
        answer_stems = terms(faq_answer, lang)
        shared = [p for p in phrases if p.lower() in faq_question.lower() and terms(p, lang) <= answer_stems]
        out += shared + [p for p in phrases if p not in shared and p.lower() in faq_answer.lower()] + phrases
        return out
    lead = head.lower()
    repeated = [p for p in phrases if p.lower() not in lead and body.lower().count(p.lower()) >= 2]
    out += [p for p in phrases if p and p.lower() in lead] + repeated
    out += [p for p in phrases if p and p.lower() not in lead and p not in repeated]
    return out


def _faq_parts(paragraph: str, lang: str) -> tuple[str, str]:
    """An FAQ's content is its question and answer on one line: (question, answer), else ("", "")."""
    if "\n" in paragraph.strip():
        return "", ""
    sents = sentences(paragraph, lang)
    if len(sents) > 1 and sents[0].text.endswith("?"):
        return sents[0].text, paragraph[sents[1].start :]
    return "", ""


def pick_keyword(paragraph: str, used: Sequence[str], lang: str | None = None) -> str:
    """The best candidate that keeps the keyword rules (``text.keyword_problems``), else the best
    candidate that is at least new."""
    lang = lang or prose_language(paragraph)
    candidates = [_cap(c) for c in keyword_candidates(paragraph, lang) if c]
    ordered = list(dict.fromkeys(candidates))
    for cand in ordered:
        if not keyword_problems(cand, paragraph, used, lang):
            return cand
    for word in _single_words(paragraph, lang):  # a short cue may hold no phrase that keeps the rules
        if not keyword_problems(word, paragraph, used, lang):
            return word
    used_keys = {keyword_key(u, lang) for u in used}
    for cand in ordered:
        if keyword_key(cand, lang) not in used_keys and 1 <= len(cand.split()) <= 4:
            return cand
    base = ordered[0] if ordered else _fallback_word(paragraph, lang)
    k = 2
    while keyword_key(f"{base} {k}", lang) in used_keys:
        k += 1
    return f"{base} {k}" if keyword_key(base, lang) in used_keys else base


_DETERMINERS = frozenset("the a an one this that these those its their his her our your every each no some any "
                         "der die das den dem des ein eine einen einem einer".split())


def _single_words(paragraph: str, lang: str) -> list[str]:
    """The paragraph's words as keyword candidates: nouns first (words after a determiner, "one way"), then
    the other words that are no weak words, longest first."""
    words = re.findall(r"[^\W\d_][\w-]+", paragraph)
    nouns = [b for a, b in zip(words, words[1:], strict=False) if a.lower() in _DETERMINERS and len(b) >= 3]
    weak = weak_words(lang)
    others = sorted({w for w in words if len(w) >= 4 and w.lower() not in weak}, key=len, reverse=True)
    rest = sorted({w for w in words if len(w) >= 4}, key=len, reverse=True)
    return [_cap(w) for w in dict.fromkeys(nouns + others + rest)]


def _fallback_word(paragraph: str, lang: str) -> str:
    stops = stop_words(lang)
    words = [w for w in re.findall(r"[^\W\d_]{3,}", paragraph) if w.lower() not in stops]
    return _cap(words[0]) if words else "Source"


def pick_keywords(paragraphs: Sequence[str], used: Sequence[str] = ()) -> list[str]:
    """Keywords for several paragraphs at once, each different from the ones before it."""
    done = list(used)
    out = []
    for p in paragraphs:
        kw = pick_keyword(p, done)
        out.append(kw)
        done.append(kw)
    return out


# --- summaries ------------------------------------------------------------------------------------------

MAX_SUMMARY = 240
_UNSAFE = re.compile(r"[\[\]{}]|:(?=\S)|::|\b\w+\(\)|=>|->|#")  # code the field sanitizer would mangle


def _sentence_ok(text: str, lang: str, prose: bool = True, ended: bool = False) -> bool:
    """A statement that reads well in a tooltip. ``ended``: the slide closed it with a sentence mark, so only a
    word no sentence ends in (an article, a conjunction) says it was cut; a verb particle may end it ("…
    zeigt geänderte Dateien an.")."""
    words = text.split()
    if len(words) < 4 or len(text) > MAX_SUMMARY or sum(len(w) >= 3 and w[0].isalpha() for w in words) < 3:
        return False
    last = re.sub(r"[.!?]+$", "", words[-1]).lower()
    if words[0][:1].islower() and words[0].strip(",;:") in stop_words(lang):
        return False  # the rest of a sentence that starts before it ("which is exactly …", "does not address …")
    if SELF_REFERENCE.search(text) or last in (DANGLING.get(lang, frozenset()) if ended else stop_words(lang)):
        return False  # about the slide, not its content; or a sentence cut short ("… defaults to")
    if BOILERPLATE.search(text):
        return False
    if not prose and not any(w.lower().strip(",.;:") in stop_words(lang) for w in words):
        return False  # a table header or a line of an outline, not a statement
    if _UNSAFE.search(text) or is_code_line(text) or text.endswith("?"):
        return False
    return text.count("(") == text.count(")")


def _complete(text: str, lang: str) -> bool:
    """Neither about the slide instead of its content, nor cut short ("… defaults to"), nor unbalanced."""
    last = re.sub(r"[.!?]+$", "", text).split()[-1:] or [""]
    return not (SELF_REFERENCE.search(text) or last[0].lower() in DANGLING.get(lang, ()) or _UNSAFE.search(text)
                or BOILERPLATE.search(text) or text.count("(") != text.count(")"))


def _finish(text: str) -> str:
    text = " ".join(text.split()).rstrip(" ,;:–—-")
    if not text:
        return ""
    return text if re.search(r"[.!?。！？]$", text) else text + "."


def summarize(paragraph: str, lang: str | None = None, evidence: str = "") -> str:
    """One or two whole statements of the paragraph: its first prose sentences or bullets that read well
    in a tooltip (no code, no page numbers, nothing the field sanitizer would mangle). An FAQ is
    summarised by its answer; a slide's title is left out unless nothing else is left.

    With ``evidence`` (the passage of the paragraph that the chip quotes), the summary is about that
    passage: its own statements, or for a passage of code or commands the statement that introduces it (else
    the one after it); only when none of these reads well is the paragraph summarised as a whole."""
    lang = lang or prose_language(paragraph)
    paragraph = unligature(paragraph)
    question, answer = _faq_parts(paragraph, lang)
    pieces: list[tuple[str, bool]] = []
    if question:  # an FAQ: summarise its answer
        pieces = [(s.text, True) for s in sentences(answer, lang)]
        if evidence.strip():
            quoted = _summary_of([(s.text, True) for s in sentences(unligature(evidence), lang)], lang)
            if quoted:
                return quoted
    else:
        slide = slide_units(paragraph)
        units = slide.units
        if evidence.strip():
            for near in _near_evidence(units, unligature(evidence)):
                quoted = _summary_of(_pieces(near, lang), lang)
                if quoted:
                    return quoted
        pieces = _pieces(units, lang)
        if not pieces and slide.title:
            pieces = [(slide.title, True)]
    out = _summary_of(pieces, lang)
    if out:
        return out
    short = [_finish(p) for p, _ in pieces if re.search(r"[^\W\d_]{2,}", p)]
    good = [s for s in short if len(s) <= MAX_SUMMARY and _complete(s, lang)][:1]
    if good:
        return good[0]
    title = slide_units(paragraph).title if not question else ""
    return _finish(_TITLE_SUFFIX.sub("", title)) if title and _complete(title, lang) else ""


def _pieces(units: Sequence[SlideUnit], lang: str) -> list[tuple[str, bool]]:
    """The sentences of a slide's statements (code left out), each with whether its statement is prose."""
    pieces: list[tuple[str, bool]] = []
    for unit in units:
        if unit.kind == "code":
            continue
        prose = unit.kind == "bullet" or bool(re.search(r"[.!?]$", unit.full()))
        pieces += [(s.text, prose) for s in sentences(unit.full(), lang)]
    return pieces


def _summary_of(pieces: Sequence[tuple[str, bool]], lang: str) -> str:
    """The first one or two pieces that read well in a tooltip, else "". Pieces of prose come first: a line
    that is no sentence (a heading, an entry of the outline in a sidebar: "Start and end symbols") is taken
    only where no sentence reads well."""
    fine = [(_finish(p), prose) for p, prose in pieces
            if _sentence_ok(_finish(p), lang, prose, bool(re.search(r"[.!?]$", p.strip())))]
    good = [p for p, prose in fine if prose] or [p for p, _ in fine]
    if not good:
        return ""
    out = good[0]
    if len(good) > 1 and len(out) + 1 + len(good[1]) <= MAX_SUMMARY:
        out = f"{out} {good[1]}"
    return out


def _near_evidence(units: Sequence[SlideUnit], evidence: str) -> list[list[SlideUnit]]:
    """The statements of a slide to summarise a passage of it (``evidence``) by, best first: those standing
    in the passage; then, for a passage of code or commands, the statement before it (the one introducing
    it) and the one after it."""
    flat = " ".join(evidence.split())
    lines = {re.sub(r"^[^\w(\[]+", "", " ".join(line.split())) for line in evidence.splitlines()}

    def inside(text: str) -> bool:
        text = " ".join(text.split())
        return bool(text) and (text in lines or (len(text) >= 15 and text[:40] in flat)
                               or (len(flat) >= 15 and flat in text))

    found = [i for i, u in enumerate(units) if inside(u.text) or any(inside(c) for c in u.children)]
    if not found:
        return []
    before = [u for u in units[: found[0]] if u.kind != "code"][-1:]
    after = [u for u in units[found[-1] + 1 :] if u.kind != "code"][:1]
    return [[units[i] for i in found], before, after]


# --- the model ------------------------------------------------------------------------------------------

class OfflineModel:
    offline = True

    def __init__(self, model_id: str = "offline", model_name: str = "offline-extractive-1",
                 writer: Callable[[Mapping[str, Any]], str] | None = None) -> None:
        self.model_id = model_id
        self.model_name = model_name
        self._writer = writer

    def _run(self, request: LlmRequest) -> str:
        inputs = request.inputs
        if request.task == "placement":
            return place_citations(str(inputs["answer"]), list(inputs["sources"]))
        if request.task == "placement_places":
            return place_by_numbers(str(inputs["answer"]), list(inputs["units"]), list(inputs["sources"]))
        if request.task == "keyword":
            return pick_keyword(str(inputs["paragraph"]), list(inputs.get("used_keywords", [])))
        if request.task == "keywords_batched":
            return json.dumps(pick_keywords([str(p) for p in inputs["paragraphs"]]), ensure_ascii=False)
        if request.task == "summary":
            return summarize(str(inputs["paragraph"]), evidence=str(inputs.get("evidence") or ""))
        if request.task == "writer" and self._writer is not None:
            return self._writer(inputs)
        raise ModelCallError(f"offline model: unknown task {request.task!r}")

    def complete(self, request: LlmRequest) -> LlmResponse:
        content = self._run(request)
        prompt = "".join(m.content for m in request.messages)
        usage = Usage(estimate_tokens(prompt), estimate_tokens(content), 0.0, estimated=True)
        return LlmResponse(content, usage, self.model_id, self.model_name)


__all__ = ["OfflineModel", "cited_sentences", "keyword_candidates", "pick_keyword", "pick_keywords", "place_by_numbers",
           "place_citations", "summarize", "tokens"]
