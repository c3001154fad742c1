"""Text handling per language (sentences, stems, stop words, slides) and the keyword and summary rules."""

from __future__ import annotations

import pytest

from citation_core.llm.offline import pick_keyword, pick_keywords, summarize
from citation_core.pipeline.enrich import clean_keyword, clean_summary
from citation_core.text import (
    LANGUAGES,
    conflate,
    detect_language,
    keyword_problems,
    sentences,
    slide_units,
    stems,
    stop_words,
    summary_problems,
)

# Two sentences each, the first with an abbreviation or ordinal that must not end it.
SENTENCES = {
    "en": ("Use e.g. merge sort for this.", "It is stable."),
    "de": ("Die Klausur findet am 14. Februar im Audimax statt.", "Bitte bringen Sie z. B. einen Ausweis mit."),
    "fr": ("M. Dupont explique le tri par fusion.", "Il commence lundi."),
    "es": ("El Sr. García explica el algoritmo.", "Empieza el lunes."),
    "it": ("Il Sig. Rossi spiega l'algoritmo.", "Inizia lunedì."),
    "pt": ("O Sr. Silva explica o algoritmo.", "Começa na segunda-feira."),
    "nl": ("Dhr. Jansen legt het algoritme uit.", "Het begint maandag."),
    "pl": ("Prof. Kowalski wyjaśnia algorytm.", "Zaczyna w poniedziałek."),
    "tr": ("Dr. Yılmaz algoritmayı anlatıyor.", "Pazartesi başlıyor."),
    "ru": ("Проф. Иванов объясняет алгоритм.", "Он начинает в понедельник."),
    "zh": ("归并排序是一种分治算法。", "它的时间复杂度是 O(n log n)。"),
    "ja": ("マージソートは分割統治法です。", "計算量は O(n log n) です。"),
}
# Inflected forms that must meet (Snowball stems; character bigrams for Chinese and Japanese).
INFLECTIONS = {
    "en": ("merging", "merges"), "de": ("Kindern", "Kinder"), "fr": ("algorithmes", "algorithme"),
    "es": ("algoritmos", "algoritmo"), "it": ("algoritmi", "algoritmo"), "pt": ("algoritmos", "algoritmo"),
    "nl": ("bomen", "bomen"), "pl": ("drzewa", "drzewo"), "tr": ("ağaçlar", "ağacı"),
    "ru": ("сортировки", "сортировка"), "zh": ("排序算法", "排序"), "ja": ("分割統治法", "分割統治"),
}
STOP = {"en": "the", "de": "und", "fr": "le", "es": "el", "it": "il", "pt": "uma", "nl": "het", "pl": "jest",
        "tr": "ile", "ru": "и", "zh": "的", "ja": "これ"}


