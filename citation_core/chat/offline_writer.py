"""The offline answer writer: extractive, deterministic, grounded like a tutor.

It answers from what the student has open first (the slide, or the transcript around the open second),
then from the retrieved passages: whole bullets with their wrapped lines, sub-bullets and formulas, never
a title, agenda or divider page unless the question asks for it. Slides are named only by their printed
number (or title). The few sentences it writes itself exist in all 12 supported languages; the quoted
material stays in its own language (the writer cannot translate).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..text import (
    ORDINALS,
    clock,
    conflate,
    detect_language,
    lang_code,
    question_noise,
    sentences,
    slide_units,
    stem_list,
    terms,
    weak_stems,
)
from ..text.similarity import semantic_model
from ..text.slides import SlideUnit, is_code_line, title_ok

# Wording per language: {S} a slide label, {n} printed number, {t} title, {u} unit name, {c} video time.
PHRASES: dict[str, dict[str, str]] = {
    "en": {"slide_n": "Slide {n}", "slide_t": "The slide “{t}”", "title": " (“{t}”)", "unit": " of “{u}”",
           "says": "{S} says:", "adds": "{S} adds:", "video": "In the video at {c}, the lecturer says:",
           "video_u": "In the video of “{u}” at {c}, the lecturer says:", "faq": "The course FAQ says:",
           "none": "I could not find this in the lecture material.", "looking": "You are looking at {S}."},
    "de": {"slide_n": "Folie {n}", "slide_t": "Die Folie „{t}“", "title": " („{t}“)", "unit": " aus „{u}“",
           "says": "{S} sagt:", "adds": "{S} ergänzt:", "video": "Im Video bei {c} sagt die Lehrperson:",
           "video_u": "Im Video zu „{u}“ bei {c} sagt die Lehrperson:", "faq": "Die FAQ des Kurses sagt:",
           "none": "Dazu habe ich im Vorlesungsmaterial nichts gefunden.", "looking": "Sie sehen gerade {S}."},
    "fr": {"slide_n": "La diapositive {n}", "slide_t": "La diapositive « {t} »", "title": " (« {t} »)",
           "unit": " de « {u} »", "says": "{S} dit :", "adds": "{S} ajoute :",
           "video": "Dans la vidéo, à {c}, l’enseignant dit :",
           "video_u": "Dans la vidéo « {u} », à {c}, l’enseignant dit :", "faq": "La FAQ du cours dit :",
           "none": "Je n’ai rien trouvé à ce sujet dans le support de cours.", "looking": "Vous regardez {S}."},
    "es": {"slide_n": "La diapositiva {n}", "slide_t": "La diapositiva «{t}»", "title": " («{t}»)",
           "unit": " de «{u}»", "says": "{S} dice:", "adds": "{S} añade:",
           "video": "En el vídeo, en {c}, el docente dice:", "video_u": "En el vídeo «{u}», en {c}, el docente dice:",
           "faq": "Las preguntas frecuentes del curso dicen:",
           "none": "No he encontrado nada sobre esto en el material del curso.", "looking": "Está viendo {S}."},
    "it": {"slide_n": "La slide {n}", "slide_t": "La slide «{t}»", "title": " («{t}»)", "unit": " di «{u}»",
           "says": "{S} dice:", "adds": "{S} aggiunge:", "video": "Nel video, a {c}, il docente dice:",
           "video_u": "Nel video «{u}», a {c}, il docente dice:", "faq": "Le FAQ del corso dicono:",
           "none": "Non ho trovato nulla su questo nel materiale del corso.", "looking": "Sta guardando {S}."},
    "pt": {"slide_n": "O slide {n}", "slide_t": "O slide “{t}”", "title": " (“{t}”)", "unit": " de “{u}”",
           "says": "{S} diz:", "adds": "{S} acrescenta:", "video": "No vídeo, em {c}, o docente diz:",
           "video_u": "No vídeo “{u}”, em {c}, o docente diz:", "faq": "As perguntas frequentes do curso dizem:",
           "none": "Não encontrei nada sobre isto no material da disciplina.", "looking": "Você está vendo {S}."},
    "nl": {"slide_n": "Dia {n}", "slide_t": "De dia „{t}”", "title": " („{t}”)", "unit": " uit „{u}”",
           "says": "{S} zegt:", "adds": "{S} voegt toe:", "video": "In de video zegt de docent op {c}:",
           "video_u": "In de video „{u}” zegt de docent op {c}:", "faq": "De FAQ van de cursus zegt:",
           "none": "Hierover heb ik niets gevonden in het lesmateriaal.", "looking": "U bekijkt {S}."},
    "pl": {"slide_n": "Slajd {n}", "slide_t": "Slajd „{t}”", "title": " („{t}”)", "unit": " z „{u}”",
           "says": "{S} mówi:", "adds": "{S} dodaje:", "video": "W nagraniu, w {c}, prowadzący mówi:",
           "video_u": "W nagraniu „{u}”, w {c}, prowadzący mówi:", "faq": "FAQ kursu mówi:",
           "none": "Nie znalazłem nic na ten temat w materiałach z wykładu.", "looking": "Oglądasz {S}."},
    "tr": {"slide_n": "Slayt {n}", "slide_t": "“{t}” slaytı", "title": " (“{t}”)", "unit": " (“{u}”)",
           "says": "{S} şöyle diyor:", "adds": "{S} şunu ekliyor:",
           "video": "Videoda {c} anında öğretim görevlisi şöyle diyor:",
           "video_u": "“{u}” videosunda {c} anında öğretim görevlisi şöyle diyor:",
           "faq": "Dersin SSS bölümü şöyle diyor:", "none": "Ders materyalinde bununla ilgili bir şey bulamadım.",
           "looking": "Şu anda açık olan: {S}."},
    "ru": {"slide_n": "Слайд {n}", "slide_t": "Слайд «{t}»", "title": " («{t}»)", "unit": " из «{u}»",
           "says": "{S} говорит:", "adds": "{S} добавляет:", "video": "В видео на {c} преподаватель говорит:",
           "video_u": "В видео «{u}» на {c} преподаватель говорит:", "faq": "В FAQ курса сказано:",
           "none": "В материалах лекции я ничего об этом не нашёл.", "looking": "Сейчас открыт {S}."},
    "zh": {"slide_n": "第 {n} 张幻灯片", "slide_t": "幻灯片“{t}”", "title": "（“{t}”）", "unit": "（“{u}”）",
           "says": "{S}写道：", "adds": "{S}补充道：", "video": "在视频 {c} 处，讲师说：",
           "video_u": "在视频“{u}” {c} 处，讲师说：", "faq": "课程常见问题中写道：",
           "none": "我在课程资料中没有找到相关内容。", "looking": "您正在查看{S}。"},
    "ja": {"slide_n": "スライド {n}", "slide_t": "スライド「{t}」", "title": "（「{t}」）", "unit": "（「{u}」）",
           "says": "{S}には次のようにあります：", "adds": "{S}にはさらに次のようにあります：",
           "video": "動画の {c} で、講師は次のように話しています：",
           "video_u": "動画「{u}」の {c} で、講師は次のように話しています：",
           "faq": "コースの FAQ には次のようにあります：", "none": "講義資料には該当する内容が見つかりませんでした。",
           "looking": "現在表示しているのは{S}です。"},
}

# Said when nothing matched a question asked in another language than the material.
OTHER_LANGUAGE: dict[str, str] = {
    "en": "Your question is in another language than this material, and the offline model matches words: it "
          "cannot translate.",
    "de": "Ihre Frage ist in einer anderen Sprache als dieses Material, und das Offline-Modell vergleicht Wörter: "
          "Übersetzen kann es nicht.",
    "fr": "Votre question n’est pas dans la langue de ce support, et le modèle hors ligne compare des mots : il ne "
          "sait pas traduire.",
    "es": "Su pregunta está en otro idioma que este material, y el modelo sin conexión compara palabras: no puede "
          "traducir.",
    "it": "La domanda è in una lingua diversa da quella di questo materiale, e il modello offline confronta parole: "
          "non sa tradurre.",
    "pt": "A sua pergunta está em outra língua que este material, e o modelo offline compara palavras: não consegue "
          "traduzir.",
    "nl": "Uw vraag is in een andere taal dan dit materiaal, en het offline model vergelijkt woorden: vertalen kan "
          "het niet.",
    "pl": "Pytanie jest w innym języku niż te materiały, a model offline porównuje słowa: nie potrafi tłumaczyć.",
    "tr": "Sorunuz bu materyalden farklı bir dilde; çevrimdışı model kelimeleri karşılaştırır ve çeviri yapamaz.",
    "ru": "Ваш вопрос на другом языке, чем этот материал, а офлайн-модель сравнивает слова и не умеет переводить.",
    "zh": "您的问题与本资料使用的语言不同，离线模型只比较词语，无法翻译。",
    "ja": "質問の言語がこの資料の言語と異なります。オフラインモデルは単語を照合するだけで、翻訳はできません。",
}

# A cue of a unit that has a transcript but no video: (the open unit, another unit).
TRANSCRIPT: dict[str, tuple[str, str]] = {
    "en": ("The transcript says at {c}:", "The transcript of “{u}” says at {c}:"),
    "de": ("Im Transkript heißt es bei {c}:", "Im Transkript zu „{u}“ heißt es bei {c}:"),
    "fr": ("La transcription dit, à {c} :", "La transcription de « {u} » dit, à {c} :"),
    "es": ("La transcripción dice, en {c}:", "La transcripción de «{u}» dice, en {c}:"),
    "it": ("La trascrizione dice, a {c}:", "La trascrizione di «{u}» dice, a {c}:"),
    "pt": ("A transcrição diz, em {c}:", "A transcrição de “{u}” diz, em {c}:"),
    "nl": ("Het transcript zegt op {c}:", "Het transcript van „{u}” zegt op {c}:"),
    "pl": ("Transkrypcja mówi, w {c}:", "Transkrypcja „{u}” mówi, w {c}:"),
    "tr": ("Döküm {c} anında şöyle diyor:", "“{u}” dökümü {c} anında şöyle diyor:"),
    "ru": ("В расшифровке на {c} сказано:", "В расшифровке «{u}» на {c} сказано:"),
    "zh": ("文字稿 {c} 处写道：", "“{u}”的文字稿 {c} 处写道："),
    "ja": ("書き起こしの {c} には次のようにあります：", "「{u}」の書き起こしの {c} には次のようにあります："),
}

# Said before the passage closest to a question that no passage answers outright.
CLOSEST: dict[str, str] = {
    "en": "Nothing in the material answers this outright; this comes closest.",
    "de": "Im Material beantwortet das nichts direkt; am nächsten kommt dies.",
    "fr": "Rien dans le support n’y répond directement ; voici ce qui s’en approche le plus.",
    "es": "Nada en el material lo responde directamente; esto es lo más cercano.",
    "it": "Nulla nel materiale risponde direttamente; questo è ciò che si avvicina di più.",
    "pt": "Nada no material responde a isto diretamente; isto é o que mais se aproxima.",
    "nl": "Niets in het materiaal beantwoordt dit direct; dit komt het dichtst in de buurt.",
    "pl": "Nic w materiałach nie odpowiada na to wprost; to jest najbliżej.",
    "tr": "Materyalde buna doğrudan bir yanıt yok; en yakın olanı şu.",
    "ru": "Прямого ответа в материале нет; ближе всего вот это.",
    "zh": "资料中没有直接回答这个问题的内容；最接近的是以下内容。",
    "ja": "資料にはこれに直接答える内容はありません。最も近いのは次の内容です。",
}
CLOSEST_MEANING = 0.4  # a passage found by meaning alone comes close enough to be shown when this close

# Questions about what is open right now ("this slide", "right now", "hier", "gerade", …).
DEICTIC = re.compile(
    r"\b(?:this|these|current|currently|here|right now|at the moment|diese[rsmn]?|hier|gerade|jetzt|aktuelle[rn]?"
    r"|cette|ici|maintenant|aquí|ahora|questa|questo|adesso|agora|aqui|deze|tutaj|teraz|şimdi|этот|эта|здесь"
    r"|сейчас)\b|这|此|现在|この|今", re.I)
EXPLAIN_ONLY = re.compile(
    r"^\W*(?:explain|what|was|erkläre|erklär|worum|qu|que|qué|cosa|o que|wat|co|ne|что|什么|何)\b", re.I)
MAX_UNITS = 5
FOCUS_WEIGHT = 2.0
MAX_TARGETED = 3
VIEW_MARGIN = 0.5  # the open slide answers when its best statement comes this close to the best elsewhere
ROW_WEIGHT = 0.6  # a table row or figure label, against a bullet or sentence
VIDEO_WEIGHT = 0.85  # what the lecturer says, against a slide (spoken sentences announce and repeat)
# A passage of another unit than the open one, against one of the open unit: retrieval searches the whole
# course, and a long transcript of another lecture shares some word with almost any question.
OTHER_UNIT_WEIGHT = 0.75
LEAD_MIN_WORDS = 5  # a spoken statement shorter than this ("Okay, so there are") never leads an answer
# Meaning (text.similarity): a statement also answers by how close it is to the question in meaning, read
# with its slide's title ("Why should the table size be prime?" and "Division method: choose m prime").
MEANING_BASE = 0.3  # a cosine below this says nothing
MEANING_WEIGHT = 2.0  # statement score: its term score + MEANING_WEIGHT * (cosine - MEANING_BASE)
MEANING_MIN_TERMS = 3  # a question with fewer content terms is not compared by meaning
MEANING_ALONE = 0.5  # a slide found by meaning alone answers when a statement comes this close


@dataclass
class Doc:
    """A slide, a transcript window or a passage, read into statements."""

    kind: str  # "slide" | "video"
    source: Mapping[str, Any]
    title: str
    units: list[str]
    bullets: list[bool] = field(default_factory=list)  # per unit: a bullet or sentence (not a figure row)
    title_terms: set[str] = field(default_factory=set)
    unit_terms: list[set[str]] = field(default_factory=list)
    code_terms: list[set[str]] = field(default_factory=list)  # per unit: the terms of its code runs
    # per unit: the code, console or diagram lines the slide shows before and after it (``_code_runs``);
    # a run the statement neither introduces nor names is ``loose``: quoted only where it says more about
    # the question than the statement (``show``, set by ``_units_for``)
    before: list[list[str]] = field(default_factory=list)
    after: list[list[str]] = field(default_factory=list)
    loose: set[tuple[int, str]] = field(default_factory=set)
    show: set[tuple[int, str]] = field(default_factory=set)
    code: set[int] = field(default_factory=set)  # units that are a run of code lines (a slide without prose)

    def code_lines(self, i: int) -> list[str]:
        """The code, console or diagram lines that go with the ``i``-th statement, before and after it."""
        return [*self.before[i], *self.after[i]] if self.before else []

    @property
    def all_terms(self) -> set[str]:
        out = set(self.title_terms)
        for t in [*self.unit_terms, *self.code_terms]:
            out |= t
        return out


def _read(source: Mapping[str, Any], lang_hint: str) -> Doc:
    text = str(source.get("text", ""))
    lang = detect_language(text, lang_hint)
    if source.get("kind") == "video":
        units = [s.text for s in sentences(" ".join(text.split()), lang)] if text.strip() else []
        doc = Doc("video", source, "", units)
    else:
        slide = slide_units(text)
        units = []
        bullets: list[bool] = []
        before: list[list[str]] = []
        after: list[list[str]] = []
        loose: set[tuple[int, str]] = set()  # blocks shown only where the question is about the code
        code: set[int] = set()  # units that are a run of code lines themselves
        waiting: list[str] = []  # a run of code lines that no statement introduced
        follows = False  # the last slide unit was a kept statement
        for u, run in _code_runs(slide.units):
            if run:
                if follows and units[-1].endswith(":") and not after[-1]:
                    after[-1] = run  # "Git markiert den Konflikt in der Datei:" and the conflict
                else:
                    waiting = run
                follows = False
                continue
            statement = u.full()
            if not _statement(statement):
                follows = False
                continue
            units.append(statement)
            bullets.append(u.kind == "bullet" or bool(re.search(r"[.!?]$", statement)))
            # "$ git status" and its output, then "git status zeigt geänderte Dateien an."
            before.append(waiting)
            after.append([])
            if waiting and not _names_code(statement, waiting):
                loose.add((len(units) - 1, "before"))
            waiting, follows = [], True
        if waiting and units and not after[-1]:  # code after the last statement
            after[-1] = waiting
            loose.add((len(units) - 1, "after"))
        if not units:  # a slide of code, console output or diagrams alone: its runs are what it says
            for _, run in _code_runs(slide.units):
                if run:
                    units.append("\n".join(run))
                    bullets.append(True)
                    before.append([])
                    after.append([])
                    code.add(len(units) - 1)
        given = str(source.get("title") or "")
        doc = Doc("slide", source, given if title_ok(given) else slide.title, units, bullets, before=before,
                  after=after, loose=loose, code=code)
    doc.title_terms = terms(doc.title, lang) if doc.title else set()
    doc.unit_terms = [terms(u, lang) for u in doc.units]
    # what a statement's console output or code says counts for it ("Automatic merge failed" is a line of
    # the console a caption stands by)
    doc.code_terms = [_code_terms(doc.code_lines(i), lang) for i in range(len(doc.units))]
    return doc


def _code_terms(lines: Sequence[str], lang: str) -> set[str]:
    """The words of code or console lines, without line numbers and numbers alone."""
    return {t for t in terms("\n".join(lines), lang) if not t.isdigit()} if lines else set()


def _code_runs(units: Sequence[SlideUnit]) -> list[tuple[SlideUnit, list[str]]]:
    """The slide's units in order, each statement alone and each run of code lines as one (its lines as the
    slide prints them)."""
    out: list[tuple[SlideUnit, list[str]]] = []
    for u in units:
        if u.kind != "code":
            out.append((u, []))
        elif out and out[-1][1]:
            out[-1][1].append(u.raw or u.text)
        else:
            out.append((u, [u.raw or u.text]))
    return out


def _names_code(statement: str, run: Sequence[str]) -> bool:
    """Whether ``statement`` explains the code above it by naming it first ("git status zeigt …" under
    "$ git status")."""
    first = re.findall(r"[\w.-]+", statement.lower())[:1]
    shown = set(re.findall(r"[\w.-]+", run[0].lower()))
    return bool(first) and first[0] in shown


def _can_lead(d: Doc) -> bool:
    """A slide, or a transcript window that says more than a few words."""
    return d.kind != "video" or max((len(u.split()) for u in d.units), default=0) >= LEAD_MIN_WORDS


def _formula(text: str) -> bool:
    return bool(re.match(r"^\S{1,6}\s*[=≤≥<>]", text))


def _statement(text: str) -> bool:
    """A statement worth quoting: words (not a table row of numbers or a lone label)."""
    words = re.findall(r"[^\W\d_]{2,}", text)
    return len(words) >= 2 or (len(words) >= 1 and bool(re.search(r"[=≤≥<>⇒→]", text)))


OVERVIEW = re.compile(r"\b(?:lecture|agenda|overview|outline|topics?|contents?|about|vorlesung|übersicht|themen?"
                      r"|inhalt|worum|cours|sommaire|clase|lezione|aula|college|wykład|ders|лекци\w*)\b", re.I)


class Query:
    """The question's terms, weighted: the question itself, then (less) the turns before it."""

    def __init__(self, question: str, history: Sequence[tuple[str, str]], lang: str) -> None:
        qlang = detect_language(question, lang)
        noise = question_noise(qlang)
        self.weights: dict[str, float] = {}
        for q, a in history[-2:]:
            for t in terms(q, detect_language(q, qlang)) - noise:
                self.weights[t] = max(self.weights.get(t, 0.0), 0.5)
            for t in terms(a[:600], detect_language(a, qlang)) - noise:
                self.weights[t] = max(self.weights.get(t, 0.0), 0.2)
        self.lang = qlang
        self.own = terms(question, qlang) - noise
        # an ordinal word and its digit are one term ("the second case" is "Case 2"), else a sentence that
        # says "Second, …" would match twice
        for word, digit in ORDINALS.get(qlang, {}).items():
            if digit in self.own:
                self.own -= set(stem_list(word, qlang)) - {digit}
        for t in self.own:
            self.weights[t] = 1.0
        # a learner's filler words ("Beim Mergen stand bei mir …", "was heißt das eigentlich") are in the
        # language's broad stop-word list: never what the question is about (they still count: the broad
        # English list holds "case" and "order")
        weak = weak_stems(qlang)
        # the first word that carries content is what the question is about ("Wie *löscht* man einen
        # Knoten …", "What is the *load* factor"): it counts double
        ordinals = {t for w in ORDINALS.get(qlang, {}) for t in stem_list(w, qlang)}
        ordered = [t for t in stem_list(question, qlang)
                   if t in self.own and not t.isdigit() and t not in ordinals and t not in weak]
        self.focus = ordered[0] if len(set(ordered)) >= 3 else None
        if self.focus:
            self.weights[self.focus] = FOCUS_WEIGHT
        self.overview = bool(OVERVIEW.search(question))
        # "Explain this", "Was ist das?": about what is open. "What is BM25 again?" is about BM25 wherever the
        # material says it (``adapt`` decides once the material's words are known)
        self._explain_only = len(self.own) <= 1 and bool(EXPLAIN_ONLY.search(question))
        self._points = bool(DEICTIC.search(question))  # "this", "here", "gerade", …
        self.deictic = self._points or not self.own or self._explain_only

    def adapt(self, vocabulary: set[str]) -> None:
        """Spell each term as the material does where only an inflected variant occurs there."""
        weights: dict[str, float] = {}
        for t, w in self.weights.items():
            key = conflate(t, vocabulary, self.lang)
            weights[key] = max(w, weights.get(key, 0.0))
        self.weights = weights
        self.own = {conflate(t, vocabulary, self.lang) for t in self.own}
        self.focus = conflate(self.focus, vocabulary, self.lang) if self.focus else None
        if self._explain_only and self.own & vocabulary and not self._points:
            self.deictic = False


