"""The library's shape: it never imports the app or Streamlit, and imports its own modules relatively."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "citation_core"
APP_ONLY = ("streamlit", "studio")  # lingua is the library's too (a deck's language), loaded on first use


def _imports(path: Path) -> list[tuple[int, str, int]]:
    """(line, module, level) of every import statement in ``path``."""
    out: list[tuple[int, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.lineno, node.module or "", node.level))
    return out


def test_the_library_imports_itself_relatively_and_never_the_app() -> None:
    absolute, app = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, module, level in _imports(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            if level == 0 and (module == "citation_core" or module.startswith("citation_core.")):
                absolute.append(f"{where} {module}")
            if level == 0 and module.split(".")[0] in APP_ONLY:
                app.append(f"{where} {module}")
    assert absolute == [], "absolute self-imports inside citation_core"
    assert app == [], "app-only imports inside citation_core"


def test_importing_the_library_and_the_cli_loads_no_app_or_pdf_rendering_code() -> None:
    code = ("import sys, citation_core, citation_core.cli.main\n"
            "print(sorted(m for m in ('streamlit', 'lingua', 'pypdfium2', 'openai', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
