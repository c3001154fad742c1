"""render_markdown: Markdown to escaped HTML with citation marker candidates as cite-raw spans."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from citation_core.lms.render import render_markdown

MARKER = "[cite:L:12:3:::Split:Divides the list.]"
SPAN_RE = re.compile(r'<span class="cite-raw" data-cite="([^"]*)">([^<]*)</span>')


def spans(out: str) -> list[str]:
    """The candidates as the browser will read them (attribute and text agree)."""
    found = []
    for attr, text in SPAN_RE.findall(out):
        assert attr == text
        found.append(html.unescape(attr))
    return found


def test_marker_in_text_becomes_a_cite_raw_span() -> None:
    out = render_markdown(f"Sorted.{MARKER} Done.")
    assert out == (f'<p>Sorted.<span class="cite-raw" data-cite="{MARKER}">{MARKER}</span> Done.</p>\n')


def test_marker_in_inline_code_stays_code_text() -> None:
    out = render_markdown(f"Write `{MARKER}` to cite.")
    assert "cite-raw" not in out
    assert f"<code>{MARKER}</code>" in out


def test_marker_in_fenced_and_indented_code_stays_code_text() -> None:
    fenced = render_markdown(f"```\n{MARKER}\n```\n")
    assert "cite-raw" not in fenced
    assert f"<pre><code>{MARKER}\n</code></pre>" in fenced
    indented = render_markdown(f"Text.\n\n    {MARKER}\n")
    assert "cite-raw" not in indented
    assert f"<pre><code>{MARKER}\n</code></pre>" in indented


def test_escaped_bracket_is_not_a_candidate() -> None:
    out = render_markdown("\\" + MARKER)
    assert "cite-raw" not in out
    assert MARKER in out


def test_broken_and_intermediate_markers_still_reach_the_client_as_candidates() -> None:
    text = "a [cite:L:12:3::Split] b [cite:L:12:3::!1] c [cite:X:1:2:::k:s]"
    assert spans(render_markdown(text)) == ["[cite:L:12:3::Split]", "[cite:L:12:3::!1]", "[cite:X:1:2:::k:s]"]


def test_adjacent_and_whitespace_separated_markers_keep_their_whitespace() -> None:
    a, b = MARKER, "[cite:L:12:4:::Merge:Joins the halves.:va2]"
    out = render_markdown(f"Sorted. {a} \n {b} Done.")
    assert spans(out) == [a, b]
    between = out.split("</span>", 1)[1].split("<span", 1)[0]
    assert between.strip() == ""


def test_marker_is_not_a_link_and_not_a_reference() -> None:
    out = render_markdown(f"{MARKER}(https://example.org) [see]{MARKER}")
    assert "<a " not in out
    assert spans(out) == [MARKER, MARKER]


def test_marker_content_is_taken_verbatim_not_as_markdown() -> None:
    raw = "[cite:L:12:3:::*Split*:A `b` &amp; _c_ \\x]"
    assert spans(render_markdown(raw)) == [raw]


def test_every_stored_vector_match_reaches_the_client(contract_case: dict[str, Any]) -> None:
    """Every marker the stored parser accepts outside code comes out as one candidate span."""
    case = contract_case
    text = case["text"]
    out = render_markdown(text)
    in_code = "`" in text
    for m in case["expect"]["stored"]:
        cp = list(text)
        raw = "".join(cp[m["span"][0] : m["span"][1]])
        if in_code or "\n" in raw:
            assert raw not in spans(out)
        else:
            assert raw in spans(out)


def test_script_and_img_in_text_are_escaped() -> None:
    out = render_markdown("Hi <script>alert(1)</script> and <img src=x onerror=alert(1)> end")
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out


def test_html_block_is_escaped() -> None:
    out = render_markdown('<div onclick="x()">\n<script>alert(1)</script>\n</div>\n')
    assert "<div" not in out and "<script" not in out


def test_script_and_img_in_marker_summary_and_keyword_are_escaped() -> None:
    marker = '[cite:L:12:3:::<img src=x onerror=alert(1)>:A <script>alert(1)</script> "q" & done]'
    out = render_markdown(f"x {marker}")
    assert "<script" not in out and "<img" not in out
    assert '"q"' not in out
    assert spans(out) == [marker]
    assert "&lt;script&gt;" in out and "&quot;q&quot; &amp; done" in out


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JavaScript:alert(1))",
        "[x](  javascript:alert(1))",
        "[x](java&#x73;cript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](file:///etc/passwd)",
        "<javascript:alert(1)>",
        "![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)",
        "[x]\n\n[x]: javascript:alert(1)",
    ],
)
def test_dangerous_links_are_not_live(link: str) -> None:
    out = render_markdown(link)
    assert "href=" not in out.lower() and "src=" not in out.lower(), out


def test_ordinary_links_stay_links() -> None:
    assert '<a href="https://example.org/a?b=1&amp;c=2">ok</a>' in render_markdown(
        "[ok](https://example.org/a?b=1&c=2)"
    )


def test_markdown_still_renders() -> None:
    out = render_markdown(
        "# Title\n\nSome *emphasis* and **strong** and ~~gone~~.\n\n- one\n- two [cite:L:1:2:::k:s]\n\n"
        "1. first\n2. second\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert "<h1>Title</h1>" in out
    assert "<em>emphasis</em>" in out and "<strong>strong</strong>" in out and "<s>gone</s>" in out
    assert "<ul>\n<li>one</li>\n<li>two <span" in out
    assert "<ol>\n<li>first</li>" in out
    assert "<table>" in out and "<td>1</td>" in out


def test_emphasis_around_a_marker_still_works() -> None:
    out = render_markdown(f"*Sorted {MARKER}* done")
    assert out.startswith("<p><em>Sorted <span")
    assert spans(out) == [MARKER]


@pytest.mark.parametrize(
    "link",
    [
        "[x](<java\tscript:alert(1)>)",
        "[x](<\x01javascript:alert(1)>)",
        "[x](java&Tab;script:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](javascript&colon;alert(1))",
        "[x](<java\u00adscript:alert(1)>)",
    ],
)
def test_obfuscated_javascript_links_do_not_resolve_to_javascript(link: str) -> None:
    """What a browser's URL parser would make of every href: never a javascript: URL."""
    for href in re.findall(r'href="([^"]*)"', render_markdown(link)):
        url = html.unescape(href)
        url = url.strip("".join(map(chr, range(0x21))))  # leading/trailing C0 controls and space
        url = re.sub(r"[\t\n\r]", "", url)  # removed anywhere
        assert not url.lower().startswith(("javascript:", "vbscript:", "data:")), href
