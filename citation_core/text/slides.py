"""Slide text as PDF extraction gives it, read into a title and whole statements (bullets, lines, code)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .rules import DANGLING

_CODE_LINE = re.compile(
    r"^\d+\s{2,}"  # numbered pseudo code: "3  while i ≤ n"
    r"|^[A-Z][A-Z0-9_-]{2,}\([^()]*\)$"  # a pseudo-code signature: "MERGE(A, p, q, r)" (not a formula: "P(w1, …, wn)")
    r"|^(?:def|cdef|cpdef|class|import|from\s+\S+\s+import|return|print\(|raise|for\s+\w+\s+in|while\s|if\s.*:$"
    r"|elif\s|else:|try:|except\b|with\s.*:$|ctypedef|cimport|\\\w+\{|#\s*\w+\.(?:py|pyx|pxd|sh)\b)"
    r"|\s{2,}#\s|^[\w.]+\s*[+\-*/]?=\s*[\w.]+\(.*\)\s*$"
)
# Lines that are code, console or a diagram whatever words they hold.
_CONSOLE_OR_DIAGRAM = re.compile(
    r"^(?:<{7}|={7}|>{7}|\|{7})(?:\s|$)"  # a git conflict marker: "<<<<<<< HEAD", "=======", ">>>>>>> branch"
    r"|^(?:\$|>>>|[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#]|[A-Z]:\\[^>\s]*>|PS [A-Z]:\\[^>]*>)\s+\S"  # a prompt
    r"|(?<!\w)(?=\w{0,2}[^\W\d_])\w{1,3}'*(?:-{2,}|─{2,}|={2,})(?=\w{0,2}[^\W\d_])\w{1,3}(?![\w])"  # "A---B---C master"
    r"|^(?:[A-Z]'*(?!\w)\s+[a-z][\w/.-]*\s*){1,4}$"  # its commits with their branch: "D wuppie", "E fix"
    r"|^\^[\w./-]+$"  # a pointer under it: "^origin/master"
    r"|(?:(?<!\w)\w{1,3}\s*(?:<-+|-+>)\s*){2}\w"  # a chain of arrows: "C0 <- C1 <- C2"
    r"|^[\s|/\\*_.ox+-]*[|/\\][\s|/\\*_.ox+-]*$"  # the branches between them: "     /", "|/", "| |"
    r"|^(?:[|/\\]\s+)+[*o|/\\]"  # a line of a graph log: "| * 3a4b5c6 Fix"
    r"|^\*\s+(?:[|/\\]|[0-9a-f]{7,40}\b|commit\s+[0-9a-f]{7})"  # "* 3a4b5c6 (HEAD -> main) Merge"
    r"|^(?:commit\s+)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?:\s|$)"  # "3a4b5c6 Fix typo"
    r"|^(?:On branch \S+$|Your branch (?:is|and)\b|Changes (?:not staged for commit|to be committed)\b"  # git's output
    r"|Untracked files:|nothing (?:to commit|added to commit)\b|no changes added to commit\b|\(use \"git "
    r"|Auto-merging \S|CONFLICT \(|Automatic merge failed\b|Fast-forward$|Merge made by\b"
    r"|Switched to (?:a new )?branch\b"
    r"|Already up[ -]to[ -]date|HEAD is now at\b|Initialized empty Git repository\b|Updating [0-9a-f]{7}\.\.[0-9a-f]{7}"
    r"|(?:modified|new file|deleted|renamed|both modified|both added|geändert|neue Datei|gelöscht|umbenannt"
    r"|von beiden geändert):\s+\S+$"
    r"|\d+ files? changed\b|\[[\w/.-]+ (?:\(root-commit\) )?[0-9a-f]{7}\]|Author: .*<[^>]*>$|remote: "
    r"|(?:Counting|Compressing|Writing|Enumerating|Receiving|Resolving) (?:objects|deltas)\b|Cloning into '"
    r"|(?:error|fatal|hint|warning): |Auf Branch \S+$|Ihr Branch ist\b|Änderungen, die nicht zum Commit vorgemerkt"
    r"|Zum Commit vorgemerkte Änderungen|Unversionierte Dateien:|nichts zu committen\b|\(benutzen Sie \"git "
    r"|KONFLIKT \(|Automatischer Merge fehlgeschlagen\b|Zu (?:neuem )?Branch\b|Bereits aktuell\b)"
    # Java, C, JavaScript
    r"|^(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+(?:class|interface|enum|record|void"
    r"|int|long|double|float|boolean|char|byte|short|String|[A-Z]\w*(?:<[^>]*>)?(?:\[\])*)\b"
    r"|^@[A-Z]\w*(?:\(.*\))?$|^#include\s*[<\"]|^#!/|^(?:function|const|let|var)\s+\w+\s*[=(:]"
    r"|^(?:(?:else\s+)?if|while|for|switch|catch)\s*\(.*\)\s*\{?$|^\}\s*(?:else\b.*|catch\b.*|finally\b.*)?[;{]?$"
    r"|^\{$|\{\s*$|\b(?:System\.(?:out|err)\.print\w*|console\.log|printf|std::\w+)\s*\("
)
# A line of a shell session without its prompt: a command the slide shows ("git checkout -b wuppie").
_COMMAND = re.compile(r"^(?:sudo\s+)?(?:git|cd|ls|mkdir|rmdir|rm|cp|mv|chmod|chown|ssh|scp|pip3?|python3?|javac?|mvn"
                      r"|gradle|npm|npx|yarn|gcc|g\+\+|clang|docker|kubectl|curl|wget|grep|apt(?:-get)?|brew|svn|hg"
                      r"|conda|pytest|cargo|rustc|echo)(?:\s+\S+)+$")
# Characters code is made of beside the brackets and operators it shares with formulas, and those of a
# formula (which stays a statement however dense).
_CODE_CHARS = re.compile(r"[{}<>=;|\\$#&\"`~@!]")
_MATH_CHARS = re.compile(r"[ΘθΩωΣσ∑∏√∫∈∉⊂⊆∪∩≤≥≈≠→⇒⟨⟩⌊⌋⌈⌉·×∞∀∃λμπαβγδε−^]")
# A program's names ("readonly_flag_A", "A.__array_interface__", "np.zeros") assigned or called.
_IDENTIFIER_USE = re.compile(r"\b(?:[A-Za-z]\w*_\w+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(|\[|\s*=(?!=))")
_QUOTED_STRING = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
_SHELL_COMMENT = re.compile(r"\s#\s.*$|\s//\s.*$")
_TYPOGRAPHIC_BULLET = re.compile(r"^\s*[•▪‣◦●■□◆◇►▸▹➢✓]")
# LaTeX: a line that starts with a command ("\item First", "\usepackage[utf8]{inputenc}") or holds one with an
# argument ("or show \textbf{bold} results.")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?(?:\[[^\]\n]*\])?\{")
_LATEX_LINE = re.compile(r"^\\[A-Za-z]+\b|" + _LATEX_COMMAND.pattern)


def _stop_words() -> frozenset[str]:
    """Function words of the languages written with spaces ("und", "the", "de"), of two letters or more."""
    global _STOPS
    if _STOPS is None:
        from .languages import stop_words

        _STOPS = frozenset(w for lang in ("en", "de", "fr", "es", "it", "pt", "nl", "pl", "tr", "ru")
                           for w in stop_words(lang) if len(w) >= 2)
    return _STOPS


_STOPS: frozenset[str] | None = None
_WORD_TOKEN = re.compile(r"^\(?([^\W\d_]+(?:['’][^\W\d_]+)?)[,.;:!?)]*$")


def reads_as_prose(line: str) -> bool:
    """Whether ``line`` is words of a sentence: at least three words, most of its tokens words, two of them
    function words (one of five or more): "rarely, so it's difficult to estimate their probability;", "Fall 1: z
    ist ein Blatt;".
    Strings and comments of code do not count: ``System.out.println("Hallo Welt");`` is no sentence."""
    body = _SHELL_COMMENT.sub("", _QUOTED_STRING.sub(" ", line))
    toks = body.split()
    words = [m.group(1).lower() for t in toks if (m := _WORD_TOKEN.match(t))]
    stops = sum(w in _stop_words() for w in words)
    return len(words) >= 3 and (stops >= 2 or (stops >= 1 and len(words) >= 5)) and len(words) >= 0.6 * len(toks)


def _is_command(stripped: str) -> bool:
    """A shell command as a slide shows it ("git checkout -b wuppie", "cd projekt"), not a sentence that
    starts with one ("git add und git commit ausführen.")."""
    if not _COMMAND.match(stripped):
        return False
    body = _SHELL_COMMENT.sub("", _QUOTED_STRING.sub(" ", stripped))
    if re.search(r"[^\s.]\.$", body):
        return False  # a sentence end
    words = [m.group(1).lower() for t in body.split()[1:] if (m := _WORD_TOKEN.match(t))]
    return not any(w in _stop_words() for w in words)


def _dense(stripped: str) -> bool:
    """Mostly the characters code is made of (and none of a formula's): ``x[i] = {a, b};``."""
    visible = [c for c in stripped if not c.isspace()]
    found = len(_CODE_CHARS.findall(stripped))
    return found >= 3 and found >= 0.2 * len(visible) and not _MATH_CHARS.search(stripped)


_BULLET = re.compile(r"^\s*(?:[•▪‣◦●■□◆◇►▸▹➢✓*]|[-–—](?=\s)|\d{1,2}[.)](?=\s+\S))\s*")
_SUB_BULLET = re.compile(r"^\s*[–◦▪▹-]\s")
_FOOTER = re.compile(r"^(?:(?:Folie|Slide|Seite|Page|Diapositiva|Diapositive|Dia|Slajd|Слайд)\s*)?\d{1,4}"
                     r"(?:\s*(?:/|von|of|de|di|van|z|из)\s*\d{1,4})?$", re.I)
# A web address alone, or behind "Quelle:" / "Source:": where to read more, not what the slide says.
_URL_LINE = re.compile(r"^(?:(?:quellen?|sources?|siehe|see|links?|mehr|more|bild|image|abbildung|figure|fig\.)"
                       r"\s*:?\s*)?<?(?:https?://|www\.)\S+>?$", re.I)
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
    raw: str = ""  # a code line as the slide prints it, with its indentation

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
    """A line of code, console or a diagram, not a statement in words.

    Code: numbered pseudo code ("3  while i ≤ n"), a signature ("MERGE(A, p, q, r)"), a line of a program
    ("def ddot(...):", "    cdef int k", "public class Hello {", "}", ``System.out.println("Hallo");``).
    Console: a prompt ("$ git status", ">>> x = 1"), a command ("git checkout -b wuppie"), git's output
    ("On branch master", "modified:   file.java") and conflict markers ("<<<<<<< HEAD", ">>>>>>> branch:x").
    Diagrams: branches drawn in characters ("A---B---C master", "     /", "| * 3a4b5c6 Fix").
    LaTeX: a line that starts with a command or holds one with an argument ("\\usetheme{metropolis}",
    "or show \\textbf{bold} results.").
    A line that reads as a sentence ends in ";" or holds a command and stays prose ("Fall 1: z ist ein
    Blatt;", "git add und git commit ausführen."); so does a line behind a typographic bullet and a formula.
    """
    stripped = line.strip()
    if not stripped or _TYPOGRAPHIC_BULLET.match(line):
        return False
    if _CONSOLE_OR_DIAGRAM.search(" ".join(stripped.split())) or _is_command(stripped) or _LATEX_LINE.search(stripped):
        return True
    if line.startswith(("    ", "\t")) and re.match(r"[a-z_]\w*[\s.(\[=]", stripped) and re.search(
            r"[=(\[]|:$", stripped) and len(stripped.split()) <= 12:
        return True
    if _CODE_LINE.search(stripped):
        return True
    weak = stripped.endswith(";") or _dense(stripped) or bool(_IDENTIFIER_USE.search(stripped))
    return weak and not reads_as_prose(stripped) and not _sentence_like(stripped)


def is_footer(line: str) -> bool:
    """A printed page number ("12", "12 / 40", "Folie 7")."""
    return bool(_FOOTER.match(line.strip()))


BOILERPLATE = re.compile(r"\b(?:licen[sc]ed?\b|lizenz|copyright|all rights reserved|cc by|last modified\b"
                         r"|zuletzt (?:geändert|aktualisiert)\b)|©", re.I)
_NUMBERS_ONLY = re.compile(r"^[\d\s.,]+$")
_TABLE_ROW = re.compile(r"\S {3,}\S.* {3,}\S|\S {5,}\S")
_SPACED = re.compile(r"^\S+(?: {2,}\S+){3,}$")  # every word apart: text in a monospace font ("Write   an   answer")


def _table_row(text: str) -> bool:
    """Columns (a table row, an aligned formula), not words set apart by a monospace font."""
    return bool(_TABLE_ROW.search(text)) and not _SPACED.match(text)


_FORMULA_START = re.compile(r"^(?:[A-Za-zΑ-Ωα-ω]{1,3}\s?\(|[=≈≤≥·∑∏√⟨])")
_WORD_START = re.compile(r"^[a-zäöüßàâçéèêëîïôûùüÿñæœ]{2,}\b")
# what a sentence never ends in: a comma, a hyphen that breaks a word, the articles, conjunctions and
# prepositions of ``DANGLING``, a copula; not every preposition ("… that language models are pre-trained on")
_OPEN_WORDS = frozenset(w for words in DANGLING.values() for w in words if len(w) > 1 and w != "do") | frozenset(
    "a as is are be ist sind because weil dass which whose".split())  # "do" (Portuguese) ends "what to do"
_OPEN_END = re.compile(r"(?:[,\-–]|(?<![^\W\d_])(?:" + "|".join(sorted(_OPEN_WORDS, key=len, reverse=True))
                       + r"))\s*$")
_ENDS_SENTENCE = re.compile(r"[.!?:;…][\"')\]”’»]*$")


def _body(line: str) -> str:
    """``line`` without its bullet mark and the gap after it."""
    return _BULLET.sub("", line, count=1).strip() if _BULLET.match(line) else line.strip()


def ends_inside_sentence(text: str) -> bool:
    """Whether ``text`` stops where no sentence stops: after a comma, a broken word, an article, a conjunction
    or a copula ("… disregard the order of words and the", "… can be rewritten as", "… evaluation can be")."""
    return bool(_OPEN_END.search(text.rstrip()))


def _continues(prev: str, line: str, long_line: int, unit_text: str = "") -> bool:
    """Whether ``line`` continues ``prev`` (a PDF breaks long bullets and paragraphs into lines). ``unit_text``
    is the statement ``prev`` belongs to, as far as it is read."""
    if _BULLET.match(line) or is_code_line(line) or is_footer(line):
        return False
    stripped = line.strip()
    prev_body = _body(prev)
    if unit_text and not _ENDS_SENTENCE.search(unit_text):
        # a sentence that has not ended goes on: after a word no sentence ends in (into a formula with wide
        # gaps too), and in a line that starts with a lower-case word (after such a formula too)
        if ends_inside_sentence(prev_body) and not _table_row(prev_body):
            return True
        if _WORD_START.match(stripped) and not _table_row(stripped):
            return True
    if _table_row(prev_body) or _table_row(stripped):
        return False  # columns: a table row or an aligned formula, never a wrapped sentence
    if _CONTINUATION_START.match(stripped):
        return True
    if _FORMULA_START.match(stripped) and not prev.rstrip().endswith((".", "!", "?")):
        return True
    if _CONNECTOR_END.search(prev):
        return True
    if prev.rstrip().endswith((".", "!", "?", ":")):
        return False
    return len(prev) >= long_line


def is_boilerplate(line: str) -> bool:
    """A line that is about the slide, not its content: a page number ("Folie 12", "3 / 20"), a licence or
    copyright line ("CC BY-SA 4.0", "© 2023 …") or a web address alone."""
    stripped = line.strip()
    return bool(is_footer(stripped) or BOILERPLATE.search(stripped) or _URL_LINE.match(stripped))


def title_ok(line: str) -> bool:
    """Whether ``line`` can name a slide: words, not code, console, a diagram or boilerplate."""
    return bool(re.search(r"[^\W\d_]{2,}", line)) and not is_code_line(line) and not is_boilerplate(line)


_PROMPT = re.compile(r"^(?:\$|>>>|[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#]|[A-Z]:\\[^>\s]*>|PS [A-Z]:\\[^>]*>)\s+\S")
_CONFLICT_START = re.compile(r"^<{7}(?:\s|$)")
_CONFLICT_END = re.compile(r"^>{7}(?:\s|$)")


def _sentence_like(line: str) -> bool:
    """A line a reader takes as a sentence: three words or more ending in a sentence mark, or prose."""
    stripped = line.strip()
    return (len(stripped.split()) >= 3 and stripped.endswith((".", "!", "?"))) or reads_as_prose(stripped)


def code_lines(lines: list[str]) -> list[bool]:
    """Per line, whether it is code, console or a diagram, by itself (``is_code_line``) or by the lines
    around it: the file between git's conflict markers, the output after a prompt ("$ git status", then
    "On branch master", "Hallo Welt") up to the next bullet or sentence, a block of braces
    ("public class Hello {" … "}") up to a sentence in words, and the lines of a sentence's LaTeX source that
    hold no markup themselves ("The theme provides sensible defaults to" before "\\emph{emphasize} text")."""
    out: list[bool] = []
    conflict = console = False
    depth = 0
    for line in lines:
        stripped = line.strip()
        code = is_code_line(line)
        if _CONFLICT_START.match(stripped):
            conflict = True
        if conflict:
            code = True
            conflict = not _CONFLICT_END.match(stripped)
            if not conflict:  # the excerpt of the file ends: so do its braces and the session's output
                out.append(True)
                console, depth = False, 0
                continue
        elif depth and not code:
            code = not (_TYPOGRAPHIC_BULLET.match(line) or (_sentence_like(line) and not line[:1].isspace()))
        elif console and not code:
            short_item = bool(re.match(r"^[*-]\s", stripped)) and len(stripped.split()) <= 3
            code = not _TYPOGRAPHIC_BULLET.match(line) and (short_item or not (_BULLET.match(line)
                                                                               or _sentence_like(line)))
        depth = max(0, depth + stripped.count("{") - stripped.count("}")) if code else 0
        console = code and (bool(_PROMPT.match(stripped)) or console)
        out.append(code)
    # the LaTeX source of a sentence ("The theme provides sensible defaults to" / "\emph{emphasize} text, …"):
    # its lines without markup belong to the source too; so does the wrapped rest of a numbered line ("1     Call
    # a retriever to return R(q) = d1, . . . , dk, the top-k" / "relevant passages from D")
    for i, line in enumerate(lines):
        if out[i] and _NUMBERED.match(line.strip()) and i + 1 < len(lines) and not out[i + 1] \
                and not _BULLET.match(lines[i + 1]) and _WORD_START.match(lines[i + 1].strip()):
            out[i + 1] = True
        if out[i] and _marked_up(line):
            before = i - 1
            if before >= 0 and not out[before] and not _BULLET.match(lines[before]) \
                    and ends_inside_sentence(lines[before]):
                out[before] = True
            after = i + 1
            while after < len(lines) and not out[after] and not _ENDS_SENTENCE.search(lines[after - 1].rstrip()) \
                    and _WORD_START.match(lines[after].strip()):
                out[after] = True
                after += 1
    return out


_NUMBERED = re.compile(r"^\d+\s{2,}\S")


def _marked_up(line: str) -> bool:
    r"""Words with LaTeX markup among them ("\emph{emphasize} text, \alert{accent} parts"), not a command alone
    ("\documentclass{beamer}")."""
    if not _LATEX_COMMAND.search(line):
        return False
    rest = re.sub(r"\\[A-Za-z]+\*?(?:\[[^\]\n]*\])?(?:\{[^{}\n]*\})*", " ", line)
    return bool(re.search(r"[^\W\d_]{2,}", rest))


def slide_units(text: str, has_title: bool = True) -> Slide:
    """Read slide text (as PDF extraction gives it) into a title and whole statements.

    Wrapped lines are joined back to their bullet or paragraph (a sentence that has not ended goes on in a
    line that starts with a lower-case word, and after a word no sentence ends in, also where a formula with
    wide gaps stands between); sub-bullets stay with their bullet;
    printed page numbers, licence lines and web addresses alone are dropped; code, console and diagram
    lines (``code_lines``) are kept apart, one unit each (kind "code", ``raw`` as printed) and never
    taken for the title.
    """
    raw = [ln.rstrip() for part in normalize_lines(text) for ln in _INLINE_BULLET.split(part)]
    lines = [ln for ln in raw if ln.strip() and ln.strip() != "."]
    lines = [ln for ln in lines if not is_boilerplate(ln)]
    code = code_lines(lines)
    title = ""
    while has_title and len(lines) > 2 and len(lines[0].strip()) < 3 and not code[0]:
        lines.pop(0)  # a logo letter before the title
        code.pop(0)
    if (has_title and len(lines) > 1 and not _BULLET.match(lines[0]) and len(lines[0]) <= 80 and not code[0]
            and title_ok(lines[0])):
        title = lines.pop(0).strip()
        code.pop(0)
    widths = sorted(len(ln) for ln in lines)
    long_line = max(40, int(0.8 * widths[int(0.9 * (len(widths) - 1))])) if widths else 40
    units: list[SlideUnit] = []
    last_raw = ""
    for line, is_code in zip(lines, code, strict=True):
        stripped = line.strip()
        if is_code:
            units.append(SlideUnit(stripped, "code", raw=line))
            last_raw = ""
            continue
        if _NUMBERS_ONLY.match(stripped) and not (last_raw and _CONNECTOR_END.search(last_raw)):
            continue  # labels of a figure ("0 28", "3 17 31 10"), not text
        if units and last_raw and units[-1].kind != "code" and _continues(
                last_raw, line, long_line, units[-1].children[-1] if units[-1].children else units[-1].text):
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

