"""What a session costs the app server: first render, first ask, memory, page opens, reruns of a long conversation.

``python -m bench.app_session`` starts the app as the tests do (``tests/e2e/harness.running_app``: ``streamlit
run app.py`` headless on a free port, a temporary database and upload folder, the default configuration:
offline model, sample course) and drives it in headless Chromium (``/usr/bin/chromium``, 1280x800). Server
figures come from ``/proc/<pid>`` of the Streamlit process: CPU = user + system time of all its threads,
memory = resident set (VmRSS) and its peak (VmHWM). Whether pandas, pyarrow or lingua is loaded is read from
the shared libraries the process has mapped.

Steps, in one server process (``now``: the app as it is):

1. first render: a fresh browser opens Ask until the run is over (the course is loaded then);
2. first ask: a question on Ask until the answer's chips are there;
3. a rerun (the viewer's ▶ / ◀, alternating, after one of each not counted) with one stored answer in the
   conversation, mean of ``--reruns``; the viewer is a fragment, so this reruns the viewer only. With step 5,
   also a rerun of the whole page (the "Last answer as" views in turn);
4. four more questions: the peak memory after five asks;
5. more questions up to ``--answers`` (20) in the same conversation, then both reruns again: the ratios;
6. in a second browser context: each of Chip preview, Language QA and Library is opened once (warm-up),
   then ``--opens`` times from Ask; the time until it is interactive (its run is over, every chip of
   Chip preview drawn, every Library thumbnail loaded), median, and the server CPU meanwhile;
7. Language QA's first Run (en, de, fr): lingua is loaded then, not before.

A CPU figure runs from a quiet server (no CPU used for 0.3 s) to a quiet server again after the step, so work
the browser does not wait for is counted too. Steps 1 to 4 run in ``--servers`` (3) fresh servers per variant
(variants in turn) and each figure is their median; steps 5 to 7 run in the first ``now`` server only (step 5
also in the first server of ``inline-chips`` and ``post-script-gc``).

The other variants change one thing in the server process, by a ``sitecustomize`` of this benchmark put on
its import path (nothing in the checkout changes):

* ``probe``: the chip component gets its data as a dict, as the app sent it before it sent bytes;
  Streamlit then checks each value for a dataframe, which imports pandas and pyarrow;
* ``lean-ocr``: pytesseract is imported without pandas. Loading a course checks whether page images can be
  read (``citation_core.material.ocr``), which imports pytesseract, and pytesseract imports pandas when it
  is installed; this shows what the app costs without that;
* ``lean-ocr+probe``: both, i.e. the chip data's own share of the first ask;
* ``inline-chips``: the chip component carries its JavaScript and CSS in every mount (about 55 KB), as when
  Streamlit finds no manifest of the installed package; its first server measures step 5 too;
* ``post-script-gc``: Streamlit's default of a full garbage collection after every run, which the app's
  ``.streamlit/config.toml`` turns off (an environment setting, not a ``sitecustomize``); step 5 too.

The script prints a Markdown table (one column per variant) and exits 1 when a figure of ``now`` misses
its target (``--no-check``: 0).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.harness import ask, launch, open_ask, running_app, wait_idle

TICK = os.sysconf("SC_CLK_TCK")
QUESTION = "How does the merge procedure combine two sorted halves?"
PAGES = {  # navigation label: text that shows once the page has drawn its top
    "Chip preview": "Gallery of edge cases",
    "Language QA": "Languages",
    "Library": "Upload a deck",
}
TARGETS = {  # (metric, limit): what the figures should stay within
    "first render, server CPU (s)": 3.0,
    "first ask, server CPU (s)": 0.8,
    # 130 MiB before meaning; the embedding model adds about 44 (its token table 15, the Llama 2 tokenizer 20,
    # safetensors and the course's statement vectors the rest), measured side by side with it off
    "peak RSS after 5 asks (MiB)": 175.0,
    "Chip preview interactive (s)": 3.0,
    "Language QA interactive (s)": 3.0,
    "Library interactive (s)": 3.0,
    "rerun CPU, 20 answers / 1 answer": 1.2,
}

# Put on the server's import path for every variant but ``now``; each flag changes one thing, in the server only.
SITECUSTOMIZE = '''
import json
import os
import sys

if os.environ.get("BENCH_PYTESSERACT_WITHOUT_PANDAS") == "1":
    # pytesseract imports pandas when it can (for one output type the app never asks for): import it once
    # with pandas hidden, as if the OCR availability check did not import it
    _saved = sys.modules.get("pandas")
    sys.modules["pandas"] = None
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        pass
    finally:
        del sys.modules["pandas"]
        if _saved is not None:
            sys.modules["pandas"] = _saved

if os.environ.get("BENCH_CHIP_DATA_AS_DICT") == "1":
    # the chip component gets its data as a dict again: Streamlit probes each value for a dataframe
    # (components mount through ``st._bidi_component``, bound when streamlit is imported)
    import streamlit

    _mount = streamlit._bidi_component

    def _bidi_component(component_name, key=None, isolate_styles=True, data=None, *args, **kwargs):
        if isinstance(data, (bytes, bytearray)):
            data = json.loads(data)
        return _mount(component_name, key, isolate_styles, data, *args, **kwargs)

    streamlit._bidi_component = _bidi_component

if os.environ.get("BENCH_CHIPS_INLINE") == "1":
    # the chip component is declared with its code inline, as the app did before the package served its files:
    # a component naming files is refused as when Streamlit finds no manifest, and the app falls back
    import streamlit.components.v2 as v2
    from streamlit.errors import StreamlitAPIException

    _component = v2.component

    def component(name, *, html=None, css=None, js=None, **kwargs):
        if js is not None and "\n" not in js:
            raise StreamlitAPIException(f"{name}: no asset_dir (bench variant inline-chips)")
        return _component(name, html=html, css=css, js=js, **kwargs)

    v2.component = component
'''
VARIANTS = {  # name: the flags of SITECUSTOMIZE it sets
    "now": (),
    "probe": ("BENCH_CHIP_DATA_AS_DICT",),
    "lean-ocr": ("BENCH_PYTESSERACT_WITHOUT_PANDAS",),
    "lean-ocr+probe": ("BENCH_PYTESSERACT_WITHOUT_PANDAS", "BENCH_CHIP_DATA_AS_DICT"),
    "inline-chips": ("BENCH_CHIPS_INLINE",),
    "post-script-gc": ("STREAMLIT_RUNNER_POST_SCRIPT_GC",),
}
# variants whose first server also measures the reruns after ``--answers``
GROWN = ("now", "inline-chips", "post-script-gc")


class Server:
    """The Streamlit process the harness started (a child of this one), seen through /proc."""

    def __init__(self, port: str) -> None:
        self.pid = self._find(port)

    @staticmethod
    def _find(port: str) -> int:
        me = os.getpid()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == me and b"streamlit" in cmdline and port.encode() in cmdline:
                return int(entry)
        raise RuntimeError(f"no Streamlit server on port {port} among this process's children")

    def cpu(self) -> float:
        """User + system seconds of the whole process so far (threads that ended included)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def _status(self, name: str) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1]) / 1024
        raise KeyError(name)

    def rss(self) -> float:
        return self._status("VmRSS")

    def peak(self) -> float:
        return self._status("VmHWM")

    def loaded(self, package: str) -> bool:
        """Whether a shared library of ``package`` (e.g. pandas) is mapped: the package has been imported."""
        needle = f"/site-packages/{package}/"
        return needle in Path(f"/proc/{self.pid}/maps").read_text()


