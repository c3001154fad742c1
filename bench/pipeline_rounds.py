"""LLM round trips per citation pass: ``python -m bench.pipeline_rounds`` runs ``citation-studio bench``.

The benchmark ships with the library (``citation_core.testing.rounds``) so that an installed
``citation-studio bench`` runs it too; see that module and bench/README.md for what it measures.
"""

from __future__ import annotations

import sys

from citation_core.testing.rounds import main

if __name__ == "__main__":
    sys.exit(main())