def _idf(docs: Sequence[Doc]) -> dict[str, float]:
    df: dict[str, int] = {}
    for d in docs:
        for t in d.all_terms:
            df[t] = df.get(t, 0) + 1
    n = len(docs)
    return {t: math.log(1 + (n + 1) / (c + 0.5)) for t, c in df.items()}


class Scorer:
    def __init__(self, query: Query, idf: dict[str, float], own_only: bool = False, question: str = "",
                 cosines: dict[int, list[float]] | None = None) -> None:
        self.q = query
        self.question = question
        self._cosines: dict[int, list[float]] = {} if cosines is None else cosines
        self.idf = idf
        self.default_idf = max(idf.values(), default=1.0)
        self.weights = {t: 1.0 for t in query.own} if own_only and query.own else query.weights
        self.total = sum(w * idf.get(t, self.default_idf) for t, w in self.weights.items()) or 1.0
        # which statements of a slide answer is the question's own business; the turns before it only
        # help to find the slide
        self.units = self if own_only or not query.own else Scorer(query, idf, True, question, self._cosines)

    def meaning(self, d: Doc) -> list[float]:
        """Each statement's cosine with the question (read with the slide's title); zeros without the model."""
        found = self._cosines.get(id(d))
        if found is None:
            model = semantic_model()
            if model is None or not self.meaningful() or not d.units:
                found = [0.0] * len(d.units)
            else:
                texts = [" ".join(filter(None, [f"{d.title}:" if d.title else "", u, " ".join(d.code_lines(i))]))
                         for i, u in enumerate(d.units)]
                found = [float(c) for c in model.similarities(self.question, texts)]
            self._cosines[id(d)] = found
        return found

    def meaningful(self) -> bool:
        """Whether the question says enough on its own to be compared by meaning: a follow-up ("And the
        second case?") or a question about what is open ("explain this") is found by its terms and the
        turns before it, and a vector of two words is noise."""
        return not self.q.deictic and len(self.q.own) >= MEANING_MIN_TERMS and bool(self.question.strip())

    def closest(self, d: Doc) -> float:
        """The cosine of ``d``'s statement closest in meaning to the question."""
        return max(self.meaning(d), default=0.0)

    def of(self, found: set[str], boost: set[str] | None = None) -> float:
        score = 0.0
        for t in found & self.weights.keys():
            s = self.weights[t] * self.idf.get(t, self.default_idf)
            score += s * (1.3 if boost and t in boost else 1.0)
        return score / self.total

    def doc(self, d: Doc) -> float:
        return self.of(d.all_terms, d.title_terms)

    def answers(self, d: Doc, own: bool = False, open_now: bool = False) -> float:
        """How well the best statement of ``d``, read with the slide's title, answers the question (with
        ``own``, the question alone, not the turns before it). The question's terms spread over a slide's
        title, a table row and an unrelated bullet do not answer it; a table row or figure label counts for
        less than a bullet or sentence, and a spoken sentence for less than a slide (the lecturer also
        announces: "We also ask whether any comparison sort can be faster"), unless the student is watching
        it (``open_now``)."""
        scorer = self.units if own else self
        best = 0.0
        meaning = self.meaning(d)
        for i, found in enumerate(d.unit_terms):
            # a label by code or console output stands for it: not a table row
            row = bool(d.bullets) and not d.bullets[i] and not _formula(d.units[i]) and not d.code_terms[i]
            score = scorer.of(found | d.code_terms[i] | d.title_terms, d.title_terms) + _bonus(meaning[i])
            best = max(best, score * (ROW_WEIGHT if row else 1.0))
        return best * (VIDEO_WEIGHT if d.kind == "video" and not open_now else 1.0)


