"""Console output, code and diagrams on slides stay what they are: told from prose, quoted as code, never a
title, summary or keyword (and neither is a licence line, a page number or a web address alone)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from citation_core import cite
from citation_core.chat.offline_writer import write_answer
from citation_core.contract import parse
from citation_core.llm.offline import keyword_candidates, pick_keyword, summarize
from citation_core.lms.render import render_markdown
from citation_core.sources import PageChunk, Sources
from citation_core.text import is_code_line, slide_units
from citation_core.text.slides import title_ok
from citation_core.text.statements import slide_statements

# Slides of a German git deck as PDF extraction gives them.
CONFLICT = """Merge-Konflikte
Wenn zwei Branches dieselbe Zeile ändern, kann Git nicht automatisch mergen.
Git markiert den Konflikt in der Datei:
<<<<<<< HEAD
System.out.println("Hallo Welt");
=======
System.out.println("Hello World");
>>>>>>> branch:file.java
Den Konflikt von Hand lösen, dann git add und git commit ausführen.
CC BY-SA 4.0
Folie 12"""
BRANCHES = """Branches
      D---F wuppie
     /
A---B---C master
Ein Branch ist ein beweglicher Zeiger auf einen Commit.
Mit git checkout -b wuppie wird ein neuer Branch erzeugt.
© 2023 Hochschule Musterstadt"""
STATUS = """Status des Repositorys
$ git status
On branch master
Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
        modified:   file.java
