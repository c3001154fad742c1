"""Start the real app on 127.0.0.1 and drive it in headless Chromium (Debian's /usr/bin/chromium).

``running_app`` is the one way the tests, the screenshots and the benchmarks start Streamlit, and
``launch`` the one way they start Chromium (tests get both through the fixtures in tests/conftest.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
                 "--no-first-run", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_app(env: dict[str, str] | None = None, timeout: float = 60.0, script: Path | None = None) -> Iterator[str]:
    """The app as `make run` starts it, on a free port, with extra environment (e.g. its own database).

    ``script`` runs another Streamlit script the same way (the checkout is on its import path).
    """
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(script or ROOT / "app.py"), "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    log = open(os.devnull, "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": path, **(env or {})}, stdout=log,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the app did not start on {url}")
            time.sleep(0.3)  # poll the health endpoint until the server answers
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def wait_idle(page: Any, timeout: float = 30_000) -> None:
    """Until Streamlit has finished the current run (no running indicator, no stale elements)."""
    page.wait_for_timeout(150)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]')"
        " && !document.querySelector('[data-stale=true]')",
        timeout=timeout,
    )


def open_ask(page: Any, url: str) -> None:
    page.goto(url)
    page.get_by_text("Ask about what you see").wait_for(timeout=60_000)
    wait_idle(page)


def choose_unit(page: Any, label: str) -> None:
    page.get_by_label("Lecture unit").click()
    page.get_by_role("option", name=label).click()
    wait_idle(page)


def go_to_page(page: Any, target: int) -> None:
    """Step the deck viewer to deck index ``target`` with the ▶/◀ buttons."""
    for _ in range(40):
        caption = caption_text(page)
        current = int(caption.split("(page ")[1].split(" ")[0])
        if current == target:
            return
        page.get_by_role("button", name="▶" if current < target else "◀").click()
        wait_idle(page)
    raise AssertionError(f"could not reach page {target}")


def caption_text(page: Any) -> str:
    return str(page.get_by_test_id("viewer-caption").inner_text())


def ask(page: Any, question: str, pasted: str | None = None) -> None:
    before = page.locator("[data-testid=stChatMessage]").count()
    page.get_by_label("Question").fill(question)
    if pasted is not None:
        page.get_by_text("Paste an answer instead").click()
        page.get_by_label("Answer to cite").fill(pasted)
    page.get_by_role("button", name="Ask", exact=True).click()
    page.wait_for_function(f"() => document.querySelectorAll('[data-testid=stChatMessage]').length >= {before + 2}",
                           timeout=90_000)
    wait_idle(page)
    last = page.locator("[data-testid=stChatMessage]").last
    last.locator("button.cite-chip, .cite-raw, p").first.wait_for(timeout=15_000)


def video_time(page: Any) -> float:
    return float(page.evaluate("() => document.querySelector('video').currentTime"))
