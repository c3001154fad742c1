"""Texts from a model or a user in the Trace and Language QA tables are shown as written, never as Markdown: an
answer holding an image link makes the browser fetch nothing when its Trace opens."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.e2e.harness import ask, open_ask, wait_idle

pytestmark = pytest.mark.e2e


@pytest.fixture()
def recorder() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every path asked of it (a tracking pixel's server)."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            asked.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()
    server.server_close()


def test_the_trace_of_an_answer_with_markdown_fetches_nothing_and_shows_it_as_written(
    start_app: Callable[..., str], new_page: Callable[..., tuple[Any, list[str]]],
    recorder: tuple[str, list[str]],
) -> None:
    base, asked = recorder
    url = start_app()
    page, errors = new_page()
    open_ask(page, url)
    pasted = f"Merging is **linear** ![t]({base}/pixel.png)"
    ask(page, "Is merging linear?", pasted=pasted)
    page.get_by_test_id("stButtonGroup").get_by_text("Trace", exact=True).click()
    wait_idle(page)
    headers = page.locator("[data-testid=stExpander] summary").filter(has_text="pass")
    headers.first.wait_for(timeout=30_000)
    for header in headers.all():
        header.click()
    wait_idle(page)
    page.wait_for_timeout(500)  # an image the page would fetch is asked for as it is drawn
    assert asked == [], f"the Trace view made the browser fetch {asked}"
    tables = page.locator("[data-testid=stTable]")
    assert tables.filter(has_text="**linear**").count() >= 1
    assert tables.filter(has_text=f"![t]({base}/pixel.png)").count() >= 1
    assert errors == []