no changes added to commit
git status zeigt geänderte und neue Dateien an."""
JAVA = """Eine Klasse in Java
Jede öffentliche Klasse steht in einer eigenen Datei:
public class Hello {
    public static void main(String[] args) {
        System.out.println("Hallo");
    }
}
Der Dateiname muss Hello.java lauten."""

CODE = [
    "<<<<<<< HEAD", "=======", ">>>>>>> branch:file.java", "$ git status", '$ git commit -m "Erster Commit"',
    "user@host:~/repo$ git log", ">>> x = [1, 2, 3]", "C:\\Users\\max> git init", "git checkout -b wuppie",
    "git add .", "git push -u origin master", "git log --oneline --graph", "cd projekt",
    "git merge --no-ff feature # führt zusammen", "      D---F wuppie", "A---B---C master", "     /", "|/",
    "| * 3a4b5c6 Fix typo", "* 3a4b5c6 (HEAD -> master) Merge branch 'wuppie'", "* | 1b2c3d4 Add file",
    "C0 <- C1 <- C2", "o---o---o", "On branch master", "Changes not staged for commit:",
    '  (use "git add <file>..." to update what will be committed)', "        modified:   file.java",
    "Auto-merging file.java", "CONFLICT (content): Merge conflict in file.java", "Auf Branch master",
    "  geändert:       datei.txt", "commit 3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b",
    "Author: Max Mustermann <max@example.org>", "[master 3a4b5c6] Erster Commit", " 2 files changed, 10 insertions(+)",
    "public class Hello {", "public static void main(String[] args) {", 'System.out.println("Hallo Welt");', "}",
    "@Override", "private int zaehler = 0;", "import java.util.List;", "if (x > 0) {", "} else {", "int x = 5;",
    "return a + b;", "#include <stdio.h>", "def f(x):", "readonly_flag_A = A.__array_interface__['data']",
]
PROSE = [
    "Git ist ein verteiltes Versionskontrollsystem.", "Ein Branch ist ein beweglicher Zeiger auf einen Commit.",
    "Mit git checkout -b wuppie wird ein neuer Branch erzeugt.", "git add und git commit ausführen.",
    "git status zeigt geänderte und neue Dateien an.", "Fall 1: z ist ein Blatt;", "Merge-Konflikte",
    "Einfügen: neuer Knoten z wird Blatt; z.p = y", "rarely, so it's difficult to estimate their probability;",
    "Git markiert den Konflikt in der Datei:", "T(n) = 2·T(n/2) + Θ(n) if n > 1", "case 2: T(n) = Θ(n log n)",
    "Merge sort -- a divide and conquer algorithm", "Working Directory --> Staging Area --> Repository",
    "• Konfliktmarker in der Datei suchen", "Schritt 1: Repository klonen",
    "Die Methode list.append(x) hängt ein Element an.", "Lineares Sondieren: h(k, i) = (h'(k) + i) mod m",
    "Vorteile: schnell, lokal, verteilt", "z. B. feature/login oder bugfix/123",
    "Laufzeit: O(h) mit h = Höhe des Baums",
    "x.key < y.key für alle Knoten y im rechten Teilbaum", "find the smallest element in the array",
    "In Recent trends in combinatorics (Matrahaza, 1995), pages 1--6.", "Fast-forward-Merge: kein neuer Commit nötig",
    "Jeder Knoten x speichert einen Schlüssel x.key sowie Zeiger x.left, x.right und x.p (Elternknoten)",
]


@pytest.mark.parametrize("line", CODE)
def test_console_code_and_diagram_lines_are_code(line: str) -> None:
    assert is_code_line(line)


@pytest.mark.parametrize("line", PROSE)
def test_german_and_english_prose_and_formulas_stay_prose(line: str) -> None:
    assert not is_code_line(line)


def test_a_conflict_block_is_code_line_by_line_and_never_joined_to_the_sentence_before_it() -> None:
    slide = slide_units(CONFLICT)
    assert slide.title == "Merge-Konflikte"
    assert [(u.kind, u.text) for u in slide.units] == [
        ("line", "Wenn zwei Branches dieselbe Zeile ändern, kann Git nicht automatisch mergen."),
        ("line", "Git markiert den Konflikt in der Datei:"),
        ("code", "<<<<<<< HEAD"), ("code", 'System.out.println("Hallo Welt");'), ("code", "======="),
        ("code", 'System.out.println("Hello World");'), ("code", ">>>>>>> branch:file.java"),
        ("line", "Den Konflikt von Hand lösen, dann git add und git commit ausführen."),
    ]  # the licence line and the page number are gone


def test_console_output_after_a_prompt_is_code_up_to_the_sentence_after_it() -> None:
    slide = slide_units(STATUS)
    assert [u.kind for u in slide.units] == ["code"] * 6 + ["line"]
    assert slide.units[-1].text == "git status zeigt geänderte und neue Dateien an."
    java = slide_units(JAVA)
    assert [u.kind for u in java.units] == ["line"] + ["code"] * 5 + ["line"]
    assert java.units[3].raw == '        System.out.println("Hallo");'  # as printed, indentation kept


@pytest.mark.parametrize("first", ["$ git status", "A---B---C master", "CC BY-SA 4.0", "© 2023 Hochschule Musterstadt",
                                   "https://git-scm.com/book/de/v2", "Folie 12", "Seite 3 von 20"])
def test_a_slide_title_is_never_code_a_diagram_or_boilerplate(first: str) -> None:
    slide = slide_units(f"{first}\nGit speichert Schnappschüsse.\nJeder Commit zeigt auf seinen Vorgänger.")
    prose = [slide.title, *(u.full() for u in slide.units if u.kind != "code")]
    assert first not in prose
    assert [p for p in prose if p][-2:] == ["Git speichert Schnappschüsse.", "Jeder Commit zeigt auf seinen Vorgänger."]


def test_statements_summaries_and_keywords_leave_diagrams_code_and_licence_lines_out() -> None:
    for text in (CONFLICT, BRANCHES, STATUS, JAVA):
        quoted = " ".join(slide_statements(text)) + " " + summarize(text)
        for bad in ("---", "<<<<", ">>>>", "====", "$ git", "On branch", "println", "CC BY", "©", "Folie 12", "{"):
            assert bad not in quoted, (bad, quoted)
        slide = slide_units(text)
        prose = " ".join([slide.title, *(u.full() for u in slide.units if u.kind != "code")]).lower()
        for kw in [pick_keyword(text, []), *keyword_candidates(text)]:
            assert all(word in prose for word in kw.lower().split()), kw  # no word of code, a diagram or a footer
    assert summarize(BRANCHES).startswith("Ein Branch ist ein beweglicher Zeiger")


def _answer(text: str, question: str) -> str:
    return write_answer({"question": question, "language": "de",
                         "view": {"kind": "slide", "uuid": "p12", "printed": "12", "title": text.split("\n")[0],
                                  "text": text}})


def test_the_writer_quotes_a_conflict_as_a_fenced_block_with_its_line_breaks() -> None:
    answer = _answer(CONFLICT, "Was passiert bei einem Merge-Konflikt?")
    assert ('```\n  <<<<<<< HEAD\n  System.out.println("Hallo Welt");\n  =======\n'
            '  System.out.println("Hello World");\n  >>>>>>> branch:file.java\n  ```') in answer
    html = render_markdown(answer)
    assert "<blockquote>" not in html  # ">>>>>>>" is no nest of quotes
    assert "&gt;&gt;&gt;&gt;&gt;&gt;&gt; branch:file.java" in html.split("<pre>")[1].split("</pre>")[0]
    assert "Git markiert den Konflikt in der Datei:" in html


def test_the_writer_keeps_code_out_of_prose_and_console_output_in_one_block() -> None:
    answer = _answer(STATUS, "Was zeigt git status an?")
    assert "```\n$ git status\nOn branch master\nChanges not staged for commit:\n" in answer
    assert "- git status zeigt geänderte und neue Dateien an." in answer
    prose = re.sub(r"```.*?```", "", answer, flags=re.S)
    assert "On branch" not in prose and "modified:" not in prose
    java = _answer(JAVA, "Wie sieht eine Klasse in Java aus?")
    assert "```\n  public class Hello {\n      public static void main(String[] args) {\n" in java
    assert "<pre><code>public class Hello {\n    public static void main" in render_markdown(java)


def test_a_single_code_line_is_inline_code_and_backticks_inside_it_are_kept() -> None:
    text = ("Befehle\nDie Historie kompakt anzeigen:\ngit log --format='`%h` %s'\n"
            "Danach die Ausgabe lesen und verstehen.")
    answer = _answer(text, "Wie zeige ich die Historie kompakt an?")
    assert "- Die Historie kompakt anzeigen: `` git log --format='`%h` %s' ``" in answer
    assert "<code>git log --format='`%h` %s'</code>" in render_markdown(answer)


def test_prose_that_starts_or_holds_markdown_marks_is_shown_as_written() -> None:
    text = ("Kommentare\n# Kommentarzeilen beginnen mit einer Raute.\n• > 5 Zeilen lang sollte kein Kommentar sein.\n"
            "• Die Methode __init__ braucht 2*n und 3*m Schritte.")
    html = render_markdown(_answer(text, "Was steht auf dieser Folie?"))
    for tag in ("<h1>", "<blockquote>", "<em>", "<strong>"):
        assert tag not in html, html
    for shown in ("# Kommentarzeilen beginnen mit einer Raute.", "&gt; 5 Zeilen lang", "__init__ braucht 2*n und 3*m"):
        assert shown in html, html


def test_a_cited_git_answer_renders_without_quote_bars_or_diagram_summaries() -> None:
    pages = [PageChunk(f"p{i}", 7, i, text, str(i), lecture_unit_name="Git") for i, text in
             enumerate((CONFLICT, BRANCHES, STATUS, JAVA), start=12)]
    answer = _answer(CONFLICT, "Was passiert bei einem Merge-Konflikt?")
    result = cite(answer, Sources(lecture=tuple(pages)), language="de")
    assert result.citations
    for c in result.citations:
        assert not re.search(r"<<<<|>>>>|====|---|\$ git", c.summary + c.keyword), (c.keyword, c.summary)
    assert "<blockquote>" not in render_markdown(result.answer)


def test_a_german_slide_showing_english_console_output_is_summarised_by_its_german_sentence() -> None:
    # the slide's language is that of its words, not of git's output; "… an." ends a German sentence
    assert summarize(STATUS) == "git status zeigt geänderte und neue Dateien an."


# --- the real German git deck (tests/material_real, CC BY-SA 4.0, Carsten Gips) ---------------------------

GIT_DECK = Path(__file__).resolve().parent / "material_real" / "decks" / "de_git_branches.pdf"


@cache
def git_pages() -> dict[int, str]:
    from citation_core.material.deck import load_deck

    return {p.page_number: p.text for p in load_deck(GIT_DECK, cache=False, read_images=False).pages}


def _real(question: str, page: int) -> str:
    pages = git_pages()

    def source(p: int) -> dict[str, object]:
        return {"kind": "slide", "uuid": f"p{p}", "unit": "Git2", "printed": str(p), "text": pages[p]}

    return write_answer({"question": question, "language": "de", "view": source(page),
                         "passages": [source(p) for p in pages if p != page]})


def test_the_real_git_deck_reads_its_console_session_conflict_and_graphs_as_code() -> None:
    pages = git_pages()
    conflict = slide_units(pages[8])
    assert [u.kind for u in conflict.units] == ["code"] * 11 + ["line"]
    assert conflict.units[-1].text == "Konsole: Branchen und Mergen"
    for page in (2, 4, 5, 6, 9, 11, 13):  # commit graphs: "A---B---C master", "D wuppie", "^origin/master"
        slide = slide_units(pages[page])
        prose = [u.full() for u in slide.units if u.kind != "code"]
        assert not any(re.search(r"---|^[A-Z]'? \w+$|^\^|^[/\\]$", p) for p in prose), (page, prose)
    assert all(title_ok(slide_units(t).title) or not slide_units(t).title for t in pages.values())
    assert slide_units(pages[16]).units == []  # "Last modified: 2d75ab8 …" is no statement


def test_the_real_conflict_slide_is_quoted_as_one_block_when_asked_about_it() -> None:
    answer = _real("Was bedeuten diese Zeilen mit <<<<<<< und >>>>>>> in meiner Java-Datei?", 8)
    block = re.search(r"```\n(.*?)\n```", answer, re.S)
    assert block is not None, answer
    lines = block.group(1).split("\n")
    assert lines[0].split() == ["$", "git", "merge", "wuppie"] and lines[-1].split() == [">>>>>>>", "wuppie:hero.java"]
    assert len(lines) == 11
    assert "<blockquote>" not in render_markdown(answer)


def test_a_slide_of_graphs_and_commands_alone_is_quoted_as_a_block_and_cited() -> None:
    answer = _real("Was passiert bei git rebase master wuppie?", 10)
    assert re.search(r"sagt:\n\n```\n.*git\s+rebase\s+master\s+wuppie.*\n```", answer, re.S), answer
    pages = git_pages()
    result = cite(answer, Sources(lecture=tuple(PageChunk(f"p{p}", 7, p, t, str(p)) for p, t in pages.items())),
                  language="de")
    lead = result.answer.split("\n")[0]
    assert [m.page for m in parse(lead, "client")] in (["9"], ["10"]), lead  # the lead-in carries the chip


def test_a_bullet_that_is_a_command_is_shown_as_code() -> None:
    answer = _real("Was steht auf dieser Folie?", 3)
    assert "- `git branch wuppie`" in answer, answer
