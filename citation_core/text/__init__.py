"""Text handling shared by the offline model, the answer writer, retrieval, placement and the audit, for 12
languages, one module per job:

- ``languages``: the supported codes, stop words (the NLTK lists that bm25s ships, stopwords-iso for pl and
  ja and for the broad "weak word" lists) and a detector by script and stop words;
- ``tokens``: tokens, Snowball stems (PyStemmer; Chinese and Japanese by character bigrams), formula words
  and the terms the lexical matching compares;
- ``sentences``: sentences with offsets (pysbd inside Markdown blocks; fenced code skipped);
- ``slides``: slide text read into a title and whole statements;
- ``rules``: the rules a chip's keyword and summary keep;
- ``similarity``: meaning, from a static embedding model whose weights ship in a wheel (``embed``,
  ``similarity``), with lexical matching as the fallback when the model cannot be read;
- ``clock``: video positions as people read them.

Each library is loaded on first use.
"""

from __future__ import annotations

from .clock import clock
from .languages import LANGUAGES, detect_language, lang_code, normalize, stop_words, weak_words
from .rules import (
    DANGLING,
    FRAGMENT_ENDS,
    GENERIC_TITLES,
    SELF_REFERENCE,
    keyword_key,
    keyword_problems,
    summary_problems,
    verbs_in,
)
from .sentences import Sentence, first_sentences, sentences
from .slides import (
    BOILERPLATE,
    Slide,
    SlideUnit,
    is_code_line,
    is_footer,
    normalize_lines,
    slide_lines,
    slide_units,
    unligature,
)
from .tokens import (
    ORDINALS,
    QUESTION_WORDS,
    conflate,
    content_tokens,
    math_terms,
    question_noise,
    stem,
    stem_list,
    stems,
    terms,
    tokens,
    weak_stems,
)

__all__ = [
    "BOILERPLATE", "DANGLING", "FRAGMENT_ENDS", "GENERIC_TITLES", "LANGUAGES", "ORDINALS", "QUESTION_WORDS",
    "SELF_REFERENCE", "Sentence", "Slide", "SlideUnit", "clock", "conflate", "content_tokens", "detect_language",
    "first_sentences", "is_code_line", "is_footer", "keyword_key", "keyword_problems", "lang_code", "math_terms",
    "normalize", "normalize_lines", "question_noise", "sentences", "slide_lines", "slide_units", "stem", "stem_list",
    "stems", "stop_words", "summary_problems", "terms", "tokens", "unligature", "verbs_in", "weak_stems",
    "weak_words",
]