def _bonus(cosine: float) -> float:
    return MEANING_WEIGHT * max(0.0, cosine - MEANING_BASE)


def _targeted(d: Doc, scorer: Scorer) -> list[int]:
    """The statements of ``d`` that answer the question (best within 60 % of the best), in slide order."""
    scores = [scorer.units.of(t | c) for t, c in zip(d.unit_terms, d.code_terms, strict=True)]
    if max(scores, default=0.0) <= 0:  # no statement shares the question's terms: the ones closest in meaning
        scores = [_bonus(c) for c in scorer.meaning(d)]
    best = max(scores, default=0.0)
    if best <= 0:
        return []
    chosen = sorted(range(len(scores)), key=lambda i: -scores[i])
    return sorted(i for i in chosen[:MAX_TARGETED] if scores[i] >= 0.6 * best)


def _units_for(d: Doc, scorer: Scorer, broad: bool) -> list[str]:
    if not d.units:
        return []
    d.show = {(i, side) for i, side in d.loose
              if _code_answers(d.before[i] if side == "before" else d.after[i], d.unit_terms[i], scorer)}
    targeted = _targeted(d, scorer)
    title_cover = scorer.of(d.title_terms)
    if broad or not targeted or (title_cover >= 0.5 and scorer.of(d.unit_terms[targeted[0]]) < 0.5):
        # the whole slide: its statements in order, figure rows only where they hold a formula
        order = [i for i in range(len(d.units)) if not d.bullets or d.bullets[i] or _formula(d.units[i])]
        picked = order[:MAX_UNITS] or list(range(min(MAX_UNITS, len(d.units))))
        picked += [i for i in targeted if i not in picked][:1]
        return [d.units[i] for i in sorted(picked)]
    return [d.units[i] for i in targeted]


