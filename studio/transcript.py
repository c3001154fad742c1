"""The transcript panel beside the video, one Streamlit custom component (v2): cited cues lit up, playback followed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from citation_core.material.models import Cue
from citation_core.text import clock

HERE = Path(__file__).parent / "components"


@cache
def _component() -> Callable[..., Any]:
    import streamlit as st

    return st.components.v2.component(
        "citation_studio_transcript",
        css=(HERE / "transcript.css").read_text(encoding="utf-8"),
        js=(HERE / "transcript.js").read_text(encoding="utf-8"),
    )


def transcript_data(cues: Sequence[Cue], cited: Sequence[int], player: str) -> dict[str, Any]:
    """What the panel receives: the cues with their clock times, which are cited, and the player's key."""
    return {"cues": [{"start": c.start, "end": c.end, "time": clock(c.start), "text": c.text} for c in cues],
            "cited": list(cited), "player": player}


def transcript_panel(cues: Sequence[Cue], cited: Sequence[int], player: str, key: str) -> None:
    _component()(key=key, data=transcript_data(cues, cited, player))
