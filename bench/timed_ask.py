"""One ask turn timed where a user sees it: ``citation-studio ask --stream`` on stdout, and the app in Chromium.

Both run against a local chat-completions server (every role on it, ``config_dir``); the benchmarks that
compare streaming and citing modes (``bench.streaming``, ``bench.inline_citing``) share these helpers.

* ``cli_ask`` starts the command as a new process and records when each piece of its stdout arrived
  (``CliRun``), so that any offset of the printed text has a time: the first byte, the end of the draft, the
  first marker of the cited answer, its last byte.
* ``app_ask`` asks on the Ask page of a running app (``tests/e2e/harness.running_app``) and records when the
  first answer word shows, the first chip (in the answer while it is written, or in the stored answer), the
  stored answer's chips, and the end of the turn's runs (``AppTurn``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from citation_core.contract.patterns import ANY_MARKER_RE
from citation_core.llm.config import CONFIG_DIR_ENV, OVERRIDE_ENV, defaults_dir
from tests.e2e.harness import APP_IDLE

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_decks"


def config_dir(base_url: str, folder: Path, citation: Mapping[str, str] | None = None) -> Path:
    """A configuration folder with the built-in settings, the sample course, and a model ``local`` at
    ``base_url`` (``OVERRIDE_ENV=local`` points every role at it); ``citation`` overrides settings of the
    ``citation`` section (``{"mode": "inline"}``, ``{"placement_mode": "places"}``)."""
    folder.mkdir(parents=True, exist_ok=True)
    app = yaml.safe_load(defaults_dir().joinpath("application.yml").read_text(encoding="utf-8"))
    app["material"]["course_dirs"] = [str(SAMPLES)]  # relative folders are read from the configuration's folder
    app.setdefault("citation", {}).update(citation or {})
    (folder / "application.yml").write_text(yaml.safe_dump(app), encoding="utf-8")
    models = {"models": [{"id": "offline", "type": "offline", "model": "offline-extractive-1"},
                         {"id": "local", "type": "openai_chat", "model": "m", "base_url": base_url, "timeout": 30,
                          "max_retries": 0}]}
    (folder / "llm_config.yml").write_text(yaml.safe_dump(models), encoding="utf-8")
    return folder


@dataclass(frozen=True)
class CliRun:
    """What one ``ask --stream`` process printed on stdout and when: ``arrivals`` holds, per read, the seconds
    since the process was started and the bytes of stdout read by then."""

    text: str
    arrivals: tuple[tuple[float, int], ...]
    ended: float  # seconds until the process had exited
    returncode: int

    def at(self, size: int) -> float:
        """Seconds until the first ``size`` bytes of stdout had arrived (``size`` >= 1)."""
        for seconds, read in self.arrivals:
            if read >= size:
                return seconds
        raise ValueError(f"stdout has {self.arrivals[-1][1] if self.arrivals else 0} bytes, not {size}")

    def at_char(self, index: int) -> float:
        """Seconds until the character at ``index`` of the text had arrived."""
        return self.at(len(self.text[: index + 1].encode("utf-8")))

    @property
    def first_byte(self) -> float:
        return self.at(1)

    @property
    def printed(self) -> float:
        """Seconds until the last byte of stdout had arrived."""
        return self.arrivals[-1][0]

    def first_marker(self) -> float | None:
        """Seconds until the first whole final marker had arrived; None when the output has none."""
        found = ANY_MARKER_RE.search(self.text)
        return None if found is None else self.at_char(found.end() - 1)


def cli_ask(base_url: str, folder: Path, question: str, *, citation: Mapping[str, str] | None = None,
            unit: int = 101, page: int = 6, first_byte_only: bool = False) -> CliRun:
    """``citation-studio ask --stream`` as a new process, every role on the model at ``base_url``, its stdout
    read as it comes; with ``first_byte_only`` the process is ended once the first byte has arrived."""
    env = {**os.environ, CONFIG_DIR_ENV: str(config_dir(base_url, folder, citation)), OVERRIDE_ENV: "local"}
    arrivals: list[tuple[float, int]] = []
    data = bytearray()
    with tempfile.TemporaryFile() as errors:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "citation_core.cli.main", "ask", "--stream", "--course",
                                 str(SAMPLES), "--unit", str(unit), "--page", str(page), "--question", question],
                                stdout=subprocess.PIPE, stderr=errors, env=env, bufsize=0)
        assert proc.stdout is not None
        while piece := os.read(proc.stdout.fileno(), 1 << 16):
            data += piece
            arrivals.append((time.monotonic() - start, len(data)))
            if first_byte_only:
                proc.kill()
                break
        proc.stdout.close()
        code = proc.wait(timeout=120)
        ended = time.monotonic() - start
        errors.seek(0)
        said = errors.read().decode("utf-8", "replace").strip()
    if (code != 0 and not first_byte_only) or not arrivals:
        raise SystemExit(f"ask failed (exit {code}): {said.splitlines()[-1] if said else 'no output'}")
    return CliRun(data.decode("utf-8", "replace"), tuple(arrivals), ended, code)


def app_env(base_url: str, folder: Path, citation: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an app whose every role is the model at ``base_url``, with a database and library
    of its own under ``folder``."""
    return {CONFIG_DIR_ENV: str(config_dir(base_url, folder / "config", citation)), OVERRIDE_ENV: "local",
            "CITATION_STUDIO_DB": str(folder / "lms.sqlite3"), "CITATION_STUDIO_LIBRARY": str(folder / "library")}


