"""Small Streamlit pieces shared by pages: model badges, trace panel, chip rendering."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import streamlit as st

from citation_core.errors import InputError
from citation_core.llm.config import LlmConfig
from citation_core.material.library import CourseMaterial

from . import cached
from .chips import show_chips
from .services import role_models
from .text import md_escape, plural

OFFLINE_NOTE = "extractive, deterministic, no key; it cannot translate"


def model_badges(config: LlmConfig, variant: str) -> bool:
    """Which model serves which roles (each model named once); True when any role runs on the offline model."""
    roles = role_models(config, variant)
    by_model: dict[str, list[str]] = {}
    for role, (name, _) in roles.items():
        by_model.setdefault(name, []).append(role)
    offline = any(is_off for _, is_off in roles.values())
    st.caption(" · ".join(f"{', '.join(names)}: `{name}`" for name, names in by_model.items()))
    if offline:
        st.markdown(f":orange-badge[Offline model] {OFFLINE_NOTE}")
    return offline


def slide_image(png: bytes, *, width: int | Literal["stretch", "content"] = "stretch",
                caption: str | None = None) -> None:
    """Show a PNG (e.g. ``cached.deck_png``) as it is.

    ``st.image`` given bytes picks JPEG for an image without transparency, so it decodes the PNG and
    encodes a JPEG on every rerun (10 to 16 ms for a 960 px slide; the JPEG of a slide is no smaller).
    Told that the bytes are a PNG, it registers them untouched, unless it has to shrink the image: wider
    than ``width`` (a number), or than 1460 px.
    """
    st.image(png, width=width, caption=caption, output_format="PNG")


def chips(answer: str, material: CourseMaterial, key: str,
          on_click: Callable[[dict[str, Any]], None] | None = None,
          audits: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any] | None:
    """The answer with its chips; ``audits`` (stored per marker) add the evidence quotes and support flags."""
    return show_chips(lambda: cached.chip_payload(answer, material, audits), key, on_click)


def stored_chips(payload: bytes | InputError, key: str,
                 on_click: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
    """A stored answer with its chips, from its payload (``cached.conversation_payloads``)."""

    def data() -> bytes:
        if isinstance(payload, InputError):
            raise payload
        return payload

    return show_chips(data, key, on_click)


# How each phase output of a trace is labelled; outputs not named here show under their own name.
OUTPUT_LABELS = {
    "sources_json": "Sources given to the model (JSON)",
    "prompt": "Prompt",
    "raw_output": "Placement output (raw)",
    "placed_answer": "Answer with the placed markers",
    "answer": "Answer",
    "used_sequence_numbers": "Used sequence numbers",
    "keywords": "Keywords by sequence number",
    "summaries": "Summaries by sequence number",
    "retrieved": "Retrieved sources",
    "evidence": "Evidence by sequence number",
    "switched_to": "Switched context to unit",
    "sources": "Sources",
    "entries": "Entries",
    "used": "Citations to enrich",
    "strategy": "Keyword strategy",
    "corrections": "Corrections",
    "text_changed": "Answer text changed by the model",
}
CODE_LANGUAGE = {"sources_json": "json", "prompt": "text", "raw_output": "markdown", "placed_answer": "markdown",
                 "answer": "markdown"}


def _label(key: str) -> str:
    return OUTPUT_LABELS.get(key, key.replace("_", " ").capitalize())


def _short(value: Any) -> bool:
    """Shown in the phase's table of values rather than on its own."""
    if isinstance(value, str):
        return len(value) <= 80 and "\n" not in value
    if isinstance(value, (list, dict)):
        return len(json.dumps(value, ensure_ascii=False)) <= 80
    return True