@dataclass
class Result:
    variant: str
    rows: list[tuple[str, str]] = field(default_factory=list)
    figures: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, value: float, fmt: str = "{:.2f}") -> None:
        self.figures[name] = value
        self.rows.append((name, fmt.format(value)))

    def note(self, name: str, text: str) -> None:
        self.rows.append((name, text))


def run_over(page: Any, timeout: float = 180_000) -> None:
    """Until the app's script run is over (the state Streamlit writes on its root element) and nothing is stale."""
    page.wait_for_function("() => { const s = document.querySelector('[data-testid=stApp]')"
                           "?.getAttribute('data-test-script-state');"
                           " return s && s !== 'running' && s !== 'rerunRequested'; }", timeout=timeout)
    wait_idle(page, timeout)


def settle(server: Server, quiet: float = 0.3) -> None:
    """Until the server has used no CPU for ``quiet`` seconds (work the browser does not wait for included)."""
    last = server.cpu()
    while True:
        time.sleep(quiet)
        now = server.cpu()
        if now - last < 0.015:
            return
        last = now


def cpu_of(server: Server, action: Callable[[], Any]) -> float:
    """Server CPU seconds of ``action`` and of whatever the server still does for it afterwards."""
    settle(server)
    before = server.cpu()
    action()
    settle(server)
    return server.cpu() - before


def loaded_modules(server: Server) -> str:
    names = [n for n in ("pandas", "pyarrow", "lingua") if server.loaded(n)]
    return ", ".join(names) if names else "none of pandas, pyarrow, lingua"


