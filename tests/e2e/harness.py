"""Start the real app on 127.0.0.1 and drive it in headless Chromium (Debian's /usr/bin/chromium).

``running_app`` is the one way the tests, the screenshots and the benchmarks start Streamlit, and
``launch`` the one way they start Chromium (tests get both through the fixtures in tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import re
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


METROPOLIS_DECK = ROOT / "tests" / "material_real" / "decks" / "en_metropolis_demo.pdf"


def metropolis_library(library: Path) -> bool:
    """Make ``library`` a library folder whose course "Beamer themes" (id 77) has one unit, "Metropolis" (id 770),
    the real metropolis beamer demo deck (tests/material_real); False when that deck is not in the checkout."""
    if not METROPOLIS_DECK.is_file():
        return False
    import shutil

    import yaml

    deck = library / "decks" / METROPOLIS_DECK.name
    deck.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(METROPOLIS_DECK, deck)
    (library / "course.yml").write_text(yaml.safe_dump({
        "id": 77, "name": "Beamer themes", "language": "en",
        "lectures": [{"id": 7, "name": "Themes", "units": [
            {"id": 770, "name": "Metropolis", "deck": f"decks/{METROPOLIS_DECK.name}"}]}]}), encoding="utf-8")
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_app(env: dict[str, str] | None = None, timeout: float = 60.0, script: Path | None = None,
                log: Path | None = None) -> Iterator[str]:
    """The app as `make run` starts it, on a free port, with extra environment (e.g. its own database).

    ``script`` runs another Streamlit script the same way (the checkout is on its import path);
    ``log`` receives the server's output (stdout and stderr), e.g. to count its warnings.
    """
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(script or ROOT / "app.py"), "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    out = open(log or os.devnull, "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": path, **(env or {})}, stdout=out,
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
        out.close()


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# Streamlit's page looks for its server under the URL's own path before the root (an app may be served
# under a path prefix): opened at /library, or reconnecting after a dropped connection while a page other
# than Ask is open, it asks /library/_stcore/health and /library/_stcore/host-config first and logs their
# 404s. Those two probes are Streamlit's own; no other failed request is.
STREAMLIT_BASE_PROBE = re.compile(r"^https?://[^/]+/[a-z_]+/_stcore/(health|host-config)$")


def console_errors(page: Any) -> list[str]:
    """The console errors ``page`` logs from now on (each with its URL), but for Streamlit's base-path probes."""
    seen: list[str] = []

    def collect(message: Any) -> None:
        url = (message.location or {}).get("url", "")
        if message.type == "error" and not STREAMLIT_BASE_PROBE.match(url):
            seen.append(f"{message.text} ({url})")

    page.on("console", collect)
    return seen


# true when Streamlit has no run going or asked for, no running indicator and no stale elements
APP_IDLE = ("() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')"
            " === 'notRunning' && !document.querySelector('[data-testid=stStatusWidget]')"
            " && !document.querySelector('[data-stale=true]')")


def wait_idle(page: Any, timeout: float = 30_000) -> None:
    """Until Streamlit has finished the current run: the app's script state (``data-test-script-state``, set
    to "rerunRequested" the moment a widget asks for a run, so a run that has not started yet counts too) is
    "notRunning", with no running indicator and no stale elements."""
    page.wait_for_timeout(150)
    page.wait_for_function(APP_IDLE, timeout=timeout)


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
    """Ask and wait until the stored, cited answer is drawn (the draft shown meanwhile is not enough)."""
    stored = "() => document.querySelectorAll('[class*=\"st-key-msg-\"]').length"
    before = page.evaluate(stored)
    # each field gives up the focus before the click: a field commits its value on blur, and a click on the
    # form's button in that same moment is sometimes swallowed by the browser side of Streamlit
    page.get_by_label("Question").fill(question)
    page.get_by_label("Question").blur()
    if pasted is not None:
        page.get_by_text("Paste an answer instead").click()
        page.get_by_label("Answer to cite").fill(pasted)
        page.get_by_label("Answer to cite").blur()
    page.get_by_role("button", name="Ask", exact=True).click()
    # each stored answer is a chips component keyed msg-<id>; the draft is keyed "draft"
    page.wait_for_function(f"() => ({stored})() >= {before + 1}", timeout=90_000)
    page.get_by_text("Draft · the citations are being added").wait_for(state="detached", timeout=90_000)
    wait_idle(page)
    last = page.locator("[data-testid=stChatMessage]").last
    last.locator("button.cite-chip, .cite-raw, p").first.wait_for(timeout=15_000)


def choose_file(page: Any, index: int, path: Path, timeout: float = 30_000) -> None:
    """Put ``path`` into the page's ``index``-th file uploader and wait until it is uploaded: its chip shows
    the file name and no spinner. (Waiting for the name anywhere on the page is not enough: the Library may
    already list a file of that name, and a form submitted before the upload ends has no file.)"""
    page.locator("input[type=file]").nth(index).set_input_files(str(path))
    name = json.dumps(path.name)  # the chip shortens long names; its title attribute holds the whole one
    wait_uploaded(page.locator("[data-testid=stFileChip]").filter(
        has=page.locator(f"[data-testid=stFileChipName][title={name}]")).first, timeout)


