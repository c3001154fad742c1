"""The citation chip renderer's assets and data, and a standalone HTML preview (no Streamlit needed).

The app mounts the same JavaScript and CSS as one Streamlit custom component (components v2). The JavaScript
is three ES modules in the package's asset folder, served as they are: ``chips.js`` (the entry, default
export) imports ``chip_model.js`` and ``citation_parser.js`` beside it. Where no module can be fetched (the
standalone preview page, or a checkout Streamlit cannot find as a package), ``chip_component_js`` joins
them into one module in memory.

Data sent to the component (``data``)::

    {"html":  render_markdown(answer_text),      # pre-escaped; markers are <span class="cite-raw">
     "units": {"<unit id>": {"lectureTitle", "lectureUnitTitle", "lectureId", "courseId",
                             "attachmentVersion", "videoVersion", "hasDeck", "hasVideo", "hasTranscript",
                             "slides": {"<deck index>": {"printed": str | None, "title": str}}}},
     "faqs":  {"<faq id>": {"question"}}}

The app sends it as UTF-8 JSON bytes, with only the units and FAQs the answer's markers name
(``studio.chips.chip_payload``); the preview below passes the object itself.

``slides`` (from ``unit_table``; empty without a deck; one entry per page of the deck) is how people name a
slide: the chips show "Slide <printed>"; for a slide that prints no number its place in the deck, "Page 12 of
20", with "“<title>”" beside it when no other page has that title; or just "Slide" when the slide is unknown.

Click value (trigger ``click``; a fresh ``nonce`` per click, so a second click on the same chip is a
new value)::

    {"kind": "slide", "unitId": str, "page": int, "nonce": str}
    {"kind": "video", "unitId": str, "start": int, "end": int | None, "nonce": str}
    {"kind": "unit",  "unitId": str, "stale": bool, "reason": str, "cited": str, "nonce": str}
    # reason "changed": stale chip, its stored version older than the unit's (stale True); "newer": its stored
    # version newer than the unit's, a citation from another copy of the material (stale False); "gone": the
    # unit has hasDeck/hasVideo False or not that slide; "position": no page/start
    # a video chip of a unit with a transcript but no video (hasTranscript) opens the transcript at the cue

FAQ chips send nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .evidence_view import chip_evidence
from .render import render_markdown

__all__ = [
    "COMPONENT_CSS_FILE",
    "COMPONENT_JS_FILE",
    "COMPONENT_MODULES",
    "COMPONENT_NAME",
    "PACKAGED_COMPONENT_NAME",
    "chip_component_css",
    "chip_component_js",
    "chip_data",
    "html_preview_document",
]

COMPONENT_NAME = "citation_studio_chips"
# The same component served from the installed package's files: ``citation_core/pyproject.toml`` declares
# ``components/chips`` as the asset folder of the component "chips" of the distribution "citation-core".
PACKAGED_COMPONENT_NAME = "citation-core.chips"
ASSET_DIR = Path(__file__).resolve().parents[1] / "components" / "chips"
COMPONENT_MODULES = ("citation_parser.js", "chip_model.js", "chips.js")  # each imports only those before it
COMPONENT_JS_FILE = "chips.js"  # the entry module; the browser fetches the others through its imports
COMPONENT_CSS_FILE = "chips.css"
_IMPORT_RE = re.compile(r'^import\s[^;]*?\sfrom\s"\./([\w.]+)";[ \t]*\n', re.MULTILINE)
_EXPORT_RE = re.compile(r"^export (?!default )", re.MULTILINE)


def _read(name: str) -> str:
    return (ASSET_DIR / name).read_text(encoding="utf-8")


def imported_modules(name: str) -> list[str]:
    """The sibling modules ``name`` imports (``import … from "./x.js";``)."""
    return _IMPORT_RE.findall(_read(name))


def chip_component_js() -> str:
    """The three modules joined into one, for pages that cannot fetch them: each without its imports (the
    modules before it are in scope) and with its named exports as plain declarations; the entry module's
    default export stays the one export."""
    return "\n".join(_EXPORT_RE.sub("", _IMPORT_RE.sub("", _read(name))) for name in COMPONENT_MODULES)


def chip_component_css() -> str:
    return _read(COMPONENT_CSS_FILE)


def chip_data(answer_text: str, units: Mapping[str, Any], faqs: Mapping[str, Any],
              audits: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON data the component receives (keys of units and faqs as strings); with the answer's stored
    per-marker ``audits``, each marker's evidence and support verdict (``evidence_view.chip_evidence``)."""
    data = {
        "html": render_markdown(answer_text),
        "units": {str(k): dict(v) for k, v in units.items()},
        "faqs": {str(k): dict(v) for k, v in faqs.items()},
    }
    if audits:
        data["evidence"] = chip_evidence(answer_text, audits)
    return data


def _json_for_script(value: Any) -> str:
    """JSON that is safe inside a <script> element (no "</script", "<!--" or line separators)."""
    text = json.dumps(value, ensure_ascii=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


_PREVIEW_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Citation chips preview</title>
<style>
  html {{ background: #ffffff; }}
  body {{ margin: 0; padding: 40px 48px; color: #1f2430;
         font-family: "Source Sans Pro", "Source Sans 3", system-ui, -apple-system, "Segoe UI", sans-serif; }}
  #chips-host {{ max-width: 760px; }}
</style>
</head>
<body>
<div id="chips-host" data-testid="chips-host"></div>
<script type="application/json" id="chips-payload">{payload}</script>
<script type="module">
{js}

// ---- preview stub: mounts the component like Streamlit does (shadow root, CSS inside it) ----
const payload = JSON.parse(document.getElementById("chips-payload").textContent);
window.__clicks = [];
const host = document.getElementById("chips-host");
const shadow = host.attachShadow({{ mode: "open" }});
const style = document.createElement("style");
style.textContent = payload.css;
shadow.appendChild(style);
window.__unmount = mountCitationChips({{
  name: "{name}",
  key: "preview",
  data: payload.data,
  parentElement: shadow,
  setStateValue: () => {{}},
  setTriggerValue: (event, value) => window.__clicks.push({{ event, value }}),
}});
window.__mountCitationChips = mountCitationChips;
window.__chipsReady = true;
</script>
</body>
</html>
"""


def html_preview_document(answer_text: str, units: Mapping[str, Any], faqs: Mapping[str, Any],
                          audits: Sequence[Mapping[str, Any]] | None = None) -> str:
    """A standalone HTML page rendering the answer with the same CSS and JS as the component (``audits``: the
    answer's stored per-marker audits, for the evidence quotes).

    Clicks are recorded in ``window.__clicks`` as ``{event, value}``; ``window.__chipsReady`` is set
    once the chips are rendered; ``window.__mountCitationChips`` is the component's entry point.
    """
    js = chip_component_js()
    if "</script" in js.lower():
        raise ValueError("component JavaScript must not contain '</script'")
    payload = {"css": chip_component_css(), "data": chip_data(answer_text, units, faqs, audits)}
    return _PREVIEW_TEMPLATE.format(payload=_json_for_script(payload), js=js, name=COMPONENT_NAME)
