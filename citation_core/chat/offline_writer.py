"""The offline answer writer: extractive, deterministic, grounded like a tutor.

It answers from what the student has open first (the slide, or the transcript around the open second),
then from the retrieved passages: whole bullets with their wrapped lines, sub-bullets and formulas, never
a title, agenda or divider page unless the question asks for it. Slide text is quoted by whole sentences, a cut
marked with "…" (``quotes``), and code as code. Slides are named only by their printed
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
from ..text.encoder import sentence_encoder
from ..text.fences import fenced_blocks
from ..text.slides import SlideUnit, is_code_line, title_ok
from .quotes import excerpt

# Wording per language: {S} a slide label, {n} printed number, {p} of {m} a page's place in its deck,
# {t} title, {u} unit name, {c} video time.
PHRASES: dict[str, dict[str, str]] = {
    "en": {"slide_p": "Page {p} of {m}",
           "slide_n": "Slide {n}", "slide_t": "The slide “{t}”", "title": " (“{t}”)", "unit": " of “{u}”",
           "says": "{S} says:", "adds": "{S} adds:", "video": "In the video at {c}, the lecturer says:",
           "video_u": "In the video of “{u}” at {c}, the lecturer says:", "faq": "The course FAQ says:",
           "none": "I could not find this in the lecture material.", "looking": "You are looking at {S}."},
    "de": {"slide_p": "Seite {p} von {m}",
           "slide_n": "Folie {n}", "slide_t": "Die Folie „{t}“", "title": " („{t}“)", "unit": " aus „{u}“",
           "says": "{S} sagt:", "adds": "{S} ergänzt:", "video": "Im Video bei {c} sagt die Lehrperson:",
           "video_u": "Im Video zu „{u}“ bei {c} sagt die Lehrperson:", "faq": "Die FAQ des Kurses sagt:",
           "none": "Dazu habe ich im Vorlesungsmaterial nichts gefunden.", "looking": "Sie sehen gerade {S}."},
    "fr": {"slide_p": "La page {p} sur {m}",
           "slide_n": "La diapositive {n}", "slide_t": "La diapositive « {t} »", "title": " (« {t} »)",
           "unit": " de « {u} »", "says": "{S} dit :", "adds": "{S} ajoute :",
           "video": "Dans la vidéo, à {c}, l’enseignant dit :",
           "video_u": "Dans la vidéo « {u} », à {c}, l’enseignant dit :", "faq": "La FAQ du cours dit :",
           "none": "Je n’ai rien trouvé à ce sujet dans le support de cours.", "looking": "Vous regardez {S}."},
    "es": {"slide_p": "La página {p} de {m}",
           "slide_n": "La diapositiva {n}", "slide_t": "La diapositiva «{t}»", "title": " («{t}»)",
           "unit": " de «{u}»", "says": "{S} dice:", "adds": "{S} añade:",
           "video": "En el vídeo, en {c}, el docente dice:", "video_u": "En el vídeo «{u}», en {c}, el docente dice:",
           "faq": "Las preguntas frecuentes del curso dicen:",
           "none": "No he encontrado nada sobre esto en el material del curso.", "looking": "Está viendo {S}."},
    "it": {"slide_p": "La pagina {p} di {m}",
           "slide_n": "La slide {n}", "slide_t": "La slide «{t}»", "title": " («{t}»)", "unit": " di «{u}»",
           "says": "{S} dice:", "adds": "{S} aggiunge:", "video": "Nel video, a {c}, il docente dice:",
           "video_u": "Nel video «{u}», a {c}, il docente dice:", "faq": "Le FAQ del corso dicono:",
           "none": "Non ho trovato nulla su questo nel materiale del corso.", "looking": "Sta guardando {S}."},
    "pt": {"slide_p": "A página {p} de {m}",
           "slide_n": "O slide {n}", "slide_t": "O slide “{t}”", "title": " (“{t}”)", "unit": " de “{u}”",
           "says": "{S} diz:", "adds": "{S} acrescenta:", "video": "No vídeo, em {c}, o docente diz:",
           "video_u": "No vídeo “{u}”, em {c}, o docente diz:", "faq": "As perguntas frequentes do curso dizem:",
           "none": "Não encontrei nada sobre isto no material da disciplina.", "looking": "Você está vendo {S}."},
    "nl": {"slide_p": "Pagina {p} van {m}",
           "slide_n": "Dia {n}", "slide_t": "De dia „{t}”", "title": " („{t}”)", "unit": " uit „{u}”",
           "says": "{S} zegt:", "adds": "{S} voegt toe:", "video": "In de video zegt de docent op {c}:",
           "video_u": "In de video „{u}” zegt de docent op {c}:", "faq": "De FAQ van de cursus zegt:",
           "none": "Hierover heb ik niets gevonden in het lesmateriaal.", "looking": "U bekijkt {S}."},
    "pl": {"slide_p": "Strona {p} z {m}",
           "slide_n": "Slajd {n}", "slide_t": "Slajd „{t}”", "title": " („{t}”)", "unit": " z „{u}”",
           "says": "{S} mówi:", "adds": "{S} dodaje:", "video": "W nagraniu, w {c}, prowadzący mówi:",
           "video_u": "W nagraniu „{u}”, w {c}, prowadzący mówi:", "faq": "FAQ kursu mówi:",
           "none": "Nie znalazłem nic na ten temat w materiałach z wykładu.", "looking": "Oglądasz {S}."},
    "tr": {"slide_p": "Sayfa {p}/{m}",
           "slide_n": "Slayt {n}", "slide_t": "“{t}” slaytı", "title": " (“{t}”)", "unit": " (“{u}”)",
           "says": "{S} şöyle diyor:", "adds": "{S} şunu ekliyor:",
           "video": "Videoda {c} anında öğretim görevlisi şöyle diyor:",
           "video_u": "“{u}” videosunda {c} anında öğretim görevlisi şöyle diyor:",
           "faq": "Dersin SSS bölümü şöyle diyor:", "none": "Ders materyalinde bununla ilgili bir şey bulamadım.",
           "looking": "Şu anda açık olan: {S}."},
    "ru": {"slide_p": "Страница {p} из {m}",
           "slide_n": "Слайд {n}", "slide_t": "Слайд «{t}»", "title": " («{t}»)", "unit": " из «{u}»",
           "says": "{S} говорит:", "adds": "{S} добавляет:", "video": "В видео на {c} преподаватель говорит:",
           "video_u": "В видео «{u}» на {c} преподаватель говорит:", "faq": "В FAQ курса сказано:",
           "none": "В материалах лекции я ничего об этом не нашёл.", "looking": "Сейчас открыт {S}."},
    "zh": {"slide_p": "第 {p} 页（共 {m} 页）",
           "slide_n": "第 {n} 张幻灯片", "slide_t": "幻灯片“{t}”", "title": "（“{t}”）", "unit": "（“{u}”）",
           "says": "{S}写道：", "adds": "{S}补充道：", "video": "在视频 {c} 处，讲师说：",
           "video_u": "在视频“{u}” {c} 处，讲师说：", "faq": "课程常见问题中写道：",
           "none": "我在课程资料中没有找到相关内容。", "looking": "您正在查看{S}。"},
    "ja": {"slide_p": "{m} ページ中 {p} ページ目",
           "slide_n": "スライド {n}", "slide_t": "スライド「{t}」", "title": "（「{t}」）", "unit": "（「{u}」）",
           "says": "{S}には次のようにあります：", "adds": "{S}にはさらに次のようにあります：",
           "video": "動画の {c} で、講師は次のように話しています：",
           "video_u": "動画「{u}」の {c} で、講師は次のように話しています：",
           "faq": "コースの FAQ には次のようにあります：", "none": "講義資料には該当する内容が見つかりませんでした。",
           "looking": "現在表示しているのは{S}です。"},
}

# Said whenever the question is in another language than the material: the writer finds the slide by meaning,
# frames the answer in the student's language and quotes the material in its own (it cannot translate).
OTHER_LANGUAGE: dict[str, str] = {
    "en": "Your question is in another language than this material: the passages are quoted in the material's "
          "own language (the offline model cannot translate).",
    "de": "Ihre Frage ist in einer anderen Sprache als dieses Material: Die Stellen werden in der Sprache des "
          "Materials zitiert (das Offline-Modell kann nicht übersetzen).",
    "fr": "Votre question n’est pas dans la langue de ce support : les passages sont cités dans la langue du "
          "support (le modèle hors ligne ne sait pas traduire).",
    "es": "Su pregunta está en otro idioma que este material: los pasajes se citan en el idioma del material (el "
          "modelo sin conexión no puede traducir).",
    "it": "La domanda è in una lingua diversa da quella di questo materiale: i passi sono citati nella lingua del "
          "materiale (il modello offline non sa tradurre).",
    "pt": "A sua pergunta está em outra língua que este material: os trechos são citados na língua do material (o "
          "modelo offline não consegue traduzir).",
    "nl": "Uw vraag is in een andere taal dan dit materiaal: de passages worden in de taal van het materiaal "
          "geciteerd (het offline model kan niet vertalen).",
    "pl": "Pytanie jest w innym języku niż te materiały: fragmenty są cytowane w języku materiałów (model offline "
          "nie potrafi tłumaczyć).",
    "tr": "Sorunuz bu materyalden farklı bir dilde: bölümler materyalin kendi dilinde aktarılıyor (çevrimdışı model "
          "çeviri yapamaz).",
    "ru": "Ваш вопрос на другом языке, чем этот материал: фрагменты приводятся на языке материала (офлайн-модель "
          "не умеет переводить).",
    "zh": "您的问题与本资料使用的语言不同：以下段落按资料原文语言引用（离线模型无法翻译）。",
    "ja": "質問の言語がこの資料の言語と異なります。該当箇所は資料の言語のまま引用します"
          "（オフラインモデルは翻訳できません）。",
}

# Said first when the open unit has nothing on the question and another unit has: {u} the open unit, {o} the other.
ELSEWHERE: dict[str, str] = {
    "en": "Unit “{u}” does not cover this; unit “{o}” does:",
    "de": "Die Einheit „{u}“ behandelt das nicht; die Einheit „{o}“ schon:",
    "fr": "L’unité « {u} » ne traite pas ce point ; l’unité « {o} », si :",
    "es": "La unidad «{u}» no trata esto; la unidad «{o}», sí:",
    "it": "L’unità «{u}» non tratta questo punto; l’unità «{o}» sì:",
    "pt": "A unidade “{u}” não trata disto; a unidade “{o}”, sim:",
    "nl": "De eenheid „{u}” behandelt dit niet; de eenheid „{o}” wel:",
    "pl": "Jednostka „{u}” tego nie omawia; jednostka „{o}” tak:",
    "tr": "“{u}” birimi bunu ele almıyor; “{o}” birimi ele alıyor:",
    "ru": "В разделе «{u}» этого нет; в разделе «{o}» есть:",
    "zh": "单元“{u}”没有讲到这一点；单元“{o}”讲到了：",
    "ja": "ユニット「{u}」ではこれを扱っていません。ユニット「{o}」で扱っています：",
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
# A passage whose best statement shares no term of the question is shown as the closest (said so) unless one
# of its statements comes at least this close in meaning (the encoder's cosine; dev: the lowest cosine of a
# statement that answers a question in the other language is about this, unrelated statements stay below)
CLOSEST_MEANING = 0.3
# ... and answers outright when one comes this close (dev: the median cosine of the best statement of a slide
# that answers a learner's question is 0.35 to 0.50)
OUTRIGHT_MEANING = 0.4

# Questions about what is open right now ("this slide", "right now", "hier", "gerade", …).
DEICTIC = re.compile(
    r"\b(?:this|these|current|currently|here|right now|at the moment|diese[rsmn]?|hier|gerade|jetzt|aktuelle[rn]?"
    r"|cette|ici|maintenant|aquí|ahora|questa|questo|adesso|agora|aqui|deze|tutaj|teraz|şimdi|этот|эта|здесь"
    r"|сейчас)\b|这|此|现在|この|今", re.I)
EXPLAIN_ONLY = re.compile(
    r"^\W*(?:explain|what|was|erkläre|erklär|worum|qu|que|qué|cosa|o que|wat|co|ne|что|什么|何)\b", re.I)
# the open unit answers unless another unit's best statement says a third more than its own (dev: 0.5 and 0.75
# alike; 0.75 sends "How are two sorted lists merged?" from the hashing unit's linked lists to merge sort)
STAY = 0.75
FOCUS = 1.0  # the focus term's extra weight (dev: no lead lost, one hit won; "Wie löscht man einen Knoten …")
MAX_UNITS = 5  # statements quoted from a slide quoted whole
MAX_TARGETED = 3  # statements quoted from a slide that answers a question
MAX_EXTRA = 2  # further passages of the same unit, each adding a term of the question the answer lacks
LEAD_MIN_WORDS = 5  # a spoken statement shorter than this ("Okay, so there are") never leads an answer


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
    lang: str = "en"  # the language its text is in

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
                if follows and _introduces(units[-1]) and not after[-1]:
                    # "Git markiert den Konflikt in der Datei:" and the conflict; "Enable the theme by loading"
                    # and the LaTeX lines that do it
                    after[-1] = run
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
    doc.lang = lang
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


def _introduces(statement: str) -> bool:
    """Whether ``statement`` leads into what follows it: it ends in a colon or without closing its sentence."""
    return statement.endswith(":") or not re.search(r"[.!?;…][\"')\]”’»]*$", statement)


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
        self.topic: set[str] = set()  # the unit's topic terms, left out (``discount``)
        weak = weak_stems(qlang)
        self.ordered = [t for t in stem_list(question, qlang) if t in self.own and not t.isdigit() and t not in weak]
        self.overview = bool(OVERVIEW.search(question))
        # "Explain this", "Was ist das?", "What is a heap?" with a heap on the open slide: about what is open
        # (``points_at`` decides once the open slide's words are known)
        self.explain_only = len(self.own) <= 2 and bool(EXPLAIN_ONLY.search(question))  # "what is a load factor"
        self.points = bool(DEICTIC.search(question))  # "this", "here", "gerade", …
        self.deictic = self.points or not self.own

    def adapt(self, vocabulary: set[str]) -> None:
        """Spell each term as the material does where only an inflected variant occurs there."""
        weights: dict[str, float] = {}
        for t, w in self.weights.items():
            key = conflate(t, vocabulary, self.lang)
            weights[key] = max(w, weights.get(key, 0.0))
        self.weights = weights
        self.own = {conflate(t, vocabulary, self.lang) for t in self.own}
        self.ordered = [conflate(t, vocabulary, self.lang) for t in self.ordered]

    def discount(self, topic: set[str]) -> None:
        """Leave out the terms of the unit's topic where the question has others."""
        topic = {conflate(t, set(self.weights), self.lang) for t in topic}
        if self.own - topic:
            self.own -= topic
            self.weights = {t: w for t, w in self.weights.items() if t not in topic}
            self.topic = topic
        # the first term the question asks with is what it is about ("Wie *löscht* man einen Knoten mit zwei
        # Kindern?"): it counts double where the question has others
        if self.focus is not None and len(self.own) > 1:
            self.weights[self.focus] = 1.0 + FOCUS

    @property
    def focus(self) -> str | None:
        """The first content term of the question that is not the unit's topic nor a learner's filler word."""
        return next((t for t in self.ordered if t in self.own), None)

    def points_at(self, open_terms: set[str]) -> None:
        """A "what is X" (X one term, or two: "load factor") points at the open slide when X is on it."""
        if self.explain_only and self.own and self.own <= open_terms:
            self.deictic = True


