"""The offline answer writer: extractive and deterministic.

It answers from the current view and the retrieved passages by picking the sentences (or slide
bullets) that share the most terms with the question, and names slides only by their printed
number (or title). It cannot translate; fixed phrases exist in English and German.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..textutil import clock, is_code_line, sentences, slide_lines, stems

PHRASES = {
    "en": {
        "view_page": "{Label} covers this.",
        "view_video": "At {clock} in the video of “{unit}”, the lecturer explains this.",
        "adds": "{Label} of “{unit}” adds:",
        "said": "In the video of “{unit}” at {clock}, the lecturer says:",
        "faq": "The course FAQ says:",
        "none": "I could not find this in the lecture material.",
        "looking": "You are looking at {label}: “{title}”.",
    },
    "de": {
        "view_page": "{Label} behandelt das.",
        "view_video": "Bei {clock} im Video zu „{unit}“ erklärt die Lehrperson das.",
        "adds": "{Label} von „{unit}“ ergänzt:",
        "said": "Im Video zu „{unit}“ bei {clock} heißt es:",
        "faq": "Die FAQ des Kurses sagt:",
        "none": "Dazu habe ich im Vorlesungsmaterial nichts gefunden.",
        "looking": "Sie sehen gerade {label}: „{title}“.",
    },
}
DEICTIC = re.compile(r"\b(this|current|here|diese[rsmn]?|hier|aktuelle[rn]?)\b", re.I)


def _units(text: str, slide: bool = True) -> list[str]:
    """Sentences and slide bullets, cleaned of bullet glyphs, footer numbers and pseudo code
    (a slide's title left out)."""
    out: list[str] = []
    lines = slide_lines(text) if slide else text.splitlines()
    if slide and len(lines) > 1:
        lines = lines[1:]
    for line in lines:
        line = line.strip(" •▪‣◦-*\t")
        if not line or re.fullmatch(r"(?:Folie|Slide)?\s*\d+(?:\s*/\s*\d+)?", line) or is_code_line(line):
            continue
        for s in sentences(line):
            if len(s.text.split()) >= 4:  # titles and labels are not statements
                out.append(s.text)
    return out


def _score(question: set[str], text: str) -> float:
    words = stems(text)
    if not words:
        return 0.0
    return len(question & words) + 0.01 * min(len(words), 20)


def _finish(s: str) -> str:
    s = s.strip().rstrip(",;")
    return s if s.endswith((".", "!", "?", ":", "“", "\"")) else s + "."


def _label(passage: Mapping[str, Any], lang: str) -> str:
    printed = passage.get("printed")
    if printed:
        return f"{'Folie' if lang == 'de' else 'slide'} {printed}"
    title = passage.get("title") or ""
    if title:
        return ("die Folie „{}“" if lang == "de" else "the slide “{}”").format(title)
    return "eine Folie" if lang == "de" else "a slide"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def write_answer(inputs: Mapping[str, Any]) -> str:
    lang = "de" if str(inputs.get("language", "en")).startswith("de") else "en"
    ph = PHRASES[lang]
    q = stems(str(inputs.get("question", "")))
    deictic = bool(DEICTIC.search(str(inputs.get("question", ""))))
    view: Mapping[str, Any] = inputs.get("view") or {}
    passages: Sequence[Mapping[str, Any]] = inputs.get("passages") or []
    faqs: Sequence[Mapping[str, Any]] = inputs.get("faqs") or []
    paragraphs: list[str] = []
    used: set[str] = set()

    need = max(1, (len(q) + 1) // 2)  # a sentence must share half of the question's terms
    view_units = _units(str(view.get("text", "")), slide=view.get("second") is None)
    ranked = sorted(view_units, key=lambda s: -_score(q, s))
    chosen = [s for s in ranked if _score(q, s) >= 1][:3]  # the open slide: one shared term is enough
    if deictic and not chosen:
        chosen = view_units[:3]
    if chosen:
        chosen.sort(key=view_units.index)
        used.update(chosen)
        if view.get("second") is not None:
            intro = ph["view_video"].format(clock=clock(float(view["second"])), unit=view.get("unit", ""))
        else:
            intro = ph["view_page"].format(Label=_cap(_label(view, lang)), unit=view.get("unit", ""))
        paragraphs.append(intro + " " + " ".join(_finish(s) for s in chosen))

    extra: list[tuple[float, int, str, Mapping[str, Any]]] = []
    for i, p in enumerate(passages):
        for s in _units(str(p.get("text", "")), slide=p.get("kind") != "video"):
            sc = _score(q, s)
            if sc >= need and s not in used:
                extra.append((sc, -i, s, p))
    extra.sort(key=lambda t: (-t[0], -t[1]))
    taken = 0
    for _, _, s, p in extra:
        if taken == 3 or s in used:
            continue
        used.add(s)
        taken += 1
        if p.get("kind") == "video":
            lead = ph["said"].format(unit=p.get("unit", ""), clock=clock(float(p.get("start", 0))))
        else:
            lead = ph["adds"].format(Label=_cap(_label(p, lang)), unit=p.get("unit", ""))
        paragraphs.append(f"{lead} {_finish(s)}")

    def faq_score(f: Mapping[str, Any]) -> float:
        return 2 * _score(q, str(f.get("question", ""))) + _score(q, str(f.get("answer", "")))

    best_faq = max(faqs, key=faq_score, default=None)
    if best_faq is not None and faq_score(best_faq) >= 2 * need:
        paragraphs.append(f"{ph['faq']} {_finish(str(best_faq.get('answer', '')))}")

    if not paragraphs:
        paragraphs.append(ph["none"])
        if view.get("title"):
            paragraphs.append(ph["looking"].format(label=_label(view, lang), title=view["title"]))
    return "\n\n".join(paragraphs)