def rerun_cpu(server: Server, page: Any, count: int) -> float:
    """Mean server CPU of one rerun of Ask: the viewer's ▶ and ◀ in turn, each waited out (after one ▶ ◀ not
    counted: both slides' images are rendered then)."""
    for name in ("▶", "◀"):
        page.get_by_role("button", name=name).click()
        run_over(page)
    total = 0.0
    for i in range(count):
        button = page.get_by_role("button", name="▶" if i % 2 == 0 else "◀")
        total += cpu_of(server, lambda b=button: (b.click(), run_over(page)))
    return total / count


def page_rerun_cpu(server: Server, page: Any, count: int) -> float:
    """Mean server CPU of a rerun of the whole Ask page: "Last answer as" switched between two of its views in
    turn (the viewer's buttons rerun the viewer only), after one of each not counted."""
    views = ("Raw answer", "Sources list")
    for name in views:
        page.get_by_role("radio", name=name, exact=True).click()
        run_over(page)
    total = 0.0
    for i in range(count):
        button = page.get_by_role("radio", name=views[i % 2], exact=True)
        total += cpu_of(server, lambda b=button: (b.click(), run_over(page)))
    return total / count


def chips_drawn(page: Any) -> int:
    """Answers the chip component has drawn (its roots, inside the components' shadow roots)."""
    return int(page.locator(".cite-answer").count())


def open_page(server: Server, page: Any, url: str, name: str, chip_count: int) -> tuple[float, float]:
    """Seconds from the navigation click to an interactive page, and the server CPU meanwhile (Ask is open
    before, not counted)."""
    open_ask(page, url)
    run_over(page)
    settle(server)
    cpu = server.cpu()
    start = time.perf_counter()
    page.get_by_role("link", name=name).click()
    page.get_by_text(PAGES[name]).first.wait_for(timeout=120_000)
    run_over(page)
    if name == "Chip preview":
        deadline = time.monotonic() + 120
        while chips_drawn(page) < chip_count and time.monotonic() < deadline:
            page.wait_for_timeout(25)
    elif name == "Library":
        page.wait_for_function("() => { const im = [...document.querySelectorAll('[data-testid=stImage] img')];"
                               " return im.length > 0 && im.every(i => i.complete && i.naturalWidth > 0); }",
                               timeout=120_000)
    elif name == "Language QA":
        page.get_by_role("button", name="Run").wait_for(timeout=120_000)
    seconds = time.perf_counter() - start
    settle(server)
    return seconds, server.cpu() - cpu


@contextmanager
def app(variant: str, tmp: Path) -> Iterator[str]:
    tmp.mkdir(parents=True)
    env = {"CITATION_STUDIO_DB": str(tmp / f"{variant}.sqlite3"), "CITATION_STUDIO_LIBRARY": str(tmp / "library")}
    if VARIANTS[variant]:
        site = tmp / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
        env.update({flag: "true" if flag.startswith("STREAMLIT_") else "1" for flag in VARIANTS[variant]})
    with running_app(env, timeout=120) as url:
        yield url


