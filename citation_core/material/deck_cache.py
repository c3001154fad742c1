"""Parsed decks kept on disk by content, so that a deck is parsed once, not at every start of the app.

An entry is what ``deck.py`` reads from the PDF itself: the text and title of every page, which engine
read each page, and the ``/PageLabels``. Its key is the SHA-256 of the PDF's bytes; the entry also
records :data:`PARSER_VERSION` and the versions of pypdf and pypdfium2, and an entry written by another
parser or engine version is parsed again. The printed numbers are not stored: they also depend on the
manifest's overrides and on the page images (which ``ocr.py`` caches by content itself), and deciding
them from the stored text takes well under a millisecond.

Entries are JSON files in :func:`cache_dir`, written atomically (a temporary file, then ``os.replace``).
An entry that cannot be read, is not JSON or does not hold what it should is ignored (the deck is parsed
again and the entry rewritten); a cache that cannot be written is no error either.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from . import json_cache
from .cache_paths import OCR_CACHE_ENV, ocr_cache_dir

__all__ = ["CACHE_ENV", "PARSER_VERSION", "ParsedDeck", "TextEngine", "cache_dir", "load", "store"]

CACHE_ENV = "CITATION_STUDIO_DECK_CACHE"
# Bump when what the parser makes of a PDF changes (text extraction, normalisation, titles, labels):
# entries of an older version are parsed again.
PARSER_VERSION = 5  # 2: runs of spaces in pdfium's text as wide as on the page; 3: costly decks refused;
# 4: lone surrogates in a text layer read as U+FFFD; 5: a page whose text cannot be read is kept, without text
MAX_CACHE_ENTRIES = 1000

TextEngine = Literal["pdfium", "pypdf"]


@dataclass(frozen=True)
class ParsedDeck:
    """What a deck's PDF says about itself, before printed numbers are decided."""

    texts: tuple[str, ...]
    titles: tuple[str, ...]
    engines: tuple[TextEngine, ...]  # which library read each page's text
    labels: tuple[str | None, ...] | None  # the /PageLabels, None when the catalog has none (or they are unusable)
    labels_problem: str | None = None  # why /PageLabels were ignored (a warning, without the file name)
    page_problems: tuple[tuple[int, str], ...] = ()  # (page, why) of pages whose text could not be read


def cache_dir() -> Path:
    """``$CITATION_STUDIO_DECK_CACHE``; else a ``decks`` folder inside ``$CITATION_STUDIO_OCR_CACHE`` when that
    is set; else ``$XDG_CACHE_HOME/citation-studio/decks`` (``~/.cache/citation-studio/decks``), beside the
    OCR cache."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    if os.environ.get(OCR_CACHE_ENV):
        return ocr_cache_dir() / "decks"
    return ocr_cache_dir().parent / "decks"


@functools.cache
def parser_id() -> str:
    """The parser version and the versions of the libraries that read the text (another version may read
    other text)."""
    from importlib import metadata

    versions = []
    for package in ("pypdf", "pypdfium2"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} ?")
    return f"{PARSER_VERSION}; " + "; ".join(versions)


def _entry_path(digest: str) -> Path:
    return cache_dir() / f"{digest}.json"


def load(digest: str) -> ParsedDeck | None:
    """The parsed deck stored for this content, or None (nothing stored, another parser, unreadable)."""
    try:
        entry = json.loads(_entry_path(digest).read_text(encoding="utf-8"))
        return _from_json(entry)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def store(digest: str, parsed: ParsedDeck, file_name: str = "") -> None:
    """Write the entry for this content atomically; a cache that cannot be written is no error."""
    json_cache.write_entry(_entry_path(digest), _to_json(parsed, file_name), MAX_CACHE_ENTRIES)


def _to_json(parsed: ParsedDeck, file_name: str) -> dict[str, Any]:
    return {
        "parser": parser_id(),
        "file": file_name,  # for a person looking into the cache; not read back
        "pages": [{"text": text, "title": title, "engine": engine}
                  for text, title, engine in zip(parsed.texts, parsed.titles, parsed.engines, strict=True)],
        "labels": list(parsed.labels) if parsed.labels is not None else None,
        "labels_problem": parsed.labels_problem,
        "page_problems": [[page, why] for page, why in parsed.page_problems],
    }


def _from_json(entry: Any) -> ParsedDeck | None:
    if not isinstance(entry, dict) or entry.get("parser") != parser_id():
        return None
    pages = entry["pages"]
    if not isinstance(pages, list) or not pages:
        return None
    texts, titles, engines = [], [], []
    for page in pages:
        text, title, engine = page["text"], page["title"], page["engine"]
        if not isinstance(text, str) or not isinstance(title, str) or engine not in ("pdfium", "pypdf"):
            return None
        texts.append(text)
        titles.append(title)
        engines.append(engine)
    labels = entry["labels"]
    if labels is not None and (
        not isinstance(labels, list)
        or len(labels) != len(pages)
        or not all(label is None or isinstance(label, str) for label in labels)
    ):
        return None
    problem = entry["labels_problem"]
    if problem is not None and not isinstance(problem, str):
        return None
    page_problems = entry["page_problems"]
    if not isinstance(page_problems, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and isinstance(p[1], str)
            for p in page_problems):
        return None
    return ParsedDeck(
        texts=tuple(texts),
        titles=tuple(titles),
        engines=tuple(engines),
        labels=tuple(labels) if labels is not None else None,
        labels_problem=problem,
        page_problems=tuple((page, why) for page, why in page_problems),
    )
