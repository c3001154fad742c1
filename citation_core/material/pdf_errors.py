"""What pypdf raises on damaged files: its own errors, and plain Python errors from malformed objects (a wrong
type where a dictionary was expected, an index out of range, a stream that never ends)."""

from __future__ import annotations

from pypdf.errors import PyPdfError

PDF_ERRORS: tuple[type[Exception], ...] = (
    PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, AssertionError,
    RecursionError, OverflowError, ZeroDivisionError, UnicodeError, NotImplementedError, EOFError, OSError,
)
DECRYPT_ERRORS: tuple[type[Exception], ...] = (*PDF_ERRORS, ImportError)  # ImportError: no crypto library
