"""Write citation_core/contract/vectors.json from the hand-written cases below.

Each expected match is written out field by field; only the span is computed, from the exact
substring that must match (``raw``) and which occurrence of it (``occ``). Nothing here calls the
project's parsers, so the vectors check them rather than echo them.
Run: python scripts/author_vectors.py
"""

from __future__ import annotations

import json
import re
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


# --- chips as the Artemis client draws them ----------------------------------------------------------
# A line-by-line transcription of the Artemis client's parser (ls1intum/Artemis,
# src/main/webapp/app/iris/overview/citation-text/iris-citation-text.util.ts and .model.ts at commit
# ARTEMIS_UTIL_COMMIT): tokenizeText, collectAdjacentCitations, parseCitation, parseTrailingVersion,
# resolveCitationTypeClass, getCitationLabelText. It computes each case's "artemis" expectation (groups
# of chips with kind, label and pinned version); the cases transcribed from the Artemis spec below also
# state by hand what the spec asserts, and main() checks the two agree.
ARTEMIS_UTIL = "src/main/webapp/app/iris/overview/citation-text/iris-citation-text.util.ts"
ARTEMIS_UTIL_COMMIT = "1bd9841bf345a4c961d87e8f63f4a71acd480002"
ARTEMIS_SPEC = "src/main/webapp/app/iris/overview/citation-text/iris-citation-text.component.spec.ts"
ARTEMIS_SPEC_VERSION = "the version with the 'Citation revisions' and 'Citation click' blocks (va/vt version fields)"
ARTEMIS_CITATION_REGEX = re.compile(r"\[cite:[LF]:[^:\[\]]+:[^:\[\]]*:[^:\[\]]*:[^:\[\]]*:[^:\[\]]*:[^\[\]]*\]")
ARTEMIS_VERSION_FIELD = re.compile(r"v([at])([0-9]+)")
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
    "\u2028\u2029\u202f\u205f\u3000\ufeff"  # JavaScript's \s and trim()


def artemis_parse(raw: str) -> dict[str, Any] | None:
    parts = raw[len("[cite:"):-1].split(":")
    if len(parts) < 7 or parts[0] not in ("L", "F") or not parts[1]:
        return None
    version = None
    if len(parts) >= 8:
        vm = ARTEMIS_VERSION_FIELD.fullmatch(parts[-1])
        if vm:
            version = {"kind": "video" if vm[1] == "t" else "attachment", "version": vm[2]}
    t, page, start, end, keyword = parts[0], parts[2], parts[3], parts[4], parts[5]
    kind = "faq" if t == "F" else "video" if (start or end) else "slide" if page else "source"
    label = keyword.strip(JS_SPACE) or ("FAQ" if t == "F" else "Source")
    return {"kind": kind, "label": label, "version": version}


def artemis_groups(text: str) -> list[dict[str, Any]]:
    tokens: list[tuple[str, str, int]] = []  # (type, value, start)
    last = 0
    for mt in ARTEMIS_CITATION_REGEX.finditer(text):
        if mt.start() > last:
            tokens.append(("text", text[last:mt.start()], last))
        tokens.append(("citation", mt[0], mt.start()))
        last = mt.end()
    if last < len(text):
        tokens.append(("text", text[last:], last))
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(tokens):
        if tokens[i][0] == "text":
            i += 1
            continue
        group = [tokens[i]]
        j = i + 1
        while j < len(tokens):
            if tokens[j][0] == "text" and tokens[j][1].strip(JS_SPACE) == "":
                j += 1
            elif tokens[j][0] == "citation":
                group.append(tokens[j])
                j += 1
            else:
                break
        parsed = [artemis_parse(g[1]) for g in group]
        span = [group[0][2], group[-1][2] + len(group[-1][1])]
        out.append({"span": span, "chips": None if any(x is None for x in parsed) else parsed})
        i = j
    return out


def chip(kind: str, label: str, version: tuple[str, str] | None = None) -> dict[str, Any]:
    return {"kind": kind, "label": label,
            "version": None if version is None else {"kind": version[0], "version": version[1]}}


ARTEMIS_CASES: list[dict[str, Any]] = []


def spec(test: str, text: str, groups: list[list[dict[str, Any]]], note: str = "", suffix: str = "") -> None:
    """A case of the Artemis spec: ``groups`` is what the spec's assertions (and the code) give, by hand."""
    name = f"artemis: {test}{suffix}"
    ARTEMIS_CASES.append({"name": name, "note": note, "text": text, "groups": groups,
                          "source": {"file": ARTEMIS_SPEC, "version": ARTEMIS_SPEC_VERSION, "test": test,
                                     "parser": f"{ARTEMIS_UTIL} @ {ARTEMIS_UTIL_COMMIT}"}})


