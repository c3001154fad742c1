"""Small Streamlit pieces shared by pages: model badges, trace panel, chip rendering."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from citation_core.llm.config import LlmConfig
from citation_core.material.library import CourseMaterial
from citation_core.pipeline.trace import Trace

from .chips import render_chips
from .services import chip_context, role_models
from .text import md_escape

OFFLINE_NOTE = "offline model: extractive, deterministic, no key; it cannot translate"


def model_badges(config: LlmConfig, variant: str) -> bool:
    """Show which model serves each role; returns True when any role runs on the offline model."""
    roles = role_models(config, variant)
    offline = any(is_off for _, is_off in roles.values())
    lines = [f"**{role}**: `{name}`" + (" (offline)" if off else "") for role, (name, off) in roles.items()]
    st.caption(" · ".join(lines))
    if offline:
        st.markdown(f":orange-badge[Offline model] {OFFLINE_NOTE}")
    return offline


def chips(answer: str, material: CourseMaterial, key: str,
          on_click: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
    ctx = chip_context(material)
    return render_chips(answer, ctx["units"], ctx["faqs"], key=key, on_click=on_click)


def trace_panel(traces: dict[str, Trace]) -> None:
    """Everything a run recorded, per pass, as is."""
    for name, trace in traces.items():
        data = trace.to_json()
        usage = data["usage"]
        est = " (estimated)" if usage["estimated"] else ""
        with st.expander(f"{name} pass · {usage['calls']} calls · {usage['prompt_tokens']}+"
                         f"{usage['completion_tokens']} tokens{est} · ${usage['cost']:.6f}", expanded=False):
            if data["info"]:
                st.json(data["info"], expanded=False)
            for w in data["warnings"]:
                st.warning(md_escape(w))
            for f in data["failures"]:
                st.error(md_escape(f"{f['kind']}: {f['message']} → {f['outcome']}"))
            for phase in data["phases"]:
                st.markdown(f"**{phase['name']}** · {phase['duration'] * 1000:.0f} ms · {phase['status']}")
                outputs = phase["outputs"]
                if "sources_json" in outputs:
                    st.code(outputs["sources_json"], language="json")
                if "prompt" in outputs:
                    st.code(outputs["prompt"], language="text")
                if "raw_output" in outputs:
                    st.caption("placement output (raw)")
                    st.code(outputs["raw_output"], language="markdown")
                rest = {k: v for k, v in outputs.items() if k not in ("sources_json", "prompt", "raw_output")}
                if rest:
                    st.json(rest, expanded=False)
            if data["calls"]:
                st.markdown("**model calls**")
                st.dataframe(
                    [{"task": c["task"], "seq": c["seq"], "model": f"{c['model_id']} ({c['model_name']})",
                      "variant": c["variant"], "offline": c["offline"], "start ms": round(c["started"] * 1000),
                      "ms": round(c["duration"] * 1000), "tokens in": c["prompt_tokens"],
                      "tokens out": c["completion_tokens"], "cost $": c["cost"], "output": c["output"][:120],
                      "error": c["error"]} for c in data["calls"]],
                    hide_index=True,
                )
                with st.popover("Prompts of every call"):
                    for c in data["calls"]:
                        st.caption(f"{c['task']} {c['seq'] or ''}")
                        st.code(c["prompt"], language="text")
            st.download_button("Download trace (JSON)", json.dumps(data, ensure_ascii=False, indent=1),
                               file_name=f"trace-{name}.json", mime="application/json", key=f"dl-{id(trace)}")
