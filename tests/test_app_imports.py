"""What the app imports, and when: chips never pull in pandas, lingua loads on the first language detection.

Each check runs in a fresh interpreter (``sys.modules`` of the test process is shared by every test).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citation_core.lms.chips import COMPONENT_CSS_FILE, COMPONENT_JS_FILE, PACKAGED_COMPONENT_NAME
from tests.conftest import ROOT

pytestmark = pytest.mark.timeout(300)


def run_python(code: str, tmp_path: Path) -> dict[str, object]:
    """Run ``code`` in a new interpreter (in the checkout, its own database); it prints one JSON line last."""
    env = {"CITATION_STUDIO_DB": str(tmp_path / "lms.sqlite3"), "CITATION_STUDIO_LIBRARY": str(tmp_path / "library"),
           "PYTHONPATH": str(ROOT)}
    import os

    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


CHIPS = r'''
import json, sys
from streamlit.testing.v1 import AppTest

SCRIPT = """
import sys
import streamlit as st
from studio.chips import render_chips

UNITS = {"101": {"lectureTitle": "Lecture 1", "lectureUnitTitle": "Merge sort", "lectureId": 10, "courseId": 1,
                 "attachmentVersion": 1, "videoVersion": 1, "hasDeck": True, "hasVideo": True,
                 "slides": {"4": {"printed": "2", "title": "Merge Sort: The Idea"}}},
         "201": {"lectureTitle": "Lecture 2", "lectureUnitTitle": "Quicksort", "lectureId": 20, "courseId": 1,
                 "attachmentVersion": 1, "videoVersion": 1, "hasDeck": True, "hasVideo": False, "slides": {}}}
FAQS = {"1": {"question": "When is the exam?"}, "2": {"question": "May I bring notes?"}}
render_chips("Merge sort splits the array.[cite:L:101:4:::Divide:The array is split.:va1] "
             "Bring one sheet.[cite:F:2::::Aids:One sheet.]", UNITS, FAQS, key="answer")
st.session_state["modules"] = [m for m in ("pandas", "pyarrow") if m in sys.modules]
"""

at = AppTest.from_string(SCRIPT, default_timeout=60)
at.run()
assert not at.exception, at.exception
(component,) = at.get("bidi_component")
proto = component.proto
kind = proto.WhichOneof("data")
data = json.loads(proto.bytes) if kind == "bytes" else None
print(json.dumps({"modules": at.session_state["modules"], "kind": kind, "data": data,
                  "name": proto.component_name, "js": proto.js_content, "css": proto.css_content,
                  "js_path": proto.js_source_path, "css_path": proto.css_source_path}))
'''


def test_rendering_chips_does_not_import_pandas(tmp_path: Path) -> None:
    out = run_python(CHIPS, tmp_path)
    assert out["modules"] == []
    # bytes reach the component as they are; a dict's values would be probed for dataframes
    assert out["kind"] == "bytes"
    data = out["data"]
    assert isinstance(data, dict)
    assert 'data-cite="[cite:L:101:4:::Divide:The array is split.:va1]"' in data["html"]
    # only what the markers name
    assert list(data["units"]) == ["101"] and list(data["faqs"]) == ["2"]


def test_a_chip_mount_names_the_renderer_files_instead_of_carrying_them(tmp_path: Path) -> None:
    """The installed package declares the renderer's folder (``citation_core/pyproject.toml``): each mount
    carries its data only, and the browser loads the code once, not 55 KB more per answer on the page."""
    out = run_python(CHIPS, tmp_path)
    assert out["name"] == PACKAGED_COMPONENT_NAME
    assert (out["js"], out["css"]) == ("", "")
    assert (out["js_path"], out["css_path"]) == (COMPONENT_JS_FILE, COMPONENT_CSS_FILE)


PAGES = r'''
import json, sys
import streamlit as st
from streamlit.testing.v1 import AppTest

spinners = []
spinner = st.spinner


def spy(text="", *args, **kwargs):
    spinners.append(text)
    return spinner(text, *args, **kwargs)


st.spinner = spy
seen = {}
for name in ("ask.py", "chip_preview.py", "library.py", "language_qa.py"):
    at = AppTest.from_file(f"pages/{name}", default_timeout=120)
    at.run()
    assert not at.exception, (name, at.exception)
    seen[name] = "lingua" in sys.modules
loading = [s for s in spinners if "language detector" in s]
at.button[0].click().run()  # Language QA: Run (en, de, fr)
assert not at.exception, at.exception
first = [s for s in spinners if "language detector" in s]
at.button[0].click().run()
again = [s for s in spinners if "language detector" in s]
print(json.dumps({"before": seen, "loading_before": loading, "after_run": "lingua" in sys.modules,
                  "first": first, "again": again}))
'''


def test_lingua_loads_on_the_first_detection_and_the_page_says_so(tmp_path: Path) -> None:
    out = run_python(PAGES, tmp_path)
    assert out["before"] == {"ask.py": False, "chip_preview.py": False, "library.py": False, "language_qa.py": False}
    assert out["loading_before"] == []
    assert out["after_run"] is True
    # one spinner while the detector is built, then none: it is built once per process
    assert out["first"] == ["Loading the language detector (first use, a few seconds)…"]
    assert out["again"] == out["first"]


def test_loading_a_course_imports_neither_pytesseract_nor_pandas() -> None:
    """Whether page images could be read is asked for every deck; the answer needs no import of pytesseract
    (which imports pandas when it is installed): 0.7 s and 67 MiB at the app's first render."""
    code = ("import sys; from pathlib import Path\n"
            "from citation_core.material.library import load_material\n"
            "from citation_core.material import ocr\n"
            "m = load_material(Path('sample_decks'))\n"
            "assert ocr._why_unavailable() is None, ocr._why_unavailable()\n"
            "print(sorted(n for n in ('pytesseract', 'pandas', 'pyarrow') if n in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