def test_the_twelve_languages_are_covered() -> None:
    assert set(SENTENCES) == set(INFLECTIONS) == set(STOP) == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sentences_know_abbreviations_and_ordinals(lang: str) -> None:
    first, second = SENTENCES[lang]
    text = f"{first} {second}" if lang not in ("zh", "ja") else first + second
    assert [s.text for s in sentences(text, lang)] == [first, second]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_inflected_forms_share_a_stem(lang: str) -> None:
    a, b = INFLECTIONS[lang]
    assert stems(a, lang) & stems(b, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_stop_words_come_from_the_language_list(lang: str) -> None:
    assert STOP[lang] in stop_words(lang)
    assert "merge" not in stop_words(lang) and "case" not in stop_words("en") and "keys" not in stop_words("en")


def test_language_is_detected_from_function_words_and_letters() -> None:
    assert detect_language("Wie löscht man einen Knoten mit zwei Kindern?") == "de"
    assert detect_language("How does merge sort split the array?") == "en"
    assert detect_language("Comment fonctionne le tri par fusion ?") == "fr"
    assert detect_language("Как работает сортировка слиянием?") == "ru"
    assert detect_language("归并排序如何工作？") == "zh"
    assert detect_language("マージソートはどう動きますか？") == "ja"
    assert detect_language("O(h)", "de") == "de"  # nothing decides: the default


def test_german_verb_forms_meet_their_noun_in_a_vocabulary() -> None:
    vocab = stems("Löschen: drei Fälle", "de")
    (term,) = stems("löscht", "de")
    assert conflate(term, vocab, "de") in vocab


def test_a_marker_never_lands_inside_a_german_sentence_with_a_date() -> None:
    text = "Die Klausur findet am 14. Februar im Audimax statt. Sie dauert 120 Minuten."
    ends = [s.end for s in sentences(text)]
    assert ends == [text.index("statt.") + len("statt."), len(text)]


def test_one_letter_variables_end_sentences_before_a_function_word() -> None:
    text = "MERGE copies the halves into arrays L and R. In every step it moves the smaller one into A. It is done."
    assert len(sentences(text, "en")) == 3


def test_markdown_blocks_end_sentences_and_code_is_skipped() -> None:
    text = "Intro line:\n\n- first item\n- second item\n\n```\ncode. More code.\n```\nAfter."
    assert [s.text for s in sentences(text)] == ["Intro line:", "- first item", "- second item", "After."]


def test_slide_units_join_wrapped_lines_and_keep_formulas_whole() -> None:
    text = ("The Master Theorem\n• Merge sort: a = 2, b = 2, n^(log₂ 2) = n and f(n) = Θ(n)  ⇒  case 2: T(n) =\n"
            "Θ(n log n)\n• Case 3: f(n) = Ω(n^(log_b a + ε)) for some ε > 0, and a·f(n/b) ≤ c·f(n) for\n"
            "some c < 1 and all large n\n8")
    slide = slide_units(text)
    assert slide.title == "The Master Theorem"
    assert [u.text for u in slide.units] == [
        "Merge sort: a = 2, b = 2, n^(log₂ 2) = n and f(n) = Θ(n) ⇒ case 2: T(n) = Θ(n log n)",
        "Case 3: f(n) = Ω(n^(log_b a + ε)) for some ε > 0, and a·f(n/b) ≤ c·f(n) for some c < 1 and all large n"]


def test_slide_units_keep_sub_bullets_and_drop_footers() -> None:
    text = ("Löschen: drei Fälle\n• Fall 3: z hat zwei Kinder\n– Nachfolger y bestimmen\n"
            "– y nimmt den Platz von z ein\nFolie 7")
    (unit,) = slide_units(text).units
    assert unit.full() == "Fall 3: z hat zwei Kinder: Nachfolger y bestimmen; y nimmt den Platz von z ein"


# --- keyword and summary rules ------------------------------------------------------------------------------

SOURCE_EN = "Divide and Conquer\n• The leader still decides. Merge sort splits the array."


@pytest.mark.parametrize(("keyword", "source", "problem"), [
    ("Divide conquer", SOURCE_EN, "does not occur"),
    ("Leader still", SOURCE_EN, "adverb"),
    ("Löschen drei", "Löschen: drei Fälle", "number"),
    ("Knoten höchstens", "jeder Knoten hat höchstens zwei Kinder", "lower-case"),
    ("Mvcc sieht", "MVCC sieht für jede Transaktion einen Schnappschuss der Datenbank vor", "lower-case"),
    ("merge sort", SOURCE_EN, "capital"),
    ("**Merge sort**", SOURCE_EN, "Markdown"),
    ("Merge sort splits the array now", SOURCE_EN, "words"),
])
def test_keyword_rules_catch_the_reported_labels(keyword: str, source: str, problem: str) -> None:
    assert any(problem in p for p in keyword_problems(keyword, source)), keyword_problems(keyword, source)


def test_keyword_rules_accept_good_labels_and_reject_repeats() -> None:
    assert keyword_problems("Divide and Conquer", SOURCE_EN) == []
    assert keyword_problems("Binärer Suchbaum", "Definition: Binärer Suchbaum", "de") == []
    assert keyword_problems("Merge Sorts", SOURCE_EN, ["merge sort"]) == ["repeats an earlier keyword"]


@pytest.mark.parametrize(("summary", "source", "problem"), [
    ("Merge sort: case 2 gives Θ(n^(log_b…", "", "does not end a sentence"),
    ("Some languages are supported, e.g.", "", "abbreviation"),
    ("The loop uses double ( - -1) a as its argument.", "cdef double sum(double[::1] a)", "mangled"),
    ("This is important. Now this. And now this 15.", "Animation\n• This is important\n15", "page number"),
    ("This slide shows the recursion tree.", "", "about the source"),
    ("The theme provides sensible defaults to.", "", "mid-sentence"),
])
def test_summary_rules_catch_the_reported_tooltips(summary: str, source: str, problem: str) -> None:
    assert any(problem in p for p in summary_problems(summary, source)), summary_problems(summary, source)


def test_offline_keywords_are_unique_and_keep_the_rules() -> None:
    slides = ["Merge Sort: The Idea\n• Divide: split the subarray", "Merge Sort: Pseudocode\n• Initial call",
              "Animation\n• This is important\n15", "Animation\n• This is important\n15"]
    keywords = pick_keywords(slides)
    assert keywords[:2] == ["Merge Sort", "Pseudocode"]
    for i, (kw, src) in enumerate(zip(keywords, slides, strict=True)):
        assert keyword_problems(kw, src, keywords[:i]) == [], kw
    assert pick_keyword("Löschen: drei Fälle\n• Fall 1: z hat keine Kinder", []) == "Löschen"


def test_offline_summaries_are_whole_statements_without_footers_or_code() -> None:
    overlay = "Animation\n• This is important\n• Now this\n• And now this\n15"
    assert "15" not in summarize(overlay)
    formula = ("The Master Theorem\n• Merge sort: a = 2, b = 2, n^(log₂ 2) = n and f(n) = Θ(n)  ⇒  case 2: T(n) =\n"
               "Θ(n log n)")
    assert summarize(formula).endswith("T(n) = Θ(n log n).")
    code = "Cython\n● Explicit memory layout: the pythonic syntax [::1] denotes a contiguous rank-1 array.\n" \
           "def ddot(double [::1] a, double [::1] b):\n● The loop now runs at native speed."
    assert summarize(code) == "The loop now runs at native speed."
    for text in (overlay, formula, code):
        assert summary_problems(summarize(text), text) == []


def test_model_keywords_and_summaries_are_cleaned() -> None:
    assert clean_keyword('Keyword: "**Master theorem**".') == "Master theorem"
    assert clean_keyword("divide and conquer paradigm of the") == "divide and conquer paradigm"
    assert clean_summary("**Summary:** One. Two.\nThree.") == "One. Two."


def test_kept_stems_and_sentences_cannot_be_changed_through_what_a_caller_gets() -> None:
    """Stems and sentences of a text are kept for the next caller; what each caller gets is its own copy."""
    from citation_core.text import stem_list

    text = "Merge sort splits the array. Both halves are sorted recursively."
    first = stems(text)
    first.add("intruder")
    assert "intruder" not in stems(text)
    listed = stem_list(text)
    expected = list(listed)
    listed.clear()
    assert stem_list(text) == expected and "halv" in expected
    parts = sentences(text)
    parts.pop()
    assert [s.text for s in sentences(text)] == ["Merge sort splits the array.", "Both halves are sorted recursively."]


def test_to_after_a_participle_is_a_preposition_not_a_verb_marker() -> None:
    from citation_core.text import verbs_in

    assert "bytecode" not in verbs_in("they are both typically compiled to bytecode.", "en")
    assert "divide" in verbs_in("we want to divide the array", "en")
    assert keyword_problems("Bytecode", "they are both typically compiled to bytecode.") == []