VA3, VT2 = ("attachment", "3"), ("video", "2")
spec("renders text without citations", "Hello world", [])
spec("renders single citation with summary and lecture info", "Hello [cite:L:7::::Keyword:Summary] world",
     [[chip("source", "Keyword")]])
spec("hides unit row when lectureUnitTitle is empty but still shows lecture", "[cite:L:7::::MyKeyword:Summary]",
     [[chip("source", "MyKeyword")]])
spec("hides lecture metadata when no unit or lecture title is available", "[cite:L:7:::::Summary]",
     [[chip("source", "Source")]])
spec("renders group without summary section", "[cite:L:1:::::] [cite:L:2:::::]",
     [[chip("source", "Source"), chip("source", "Source")]])
spec("does not render navigation controls when group has only one summary", "[cite:L:1::::One:Summary] [cite:L:2:::::]",
     [[chip("source", "One"), chip("source", "Source")]])
spec("keeps citation bubble text unchanged when navigating grouped summaries",
     "[cite:L:1:5:::FirstKeyword:S1] [cite:F:2::::SecondKeyword:S2]",
     [[chip("slide", "FirstKeyword"), chip("faq", "SecondKeyword")]], note="a group takes its first member's kind")
for test in ("adjusts tooltip shift based on overflow", "positions tooltip above when there is sufficient space",
             "positions tooltip below when it overflows boundary top",
             "works correctly with both horizontal and vertical collision", "adds flipped class when positioned below",
             "removes flipped class when positioned above", "removes flipped class on mouseout"):
    spec(test, "[cite:L:7::::Key:Summary]", [[chip("source", "Key")]], note="the spec's setupTooltip marker")
spec("jumps to the exact page when the slides still have the pinned version", "[cite:L:42:7:::Key:Summary:va3]",
     [[chip("slide", "Key", VA3)]])
spec("opens the unit only and warns when the slides changed", "[cite:L:42:7:::Key:Summary:va3]",
     [[chip("slide", "Key", VA3)]])
spec("jumps to the timestamp when the transcription still has the pinned version",
     "[cite:L:42::120:180:Key:Summary:vt2]", [[chip("video", "Key", VT2)]])
spec("leaves out the companion slide of a video citation", "[cite:L:42:7:120:180:Key:Summary:vt2]",
     [[chip("video", "Key", VT2)]])
spec("compares a video citation against the transcription, not against the slides",
     "[cite:L:42:7:120:180:Key:Summary:vt2]", [[chip("video", "Key", VT2)]])
spec("compares a citation carrying only an end time against the slides", "[cite:L:42:7::180:Key:Summary:va3]",
     [[chip("video", "Key", VA3)]],
     note="an end alone makes a video chip, while its version field is the attachment's (it opens page 7)")
spec("opens the unit only and reports an error when the material is gone", "[cite:L:42:7:::Key:Summary:va3]",
     [[chip("slide", "Key", VA3)]])
spec("reports an unverifiable citation rather than a gone one when the video outlived its transcription",
     "[cite:L:42::120:180:Key:Summary:vt2]", [[chip("video", "Key", VT2)]])
spec("does not ask the server for a citation written before versions existed", "[cite:L:42:7:::Key:Summary]",
     [[chip("slide", "Key")]])
spec("withholds the exact position when the check could not be made", "[cite:L:42:7:::Key:Summary:va3]",
     [[chip("slide", "Key", VA3)]])
for status in (403, 404):
    spec("says nothing itself when the unit is unreachable (%i)", "[cite:L:42:7:::Key:Summary:va3]",
         [[chip("slide", "Key", VA3)]], suffix=f" [{status}]")
spec("does not navigate when the lecture unit is gone", "[cite:L:42:7:::Key:Summary:va3]",
     [[chip("slide", "Key", VA3)]])
spec("does not navigate for FAQ citations", "[cite:F:9::::Key:Summary]", [[chip("faq", "Key")]])
spec("parses a citation with a summary containing colons", "[cite:L:42:5:10:20:Key:Summary:with:colon]",
     [[chip("video", "Key")]], note="start 10 and page 5: video wins")
spec("resolves citation type classes", "[cite:F:1:::::]", [[chip("faq", "FAQ")]], suffix=" [faq]")
spec("resolves citation type classes", "[cite:L:1::00:01::]", [[chip("video", "Source")]], suffix=" [video]",
     note="the spec's start is \"00:01\", which a marker cannot carry (fields split on colons): written out it is "
          "start \"00\" and end \"01\"; either one alone makes a video chip, numbers or not")
spec("resolves citation type classes", "[cite:L:1::00.01:::]", [[chip("video", "Source")]],
     suffix=" [video, not seconds]", note="a start that is not a number of seconds still makes a video chip")