def _code_answers(run: Sequence[str], statement_terms: set[str], scorer: Scorer) -> bool:
    """Whether the question's own terms are found more in the code ``run`` than in the statement it stands by
    ("Was bedeuten die Zeilen mit <<<<<<< in meiner Java-Datei?" and a conflict in ``hero.java``)."""
    found = scorer.units.of(terms("\n".join(run)))
    return found > 0 and found > scorer.units.of(statement_terms)


def _label(ph: Mapping[str, str], source: Mapping[str, Any], with_title: bool = True) -> str:
    printed, title = source.get("printed"), str(source.get("title") or "")
    title = title if title_ok(title) else ""  # never a command, a diagram or a licence line
    if printed:
        label = ph["slide_n"].format(n=printed)
        return label + ph["title"].format(t=title) if with_title and title else label
    return ph["slide_t"].format(t=title or "…")


def _lead(ph: Mapping[str, str], lang: str, d: Doc, view_unit: str, primary: bool) -> str:
    src = d.source
    unit = str(src.get("unit") or "")
    other = unit and unit != view_unit
    if d.kind == "video":
        at = clock(float(src.get("start", src.get("second", 0.0)) or 0.0))
        if src.get("no_video"):
            here, there = TRANSCRIPT[lang]
            return there.format(u=unit, c=at) if other else here.format(c=at)
        return ph["video_u"].format(u=unit, c=at) if other else ph["video"].format(c=at)
    label = _label(ph, src) + (ph["unit"].format(u=unit) if other else "")
    return ph["says" if primary else "adds"].format(S=label)


