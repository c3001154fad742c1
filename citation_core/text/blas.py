"""Numpy's BLAS on one thread once meaning is in use.

Meaning multiplies small matrices: a sentence's 15 token vectors with a line's 15 (``similarity.Matcher``),
a few sentences with a thousand statements (``llm.offline_meaning``). OpenBLAS spreads even those over every
core, and its helper threads then spin between products: on a 200-page cite the evidence of the citations
took 0.85 s of CPU with two BLAS threads and 0.45 s with one, the same numbers either way. The app's
sessions run their turns in threads of their own, so one BLAS thread per product is also what keeps two
turns from crowding each other on a small machine (the encoder was already run so).

The setting is the process's (BLAS has one thread pool per process): it is made once, when the first
meaning model loads, and never undone. Without ``threadpoolctl`` nothing changes.
"""

from __future__ import annotations

import functools


@functools.cache
def one_blas_thread() -> bool:
    """Run numpy's BLAS on the calling thread alone from now on; whether it could be set."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return False
    threadpool_limits(limits=1, user_api="blas")
    return True


__all__ = ["one_blas_thread"]
