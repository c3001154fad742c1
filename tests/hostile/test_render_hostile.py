"""render_markdown on hostile answers: images load nothing, and the input size is capped.

The browser test serves a listener on 127.0.0.1 and renders an answer with an image pointing at it
through the standalone chip preview in Chromium: the listener must receive no request.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citation_core.errors import InputError
from citation_core.lms.chips import chip_data, html_preview_document
from citation_core.lms.render import MAX_ANSWER_CHARS, render_markdown


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        ("![x](http://127.0.0.1:9/leak)", '<p><span class="md-image">🖼 x</span></p>\n'),
        ('Look: ![a *b* `c`](https://example.org/i.png "title") done',
         '<p>Look: <span class="md-image">🖼 a b c</span> done</p>\n'),
        ("![](https://example.org/i.png)", '<p><span class="md-image">🖼 image</span></p>\n'),
        ('![<img src=x onerror=alert(1)> & "q"](u)',
         '<p><span class="md-image">🖼 &lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;</span></p>\n'),
        ("![two\nlines](u)", '<p><span class="md-image">🖼 two lines</span></p>\n'),
        ("![ref][r]\n\n[r]: https://example.org/i.png", '<p><span class="md-image">🖼 ref</span></p>\n'),
        ("[![inner](https://example.org/i.png)](https://example.org/)",
         '<p><a href="https://example.org/"><span class="md-image">🖼 inner</span></a></p>\n'),
    ],
    ids=["remote", "markup in alt", "empty alt", "html in alt", "two lines", "reference", "inside a link"],
)
def test_an_image_is_a_text_label(markdown: str, html: str) -> None:
    out = render_markdown(markdown)
    assert out == html
    assert "<img" not in out


def test_a_marker_in_an_image_description_stays_text() -> None:
    out = render_markdown("![see [cite:L:12:3:::k:s]](u)")
    assert out == '<p><span class="md-image">🖼 see [cite:L:12:3:::k:s]</span></p>\n'


def test_the_chip_data_carries_the_label_not_an_image() -> None:
    assert chip_data("![x](http://127.0.0.1:9/leak)", {}, {})["html"] == (
        '<p><span class="md-image">🖼 x</span></p>\n')


def test_an_answer_at_the_limit_renders() -> None:
    out = render_markdown("a" * MAX_ANSWER_CHARS)
    assert out == "<p>" + "a" * MAX_ANSWER_CHARS + "</p>\n"


@pytest.mark.parametrize("text", ["[" * (MAX_ANSWER_CHARS + 1), "|a|b|\n|-|-|\n" + "|x|y|\n" * 40_000])
def test_an_answer_over_the_limit_is_refused(text: str) -> None:
    with pytest.raises(InputError) as err:
        render_markdown(text)
    assert str(err.value) == (f"answer: {len(text):,} characters, more than the limit of 200,000 characters "
                              "(MAX_ANSWER_CHARS)")
    with pytest.raises(InputError):
        chip_data(text, {}, {})


# --- in the browser: the chip renderer must not fetch the image ----------------------------------


class _Listener(http.server.BaseHTTPRequestHandler):
    paths: list[str]

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        self.paths.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture()
def listener() -> Iterator[tuple[int, list[str]]]:
    paths: list[str] = []
    handler = type("Listener", (_Listener,), {"paths": paths})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], paths
    server.shutdown()
    server.server_close()


def test_the_browser_fetches_nothing_for_an_image_in_an_answer(new_page: Any, tmp_path: Path,
                                                               listener: tuple[int, list[str]]) -> None:
    port, paths = listener
    answer = f"Merging is linear.\n\n![x](http://127.0.0.1:{port}/leak?secret=1)\n\nDone."
    doc = tmp_path / "preview.html"
    doc.write_text(html_preview_document(answer, {}, {}), encoding="utf-8")
    page, errors = new_page()
    page.goto(doc.as_uri())
    page.wait_for_function("window.__chipsReady === true")
    page.wait_for_load_state("networkidle")
    # the listener does answer this page: a request it makes on purpose arrives
    page.evaluate(f"() => fetch('http://127.0.0.1:{port}/control', {{mode: 'no-cors'}})")
    page.wait_for_timeout(300)
    assert paths == ["/control"] and errors == []
    shown = page.evaluate("() => document.getElementById('chips-host').shadowRoot.innerHTML")
    assert "🖼 x" in shown and "<img" not in shown