def _render(lead: str, units: Sequence[str], kind: str, doc: Doc | None = None) -> str:
    """The lead and the quoted statements: a paragraph of what the lecturer says, or a list of the slide's
    statements. Code, console and diagram lines that go with a statement (``Doc.before``, ``Doc.after``)
    are quoted as code: one line as inline code, several as a fenced block that keeps their line breaks
    (inside the bullet of the statement that introduces them, else before the bullet that explains them)."""
    if kind == "video":
        return lead + "\n\n" + " ".join(units)
    blocks: list[str] = []
    items: list[str] = []
    for u in units:
        i = doc.units.index(u) if doc is not None and u in doc.units else None
        before = _block(doc, i, "before")
        after = _block(doc, i, "after")
        if len(before) == 1:
            items.append(f"- {code_span(before[0].strip())}")
        elif before:
            if items:
                blocks.append("\n".join(items))
                items = []
            blocks.append(fenced(before))
        if doc is not None and i in doc.code:
            lines = u.split("\n")
            if len(lines) == 1:
                items.append(f"- {code_span(lines[0].strip())}")
                continue
            if items:
                blocks.append("\n".join(items))
                items = []
            blocks.append(fenced(lines))
            continue
        # a statement that is a command ("git checkout master") is shown as one
        item = f"- {code_span(u) if is_code_line(u) else markdown_text(u)}"
        if len(after) == 1:
            item += f" {code_span(after[0].strip())}"
        elif after:
            item += "\n" + "\n".join(f"  {line}" if line else "" for line in fenced(after).split("\n"))
        items.append(item)
    if items:
        blocks.append("\n".join(items))
    return lead + "\n\n" + "\n\n".join(blocks)