def session(variant: str, args: argparse.Namespace, browser: Any, tmp: Path, grow: bool, full: bool) -> Result:
    """One server: steps 1 to 4, with ``grow`` step 5, with ``full`` steps 6 and 7 (see the module docstring)."""
    import json

    result = Result(variant)
    chip_count = 1 + len(json.loads((Path(__file__).resolve().parents[1] / "citation_core" / "contract" /
                                     "vectors.json").read_text(encoding="utf-8"))["cases"])
    with app(variant, tmp / f"{variant}-{time.monotonic_ns()}") as url:
        server = Server(url.rsplit(":", 1)[1])
        time.sleep(1.0)
        idle_start = server.cpu()
        time.sleep(2.0)
        idle = (server.cpu() - idle_start) / 2.0
        result.add("server at rest, CPU (s per s)", idle, "{:.3f}")
        result.add("RSS after start (MiB)", server.rss(), "{:.0f}")

        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        result.add("first render, server CPU (s)", cpu_of(server, lambda: (open_ask(page, url), run_over(page))))
        result.note("loaded after first render", loaded_modules(server))
        result.add("RSS after first render (MiB)", server.rss(), "{:.0f}")

        result.add("first ask, server CPU (s)", cpu_of(server, lambda: (ask(page, QUESTION), run_over(page))))
        result.note("loaded after first ask", loaded_modules(server))
        one = rerun_cpu(server, page, args.reruns)
        result.add("rerun CPU, 1 answer (s)", one, "{:.3f}")
        whole_one = page_rerun_cpu(server, page, args.reruns) if grow else 0.0
        for i in range(4):
            ask(page, f"{QUESTION} ({i + 2})")
        result.add("peak RSS after 5 asks (MiB)", server.peak(), "{:.0f}")
        if grow:
            for i in range(5, args.answers):
                ask(page, f"{QUESTION} ({i + 1})")
            many = rerun_cpu(server, page, args.reruns)
            result.add(f"rerun CPU, {args.answers} answers (s)", many, "{:.3f}")
            result.add(f"rerun CPU, {args.answers} answers / 1 answer", many / one)
            whole_many = page_rerun_cpu(server, page, args.reruns)
            result.add("whole-page rerun CPU, 1 answer (s)", whole_one, "{:.3f}")
            result.add(f"whole-page rerun CPU, {args.answers} answers (s)", whole_many, "{:.3f}")
            result.add(f"whole-page rerun CPU, {args.answers} answers / 1 answer", whole_many / whole_one)
            result.add(f"RSS after {args.answers} answers and their reruns (MiB)", server.rss(), "{:.0f}")
        ctx.close()
        if not full:
            return result

        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        page = ctx.new_page()
        for name in PAGES:
            open_page(server, page, url, name, chip_count)  # warm-up: the page's first run in this server
            opens = [open_page(server, page, url, name, chip_count) for _ in range(args.opens)]
            result.add(f"{name} interactive (s)", statistics.median(t for t, _ in opens))
            result.add(f"{name} open, server CPU (s)", statistics.median(c for _, c in opens))
        result.note("loaded before Language QA runs", loaded_modules(server))

        page.get_by_role("link", name="Language QA").click()
        page.get_by_role("button", name="Run").wait_for(timeout=120_000)
        run_over(page)
        settle(server)
        rss = server.rss()

        def run_language_qa() -> None:
            page.get_by_role("button", name="Run").click()
            page.get_by_text("mismatch").nth(2).wait_for(timeout=180_000)
            run_over(page)

        result.add("Language QA first Run (en, de, fr), server CPU (s)", cpu_of(server, run_language_qa))
        result.add("Language QA first Run, RSS growth (MiB)", server.rss() - rss, "{:.0f}")
        result.note("loaded after Language QA ran", loaded_modules(server))
        ctx.close()
    return result


def merged(runs: list[Result]) -> Result:
    """The median of each figure over several servers of one variant (notes: the first server's)."""
    out = Result(runs[0].variant)
    for name, text in runs[0].rows:
        if name in runs[0].figures:
            values = [r.figures[name] for r in runs if name in r.figures]
            digits = len(text.split(".")[1]) if "." in text else 0
            out.add(name, statistics.median(values), f"{{:.{digits}f}}")
        else:
            out.note(name, text)
    return out


def table(results: list[Result]) -> str:
    names: list[str] = []
    for r in results:
        names.extend(n for n, _ in r.rows if n not in names)
    lines = ["| measure | " + " | ".join(r.variant for r in results) + " | target |",
             "|---|" + "---:|" * len(results) + "---:|"]
    for name in names:
        cells = [dict(r.rows).get(name, "—") for r in results]
        target = f"≤ {TARGETS[name]:g}" if name in TARGETS else ""
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {target} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append", choices=list(VARIANTS),
                        help="which sessions to run (repeatable); default: all, see the module docstring")
    parser.add_argument("--answers", type=int, default=20, help="answers in the conversation of the second rerun")
    parser.add_argument("--reruns", type=int, default=10, help="reruns averaged per figure")
    parser.add_argument("--opens", type=int, default=3, help="timed opens per page (median)")
    parser.add_argument("--servers", type=int, default=3,
                        help="servers per variant for steps 1 to 4 (median); the first of ``now`` runs every step")
    parser.add_argument("--no-check", action="store_true", help="exit 0 even when a target is missed")
    args = parser.parse_args(argv)
    variants = args.variant or list(VARIANTS)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = launch(pw)
        try:
            runs: dict[str, list[Result]] = {v: [] for v in variants}
            for i in range(args.servers):  # variants in turn, so that a change of load falls on all of them
                for variant in variants:
                    runs[variant].append(session(variant, args, browser, Path(tmp), grow=variant in GROWN and i == 0,
                                                 full=variant == "now" and i == 0))
                    print(f"{variant}: server {i + 1} of {args.servers} done", file=sys.stderr)
            results = [merged(r) for r in runs.values()]
        finally:
            browser.close()
    print(table(results))
    missed = [f"{name}: {r.figures[name]:.2f} > {limit:g} ({r.variant})" for r in results if r.variant == "now"
              for name, limit in TARGETS.items() if name in r.figures and r.figures[name] > limit]
    for line in missed:
        print(f"missed: {line}", file=sys.stderr)
    return 1 if missed and not args.no_check else 0


if __name__ == "__main__":
    sys.exit(main())