def _as_text(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def literal_table(data: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]], **options: Any) -> None:
    """``st.table`` with every cell shown as written: ``st.table`` renders each text cell as Markdown, so an
    answer holding ``![t](http://…)`` would make the browser fetch that image and ``**x**`` would show bold."""
    def cell(value: Any) -> Any:
        return md_escape(value) if isinstance(value, str) else value

    if isinstance(data, Mapping):
        st.table({md_escape(k): [cell(v) for v in column] for k, column in data.items()}, **options)
    else:
        st.table([{md_escape(k): cell(v) for k, v in row.items()} for row in data], **options)


def _phase(phase: Mapping[str, Any]) -> None:
    st.markdown(f"**{md_escape(phase['name'])}** · {phase['duration'] * 1000:.0f} ms · {md_escape(phase['status'])}")
    outputs: Mapping[str, Any] = phase.get("outputs") or {}
    small = {k: v for k, v in outputs.items() if _short(v)}
    if small:
        literal_table({"output": [_label(k) for k in small], "value": [_as_text(v) for v in small.values()]},
                      hide_index=True, border="horizontal")
    for key, value in outputs.items():
        if key in small:
            continue
        st.caption(md_escape(_label(key)))
        if isinstance(value, str):
            st.code(value, language=CODE_LANGUAGE.get(key, "text"), wrap_lines=True)
        else:
            st.json(value, expanded=2)


def _calls(calls: list[Mapping[str, Any]]) -> None:
    """One row per call (wraps inside its column), then each call's prompt and output."""
    literal_table({
        "task": [c["task"] for c in calls],
        "seq": ["—" if c.get("seq") is None else str(c["seq"]) for c in calls],
        "ms": [str(round(c["duration"] * 1000)) for c in calls],
        "tokens in → out": [f"{c['prompt_tokens']} → {c['completion_tokens']}" for c in calls],
        "cost $": [f"{c['cost']:.6f}" for c in calls],
        "error": [c.get("error") or "—" for c in calls],
    }, hide_index=True, border="horizontal")
    for c in calls:
        seq = "" if c.get("seq") is None else f" {c['seq']}"
        st.caption(md_escape(f"{c['task']}{seq} · {c['model_id']} ({c['model_name']}) · variant {c['variant']} · "
                             f"started at {c['started'] * 1000:.0f} ms"))
        st.code(c["prompt"], language="text", wrap_lines=True)
        st.code(c["output"] or "(no output)", language="text", wrap_lines=True)


def models_line(models: Mapping[str, str]) -> str:
    """Which model served which roles of a run, each model named once."""
    by_model: dict[str, list[str]] = {}
    for role, model in models.items():
        by_model.setdefault(model, []).append(role)
    return " · ".join(f"{', '.join(roles)}: {model}" for model, roles in by_model.items())


def trace_panel(traces: Mapping[str, Mapping[str, Any]], key: str) -> None:
    """Everything a run recorded (``Trace.to_json()`` per pass): phases, model calls, settings."""
    for name, data in traces.items():
        usage = data["usage"]
        est = " (estimated)" if usage["estimated"] else ""
        with st.expander(f"{name} pass · {plural(usage['calls'], 'call')} · {usage['prompt_tokens']}+"
                         f"{usage['completion_tokens']} tokens{est} · ${usage['cost']:.6f}", expanded=False):
            for w in data["warnings"]:
                st.warning(md_escape(w))
            for f in data["failures"]:
                st.error(md_escape(f"{f['kind']}: {f['message']} → {f['outcome']}"))
            phases_tab, calls_tab, settings_tab = st.tabs(["Phases", "Model calls", "Settings"])
            with phases_tab:
                for phase in data["phases"]:
                    _phase(phase)
            with calls_tab:
                if data["calls"]:
                    _calls(data["calls"])
                else:
                    st.caption("No model call in this pass.")
            with settings_tab:
                if data["info"]:
                    st.json(data["info"], expanded=True)
                else:
                    st.caption("No settings recorded.")
            st.download_button("Download trace (JSON)", json.dumps(data, ensure_ascii=False, indent=1),
                               file_name=f"trace-{name}.json", mime="application/json", key=f"dl-{key}-{name}",
                               on_click="ignore")