def _block(doc: Doc | None, i: int | None, side: str) -> list[str]:
    """The code run on ``side`` of the ``i``-th statement of ``doc`` that the answer quotes, else []."""
    if doc is None or i is None or not doc.before or ((i, side) in doc.loose and (i, side) not in doc.show):
        return []
    return doc.before[i] if side == "before" else doc.after[i]


_BLOCK_START = re.compile(r"^(?:[>#+=|~-]|\*|\d+[.)](?=\s|$))")


def markdown_text(text: str) -> str:
    """Slide text as Markdown that shows it as it is: no heading, quote, list or rule where a line starts with
    such a mark ("> 5 Elemente", "# Kommentar"), no code span, emphasis or marker where it holds "`", "*",
    "__init__" or "[cite:" (an underscore inside a name, "readonly_flag", stays as it is)."""
    text = re.sub(r"([`*\\])", r"\\\1", text)
    text = re.sub(r"(?<![^\W_])_|_(?![^\W_])", r"\\_", text)
    text = re.sub(r"\[(?=\s*cite)", r"\\[", text, flags=re.I)
    return "\\" + text if _BLOCK_START.match(text) else text


def code_span(line: str) -> str:
    """``line`` as inline code: fenced by one backtick more than its longest run of them, and padded by a space
    where it starts or ends with one (``git log --format='`%h`'``)."""
    longest = max((len(m) for m in re.findall(r"`+", line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or longest else ""
    return f"{fence}{pad}{line}{pad}{fence}"


def fenced(lines: Sequence[str]) -> str:
    """``lines`` as a fenced code block, their common indentation removed and the rest kept; the fence is
    longer than any run of backticks inside."""
    text = textwrap.dedent("\n".join(line.rstrip() for line in lines)).strip("\n")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _near_duplicate(a: set[str], chosen: Sequence[set[str]]) -> bool:
    return any(a and len(a & b) / len(a | b) >= 0.5 for b in chosen)


def write_answer(inputs: Mapping[str, Any]) -> str:
    """The answer for ``inputs`` (question, language, history, view, passages, faqs; see ``ExtractiveWriter``)."""
    lang = lang_code(str(inputs.get("language", "en")))
    ph = PHRASES[lang]
    question = str(inputs.get("question", ""))
    history = [(str(q), str(a)) for q, a in inputs.get("history") or []]
    query = Query(question, history, lang)
    view: Mapping[str, Any] = inputs.get("view") or {}
    passages: Sequence[Mapping[str, Any]] = inputs.get("passages") or []
    faqs: Sequence[Mapping[str, Any]] = inputs.get("faqs") or []

    view_doc = _read(view, lang) if view.get("text") else None
    seen = {str(view.get("uuid"))} if view.get("uuid") else set()
    docs: list[Doc] = []
    for p in passages:
        key = str(p.get("uuid") or id(p))
        if key not in seen:
            seen.add(key)
            docs.append(_read(p, lang))
    all_docs = [d for d in [view_doc, *docs] if d is not None]
    query.adapt({t for d in all_docs for t in d.all_terms})
    idf = _idf(all_docs)
    rarity: Mapping[str, float] = inputs.get("rarity") or {}
    if rarity:  # the course's own rarity of the asked terms, where the writer was given it
        idf = {**idf, **{t: float(v) for t, v in rarity.items() if t in idf}}
    scorer = Scorer(query, idf, question=question)

    view_unit = str(view.get("unit") or "")
    primary: Doc | None = None
    broad = hedged = False
    if view_doc is not None and view_doc.units:
        # the open slide leads when the question is about it ("this slide"), or when one of its statements
        # answers the question about as well as the best statement elsewhere: sharing the course's words
        # ("merge sort" in a list of examples) is not enough
        rel = scorer.doc(view_doc)
        best_other = max((scorer.answers(d, own=True) for d in docs if not d.source.get("filler")), default=0.0)
        usable = not view.get("filler") or query.overview or query.deictic
        answers_here = scorer.answers(view_doc, own=True, open_now=True) >= VIEW_MARGIN * best_other
        if usable and (query.deictic or (rel >= 0.15 and answers_here)):
            primary, broad = view_doc, query.deictic and rel < 0.3
    if primary is None:
        # a slide that has what the question is about comes before one that only shares its context; then
        # the one with the statement that answers it best
        def here(d: Doc) -> float:
            return 1.0 if not view_unit or str(d.source.get("unit") or "") == view_unit else OTHER_UNIT_WEIGHT

        candidates = [d for d in docs if d.units and not d.source.get("filler") and _can_lead(d)]
        ranked = sorted(candidates, key=lambda d: (query.focus is not None and query.focus not in d.all_terms,
                                                   -scorer.answers(d, own=True) * here(d),
                                                   -scorer.answers(d) * here(d), -scorer.doc(d)))
        if ranked and (max(scorer.doc(ranked[0]), scorer.units.doc(ranked[0])) >= 0.3
                       or scorer.closest(ranked[0]) >= MEANING_ALONE):
            primary = ranked[0]
        elif ranked and not query.deictic and (scorer.units.doc(ranked[0]) > 0
                                               or scorer.closest(ranked[0]) >= CLOSEST_MEANING):
            # no passage answers outright, but one shares what the question asks about: shown as the closest,
            # said so (a learner's own words often share one term with the slide that answers)
            primary, hedged = ranked[0], True

    parts: list[str] = []
    chosen_terms: list[set[str]] = []
    if primary is not None:
        units = _units_for(primary, scorer, broad)
        if hedged:
            parts.append(CLOSEST[lang])
        parts.append(_render(_lead(ph, lang, primary, view_unit, True), units, primary.kind, primary))
        chosen_terms += [terms(u) for u in units]
        # the slide shown in the video at that moment
        shown = view.get("shown") if primary is view_doc and primary.kind == "video" else None
        if shown and shown.get("text"):
            shown_doc = _read(shown, lang)
            shown_units = [u for u in _units_for(shown_doc, scorer, scorer.doc(shown_doc) < 0.3)[:3]
                           if not _near_duplicate(terms(u), chosen_terms)]
            if shown_units and not shown.get("filler"):
                parts.append(_render(_lead(ph, lang, shown_doc, view_unit, False), shown_units, "slide", shown_doc))
                chosen_terms += [terms(u) for u in shown_units]
        covered = set(primary.title_terms).union(*chosen_terms)
        extra = sorted((d for d in docs if d is not primary and d.units and not d.source.get("filler")),
                       key=lambda d: -scorer.doc(d))
        added = 0
        for d in extra:
            if added == 2 or scorer.doc(d) < 0.5 or (query.deictic and primary is view_doc):
                break
            if d.source.get("uuid") and d.source.get("uuid") == (shown or {}).get("uuid"):
                continue
            units = [d.units[i] for i in _targeted(d, scorer) if not _near_duplicate(d.unit_terms[i], chosen_terms)]
            # only what adds to the answer: a term of the question the answer does not cover yet
            units = [u for u in units if scorer.of(terms(u)) >= 0.5 and (terms(u) & query.own) - covered][:2]
            if units:
                parts.append(_render(_lead(ph, lang, d, view_unit, False), units, d.kind, d))
                chosen_terms += [terms(u) for u in units]
                covered = covered.union(*chosen_terms)
                added += 1

    faq = _matching_faq(faqs, query, lang)
    if faq is not None:
        parts.append(ph["faq"] + "\n\n" + " ".join(s.text for s in sentences(str(faq.get("answer", "")))[:3]))

    if not parts and _other_language(question, lang, view, view_doc, docs):
        # no word of the question can match: say why, and quote what the student is looking at (a question
        # in another language is most likely about it)
        parts.append(OTHER_LANGUAGE[lang])
        if view_doc is not None and view_doc.units and not view.get("filler"):
            units = _units_for(view_doc, scorer, True)
            parts.append(_render(_lead(ph, lang, view_doc, view_unit, True), units, view_doc.kind, view_doc))
        elif view.get("title") or view.get("printed"):
            parts.append(ph["looking"].format(S=_looking_label(ph, view, lang)))
    if not parts:
        parts.append(ph["none"])
        if view.get("title") or view.get("printed"):
            parts.append(ph["looking"].format(S=_looking_label(ph, view, lang)))
    return "\n\n".join(parts)


def _other_language(question: str, lang: str, view: Mapping[str, Any], view_doc: Doc | None,
                    docs: Sequence[Doc]) -> bool:
    """Whether the question is in another language than the material it was asked about: the open unit's
    language where it is known, else the open slide or transcript, else what retrieval found."""
    asked = detect_language(question, lang)
    if view.get("language"):
        return lang_code(str(view["language"])) != asked
    material = [view_doc] if view_doc is not None and view_doc.units else list(docs)
    text = " ".join(" ".join([d.title, *d.units]) for d in material)[:4000]
    return bool(text.strip()) and detect_language(text, asked) != asked


def _looking_label(ph: Mapping[str, str], view: Mapping[str, Any], lang: str) -> str:
    label = _label(ph, view)
    if lang in ("zh", "ja") or (lang == "de" and not label.startswith("Die ")):  # German nouns keep capitals
        return label
    return label[:1].lower() + label[1:]


def _matching_faq(faqs: Sequence[Mapping[str, Any]], query: Query, lang: str) -> Mapping[str, Any] | None:
    """The FAQ whose question is the student's question: each covers half of the other's terms."""
    best: tuple[float, Mapping[str, Any]] | None = None
    for f in faqs:
        fq = terms(str(f.get("question", "")), detect_language(str(f.get("question", "")), lang))
        if not fq or not query.own:
            continue
        shared = len(fq & query.own)
        score = min(shared / len(fq), shared / len(query.own))
        if shared >= 2 and score >= 0.5 and (best is None or score > best[0]):
            best = (score, f)
    return best[1] if best else None