spec("resolves citation type classes", "[cite:L:1:3::::]", [[chip("slide", "Source")]], suffix=" [slide]")
spec("resolves citation type classes", "[cite:L:1:::::]", [[chip("source", "Source")]], suffix=" [source]")
spec("formats citation labels with escaping and fallbacks", "[cite:L:1::::<b>Key</b>:]",
     [[chip("source", "<b>Key</b>")]], suffix=" [escaping]",
     note="the label text; the client escapes it when it writes HTML")
spec("formats citation labels with escaping and fallbacks", "[cite:L:1:::::]", [[chip("source", "Source")]],
     suffix=" [Source]")
spec("formats citation labels with escaping and fallbacks", "[cite:F:1:::::]", [[chip("faq", "FAQ")]], suffix=" [FAQ]")
spec("replaces citations with custom renderers", "Hello [cite:L:7::::Keyword:Summary] world",
     [[chip("source", "Keyword")]], suffix=" [single]")
spec("replaces citations with custom renderers", "[cite:L:1::::One:Summary] [cite:L:1::::Two:Summary]",
     [[chip("source", "One"), chip("source", "Two")]], suffix=" [group]")
spec("ignores texts without citation markers", "No citations here", [])
spec("removes citation blocks from text", "Hello [cite:L:7::::Keyword:Summary] world [cite:F:1::::FAQ:Summary]",
     [[chip("source", "Keyword")], [chip("faq", "FAQ")]], note="text between them: two chips, no group")
spec("escapes HTML in raw text", '<span>"&"</span>', [])
spec("parses the pinned attachment version of a slide citation", "[cite:L:42:7:::Key:Summary:va3]",
     [[chip("slide", "Key", VA3)]])
spec("parses the pinned transcription version of a video citation", "[cite:L:42:7:120:180:Key:Summary:vt2]",
     [[chip("video", "Key", VT2)]])
spec("keeps a summary containing colons intact in front of the version field",
     "[cite:L:42:7:::Key:Summary:with:colon:va3]", [[chip("slide", "Key", VA3)]])
spec("treats a trailing untagged field as part of the summary", "[cite:L:42:7:::Key:Summary:with:colon]",
     [[chip("slide", "Key")]])
spec("does not read empty trailing fields as a version field", "[cite:L:42:7:::Key:Summary:with:colon::]",
     [[chip("slide", "Key")]])
spec("leaves a colon-numeric summary entirely in the summary (%s)", "[cite:L:42:7:::Key:Ratios:3:1]",
     [[chip("slide", "Key")]], suffix=" [Ratios:3:1]")
spec("leaves a colon-numeric summary entirely in the summary (%s)", "[cite:L:42:7:::Key:Chapter 3:1]",
     [[chip("slide", "Key")]], suffix=" [Chapter 3:1]")
spec("reads the version off a stamped citation whose summary contains colons and numbers",
     "[cite:L:42:7:::Key:Ratios:3:vt1]", [[chip("slide", "Key", ("video", "1"))]],
     note="a slide chip whose version field is the transcription's")


def artemis_expect(text: str) -> list[dict[str, Any]]:
    """Spans in code points, as the other expectations."""
    return artemis_groups(text)


def main() -> None:
    doc = {
        "description": "Contract test vectors: input text and the expected matches of each parser. "
        "Field values are strings exactly as written in the marker, null where the pattern does not carry "
        "them; span is [start, end) in UTF-16-agnostic code points of the text (JavaScript readers convert).",
        "cases": [
            {"name": c["name"], "note": c["note"], "text": c["text"],
             "source": "Citation Studio contract (DESIGN 2); artemis: the transcribed Artemis client "
                       f"({ARTEMIS_UTIL} @ {ARTEMIS_UTIL_COMMIT})",
             "expect": {**{p: resolve(c["text"], c[p], p) for p in ("iris", "server", "client", "stored")},
                        "artemis": artemis_expect(c["text"])}}
            for c in CASES
        ],
        "artemis_cases": [],
    }
    for c in ARTEMIS_CASES:
        got = artemis_expect(c["text"])
        assert [g["chips"] for g in got] == c["groups"], (c["name"], got)
        doc["artemis_cases"].append({"name": c["name"], "note": c["note"], "text": c["text"], "source": c["source"],
                                     "expect": {"artemis": got}})
    names = [c["name"] for c in doc["cases"]] + [c["name"] for c in doc["artemis_cases"]]
    assert len(set(names)) == len(names), "case names are unique"
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(CASES)} cases and {len(ARTEMIS_CASES)} Artemis cases -> {OUT}")


if __name__ == "__main__":
    main()
