"""Write citation_core/contract/vectors.json from the hand-written cases below.

Each expected match is written out field by field; only the span is computed, from the exact
substring that must match (``raw``) and which occurrence of it (``occ``). Nothing here calls the
project's parsers, so the vectors check them rather than echo them.
Run: python scripts/author_vectors.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "citation_core" / "contract" / "vectors.json"
KEYS = ("type", "entity_id", "page", "start", "end", "keyword", "summary", "seq", "version")


def m(raw: str, *fields: str | None, occ: int = 0) -> dict[str, Any]:
    return {"raw": raw, "occ": occ, **dict(zip(KEYS, fields, strict=True))}


def I(raw: str, t: str, e: str, p: str, s: str, en: str, seq: str, occ: int = 0) -> dict[str, Any]:  # noqa: E743
    return m(raw, t, e, p, s, en, None, None, seq, None, occ=occ)


def S(raw: str, t: str, e: str, p: str, s: str, en: str, k: str, summ: str, occ: int = 0) -> dict[str, Any]:
    return m(raw, t, e, p, s, en, k, summ, None, None, occ=occ)


def V(raw: str, t: str, e: str, p: str, s: str, en: str, k: str, summ: str, ver: str | None) -> dict[str, Any]:
    return m(raw, t, e, p, s, en, k, summ, None, ver)


CASES: list[dict[str, Any]] = []


def case(name: str, text: str, iris: list[Any] | None = None, server: list[Any] | None = None,
         client: list[Any] | None = None, stored: list[Any] | None = None, note: str = "") -> None:
    CASES.append({"name": name, "note": note, "text": text,
                  "iris": iris or [], "server": server or [], "client": client or [], "stored": stored or []})


# --- intermediate form -------------------------------------------------------------------------
r = "[cite:L:12:3::!1]"
case("intermediate slide", f"Merge sort splits the list.{r}", iris=[I(r, "L", "12", "3", "", "", "1")])
r = "[cite:L:12::75:92!2]"
case("intermediate video span", f"It runs in n log n time {r}.", iris=[I(r, "L", "12", "", "75", "92", "2")])
r = "[cite:F:17:::!3]"
case("intermediate FAQ, empty fields stay empty", f"The exam is open book.{r}", iris=[I(r, "F", "17", "", "", "", "3")])
r = "[cite:L::::!4]"
case("intermediate with every field empty", r, iris=[I(r, "L", "", "", "", "", "4")],
     note="Iris accepts an empty entity id; the client does not")
r1, r2 = "[cite:L:12:3::!1]", "[cite:L:12:4::!2]"
case("two intermediate markers next to each other", f"Both halves are sorted.{r1}{r2}",
     iris=[I(r1, "L", "12", "3", "", "", "1"), I(r2, "L", "12", "4", "", "", "2")])
r = "[cite:L:12:3::!10]"
case("intermediate multi-digit sequence", f"x {r} y", iris=[I(r, "L", "12", "3", "", "", "10")])
case("intermediate lowercase type does not match", "x [cite:l:12:3::!1] y")
case("intermediate missing field does not match", "x [cite:L:12:3:!1] y")
case("intermediate non-numeric sequence does not match", "x [cite:L:12:3::!a] y")
case("intermediate with a bracket inside a field does not match", "x [cite:L:1]2:3::!1] y")
case("six fields without a sequence or summary match nothing", "x [cite:L:12:3:::] y")
r = "[cite:L:abc:3::!5]"
case("intermediate non-numeric entity id is accepted by Iris", f"See {r}", iris=[I(r, "L", "abc", "3", "", "", "5")])

# --- final form --------------------------------------------------------------------------------
r = "[cite:L:12:3:::Merge step:Combines two sorted halves into one sorted list.]"
f = ("L", "12", "3", "", "", "Merge step", "Combines two sorted halves into one sorted list.")
case("final slide", f"Merging is linear.{r}", server=[S(r, *f)], client=[S(r, *f)], stored=[V(r, *f, None)])
r = "[cite:L:12::75:92:Recursion:The lecturer explains the recursion tree.]"
f = ("L", "12", "", "75", "92", "Recursion", "The lecturer explains the recursion tree.")
case("final video span", f"{r} That is why.", server=[S(r, *f)], client=[S(r, *f)], stored=[V(r, *f, None)])
r = "[cite:F:17:::::Exam:The exam is open book.]"
f = ("F", "17", "", "", "", "", "Exam")
case("final FAQ with an empty keyword field shifts nothing", f"Yes.{r}",
     client=[S(r, "F", "17", "", "", "", "", "Exam:The exam is open book.")],
     stored=[V(r, "F", "17", "", "", "", "", "Exam:The exam is open book.", None)],
     note="eight fields: the client joins parts 6.. into the summary; the server ignores F")
r = "[cite:F:17::::Exam:The exam is open book.]"
f = ("F", "17", "", "", "", "Exam", "The exam is open book.")
case("final FAQ", f"Yes.{r}", client=[S(r, *f)], stored=[V(r, *f, None)], note="the server pattern is L only")
case("final FAQ missing one empty field matches nothing", "Yes.[cite:F:17:::Exam:The exam is open book.]")
r = "[cite:L:12:3::::]"
f = ("L", "12", "3", "", "", "", "")
case("final with empty keyword and summary", f"x{r}", server=[S(r, *f)], client=[S(r, *f)], stored=[V(r, *f, None)])
r = "[cite:L:12:3:::Ratio:Time: n log n, space: n]"
case("colons in the summary", f"Cost.{r}",
     server=[S(r, "L", "12", "3", "", "", "Ratio", "Time: n log n, space: n")],
     client=[S(r, "L", "12", "3", "", "", "Ratio", "Time: n log n, space: n")],
     stored=[V(r, "L", "12", "3", "", "", "Ratio", "Time: n log n, space: n", None)])
r = "[cite:L:12:3:::Zerlegung:Die Liste wird halbiert – Schritt für Schritt.]"
f = ("L", "12", "3", "", "", "Zerlegung", "Die Liste wird halbiert – Schritt für Schritt.")
case("Unicode German", f"Teile und herrsche.{r}", server=[S(r, *f)], client=[S(r, *f)], stored=[V(r, *f, None)])
r = "[cite:L:7:2:::归并排序:将列表分成两半，然后合并。]"
f = ("L", "7", "2", "", "", "归并排序", "将列表分成两半，然后合并。")
case("Unicode Chinese", f"归并。{r}", server=[S(r, *f)], client=[S(r, *f)], stored=[V(r, *f, None)])
r = "[cite:L:7:2:::🔥 Hot path:Emoji 🚀 survive.]"
f = ("L", "7", "2", "", "", "🔥 Hot path", "Emoji 🚀 survive.")
case("Unicode emoji", r, server=[S(r, *f)], client=[S(r, *f)], stored=[V(r, *f, None)])
r1 = "[cite:L:12:3:::Split:Divides the list.]"
r2 = "[cite:L:12:4:::Merge:Joins the halves.]"
f1 = ("L", "12", "3", "", "", "Split", "Divides the list.")
f2 = ("L", "12", "4", "", "", "Merge", "Joins the halves.")
case("two final markers next to each other", f"Sorted.{r1}{r2}", server=[S(r1, *f1), S(r2, *f2)],
     client=[S(r1, *f1), S(r2, *f2)], stored=[V(r1, *f1, None), V(r2, *f2, None)])
case("two final markers separated by whitespace", f"Sorted. {r1} \n {r2} Done.", server=[S(r1, *f1), S(r2, *f2)],
     client=[S(r1, *f1), S(r2, *f2)], stored=[V(r1, *f1, None), V(r2, *f2, None)])
r = "[cite:L:12:3:::Split:Divides the list.]"
case("final marker inside inline code still parses as text", f"Write `{r}` to cite.",
     server=[S(r, *f1)], client=[S(r, *f1)], stored=[V(r, *f1, None)],
     note="parsers are text-level; the renderer keeps markers in code as text")
case("final marker inside a fenced code block still parses as text", f"```\n{r}\n```\n",
     server=[S(r, *f1)], client=[S(r, *f1)], stored=[V(r, *f1, None)])
r = "[cite:L:ab:3:::Split:Divides the list.]"
f = ("L", "ab", "3", "", "", "Split", "Divides the list.")
case("non-numeric server id: client yes, server no", r, client=[S(r, *f)], stored=[V(r, *f, None)])
case("final with empty entity id matches nothing", "[cite:L::3:::Split:Divides.]",
     server=[], note="the client pattern needs a non-empty id; the server needs digits")
case("final missing a field matches nothing", "x [cite:L:12:3::Split] y")
case("final with a closing bracket inside the keyword matches nothing", "x [cite:L:12:3:::Sp]lit:Divides.] y")
r = "[cite:L:12:3:::Split:Divides.]"
f = ("L", "12", "3", "", "", "Split", "Divides.")
r = "[cite:L:12:3:::Split:Div[ides.]"
case("opening bracket inside the summary: server yes, client no", f"x {r} y",
     server=[S(r, "L", "12", "3", "", "", "Split", "Div[ides.")],
     note="the client excludes [ from every field; the server's last field only excludes ]")
case("lowercase type in final form matches nothing", "[cite:l:12:3:::Split:Divides.]")
case("unknown type matches nothing", "[cite:X:12:3:::Split:Divides.]")
case("missing closing bracket matches nothing", "[cite:L:12:3:::Split:Divides.")
r = "[cite:L:12:3:::Split:Divides.]"
case("marker directly after a Markdown link bracket", f"[see]{r}", server=[S(r, *f)], client=[S(r, *f)],
     stored=[V(r, *f, None)])
r = "[cite:L:12:3:::Split:Divides.]"
case("marker followed by a parenthesis is not a link", f"{r}(not a link)", server=[S(r, *f)], client=[S(r, *f)],
     stored=[V(r, *f, None)])

# --- stored form -------------------------------------------------------------------------------
r = "[cite:L:12:3:::Split:Divides the list.:va2]"
case("stored slide with attachment version", f"x{r}",
     server=[S(r, "L", "12", "3", "", "", "Split", "Divides the list.:va2")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Divides the list.:va2")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Divides the list.", "va2")])
r = "[cite:L:12::75:92:Recursion:Tree of calls.:vt13]"
case("stored video with transcript version", r,
     server=[S(r, "L", "12", "", "75", "92", "Recursion", "Tree of calls.:vt13")],
     client=[S(r, "L", "12", "", "75", "92", "Recursion", "Tree of calls.:vt13")],
     stored=[V(r, "L", "12", "", "75", "92", "Recursion", "Tree of calls.", "vt13")])
r = "[cite:L:12:3:::Split:Ratio: 2:1:va1]"
case("stored with colons in the summary", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "Ratio: 2:1:va1")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Ratio: 2:1:va1")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Ratio: 2:1", "va1")])
r = "[cite:L:12:3:::Split:Divides.:vx2]"
case("not a version field: vx", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "Divides.:vx2")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Divides.:vx2")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Divides.:vx2", None)])
r = "[cite:L:12:3:::Split:Divides.:VA2]"
case("not a version field: uppercase", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "Divides.:VA2")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Divides.:VA2")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Divides.:VA2", None)])
r = "[cite:L:12:3:::Split:va2]"
case("a summary that looks like a version is the summary", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "va2")],
     client=[S(r, "L", "12", "3", "", "", "Split", "va2")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "va2", None)],
     note="a version field is a field after the summary: seven fields carry none")
r = "[cite:F:17::::Exam:Open book.:va1]"
case("stored FAQ", r, client=[S(r, "F", "17", "", "", "", "Exam", "Open book.:va1")],
     stored=[V(r, "F", "17", "", "", "", "Exam", "Open book.", "va1")])
r = "[cite:L:12:3:::Split:Divides.:va]"
case("version field without digits is summary text", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "Divides.:va")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Divides.:va")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Divides.:va", None)])

# --- mixed -------------------------------------------------------------------------------------
ri = "[cite:L:12:3::!1]"
rf = "[cite:L:12:4:::Merge:Joins.]"
case("intermediate and final in one text", f"A.{ri} B.{rf}", iris=[I(ri, "L", "12", "3", "", "", "1")],
     server=[S(rf, "L", "12", "4", "", "", "Merge", "Joins.")],
     client=[S(rf, "L", "12", "4", "", "", "Merge", "Joins.")],
     stored=[V(rf, "L", "12", "4", "", "", "Merge", "Joins.", None)])
r = "[cite:L:12:3:::!1:kw:summary]"
case("intermediate sequence inside a longer marker", r,
     server=[S(r, "L", "12", "3", "", "", "!1", "kw:summary")],
     client=[S(r, "L", "12", "3", "", "", "!1", "kw:summary")],
     stored=[V(r, "L", "12", "3", "", "", "!1", "kw:summary", None)],
     note="a rewrite that forgot to drop the sequence number: Iris no longer matches it")
r = "[cite:L:12:3:::Split:A <script>alert(1)</script> summary]"
case("HTML in a summary is just text to the parsers", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "A <script>alert(1)</script> summary")],
     client=[S(r, "L", "12", "3", "", "", "Split", "A <script>alert(1)</script> summary")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "A <script>alert(1)</script> summary", None)])
case("server id with a leading space does not match the server",
     "[cite:L: 12:3:::Split:Divides.]",
     client=[S("[cite:L: 12:3:::Split:Divides.]", "L", " 12", "3", "", "", "Split", "Divides.")],
     stored=[V("[cite:L: 12:3:::Split:Divides.]", "L", " 12", "3", "", "", "Split", "Divides.", None)])
r = "[cite:L:12:3:::Split:Line one\nline two]"
case("a newline inside the summary is accepted by the patterns", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "Line one\nline two")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Line one\nline two")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Line one\nline two", None)],
     note="the pipeline never writes one: sanitize collapses whitespace")
r = "[cite:L:١٢:3:::Split:Divides.]"
case("non-ASCII digits in the id: server no, client yes", r,
     client=[S(r, "L", "١٢", "3", "", "", "Split", "Divides.")],
     stored=[V(r, "L", "١٢", "3", "", "", "Split", "Divides.", None)],
     note="the Java server's \\d is ASCII only")
r = "[cite:L:12:3:::Split:Divides.:va2\n]"
case("a version field followed by a newline is summary text", r,
     server=[S(r, "L", "12", "3", "", "", "Split", "Divides.:va2\n")],
     client=[S(r, "L", "12", "3", "", "", "Split", "Divides.:va2\n")],
     stored=[V(r, "L", "12", "3", "", "", "Split", "Divides.:va2\n", None)])
case("plain text without markers", "Merge sort is stable and runs in O(n log n).")


def resolve(text: str, matches: list[dict[str, Any]], pattern: str) -> list[dict[str, Any]]:
    out = []
    for mm in matches:
        raw, occ = mm["raw"], mm["occ"]
        pos = -1
        for _ in range(occ + 1):
            pos = text.index(raw, pos + 1)
        row = {"span": [pos, pos + len(raw)]}
        for k in KEYS:
            row[k] = mm[k]
        if pattern in ("server", "client", "stored"):
            row["seq"] = None
        if pattern != "stored":
            row["version"] = None
        out.append(row)
    return out


def main() -> None:
    doc = {
        "description": "Contract test vectors: input text and the expected matches of each parser. "
        "Field values are strings exactly as written in the marker, null where the pattern does not carry "
        "them; span is [start, end) in UTF-16-agnostic code points of the text (JavaScript readers convert).",
        "cases": [
            {"name": c["name"], "note": c["note"], "text": c["text"],
             "expect": {p: resolve(c["text"], c[p], p) for p in ("iris", "server", "client", "stored")}}
            for c in CASES
        ],
    }
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(CASES)} cases -> {OUT}")


if __name__ == "__main__":
    main()