def wait_uploaded(chip: Any, timeout: float = 30_000) -> None:
    """Until the file chip ``chip`` is shown and its upload has ended (no spinner)."""
    chip.wait_for(timeout=timeout)
    chip.locator("[data-testid=stFileChipIconSpinner]").wait_for(state="detached", timeout=timeout)


def video_time(page: Any) -> float:
    return float(page.evaluate("() => document.querySelector('video').currentTime"))


WARNING_RE = re.compile(r"warn|deprecat|error|traceback|exception", re.IGNORECASE)


def log_warnings(log: Path) -> list[str]:
    """The lines of a server log that warn, or report an error or a traceback."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return [line for line in text.splitlines() if WARNING_RE.search(line)]


def choose(page: Any, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label`` and wait for the run it starts."""
    page.get_by_label(label).click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


def history_of(page: Any) -> str:
    """The history key in the page's URL."""
    from urllib.parse import parse_qs, urlparse

    return parse_qs(urlparse(page.url).query)["history"][0]


def wait_caption(page: Any, text: str, timeout: float = 15_000) -> None:
    """Until the viewer's caption contains ``text``."""
    page.wait_for_function("t => document.querySelector('[data-testid=viewer-caption]')?.innerText.includes(t)",
                           arg=text, timeout=timeout)


# The part of an element the user can see: its box cut by the window and by every ancestor that clips
# (shadow roots crossed), as [left, top, right, bottom]; ``rect`` is the whole box.
VISIBLE_PART = """
(el) => {
  const r = el.getBoundingClientRect();
  const box = [Math.max(r.left, 0), Math.max(r.top, 0),
               Math.min(r.right, document.documentElement.clientWidth), Math.min(r.bottom, window.innerHeight)];
  for (let node = el.parentNode; node; node = node.parentNode) {
    if (node instanceof ShadowRoot) node = node.host;
    if (node.nodeType !== 1) break;
    const s = getComputedStyle(node);
    const c = node.getBoundingClientRect();
    if (s.overflowX !== "visible") { box[0] = Math.max(box[0], c.left); box[2] = Math.min(box[2], c.right); }
    if (s.overflowY !== "visible") { box[1] = Math.max(box[1], c.top); box[3] = Math.min(box[3], c.bottom); }
  }
  return {rect: [r.left, r.top, r.right, r.bottom], visible: box};
}
"""


def clipped_by(page: Any, locator: Any) -> list[float]:
    """How many pixels of ``locator``'s box are hidden on each side (left, top, right, bottom); all 0 when whole."""
    part = locator.evaluate(VISIBLE_PART)
    rect, vis = part["rect"], part["visible"]
    return [round(max(0.0, vis[0] - rect[0]), 1), round(max(0.0, vis[1] - rect[1]), 1),
            round(max(0.0, rect[2] - vis[2]), 1), round(max(0.0, rect[3] - vis[3]), 1)]


# The text colour of an element and the colour behind it, both as the user sees them ([r, g, b], 0-255):
# every colour goes through a canvas (so color-mix, color(srgb ...) and alpha all resolve), and the
# backgrounds of the element and its ancestors (shadow roots crossed) are stacked down to an opaque one.
SEEN_COLOURS = """
(el) => {
  const ctx = document.createElement("canvas").getContext("2d", {willReadFrequently: true});
  const rgba = (c) => {
    ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = "rgba(0,0,0,0)"; ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2], d[3] / 255];
  };
  const layers = [];
  for (let node = el; node; node = node.parentNode) {
    if (node instanceof ShadowRoot) node = node.host;
    if (node.nodeType !== 1) break;
    const c = rgba(getComputedStyle(node).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  const over = ([r, g, b, a], under) => [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a),
                                         b * a + under[2] * (1 - a)];
  let bg = [255, 255, 255];
  for (const layer of layers.reverse()) bg = over(layer, bg);
  return {fg: over(rgba(getComputedStyle(el).color), bg), bg};
}
"""


def luminance(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(locator: Any, settle: float = 10.0) -> tuple[float, float]:
    """The WCAG contrast ratio of an element's text against what is behind it, and that background's luminance.

    Read once the colours have settled (the same in reads 150 ms apart): a chip drawn a moment ago may
    still be taking its theme's colours or finishing a 120 ms transition, most visibly on a loaded
    machine, and a reader sees the settled colours."""
    seen = locator.evaluate(SEEN_COLOURS)
    deadline = time.monotonic() + settle
    while time.monotonic() < deadline:
        time.sleep(0.15)
        again = locator.evaluate(SEEN_COLOURS)
        if again == seen:
            break
        seen = again
    fg, bg = luminance(seen["fg"]), luminance(seen["bg"])
    return round((max(fg, bg) + 0.05) / (min(fg, bg) + 0.05), 2), round(bg, 3)