def _idf(docs: Sequence[Doc]) -> dict[str, float]:
    df: dict[str, int] = {}
    for d in docs:
        for t in d.all_terms:
            df[t] = df.get(t, 0) + 1
    n = len(docs)
    return {t: math.log(1 + (n + 1) / (c + 0.5)) for t, c in df.items()}


class Scorer:
    """How much of the question a text says: its share of the question's weighted terms (``of``), and per
    statement of a passage, that share plus the statement's closeness in meaning (``statements``)."""

    def __init__(self, query: Query, idf: dict[str, float], own_only: bool = False, question: str = "",
                 cosines: dict[int, list[float]] | None = None) -> None:
        self.q = query
        self.question = question
        self.cosines: dict[int, list[float]] = {} if cosines is None else cosines
        self.idf = idf
        self.default_idf = max(idf.values(), default=1.0)
        self.weights = {t: 1.0 for t in query.own} if own_only and query.own else query.weights
        self.total = sum(w * idf.get(t, self.default_idf) for t, w in self.weights.items()) or 1.0
        # which statements of a slide answer is the question's own business; the turns before it only
        # help to find the slide
        self.units = self if own_only or not query.own else Scorer(query, idf, True, question, self.cosines)

    def meaning(self, d: Doc) -> list[float]:
        """Each statement's cosine with the question (read with the slide's title and its code), by the
        multilingual encoder; zeros without it or for a question that says nothing of its own."""
        found = self.cosines.get(id(d))
        if found is None:
            encoder = sentence_encoder()
            if encoder is None or not self.q.own or not d.units:
                found = [0.0] * len(d.units)
            else:
                texts = [" ".join(filter(None, [f"{d.title}:" if d.title else "", u, " ".join(d.code_lines(i))]))
                         for i, u in enumerate(d.units)]
                found = [float(c) for c in encoder.similarities(self._asked(), texts)]
            self.cosines[id(d)] = found
        return found

    def _asked(self) -> str:
        """The question as the encoder reads it: without the words of the unit's topic (``Query.discount``)."""
        if not self.q.topic:
            return self.question
        kept = [w for w in re.findall(r"\w[\w'’-]*|[^\w\s]", self.question)
                if not set(stem_list(w, self.q.lang)) & self.q.topic]
        return " ".join(kept) or self.question

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

    def statements(self, d: Doc) -> list[float]:
        """Per statement of ``d``: the share of the question's terms (the turns before it counting less, its
        focus term more) that it says with its code and its slide's title, plus its cosine with the question
        (in another language than the question, the cosine alone: no term is shared). Both lie in [0, 1]; on
        dev, meaning at a lower weight lost leads on the real decks (0.01: 8 of 53)."""
        scores = [self.of(t | c | d.title_terms) + m
                  for t, c, m in zip(d.unit_terms, d.code_terms, self.meaning(d), strict=True)]
        if self.q.explain_only and d.title_terms:
            # "What is X?", "What does X say?" asks for the slide about X: the one whose title is X says most
            # ("The Master Theorem" before "Master Theorem: More Examples")
            about = len(d.title_terms & self.q.own) / len(d.title_terms)
            scores = [sc + about for sc in scores]
        return scores

    def strongest(self, d: Doc) -> float:
        """The score of ``d``'s statement that answers most (``statements``)."""
        return max(self.statements(d), default=0.0)

    def answers(self, d: Doc) -> bool:
        """Whether ``d`` has something on the question: a statement shares a term of it or comes close in
        meaning."""
        return any(self.units.of(t | c) > 0 for t, c in zip(d.unit_terms, d.code_terms, strict=True)) \
            or self.closest(d) >= CLOSEST_MEANING

    def outright(self, d: Doc) -> bool:
        """Whether ``d`` answers outright: a statement (read with its slide's title) says at least half of the
        question's own terms, or comes as close in meaning as the statements that answer usually do."""
        return any(self.units.of(t | c | d.title_terms) >= 0.5
                   for t, c in zip(d.unit_terms, d.code_terms, strict=True)) or self.closest(d) >= OUTRIGHT_MEANING


