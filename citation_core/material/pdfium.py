"""One lock around every pdfium call of the process: pdfium is not thread-safe, and the app serves several
sessions (threads) at once that render pages, read text, find evidence boxes and read page images."""

from __future__ import annotations

import threading

PDFIUM_LOCK = threading.RLock()