@dataclass(frozen=True)
class AppTurn:
    """When the parts of one answer showed on the Ask page, in seconds of ``time.time()`` (the page's clock and
    the measuring process's are the machine's)."""

    asked: float  # the click on Ask
    first_word: float  # the answer's first word shown in the reply
    first_chip: float  # a chip shown in the reply: in the answer while it is written, or in the stored answer
    cited: float  # a chip of the stored answer (drawn with all of them) shown
    idle: float  # then the app idle again: the turn's runs over


# Installed in the page before the click: every 5 ms (Playwright's own waits poll ever more slowly, up to 1 s
# apart) it looks at the chat messages that came after the ``before`` first ones, inside the shadow roots the
# chips are drawn into, and notes the first time each part shows.
RECORDER = """({before, kept, word}) => {
  const now = () => performance.timeOrigin + performance.now();
  const rec = window.__turn = {asked: null, first_word: null, first_chip: null, cited: null, idle: null};
  const deepText = (root) => {
    let text = root.textContent || "";
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) text += deepText(el.shadowRoot);
    return text;
  };
  const deepHas = (root, selector) => !!root.querySelector(selector)
    || [...root.querySelectorAll("*")].some(el => el.shadowRoot && deepHas(el.shadowRoot, selector));
  const idle = APP_IDLE;
  const stop = new AbortController();
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button");
    if (rec.asked === null && button && button.innerText.trim() === "Ask") rec.asked = now();
  }, {capture: true, signal: stop.signal});
  const timer = setInterval(() => {
    if (rec.asked === null) return;
    const replies = [...document.querySelectorAll("[data-testid=stChatMessage]")].slice(before);
    if (rec.first_word === null && replies.some(r => deepText(r).includes(word))) rec.first_word = now();
    if (rec.first_chip === null && replies.some(r => deepHas(r, "button.cite-chip"))) rec.first_chip = now();
    const stored = [...document.querySelectorAll("[class*=st-key-msg-]")].slice(kept);
    if (rec.cited === null && stored.some(m => deepHas(m, "button.cite-chip"))) rec.cited = now();
    if (rec.cited !== null && idle()) {
      rec.idle = now();
      clearInterval(timer);
      stop.abort();
    }
  }, 5);
}""".replace("APP_IDLE", APP_IDLE)


def app_ask(page: Any, question: str, first_word: str, timeout: float = 120_000) -> AppTurn:
    """Ask ``question`` on the open Ask page and time its answer, whose text starts with ``first_word``
    (case matters: the question itself must not contain it)."""
    before = page.locator("[data-testid=stChatMessage]").count()
    kept = page.locator("[class*=st-key-msg-]").count()
    page.get_by_label("Question").fill(question)
    page.get_by_label("Question").blur()  # a field commits its value on blur (see harness.ask)
    page.evaluate(RECORDER, {"before": before, "kept": kept, "word": first_word})
    page.get_by_role("button", name="Ask", exact=True).click()
    page.wait_for_function("() => window.__turn.idle !== null", timeout=timeout)
    seen = page.evaluate("window.__turn")
    return AppTurn(*(seen[name] / 1000 for name in ("asked", "first_word", "first_chip", "cited", "idle")))
