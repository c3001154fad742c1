"""Where the material caches live, found from the environment alone (reading it loads no PDF or image library).

Page-image readings go to ``$CITATION_STUDIO_OCR_CACHE``, else ``$XDG_CACHE_HOME/citation-studio/ocr``
(``~/.cache/citation-studio/ocr``); parsed decks, and the statement vectors inside their folder, beside them
(``material.deck_cache.cache_dir``).
"""

from __future__ import annotations

import os
from pathlib import Path

OCR_CACHE_ENV = "CITATION_STUDIO_OCR_CACHE"


def ocr_cache_dir() -> Path:
    """Where read pages are kept: ``$CITATION_STUDIO_OCR_CACHE``, else ``$XDG_CACHE_HOME/citation-studio/ocr``
    (``~/.cache/citation-studio/ocr``)."""
    configured = os.environ.get(OCR_CACHE_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citation-studio" / "ocr"


__all__ = ["OCR_CACHE_ENV", "ocr_cache_dir"]