def _targeted(d: Doc, scorer: Scorer) -> list[int]:
    """The statements of ``d`` that answer the question (best within 60 % of the best), in slide order."""
    scores = scorer.statements(d)
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
    page, pages = source.get("page"), source.get("pages")
    if isinstance(page, int) and isinstance(pages, int) and 1 <= page <= pages:
        # a slide that prints no number is named by its place in the deck, its title beside it when no other
        # page has that title (16 pages titled "Cython" are not told apart by it)
        label = ph["slide_p"].format(p=page, m=pages)
        return label + ph["title"].format(t=title) if with_title and title and source.get("title_unique") else label
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


def _render(lead: str, units: Sequence[str], kind: str, doc: Doc | None = None, scorer: Scorer | None = None) -> str:
    """The lead and the quoted statements: a paragraph of what the lecturer says, or a list of the slide's
    statements. Code, console and diagram lines that go with a statement (``Doc.before``, ``Doc.after``)
    are quoted as code: one line as inline code, several as a fenced block that keeps their line breaks
    (inside the bullet of the statement that introduces them, else before the bullet that explains them).
    A statement is quoted by whole sentences, a cut marked with "…" (``quotes.excerpt``: a long one by the
    sentences that say most of the question, per ``scorer``)."""
    if kind == "video":
        return _cited(lead + "\n\n" + _spoken(units, doc), _handles(doc, " ".join(units)))
    lang = doc.lang if doc is not None else "en"

    def weight(sentence: str) -> float:
        return scorer.units.of(terms(sentence, lang)) if scorer is not None else 0.0

    blocks: list[str] = []
    items: list[str] = []
    for k, u in enumerate(units):
        i = doc.units.index(u) if doc is not None and u in doc.units else None
        # the answer goes on with what the statement leads into: its code, or the slide's next statement
        # ("Language model evaluation can be" and "extrinsic: …")
        goes_on = doc is not None and i is not None and k + 1 < len(units) and i + 1 < len(doc.units) \
            and doc.units[i + 1] == units[k + 1]
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
        shown = code_span(u) if is_code_line(u) else markdown_text(excerpt(u, lang, weight, goes_on or bool(after)))
        item = f"- {shown}"
        if len(after) == 1:
            item += f" {code_span(after[0].strip())}"
        elif after:
            item += "\n" + "\n".join(f"  {line}" if line else "" for line in fenced(after).split("\n"))
        items.append(item)
    if items:
        blocks.append("\n".join(items))
    quoted = "\n\n".join(blocks)
    return _cited(lead + "\n\n" + quoted, _handles(doc, quoted))


def _cited(part: str, handles: str) -> str:
    """A rendered part (its lead, a blank line, its quotes) with ``handles`` behind it, when the turn cites
    inline: the writer knows what it quotes, so its citations are exact.

    The handles stand behind the last quote; where the part ends in a code block they stand behind the lead
    instead (a marker after a closing fence would keep the block from closing)."""
    if not handles:
        return part
    blocks = fenced_blocks(part)
    if blocks and blocks[-1][1] >= len(part.rstrip()):  # the part ends in a code block
        lead, sep, rest = part.partition("\n\n")
        return lead + handles + sep + rest
    return part.rstrip() + handles


def _handles(doc: Doc | None, quoted: str) -> str:
    """The handles of ``doc`` that stand behind the whole of what ``quoted`` quotes of it: its ``cite`` (a
    transcript window's cues are cited sentence by sentence instead: ``_spoken``)."""
    if doc is None or doc.source.get("cues"):
        return ""
    return str(doc.source.get("cite") or "")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _spoken(units: Sequence[str], doc: Doc | None) -> str:
    """The quoted sentences of a transcript; of a window of cues cited inline, each cue's handle behind the
    sentence that holds most of its words, as placement cites them. A cue the quote leaves out (less than half
    of its words quoted) or that says too little to be a claim (fewer than two terms: "Trust him.") gets none."""
    cues = doc.source.get("cues") if doc is not None else None
    if not cues:
        return " ".join(units)
    lang = doc.lang if doc is not None else None
    said = [_words(u) for u in units]
    everything = set().union(*said) if said else set()
    behind: list[list[str]] = [[] for _ in units]
    for cue in cues:
        text, handle = str(cue.get("text", "")), cue.get("cite")
        words = _words(text)
        if not handle or not words or len(words & everything) < len(words) / 2 or len(terms(text, lang)) < 2:
            continue
        shares = [len(words & w) for w in said]
        best = max(range(len(units)), key=lambda i: (shares[i], i))  # a tie: the later sentence, where it ends
        behind[best].append(str(handle))
    return " ".join(u + "".join(dict.fromkeys(h)) for u, h in zip(units, behind, strict=True))


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
    """The answer for ``inputs`` (question, language, history, view, passages, faqs; see ``ExtractiveWriter``).

    ``passages`` come ranked: the open unit's best first, then the course's (``course_ranked`` lists the
    course's ranking by uuid). The answer leads with the open slide when the question points at it, else with
    the passage of the open unit whose statement says most of the question; it leaves the open unit only for
    another unit that answers outright, and then says so first."""
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
    ranked: list[Doc] = []  # the ranking, the open slide standing where one of its chunks was found
    for p in passages:
        key = str(p.get("uuid") or id(p))
        if view_doc is not None and p.get("kind") == "slide" and p.get("unit") == view.get("unit") \
                and str(p.get("text") or "\0") in str(view["text"]):
            if view_doc not in ranked:
                ranked.append(view_doc)
            continue
        if key not in seen:
            seen.add(key)
            ranked.append(_read(p, lang))
    view_ranked = view_doc is not None and view_doc in ranked
    docs = [d for d in ranked if d is not view_doc]  # the passages besides what is open
    all_docs = [d for d in [view_doc, *docs] if d is not None]
    query.adapt({t for d in all_docs for t in d.all_terms})
    if view_doc is not None and not view.get("filler"):  # a title page lists every topic: it is not pointed at
        query.points_at(view_doc.all_terms)
    idf = _idf(all_docs)
    # how rare the asked terms are in the open unit (which of its slides answers) and in the whole course
    # (whether the open unit or another one answers), where the writer was given them
    course_idf = {**idf, **{t: float(v) for t, v in (inputs.get("course_rarity") or {}).items() if t in idf}}
    idf = {**idf, **{t: float(v) for t, v in (inputs.get("rarity") or {}).items() if t in idf}}
    # the words of the unit's name ("Binäre Suchbäume") say which unit a question is about, not which of its
    # slides answers: they do not count where the question says more
    query.discount(terms(str(inputs.get("unit_name") or ""), query.lang))
    scorer = Scorer(query, idf, question=question)

    view_unit = str(view.get("unit") or "")
    primary: Doc | None = None
    broad = hedged = False
    elsewhere = ""
    spoken: Doc | None = None  # a transcript passage that follows the slide shown while it is spoken
    if view_doc is not None and view_doc.units and query.deictic:
        # "this slide", "here", "Was ist das?": the open slide (whole where the question's words are not on it)
        primary, broad = view_doc, scorer.doc(view_doc) < 0.3
    if primary is None:
        def in_open_unit(d: Doc) -> bool:
            return not view_unit or str(d.source.get("unit") or "") == view_unit

        # a title, agenda or divider page leads only a question about the lecture as a whole ("Worum geht es in
        # der Vorlesung?")
        leaders = [d for d in ranked if d.units and (query.overview or not d.source.get("filler")) and _can_lead(d)]
        here = [d for d in leaders if in_open_unit(d)]
        if view_doc is not None and view_doc.units and not view.get("filler") and view_doc not in here:
            here.append(view_doc)  # the open slide is part of the open unit, where the ranking missed it
        answering = [d for d in here if scorer.answers(d)]
        elsewhere_docs = [d for d in leaders if not in_open_unit(d) and scorer.answers(d)]

        across_units = Scorer(query, course_idf, question=question, cosines=scorer.cosines)

        # units compared on one scale: shared terms and meaning where the open unit is in the question's
        # language, meaning alone where it is not (its terms cannot meet the question's; another unit's can)
        by_meaning = bool(answering) and all(d.lang != query.lang for d in answering)

        def best(docs: Sequence[Doc]) -> float:
            return max(((across_units.closest if by_meaning else across_units.strongest)(d) for d in docs),
                       default=0.0)

        clear = [d for d in elsewhere_docs if across_units.outright(d)]
        if answering and clear and (not any(across_units.outright(d) for d in answering)
                                    or best(answering) < STAY * best(clear)):
            # another unit answers outright, and what the open unit shares with the question is far from it
            answering = []
        if view_doc is not None and view_doc.kind == "video" and view_doc in answering:
            answering = [view_doc]  # the student watches the lecturer say it
        elif any(d.kind == "slide" for d in answering):
            # the slides state what the lecturer announces, explains and repeats around them: a slide that
            # answers leads, the transcript where no slide does
            answering = [d for d in answering if d.kind == "slide"]
        if answering:
            # of what the ranking found in the open unit, the passage with the statement that answers most
            # (the question's own terms it says, plus its closeness in meaning); a tie goes to the higher rank
            primary = max(answering, key=lambda d: (scorer.strongest(d), -answering.index(d)))
        else:
            # another unit only where it answers outright: a word shared by chance with another lecture is no
            # reason to leave the one the student is in
            order = {str(u): i for i, u in enumerate(inputs.get("course_ranked") or [])}
            primary = max(clear, default=None, key=lambda d: (scorer.strongest(d),
                                                              -order.get(str(d.source.get("uuid")), len(order))))
            if primary is not None and view_unit:
                elsewhere = ELSEWHERE[lang].format(u=view_unit, o=str(primary.source.get("unit") or ""))
            elif primary is None and inputs.get("course_ranked") is not None:
                # nothing here shares a term or comes close, but retrieval found it (by the turns before, or
                # by a statement the writer reads otherwise) or the student has it open: the open unit's best,
                # said to be the closest
                primary = next(iter(here), None)
        hedged = primary is not None and not scorer.outright(primary)
        if primary is not None and primary is not view_doc and primary.kind == "video" \
                and (primary.source.get("shown") or {}).get("text"):
            # the lecturer speaks about the slide on screen: that slide leads where it answers too, and what
            # the lecturer says follows it
            slide = _read(primary.source["shown"], lang)
            if slide.units and not primary.source["shown"].get("filler") and scorer.answers(slide):
                spoken, primary = primary, slide

    parts: list[str] = []
    if _other_language(question, lang, view, view_doc, docs):
        parts.append(OTHER_LANGUAGE[lang])
    chosen_terms: list[set[str]] = []
    if primary is not None:
        units = _units_for(primary, scorer, broad)
        if elsewhere:
            parts.append(elsewhere)
        if hedged:
            parts.append(CLOSEST[lang])
        parts.append(_render(_lead(ph, lang, primary, view_unit, True), units, primary.kind, primary, scorer))
        chosen_terms += [terms(u) for u in units]
        # the slide shown in the video at that moment
        shown = view.get("shown") if primary is view_doc and primary.kind == "video" else None
        if shown and shown.get("text"):
            shown_doc = _read(shown, lang)
            shown_units = [u for u in _units_for(shown_doc, scorer, scorer.doc(shown_doc) < 0.3)[:3]
                           if not _near_duplicate(terms(u), chosen_terms)]
            if shown_units and not shown.get("filler"):
                parts.append(_render(_lead(ph, lang, shown_doc, view_unit, False), shown_units, "slide", shown_doc,
                                      scorer))
                chosen_terms += [terms(u) for u in shown_units]
        if spoken is not None:
            parts.append(_render(_lead(ph, lang, spoken, view_unit, False), spoken.units, "video", spoken))
            chosen_terms += [terms(u) for u in spoken.units]
        covered = set(primary.title_terms).union(*chosen_terms)
        # the open slide where it answers outright or the ranking found it, then passages of the same unit
        # that add a term of the question the answer does not cover yet
        same_unit = str(primary.source.get("unit") or "")
        extra = [d for d in docs if d is not primary and d is not spoken and d.units and not d.source.get("filler")
                 and str(d.source.get("unit") or "") == same_unit]
        if view_doc is not None and primary is not view_doc and not view.get("filler") and not elsewhere \
                and (scorer.outright(view_doc) or (view_ranked and scorer.answers(view_doc))):
            units = [view_doc.units[i] for i in _targeted(view_doc, scorer)
                     if not _near_duplicate(view_doc.unit_terms[i], chosen_terms)][:MAX_TARGETED]
            if units:
                parts.append(_render(_lead(ph, lang, view_doc, view_unit, False), units, view_doc.kind, view_doc,
                                      scorer))
                chosen_terms += [terms(u) for u in units]
                covered = covered.union(*chosen_terms)
        added = 0
        for d in extra:
            if added == MAX_EXTRA or (query.deictic and primary is view_doc):
                break
            if d.source.get("uuid") and d.source.get("uuid") == (shown or {}).get("uuid"):
                continue
            units = [d.units[i] for i in _targeted(d, scorer) if not _near_duplicate(d.unit_terms[i], chosen_terms)]
            # only what adds to the answer: a term of the question the answer does not cover yet
            units = [u for u in units if scorer.of(terms(u)) >= 0.5 and (terms(u) & query.own) - covered][:2]
            if units:
                parts.append(_render(_lead(ph, lang, d, view_unit, False), units, d.kind, d, scorer))
                chosen_terms += [terms(u) for u in units]
                covered = covered.union(*chosen_terms)
                added += 1

    faq = _matching_faq(faqs, query, lang)
    if faq is not None:
        parts.append(ph["faq"] + "\n\n" + " ".join(s.text for s in sentences(str(faq.get("answer", "")))[:3])
                     + str(faq.get("cite") or ""))

    if primary is None and faq is None and parts:
        # nothing found for a question in another language: quote what the student is looking at (a question
        # in another language is most likely about it)
        if view_doc is not None and view_doc.units and not view.get("filler"):
            units = _units_for(view_doc, scorer, True)
            parts.append(_render(_lead(ph, lang, view_doc, view_unit, True), units, view_doc.kind, view_doc, scorer))
        elif view.get("title") or view.get("printed"):
            parts.append(ph["looking"].format(S=_looking_label(ph, view, lang)))
    if primary is None and faq is None and not parts:
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
